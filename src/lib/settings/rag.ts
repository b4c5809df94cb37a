/**
 * The RAG pipeline's settings, declared once, keyed by their path in a RagConfig (`retrieval.topK`, `rerank.topN`,
 * `window`): the retrieval block (the search settings of search.ts with the pipeline's bounds: at most 50 passages,
 * the sparse mode's rejection threshold, dedup), the query transform, the rerank, the sentence window, the answering
 * model, the agentic loop and its grading. DEFAULT_RAG_CONFIG, RagConfigSchema and the link parameters
 * (rag/config.ts), `ask`'s and `eval-ragbench --mode pipeline`'s flags with their help (cli/rag-flags.ts), the Ask
 * tab's bounds and Compare's descriptions derive from RAG_SETTINGS. A new pipeline setting: its field in RagConfig
 * (rag/config.ts, with its use) and one entry here.
 */
import * as v from 'valibot';
import { ALL_PROVIDER_IDS, DEFAULT_PROVIDER, DEFAULT_PROVIDER_MODEL } from '../llm/provider-meta.ts';
import { DEFAULT_REJECT_THRESHOLDS } from '../retrieval/rejection.ts';
import { DEFAULT_SEARCH } from '../retrieval/search-types.ts';
import { bool, int, num, oneOf, text, type Setting, type SettingsOf, type SettingsSchema } from './schema.ts';
import { SEARCH_SETTINGS } from './search.ts';

/** Query transforms applied before retrieval (ignored when `agentic` is on: the agent writes its own queries). */
export const TRANSFORMS = ['none', 'rewrite', 'multi_query', 'hyde', 'hyde_bm25'] as const;
export type QueryTransform = (typeof TRANSFORMS)[number];

export const RAG_RETRIEVAL_SETTINGS = Object.freeze({
  ...SEARCH_SETTINGS,
  topK: int({ ...SEARCH_SETTINGS.topK, default: SEARCH_SETTINGS.topK.default, min: 1, max: 50, describe: 'passages given to the model (before reranking)' }),
  rejectThreshold: num({
    default: DEFAULT_REJECT_THRESHOLDS[DEFAULT_SEARCH.mode], min: 0, max: 1, url: 'thr', flag: 'reject-threshold', meta: 'X',
    describe: "refuse to answer when the best passage's confidence is below this (0 disables)",
  }),
  dedup: bool({ default: DEFAULT_SEARCH.dedup, url: 'dedup', describe: 'at most one passage per document' }),
});

export type RagRetrievalSettings = SettingsOf<typeof RAG_RETRIEVAL_SETTINGS>;

const urlOf = (s: string): URL | null => {
  try {
    return new URL(s);
  } catch {
    return null;
  }
};

/** An http(s) URL without credentials (no user:password, no key-like query parameter): keys never go in a config. */
const BASE_URL = v.pipe(
  v.string('must be a URL string or null'),
  v.check((s) => ['https:', 'http:'].includes(urlOf(s)?.protocol ?? ''), 'must be an http(s) URL'),
  v.check((s) => !urlOf(s)?.username && !urlOf(s)?.password, 'must not contain a user name or password (keys never go in the config)'),
  v.check(
    (s) => ![...(urlOf(s)?.searchParams.keys() ?? [])].some((k) => /key|token|secret|auth|sig/i.test(k)),
    'must not carry a key or token in its query string (keys never go in the config)',
  ),
);
const MODEL_NAME = v.pipe(v.string('must be a string'), v.trim(), v.minLength(1, 'must not be empty'), v.maxLength(200, 'must be at most 200 characters'));
const MODEL_EXPECTS = 'a model name of 1 to 200 characters';

