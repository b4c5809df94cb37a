/**
 * The RAG pipeline's configuration: plain, serialisable data (saved with eval runs, written into links), validated
 * with valibot. It never holds a secret: it names the provider, its base URL and the model, and API keys live
 * elsewhere (the key store). `parseRagConfig` refuses key-like fields and base URLs carrying credentials.
 */
import * as v from 'valibot';
import { RAG_BLOCKS, RAG_SETTINGS, ragBlock, setValueAt, valueAt, type QueryTransform, type RagRetrievalSettings } from '../settings/rag.ts';
import { defaultsOf, objectSchema, valueSchema, valueText, type SettingsOf } from '../settings/schema.ts';
import { redactUrlForDisplay } from '../llm/redact.ts';
import type { ProviderId } from '../llm/types.ts';
import { blankWarning, isBlank, repeatedParamWarnings } from '../link-params.ts';

export { TRANSFORMS, type QueryTransform } from '../settings/rag.ts';

/**
 * The pipeline's retrieval settings, declared in src/lib/settings/rag.ts (the search settings with the pipeline's
 * bounds): mode (overridden by the HyDE transforms: 'hyde' searches 'dense', 'hyde_bm25' searches 'rrf'), topK,
 * candidateK (also the depth of each query's list in multi-query fusion), seed A's separate k's, calibration,
 * rejectThreshold and dedup.
 */
export type RagRetrievalConfig = RagRetrievalSettings;

/** Every field but `version` is declared in settings/rag.ts RAG_SETTINGS (type, default, bounds, link parameter, flag). */
export interface RagConfig {
  version: 1;
  retrieval: RagRetrievalConfig;
  /** `n`: variants for 'multi_query' (default 3); the original question is searched as well. */
  transform: { kind: QueryTransform; n: number };
  /** Cross-encoder rerank of the top_k passages, keeping `topN` (<= topK). Default off, topN 3. */
  rerank: { enabled: boolean; topN: number };
  /** Sentence window: each passage widened by this many sentences on each side (0 = the chunk as is). Default 1. */
  window: number;
  /** Which model answers. `baseUrl` null = the provider's default endpoint. Temperature default 0, maxTokens 1024. */
  llm: { provider: ProviderId; baseUrl: string | null; model: string; temperature: number; maxTokens: number };
  /** Agentic workflow (rewrite → retrieve → grade → generate → reflect, at most one extra round). Default off. */
  agentic: boolean;
  /**
   * The agentic grade step: all sources in one call (default), or one call per source (`perDocument`, seed C's
   * grader); `model` a second, smaller model at the same provider for those calls (null = the answering model).
   */
  grading: { perDocument: boolean; model: string | null };
}

/** The type at a path of an object (`At<RagConfig, 'rerank.topN'>` is number). */
type At<T, P extends string> = P extends `${infer A}.${infer B}` ? (A extends keyof T ? At<T[A], B> : never) : P extends keyof T ? T[P] : never;
// Fails to compile when a declared setting's type drifts from the config's field at its path.
const _sameAsConfig: { [P in keyof typeof RAG_SETTINGS]: At<RagConfig, P> } = {} as SettingsOf<typeof RAG_SETTINGS>;
void _sameAsConfig;

/** The config of values by path, nested (`{ 'rerank.topN': 3 }` → `{ rerank: { topN: 3 } }`). */
function nested(values: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, Record<string, unknown>> = {};
  for (const [path, x] of Object.entries(values)) {
    const block = path.split('.')[0]!;
    if (block !== path) out[block] ??= {};
    setValueAt(out, path, x);
  }
  return out;
}

export const DEFAULT_RAG_CONFIG: Readonly<RagConfig> = deepFreeze({ version: 1, ...nested(defaultsOf(RAG_SETTINGS)) } as RagConfig);

/** Field names that look like secrets; a config holding one is refused, whatever its nesting. */
const SECRET_KEY = /^(api[-_]?keys?|secret|client[-_]?secret|password|passwd|authorization|auth[-_]?token|access[-_]?token|bearer|x[-_]?api[-_]?key)$/i;

const unknownKey = 'is not a setting';

/** Each block a strict object of its declared settings, each optional with its default; the top-level settings beside them. */
const configEntries = RAG_BLOCKS.flatMap((block): Array<[string, v.GenericSchema]> => block === ''
  ? Object.entries(ragBlock('')).map(([k, s]) => [k, v.optional(valueSchema(s), s.default as never)])
  : [[block, v.optional(objectSchema(ragBlock(block), unknownKey), {})]]);

export const RagConfigSchema = v.pipe(
  v.strictObject({ version: v.optional(v.literal(1, 'must be 1'), 1), ...Object.fromEntries(configEntries) }, unknownKey),
  v.check(
    (c) => {
      const r = c as unknown as RagConfig;
      return !r.rerank.enabled || r.rerank.topN <= r.retrieval.topK;
    },
    'rerank.topN must not exceed retrieval.topK (the reranker reorders the top_k passages and keeps top_n)',
  ),
);

export type RagConfigParse = { ok: true; config: RagConfig } | { ok: false; errors: string[]; message: string };

/** Validates any input (defaults fill missing fields); errors name the field, say what is wrong and what was given. */
export function parseRagConfig(input: unknown): RagConfigParse {
  const secrets = secretPaths(input);
  if (secrets.length > 0) {
    const errors = secrets.map((p) => `${p}: API keys and other secrets never go in a RAG config (they stay in the key store); remove this field`);
    return { ok: false, errors, message: `Invalid RAG config: ${errors.join('; ')}` };
  }
  const r = v.safeParse(RagConfigSchema, input ?? {});
  if (r.success) return { ok: true, config: r.output as RagConfig };
  const errors = r.issues.map(describeIssue);
  return { ok: false, errors, message: `Invalid RAG config: ${errors.join('; ')}` };
}

