/**
 * Query transforms: the LLM rewrites the question before retrieval.
 *   none         the question as is
 *   rewrite      one improved search query
 *   multi_query  n variants; the question and each variant are searched and the lists fused by RRF (k = 60)
 *   hyde         a hypothetical answer passage, whose embedding drives dense search
 *   hyde_bm25    the passage for dense search, the question for BM25, fused by RRF
 * Replies are parsed tolerantly (numbered or bulleted lists, JSON arrays, code fences, blank lines, preambles) and
 * cached by (transform, n, provider, model, question).
 */
import type { ChatMessage, ChatProvider, ChatRequest, ProviderId, TokenUsage } from '../llm/types.ts';
import type { QueryTransform, RagConfig } from './config.ts';

export const REWRITE_SYSTEM_PROMPT =
  'You turn a user question into one search query for a document search engine that combines keyword (BM25) and ' +
  'semantic search. Keep every name, date, number and technical term of the question, add the most useful ' +
  'synonyms, and drop filler words. Reply with the query only, on one line, without quotes or explanation.';

/** `{n}` is replaced by the number of variants. */
export const MULTI_QUERY_SYSTEM_PROMPT =
  'You write {n} different search queries for a document search engine, each one a different way to find ' +
  'passages that answer the user question: use other wordings, synonyms, related terms, or a narrower or broader ' +
  'angle. Keep the names, dates and numbers of the question. Reply with exactly {n} queries, one per line, ' +
  'numbered 1. to {n}., and nothing else.';

export const HYDE_SYSTEM_PROMPT =
  'Write a short passage (3 to 5 sentences) that could appear in a document answering the user question. Write ' +
  'it in the style of that document and state plausible facts directly, without hedging and without saying that ' +
  'it is hypothetical. Reply with the passage only.';

/** Bump when a prompt above changes, so cached transforms from the old prompt are not reused. */
export const TRANSFORM_PROMPT_VERSION = 1;

const MAX_TOKENS: Record<Exclude<QueryTransform, 'none'>, number> = { rewrite: 128, multi_query: 400, hyde: 400, hyde_bm25: 400 };

export const fillPrompt = (template: string, vars: Record<string, string | number>): string =>
  template.replace(/\{(\w+)\}/g, (m, k: string) => (k in vars ? String(vars[k]) : m));

export const questionMessage = (question: string): ChatMessage => ({ role: 'user', content: `Question: ${question}` });

// ---------------------------------------------------------------------------------------------------------------
// Cache

/** The LLM steps whose output is cached. */
export type CachedStep = Exclude<QueryTransform, 'none'> | 'agentic_rewrite';

export interface TransformCacheKey {
  transform: CachedStep;
  /** Variants asked for ('multi_query', 'agentic_rewrite'); 1 otherwise. */
  n: number;
  provider: ProviderId;
  model: string;
  question: string;
}

export interface CachedTransform {
  queries: string[];
  passage: string | null;
}

/**
 * Where transform outputs are kept (in memory here; IndexedDB in the page). `get` answers `{ dropped: why }` for
 * a stored entry it could not use (wrong shape): a miss the transform's note explains.
 */
export interface TransformCache {
  get(key: TransformCacheKey): Promise<CachedTransform | { dropped: string } | undefined>;
  set(key: TransformCacheKey, value: CachedTransform): Promise<void>;
}

/** A stable string for a key (includes the prompt version). */
export function transformCacheKey(k: TransformCacheKey): string {
  return JSON.stringify([TRANSFORM_PROMPT_VERSION, k.transform, k.n, k.provider, k.model, k.question]);
}

/** In-memory cache, least recently used entries dropped beyond `maxEntries`. */
export class MemoryTransformCache implements TransformCache {
  private readonly map = new Map<string, CachedTransform>();
  constructor(readonly maxEntries = 500) {}

  get size(): number {
    return this.map.size;
  }

  async get(key: TransformCacheKey): Promise<CachedTransform | undefined> {
    const k = transformCacheKey(key);
    const v = this.map.get(k);
    if (v === undefined) return undefined;
    this.map.delete(k);
    this.map.set(k, v);
    return { queries: [...v.queries], passage: v.passage };
  }

