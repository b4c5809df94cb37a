/**
 * Pipeline flags shared by `ask` and `eval-ragbench --mode pipeline`: every pipeline setting declared with a flag
 * (src/lib/settings/rag.ts RAG_SETTINGS: passages, seed A's k's, calibration, threshold, transform, window, rerank,
 * the agentic loop and its grading), their help and checks from the declarations; the whole config by `parseRagConfig`.
 */
import { cloneConfig, DEFAULT_RAG_CONFIG, parseRagConfig, type RagConfig } from '../src/lib/rag/config.ts';
import { pipelineModelNeeds } from '../src/lib/eval/core/pipeline-settings.ts';
import { PROVIDER_IDS } from '../src/lib/llm/registry.ts';
import { MODE_IDS } from '../src/lib/retrieval/modes.ts';
import { flagHelp, flagOptions, readFlags } from '../src/lib/settings/cli-flags.ts';
import { RAG_SETTINGS, setValueAt } from '../src/lib/settings/rag.ts';
import type { SettingsSchema } from '../src/lib/settings/schema.ts';
import { CliError } from './args.ts';
import { checkModelArgs, type ModelArgs } from './models.ts';

/** The pipeline's flagged settings but the retrieval mode: each shell names that flag (ask's --mode, eval-ragbench's --retrieval-mode). */
const PIPELINE_FLAGS: SettingsSchema = Object.fromEntries(Object.entries(RAG_SETTINGS).filter(([path, s]) => s.flag !== undefined && path !== 'retrieval.mode'));

export const RAG_FLAG_ARGS = flagOptions(PIPELINE_FLAGS);
export const RAG_FLAG_HELP = flagHelp(PIPELINE_FLAGS);
/** The flags that set the pipeline (eval-ragbench refuses them in validate mode). */
export const RAG_FLAG_NAMES: readonly string[] = Object.keys(RAG_FLAG_ARGS);

/** ask's and eval-ragbench --mode pipeline's flags: the pipeline's, the retrieval mode, the LLM and the models. */
export interface PipelineFlagValues extends ModelArgs {
  [flag: string]: string | boolean | undefined;
  retrieval?: string | undefined; 'retrieval-mode'?: string | undefined;
  provider?: string | undefined; model?: string | undefined; 'base-url'?: string | undefined;
}

/** Applies the flags given to `config` (in place), each checked against its declaration; flags not given leave the config's values. */
export function applyRagFlags(config: RagConfig, values: Readonly<Record<string, unknown>>): RagConfig {
  const given = readFlags(PIPELINE_FLAGS, values, (m) => new CliError(m));
  for (const [path, x] of Object.entries(given)) setValueAt(config, path, x);
  // --rerank N turns the rerank on and keeps N.
  if (given['rerank.topN'] !== undefined) config.rerank.enabled = true;
  for (const path of ['grading.perDocument', 'grading.model']) {
    if (given[path] !== undefined && given[path] !== false && !config.agentic) throw new CliError(`--${RAG_SETTINGS[path as 'grading.model'].flag} grades the agentic loop's sources: it needs --agentic`);
  }
  return config;
}

/**
 * The pipeline settings from the flags (the Ask tab's RagConfig), checked before any file is read or model loaded.
 * The retrieval mode: `retrieval` names its flag and value (ask's --mode), else eval-ragbench's --retrieval-mode or --retrieval.
 */
export function pipelineConfig(values: PipelineFlagValues, retrieval?: { flag: string; value: string | undefined }, tuned: Partial<RagConfig['retrieval']> = {}): RagConfig {
  const c = cloneConfig(DEFAULT_RAG_CONFIG);
  Object.assign(c.retrieval, tuned); // a tune's winner (--config): the flags given win over it
  if (values['retrieval-mode'] !== undefined && values.retrieval !== undefined) throw new CliError('give --retrieval-mode or --retrieval, not both');
  const r = retrieval ?? { flag: values['retrieval-mode'] !== undefined ? 'retrieval-mode' : 'retrieval', value: values['retrieval-mode'] ?? values.retrieval };
  if (r.value !== undefined) {
    if (!(MODE_IDS as readonly string[]).includes(r.value)) throw new CliError(`--${r.flag} must be one of ${MODE_IDS.join(', ')}, got "${r.value}"`);
    c.retrieval.mode = r.value as RagConfig['retrieval']['mode'];
  }
  applyRagFlags(c, values);
  if (values.provider && (PROVIDER_IDS as readonly string[]).includes(values.provider)) c.llm.provider = values.provider as RagConfig['llm']['provider'];
  if (values.model) c.llm.model = values.model;
  if (values['base-url']) c.llm.baseUrl = values['base-url'];
  const parsed = parseRagConfig(c);
  if (!parsed.ok) throw new CliError(parsed.message);
  // Model flags (dtype, --models-dir, the cache dir) are checked now, before any file is read.
  checkModelArgs(values, pipelineModelNeeds(parsed.config));
  return parsed.config;
}