function describeIssue(issue: v.BaseIssue<unknown>): string {
  const path = (issue.path ?? []).map((p) => String(p.key)).join('.');
  // Never echo a base URL back: a refused one may hold a credential.
  const got = issue.input === undefined ? 'nothing' : preview(issue.input);
  if (path === 'llm.baseUrl' && typeof issue.input === 'string') return `${path}: ${issue.message}`;
  if (issue.type === 'strict_object') {
    // Unknown key: valibot expects "never" there, and the path names the key.
    if (issue.expected === 'never') return `${path}: ${unknownKey} (unknown field)`;
    return `${path || 'config'}: must be an object, got ${got}`;
  }
  if (issue.type === 'check' && path === '') return issue.message;
  return `${path || 'config'}: ${issue.message}, got ${got}`;
}

function preview(x: unknown): string {
  if (typeof x === 'string') return JSON.stringify(redactUrlForDisplay(x, [], 60));
  if (x === null || typeof x !== 'object') return String(x);
  return Array.isArray(x) ? 'an array' : 'an object';
}

function secretPaths(x: unknown, prefix = ''): string[] {
  if (x === null || typeof x !== 'object') return [];
  const out: string[] = [];
  for (const [k, val] of Object.entries(x)) {
    const path = prefix ? `${prefix}.${k}` : k;
    if (SECRET_KEY.test(k)) out.push(path);
    else out.push(...secretPaths(val, path));
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------------------
// URL parameters. Keys shared with the Search tab (mode, k, ck, bk, dk, fk, cal, thr) mean the same there. Only non-default
// values are written, so links stay short.

/** `blankIsValue`: an empty value means something (`base=` is the provider's default endpoint), not "absent". */
type Field = { param: string; get: (c: RagConfig) => string; set: (c: RagConfig, raw: string) => void; blankIsValue?: true };

const toBool = (raw: string) => (raw === '1' || raw === 'true' ? true : raw === '0' || raw === 'false' ? false : (raw as unknown as boolean));

/**
 * Each declared setting with a link parameter (settings/rag.ts): null as blank, booleans as 1 / 0. A blank value of
 * a text setting that may be unset means unset (`base=`: the provider's endpoint); other blanks never get to `set`
 * (fromUrlParams treats them as absent), so Number('') === 0 cannot slip through. `parseRagConfig` checks the value.
 */
const URL_FIELDS: readonly Field[] = Object.entries(RAG_SETTINGS).filter(([, d]) => d.url !== undefined).map(([path, d]): Field => ({
  param: d.url!,
  get: (c) => { const x = valueAt(c, path); return x === null ? '' : valueText(x); },
  set: (c, r) => setValueAt(c, path, d.type === 'boolean' ? toBool(r) : d.type === 'int' || d.type === 'number' ? Number(r) : r === '' && d.nullMeans !== undefined ? null : r),
  ...(d.type === 'string' && d.nullMeans !== undefined ? { blankIsValue: true as const } : {}),
}));

/** The config as URL parameters (non-default values only). Never contains a key: the config has none. */
export function toUrlParams(c: RagConfig): URLSearchParams {
  const p = new URLSearchParams();
  const d = DEFAULT_RAG_CONFIG as RagConfig;
  for (const f of URL_FIELDS) {
    const value = f.get(c);
    if (value !== f.get(d)) p.set(f.param, value);
  }
  return p;
}

/**
 * Reads a config from URL parameters. Invalid values fall back to their defaults, blank ones count as absent
 * (never as 0), a parameter given twice keeps its first value — each with a warning; unknown parameters are
 * ignored (the page has its own, such as `q`).
 */
export function fromUrlParams(params: URLSearchParams | string): { config: RagConfig; warnings: string[] } {
  const p = typeof params === 'string' ? new URLSearchParams(params) : params;
  let config = cloneConfig(DEFAULT_RAG_CONFIG);
  const warnings = repeatedParamWarnings(p, URL_FIELDS.map((f) => f.param));
  for (const f of URL_FIELDS) {
    const raw = p.get(f.param);
    if (raw === null) continue;
    if (isBlank(raw) && !f.blankIsValue) { warnings.push(blankWarning(f.param, f.get(config) || 'the default')); continue; }
    const trial = cloneConfig(config);
    f.set(trial, raw);
    const r = parseRagConfig(trial);
    if (r.ok) config = r.config;
    // The refused value is shown with any credential it carries redacted (a link can put `user:key@` or `?key=` in it).
    else warnings.push(`Ignored ${f.param}="${redactUrlForDisplay(raw, [], 60)}" in the link: ${r.errors.join('; ')}.`);
  }
  return { config, warnings };
}

export function cloneConfig(c: Readonly<RagConfig>): RagConfig {
  return {
    version: 1,
    retrieval: { ...c.retrieval },
    transform: { ...c.transform },
    rerank: { ...c.rerank },
    window: c.window,
    llm: { ...c.llm },
    agentic: c.agentic,
    grading: { ...c.grading },
  };
}

function deepFreeze<T extends object>(o: T): T {
  for (const val of Object.values(o)) if (val && typeof val === 'object') deepFreeze(val as object);
  return Object.freeze(o);
}