  async set(key: TransformCacheKey, value: CachedTransform): Promise<void> {
    const k = transformCacheKey(key);
    this.map.delete(k);
    this.map.set(k, { queries: [...value.queries], passage: value.passage });
    while (this.map.size > this.maxEntries) this.map.delete(this.map.keys().next().value!);
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Parsing replies

/** Removes a Markdown code fence around the reply (```json … ```), if any. */
export function stripFences(s: string): string {
  const m = /^\s*```[\w-]*\s*\n?([\s\S]*?)\n?\s*```\s*$/.exec(s);
  return (m ? m[1]! : s).trim();
}

const BULLET = /^\s*(?:[-*•·+–]\s+|\(?\d{1,2}\s*[.):\]](?!\d)\s*|\d{1,2}\s+[-–]\s+|(?:query|q|variant)\s*#?\d*\s*[:.)]\s*)/i;

/** One line of a list reply, without its bullet, number, label, Markdown emphasis or quotes. */
function cleanLine(line: string): string {
  let s = line.trim();
  for (let i = 0; i < 3; i++) {
    const next = s.replace(BULLET, '').trim();
    if (next === s) break;
    s = next;
  }
  s = s.replace(/,\s*$/, '').trim();
  s = s.replace(/^\*\*(.*)\*\*$/, '$1').replace(/^__(.*)__$/, '$1').trim();
  s = s.replace(/^["'“‘`«](.*)["'”’`»]$/, '$1').trim();
  return s;
}

const isPreamble = (line: string) => /:\s*$/.test(line) || /^(here (are|is)|sure\b|certainly\b|okay\b|ok,)/i.test(line);

function jsonStrings(x: unknown): string[] | null {
  if (typeof x === 'string') return [x];
  if (Array.isArray(x)) {
    const out = x.flatMap((e) => {
      if (typeof e === 'string') return [e];
      if (e && typeof e === 'object') {
        const v = (e as Record<string, unknown>).query ?? (e as Record<string, unknown>).text ?? (e as Record<string, unknown>).question;
        return typeof v === 'string' ? [v] : [];
      }
      return [];
    });
    return out.length > 0 ? out : null;
  }
  if (x && typeof x === 'object') {
    for (const v of Object.values(x)) {
      const r = jsonStrings(v);
      if (r) return r;
    }
  }
  return null;
}

/**
 * The JSON value of a reply: the whole reply, a fenced block anywhere in it, or the span from the first `{` to the
 * last `}`; null when none parses. A bare `[…]` inside prose is not taken (it is more often a citation than JSON).
 */
export function parseJsonLoose(s: string): unknown {
  const tries = [stripFences(s)];
  const fenced = /```[\w-]*\s*\n?([\s\S]*?)```/.exec(s);
  if (fenced) tries.push(fenced[1]!.trim());
  const a = s.indexOf('{'), b = s.lastIndexOf('}');
  if (a >= 0 && b > a) tries.push(s.slice(a, b + 1));
  for (const candidate of tries) {
    try {
      return JSON.parse(candidate);
    } catch {
      // next
    }
  }
  return null;
}

function dedupe(list: readonly string[]): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const q of list) {
    const s = q.trim().replace(/\s+/g, ' ');
    const key = s.toLowerCase();
    if (s === '' || seen.has(key)) continue;
    seen.add(key);
    out.push(s);
  }
  return out;
}

/** The queries of a list reply (JSON array or object holding one, numbered or bulleted lines), at most `max`. */
export function parseQueryList(reply: string, max: number): string[] {
  const json = /^\s*(```[\w-]*\s*)?[[{]/.test(reply) ? jsonStrings(parseJsonLoose(reply)) : null;
  if (json) return dedupe(json.map(cleanLine)).slice(0, max);
  const lines = stripFences(reply)
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l !== '' && !isPreamble(l))
    .map(cleanLine)
    .filter((l) => /[\p{L}\p{N}]/u.test(l));
  return dedupe(lines).slice(0, max);
}

/** The query of a one-query reply: the first meaningful line, without a label such as "Query:" or quotes. */
export function parseSingleQuery(reply: string): string {
  const json = /^\s*(```[\w-]*\s*)?[[{"]/.test(reply) ? jsonStrings(parseJsonLoose(reply)) : null;
  if (json?.[0]) return cleanLine(json[0]);
  for (const raw of stripFences(reply).split(/\r?\n/)) {
    const line = raw.trim().replace(/^(?:(?:rewritten|improved|search|new)\s+)?query\s*:\s*/i, '');
    if (line === '' || isPreamble(line)) continue;
    const q = cleanLine(line);
    if (/[\p{L}\p{N}]/u.test(q)) return q.replace(/\s+/g, ' ');
  }
  return '';
}

/** The passage of a HyDE reply, without a fence or a leading label such as "Passage:". */
export function parsePassage(reply: string): string {
  return stripFences(reply).replace(/^(?:hypothetical\s+)?(?:passage|document|answer)\s*:\s*/i, '').trim();
}

// ---------------------------------------------------------------------------------------------------------------
// The transform stage

export interface TransformOutput {
  kind: QueryTransform;
  /** What to search: one query, or several fused by RRF. BM25 always sees these. */
  queries: string[];
  /** HyDE: the hypothetical passage whose embedding drives dense search. */
  passage: string | null;
  cached: boolean;
  llmCalls: number;
  usage: TokenUsage | null;
  /** The model's raw reply (null when none was asked for). */
  raw: string | null;
  /** Set when the reply was unusable and the question was searched instead. */
  note?: string;
}

/** The request a transform sends (exported so tests and the trace can show it exactly). */
export function transformRequest(kind: Exclude<QueryTransform, 'none'>, question: string, config: RagConfig): ChatRequest {
  const system = kind === 'rewrite'
    ? REWRITE_SYSTEM_PROMPT
    : kind === 'multi_query'
      ? fillPrompt(MULTI_QUERY_SYSTEM_PROMPT, { n: config.transform.n })
      : HYDE_SYSTEM_PROMPT;
  return {
    model: config.llm.model,
    messages: [{ role: 'system', content: system }, questionMessage(question)],
    temperature: config.llm.temperature,
    maxTokens: MAX_TOKENS[kind],
  };
}

/** Runs the configured transform of `question` (through `cache` when given). */
export async function transformQuery(
  question: string,
  config: RagConfig,
  provider: ChatProvider,
  opts: { cache?: TransformCache; signal?: AbortSignal } = {},
): Promise<TransformOutput> {
  const kind = config.transform.kind;
  const base = { kind, cached: false, llmCalls: 0, usage: null, raw: null };
  if (kind === 'none') return { ...base, queries: [question], passage: null };
  const key: TransformCacheKey = {
    transform: kind, n: kind === 'multi_query' ? config.transform.n : 1, provider: provider.id, model: config.llm.model, question,
  };
  const hit = await opts.cache?.get(key);
  if (hit && !('dropped' in hit)) return { ...base, ...hit, cached: true };

  const req = transformRequest(kind, question, config);
  const res = await provider.chat(opts.signal ? { ...req, signal: opts.signal } : req);
  const out: TransformOutput = { ...base, queries: [question], passage: null, llmCalls: 1, usage: res.usage, raw: res.text };
  if (kind === 'rewrite') {
    const q = parseSingleQuery(res.text);
    if (q) out.queries = [q];
    else out.note = 'The rewrite reply held no query; the question was searched instead.';
  } else if (kind === 'multi_query') {
    const variants = parseQueryList(res.text, config.transform.n);
    out.queries = dedupe([question, ...variants]);
    if (variants.length === 0) out.note = 'The reply held no query variants; only the question was searched.';
  } else {
    const p = parsePassage(res.text);
    if (p) out.passage = p;
    else out.note = 'The HyDE reply was empty; the question was embedded instead.';
  }
  // Only usable replies are cached.
  if (!out.note && res.finishReason !== 'aborted') await opts.cache?.set(key, { queries: out.queries, passage: out.passage });
  if (hit && 'dropped' in hit) out.note = out.note ? `${out.note} ${hit.dropped}` : hit.dropped;
  return out;
}
