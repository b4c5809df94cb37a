/**
 * The RAG pipeline's configuration: plain, serialisable data (saved with eval runs, written into links), validated
 * with valibot. It never holds a secret: it names the provider, its base URL and the model, and API keys live
 * elsewhere (the key store). `parseRagConfig` refuses key-like fields and base URLs carrying credentials.
 */
import * as v from 'valibot';
import { RAG_RETRIEVAL_DEFAULTS, RAG_RETRIEVAL_SETTINGS, type RagRetrievalSettings } from '../settings/rag.ts';
import { objectSchema } from '../settings/schema.ts';
import { redactUrlForDisplay } from '../llm/redact.ts';
import type { ProviderId } from '../llm/types.ts';
import { ALL_PROVIDER_IDS, DEFAULT_PROVIDER, DEFAULT_PROVIDER_MODEL } from '../llm/provider-meta.ts';
import { blankWarning, isBlank, repeatedParamWarnings } from '../link-params.ts';

/** Query transforms applied before retrieval (ignored when `agentic` is on: the agent writes its own queries). */
export const TRANSFORMS = ['none', 'rewrite', 'multi_query', 'hyde', 'hyde_bm25'] as const;
export type QueryTransform = (typeof TRANSFORMS)[number];


/**
 * The pipeline's retrieval settings, declared in src/lib/settings/rag.ts (the search settings with the pipeline's
 * bounds): mode (overridden by the HyDE transforms: 'hyde' searches 'dense', 'hyde_bm25' searches 'rrf'), topK,
 * candidateK (also the depth of each query's list in multi-query fusion), seed A's separate k's, calibration,
 * rejectThreshold and dedup.
 */
export type RagRetrievalConfig = RagRetrievalSettings;

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

export const DEFAULT_MODEL = DEFAULT_PROVIDER_MODEL;

export const DEFAULT_RAG_CONFIG: Readonly<RagConfig> = deepFreeze({
  version: 1,
  retrieval: { ...RAG_RETRIEVAL_DEFAULTS },
  transform: { kind: 'none', n: 3 },
  rerank: { enabled: false, topN: 3 },
  window: 1,
  llm: { provider: DEFAULT_PROVIDER, baseUrl: null, model: DEFAULT_MODEL, temperature: 0, maxTokens: 1024 },
  agentic: false,
  grading: { perDocument: false, model: null },
} satisfies RagConfig);

/** Field names that look like secrets; a config holding one is refused, whatever its nesting. */
const SECRET_KEY = /^(api[-_]?keys?|secret|client[-_]?secret|password|passwd|authorization|auth[-_]?token|access[-_]?token|bearer|x[-_]?api[-_]?key)$/i;

const int = (lo: number, hi: number) =>
  v.pipe(
    v.number('must be a number'),
    v.integer('must be a whole number'),
    v.minValue(lo, `must be at least ${lo}`),
    v.maxValue(hi, `must be at most ${hi}`),
  );
const num = (lo: number, hi: number) =>
  v.pipe(v.number('must be a number'), v.finite('must be a finite number'), v.minValue(lo, `must be at least ${lo}`), v.maxValue(hi, `must be at most ${hi}`));
const bool = () => v.boolean('must be true or false');
const oneOf = <T extends string>(values: readonly T[]) => v.picklist(values, `must be one of ${values.join(', ')}`);

const D = DEFAULT_RAG_CONFIG;

const urlOf = (s: string): URL | null => {
  try {
    return new URL(s);
  } catch {
    return null;
  }
};

/** An http(s) URL without credentials (no user:password, no key-like query parameter). */
const BaseUrl = v.pipe(
  v.string('must be a URL string or null'),
  v.check((s) => ['https:', 'http:'].includes(urlOf(s)?.protocol ?? ''), 'must be an http(s) URL'),
  v.check((s) => !urlOf(s)?.username && !urlOf(s)?.password, 'must not contain a user name or password (keys never go in the config)'),
  v.check(
    (s) => ![...(urlOf(s)?.searchParams.keys() ?? [])].some((k) => /key|token|secret|auth|sig/i.test(k)),
    'must not carry a key or token in its query string (keys never go in the config)',
  ),
);

const unknownKey = 'is not a setting';

const modelName = v.pipe(v.string('must be a string'), v.trim(), v.minLength(1, 'must not be empty'), v.maxLength(200, 'must be at most 200 characters'));