/** The rest of the pipeline, by path in RagConfig. The LLM's provider, model and endpoint are the shells' own flags (apiSetup checks them). */
const PIPELINE_SETTINGS = {
  'transform.kind': oneOf(TRANSFORMS, { default: 'none', url: 'tx', flag: 'transform', meta: 'T', label: 'transform', describe: 'query transform before retrieval (ignored by the agentic loop)' }),
  'transform.n': int({ default: 3, min: 1, max: 10, url: 'n', flag: 'variants', describe: "multi_query's variants (the question is searched as well)" }),
  'rerank.enabled': bool({ default: false, url: 'rr', describe: 'rerank the top_k passages with the cross-encoder' }),
  'rerank.topN': int({ default: 3, min: 1, max: 50, url: 'rrn', flag: 'rerank', describe: 'rerank with the cross-encoder and keep N passages, at most top_k (needs a reranker model)' }),
  window: int({ default: 1, min: 0, max: 10, url: 'w', flag: 'window', meta: 'W', describe: 'sentence window: each passage widened by W sentences on each side (0: the chunk as is)' }),
  'llm.provider': oneOf(ALL_PROVIDER_IDS, { default: DEFAULT_PROVIDER, url: 'prov', label: 'provider', describe: 'the provider of the answering model' }),
  'llm.baseUrl': text({
    default: null, nullMeans: "the provider's endpoint", url: 'base', check: BASE_URL, expects: 'an http(s) URL without credentials',
    describe: "the provider's endpoint (a local server's, for example)",
  }),
  'llm.model': text({ default: DEFAULT_PROVIDER_MODEL, url: 'model', check: MODEL_NAME, expects: MODEL_EXPECTS, describe: 'the answering model at the provider' }),
  'llm.temperature': num({ default: 0, min: 0, max: 2, url: 'temp', describe: "the answering model's temperature" }),
  'llm.maxTokens': int({ default: 1024, min: 1, max: 32_768, url: 'maxtok', describe: "the answer's length limit in tokens" }),
  agentic: bool({ default: false, url: 'agent', flag: 'agentic', describe: 'rewrite → retrieve → grade → generate → reflect (at most one extra round)' }),
  'grading.perDocument': bool({ default: false, url: 'gdoc', flag: 'grade-each', describe: 'with --agentic: one grading call per source instead of one for all' }),
  'grading.model': text({
    default: null, nullMeans: 'the answering model', url: 'gmodel', flag: 'grader-model', meta: 'M', check: MODEL_NAME, expects: MODEL_EXPECTS,
    describe: 'with --agentic: grade with this model at the same provider',
  }),
};

type Prefixed<P extends string, S> = { [K in keyof S & string as `${P}.${K}`]: S[K] };
const prefixed = <P extends string, S extends SettingsSchema>(prefix: P, schema: S): Prefixed<P, S> =>
  Object.fromEntries(Object.entries(schema).map(([k, s]) => [`${prefix}.${k}`, s])) as Prefixed<P, S>;

/** Every pipeline setting, by its path in RagConfig, in the order of the config (and of a link's parameters). */
export const RAG_SETTINGS = Object.freeze({ ...prefixed('retrieval', RAG_RETRIEVAL_SETTINGS), ...PIPELINE_SETTINGS });

/** The settings of one block of the config (`rerank` → { enabled, topN }), or the top-level ones (''). */
export function ragBlock(block: string): Record<string, Setting> {
  const out: Record<string, Setting> = {};
  for (const [path, s] of Object.entries(RAG_SETTINGS)) {
    const dot = path.indexOf('.');
    if ((dot < 0 ? '' : path.slice(0, dot)) === block) out[dot < 0 ? path : path.slice(dot + 1)] = s;
  }
  return out;
}

/** The blocks of the config, in order ('' holds the top-level settings). */
export const RAG_BLOCKS: readonly string[] = [...new Set(Object.keys(RAG_SETTINGS).map((p) => (p.includes('.') ? p.slice(0, p.indexOf('.')) : '')))];

/** A value at a path of a config (`rerank.topN`). */
export function valueAt(config: object, path: string): unknown {
  return path.split('.').reduce<unknown>((o, k) => (o as Record<string, unknown> | undefined)?.[k], config);
}
/** Sets a value at a path of a config, in place. */
export function setValueAt(config: object, path: string, value: unknown): void {
  const keys = path.split('.');
  const last = keys.pop()!;
  (keys.reduce<unknown>((o, k) => (o as Record<string, unknown>)[k], config) as Record<string, unknown>)[last] = value;
}
