/**
 * Pipeline flags shared by `ask` and `eval-ragbench --mode pipeline`: how many passages, which query transform,
 * the sentence window, reranking and the agentic loop (and how it grades). Each is checked here; the whole config by `parseRagConfig`.
 */
import { cloneConfig, DEFAULT_RAG_CONFIG, parseRagConfig, TRANSFORMS, type QueryTransform, type RagConfig } from '../src/lib/rag/config.ts';
import { pipelineModelNeeds } from '../src/lib/eval/core/pipeline-settings.ts';
import { PROVIDER_IDS } from '../src/lib/llm/registry.ts';
import { MODE_IDS } from '../src/lib/retrieval/modes.ts';
import { flagHelp, readFlags } from '../src/lib/settings/cli-flags.ts';
import { SEPARATE_K_SETTINGS } from '../src/lib/settings/search.ts';
import { CliError, numberArg } from './args.ts';
import { checkModelArgs, type ModelArgs } from './models.ts';

/** Seed A's separate k's, for `search` and the pipeline: absent = candidate_k (search-types.ts). */
export const SEPARATE_K_ARGS = { 'bm25-k': { type: 'string' }, 'dense-k': { type: 'string' }, 'fusion-top-k': { type: 'string' } } as const;

export const SEPARATE_K_HELP = flagHelp(SEPARATE_K_SETTINGS);

/** The separate k's the flags give (null where absent), each checked against its declaration (settings/search.ts). */
export function separateKs(values: { 'bm25-k'?: string | undefined; 'dense-k'?: string | undefined; 'fusion-top-k'?: string | undefined }) {
  return { bm25K: null, denseK: null, fusionTopK: null, ...readFlags(SEPARATE_K_SETTINGS, values, (m) => new CliError(m)) };
}

export const RAG_FLAG_ARGS = {
  ...SEPARATE_K_ARGS,
  'top-k': { type: 'string' },
  transform: { type: 'string' },
  window: { type: 'string' },
  rerank: { type: 'string' },
  agentic: { type: 'boolean', default: false },
  'grade-each': { type: 'boolean', default: false },
  'grader-model': { type: 'string' },
} as const;

export const RAG_FLAG_HELP = `  --top-k N          passages given to the model (recall is @N in eval-ragbench)
${SEPARATE_K_HELP}
  --transform T      query transform: ${TRANSFORMS.join(', ')} (default none)
  --window W         sentence window ± W around each passage
  --rerank N         rerank with the cross-encoder and keep N passages (needs a reranker model)
  --agentic          rewrite → retrieve → grade → generate → reflect (at most one extra round)
  --grade-each       with --agentic: one grading call per source instead of one for all
  --grader-model M   with --agentic: grade with model M at the same provider (default: the answering model)`;

export interface RagFlagValues {
  'top-k'?: string | undefined;
  'bm25-k'?: string | undefined;
  'dense-k'?: string | undefined;
  'fusion-top-k'?: string | undefined;
  transform?: string | undefined;
  window?: string | undefined;
  rerank?: string | undefined;
  agentic?: boolean | undefined;
  'grade-each'?: boolean | undefined;
  'grader-model'?: string | undefined;
}

/** Applies the flags given to `config` (in place); flags not given leave the config's values. */
export function applyRagFlags(config: RagConfig, values: RagFlagValues): RagConfig {
  config.retrieval.topK = numberArg('top-k', values['top-k'], (n) => Number.isInteger(n) && n >= 1 && n <= 50, 'an integer in [1, 50]') ?? config.retrieval.topK;
  const ks = separateKs(values);
  for (const key of ['bm25K', 'denseK', 'fusionTopK'] as const) if (ks[key] !== null) config.retrieval[key] = ks[key];
  if (values.transform !== undefined) {
    if (!(TRANSFORMS as readonly string[]).includes(values.transform)) throw new CliError(`--transform must be one of ${TRANSFORMS.join(', ')}, got "${values.transform}"`);
    config.transform.kind = values.transform as QueryTransform;
  }
  config.window = numberArg('window', values.window, (n) => Number.isInteger(n) && n >= 0 && n <= 10, 'a whole number in [0, 10]') ?? config.window;
  const rerank = numberArg('rerank', values.rerank, (n) => Number.isInteger(n) && n > 0, 'a whole number > 0');
  if (rerank !== undefined) config.rerank = { enabled: true, topN: rerank };
  if (values.agentic) config.agentic = true;
  for (const f of ['grade-each', 'grader-model'] as const) {
    if (values[f] !== undefined && values[f] !== false && !config.agentic) throw new CliError(`--${f} grades the agentic loop's sources: it needs --agentic`);
  }
  if (values['grade-each']) config.grading.perDocument = true;
  if (values['grader-model'] !== undefined) config.grading.model = values['grader-model'];
  return config;
}

/** ask's and eval-ragbench --mode pipeline's flags: the shared ones, the retrieval mode and threshold, the LLM and the models. */
export interface PipelineFlagValues extends RagFlagValues, ModelArgs {
  retrieval?: string | undefined; 'retrieval-mode'?: string | undefined; 'reject-threshold'?: string | undefined;
  provider?: string | undefined; model?: string | undefined; 'base-url'?: string | undefined;
}

/**
 * The pipeline settings from the flags (the Ask tab's RagConfig), checked before any file is read or model loaded.
 * The retrieval mode: `retrieval` names its flag and value (ask's --mode), else eval-ragbench's --retrieval-mode or --retrieval.
 */
export function pipelineConfig(values: PipelineFlagValues, retrieval?: { flag: string; value: string | undefined }): RagConfig {
  const c = cloneConfig(DEFAULT_RAG_CONFIG);
  if (values['retrieval-mode'] !== undefined && values.retrieval !== undefined) throw new CliError('give --retrieval-mode or --retrieval, not both');
  const r = retrieval ?? { flag: values['retrieval-mode'] !== undefined ? 'retrieval-mode' : 'retrieval', value: values['retrieval-mode'] ?? values.retrieval };
  if (r.value !== undefined) {
    if (!(MODE_IDS as readonly string[]).includes(r.value)) throw new CliError(`--${r.flag} must be one of ${MODE_IDS.join(', ')}, got "${r.value}"`);
    c.retrieval.mode = r.value as RagConfig['retrieval']['mode'];
  }
  applyRagFlags(c, values);
  c.retrieval.rejectThreshold = numberArg('reject-threshold', values['reject-threshold'], (x) => x >= 0 && x <= 1, 'a number in [0, 1]') ?? c.retrieval.rejectThreshold;
  if (values.provider && (PROVIDER_IDS as readonly string[]).includes(values.provider)) c.llm.provider = values.provider as RagConfig['llm']['provider'];
  if (values.model) c.llm.model = values.model;
  if (values['base-url']) c.llm.baseUrl = values['base-url'];
  const parsed = parseRagConfig(c);
  if (!parsed.ok) throw new CliError(parsed.message);
  // Model flags (dtype, --models-dir, the cache dir) are checked now, before any file is read.
  checkModelArgs(values, pipelineModelNeeds(parsed.config));
  return parsed.config;
}