export const RagConfigSchema = v.pipe(
  v.strictObject({
    version: v.optional(v.literal(1, 'must be 1'), 1),
    retrieval: v.optional(objectSchema(RAG_RETRIEVAL_SETTINGS, unknownKey), {}),
    transform: v.optional(
      v.strictObject({
        kind: v.optional(oneOf(TRANSFORMS), D.transform.kind),
        n: v.optional(int(1, 10), D.transform.n),
      }, unknownKey),
      {},
    ),
    rerank: v.optional(
      v.strictObject({
        enabled: v.optional(bool(), D.rerank.enabled),
        topN: v.optional(int(1, 50), D.rerank.topN),
      }, unknownKey),
      {},
    ),
    window: v.optional(int(0, 10), D.window),
    llm: v.optional(
      v.strictObject({
        provider: v.optional(oneOf(ALL_PROVIDER_IDS), D.llm.provider),
        baseUrl: v.optional(v.nullable(BaseUrl), D.llm.baseUrl),
        model: v.optional(modelName, D.llm.model),
        temperature: v.optional(num(0, 2), D.llm.temperature),
        maxTokens: v.optional(int(1, 32_768), D.llm.maxTokens),
      }, unknownKey),
      {},
    ),
    agentic: v.optional(bool(), D.agentic),
    grading: v.optional(
      v.strictObject({
        perDocument: v.optional(bool(), D.grading.perDocument),
        model: v.optional(v.nullable(modelName), D.grading.model),
      }, unknownKey),
      {},
    ),
  }, unknownKey),
  v.check(
    (c) => !c.rerank.enabled || c.rerank.topN <= (c.retrieval.topK as number),
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

const str = (s: string | number | boolean | null) => (s === null ? '' : String(s));
const toBool = (raw: string) => (raw === '1' || raw === 'true' ? true : raw === '0' || raw === 'false' ? false : (raw as unknown as boolean));
// Blank values never get here (fromUrlParams treats them as absent), so Number('') === 0 cannot slip through.
const toNum = (raw: string) => Number(raw);

const URL_FIELDS: readonly Field[] = [
  // The retrieval settings' parameters, from their declarations (settings/rag.ts).
  ...Object.entries(RAG_RETRIEVAL_SETTINGS).filter(([, d]) => d.url !== undefined).map(([key, d]): Field => ({
    param: d.url!,
    get: (c) => { const x = (c.retrieval as Record<string, string | number | boolean | null>)[key]!; return typeof x === 'boolean' ? (x ? '1' : '0') : str(x); },
    set: (c, r) => { (c.retrieval as Record<string, unknown>)[key] = d.type === 'boolean' ? toBool(r) : d.type === 'int' || d.type === 'number' ? toNum(r) : r; },
  })),
  { param: 'tx', get: (c) => c.transform.kind, set: (c, r) => { c.transform.kind = r as QueryTransform; } },
  { param: 'n', get: (c) => str(c.transform.n), set: (c, r) => { c.transform.n = toNum(r); } },
  { param: 'rr', get: (c) => (c.rerank.enabled ? '1' : '0'), set: (c, r) => { c.rerank.enabled = toBool(r); } },
  { param: 'rrn', get: (c) => str(c.rerank.topN), set: (c, r) => { c.rerank.topN = toNum(r); } },
  { param: 'w', get: (c) => str(c.window), set: (c, r) => { c.window = toNum(r); } },
  { param: 'prov', get: (c) => c.llm.provider, set: (c, r) => { c.llm.provider = r as ProviderId; } },
  { param: 'base', get: (c) => str(c.llm.baseUrl), set: (c, r) => { c.llm.baseUrl = r === '' ? null : r; }, blankIsValue: true },
  { param: 'model', get: (c) => c.llm.model, set: (c, r) => { c.llm.model = r; } },
  { param: 'temp', get: (c) => str(c.llm.temperature), set: (c, r) => { c.llm.temperature = toNum(r); } },
  { param: 'maxtok', get: (c) => str(c.llm.maxTokens), set: (c, r) => { c.llm.maxTokens = toNum(r); } },
  { param: 'agent', get: (c) => (c.agentic ? '1' : '0'), set: (c, r) => { c.agentic = toBool(r); } },
  { param: 'gdoc', get: (c) => (c.grading.perDocument ? '1' : '0'), set: (c, r) => { c.grading.perDocument = toBool(r); } },
  { param: 'gmodel', get: (c) => str(c.grading.model), set: (c, r) => { c.grading.model = r; } },
];

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
