/**
 * A test set written by an LLM for the tuner: a seeded sample of the knowledge base's chunks, spread over the
 * documents (`sampleTestSetChunks`), and for each chunk ONE question the user's provider writes from it
 * (`testSetMessages`, versioned as `TESTSET_PROMPT_VERSION`; a JSON reply). The gold of a question is its chunk's
 * document with relevance 1 (the tuner judges documents); the chunk id is kept beside it.
 *
 * A reply is dropped, and counted, when it is
 * - junk: no JSON object, the wrong shape, or a question empty or over 500 characters (after trimming);
 * - unanswerable: `"answerable": false` (the chunk holds no fact worth asking about);
 * - copied: the question shares a run of `COPY_SPAN_WORDS` (8) or more consecutive words with its chunk, the words
 *   compared lowercased with punctuation stripped (letters and digits only), so a question that lifts a sentence is
 *   not kept (it would favour lexical matching, as pseudo-queries do);
 * - a duplicate: the same question (case and white space folded) as an earlier chunk's, in sample order.
 *
 * Every reply is cached before it is parsed, under `replyCacheKey` (SHA-256 of the chunk text, provider, model and
 * prompt version), junk included (it is the model's answer): a run stopped by Cancel, a 429 or a broken provider
 * resumes from the cache and never pays for a chunk twice. `estimateLlmTestSet` is the cost before starting.
 */
import * as v from 'valibot';
import { sha256Hex } from '../checksum.ts';
import type { BeirQuery, Qrels } from '../data/beir.ts';
import { estimateMessageTokens, estimateRun, type Price, type RunEstimate } from '../eval/core/cost.ts';
import { extractJson } from '../eval/metrics/judge.ts';
import type { ChatMessage, ChatProvider } from '../llm/types.ts';
import { seededRandom } from '../random.ts';
import type { KnowledgeBase } from '../retrieval/knowledge-base.ts';

export const TESTSET_PROMPT_VERSION = 'testset-v1';
/** Query ids are `llm:<chunk id>`, apart from any real test set's and from pseudo-queries'. */
export const LLM_QUERY_PREFIX = 'llm:';
/** A question sharing this many consecutive words with its chunk is dropped as copied. */
export const COPY_SPAN_WORDS = 8;
/** Chunks with fewer words than this are not sampled (too little to ask about). */
export const MIN_CHUNK_WORDS = 20;
/** The chunk text is cut to this many characters in the prompt. */
export const PROMPT_CHUNK_CHARS = 4000;
/** Longest question kept (characters, after trimming). */
export const MAX_QUESTION_CHARS = 500;
/** Output tokens assumed per call in the estimate (a one-question JSON object). */
export const TESTSET_OUTPUT_TOKENS = 40;
/** The reply's token cap on each call. */
export const TESTSET_MAX_TOKENS = 200;
/** Calls in flight at once. */
export const DEFAULT_TESTSET_CONCURRENCY = 2;

export const TESTSET_SYSTEM_PROMPT =
  'You write test questions for a search engine. Given a passage, write ONE question that a user of a search engine ' +
  'might type and that the passage answers. Write the question in the language of the passage. Do not copy sentences ' +
  'from the passage: ask in your own words. Reply with a JSON object only: {"question": string, "answerable": boolean}. ' +
  'Set "answerable" to false when the passage holds no fact worth asking about (boilerplate, a table of contents, ' +
  'a list of references).';

/** The prompt for one chunk: the system prompt above and the chunk (cut to `PROMPT_CHUNK_CHARS`). */
export function testSetMessages(chunkText: string): ChatMessage[] {
  return [
    { role: 'system', content: TESTSET_SYSTEM_PROMPT },
    { role: 'user', content: `Passage:\n${chunkText.slice(0, PROMPT_CHUNK_CHARS)}\n\nReply with the JSON object only.` },
  ];
}

export interface TestSetChunk {
  chunkId: string;
  docId: string;
  text: string;
}

const wordCount = (s: string) => s.split(/\s+/).filter(Boolean).length;

function shuffle<T>(xs: T[], rand: () => number): T[] {
  for (let i = xs.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [xs[i], xs[j]] = [xs[j]!, xs[i]!];
  }
  return xs;
}

/**
 * `n` chunks spread over the documents: the documents in a seeded order, each document's chunks (of at least
 * `MIN_CHUNK_WORDS` words) in a seeded order; one chunk of each document in turn, then a second round, … until `n`
 * or the chunks run out. The same for the same seed.
 */
export function sampleTestSetChunks(kb: KnowledgeBase, n: number, seed: number): TestSetChunk[] {
  if (!(Number.isInteger(n) && n >= 1)) throw new RangeError(`LLM test set: ask for at least 1 question, got ${n}`);
  const rand = seededRandom(seed);
  const byDoc = new Map<number, number[]>();
  for (let i = 0; i < kb.size; i++) {
    if (wordCount(kb.itemText(i)) < MIN_CHUNK_WORDS) continue;
    const d = kb.docIndexOf(i);
    const list = byDoc.get(d);
    if (list) list.push(i); else byDoc.set(d, [i]);
  }
  const pools = shuffle([...byDoc.keys()].sort((a, b) => a - b), rand).map((d) => shuffle(byDoc.get(d)!, rand));
  const out: TestSetChunk[] = [];
  for (let round = 0; out.length < n && pools.some((p) => p.length > round); round++) {
    for (const p of pools) {
      if (out.length >= n) break;
      const i = p[round];
      if (i !== undefined) out.push({ chunkId: kb.itemId(i), docId: kb.docOf(i).id, text: kb.itemText(i) });
    }
  }
  return out;
}

export type QuestionReply = { kind: 'ok'; question: string } | { kind: 'junk' | 'unanswerable' | 'copied'; reason: string };

const ReplySchema = v.object({
  question: v.pipe(v.string(), v.trim(), v.minLength(1, 'the question is empty'), v.maxLength(MAX_QUESTION_CHARS, `the question is over ${MAX_QUESTION_CHARS} characters`)),
  answerable: v.optional(v.boolean(), true),
});

/** Lowercased words, punctuation stripped: runs of letters and digits. */
export const copyWords = (s: string): string[] => s.toLowerCase().split(/[^\p{L}\p{N}]+/u).filter(Boolean);

/** The longest run of consecutive words the question shares with the chunk (words as `copyWords` reads them). */
export function sharedRun(question: string, chunkText: string): number {
  const q = copyWords(question), c = copyWords(chunkText);
  let best = 0;
  let prev = new Array<number>(c.length + 1).fill(0);
  for (let i = 1; i <= q.length; i++) {
    const row = new Array<number>(c.length + 1).fill(0);
    for (let j = 1; j <= c.length; j++) {
      if (q[i - 1] === c[j - 1]) { row[j] = prev[j - 1]! + 1; if (row[j]! > best) best = row[j]!; }
    }
    prev = row;
  }
  return best;
}

/** A model's reply read as the question for `chunkText`, or why it is dropped. */
export function parseQuestionReply(text: string, chunkText: string): QuestionReply {
  const json = extractJson(text);
  if (json.error !== null) return { kind: 'junk', reason: json.error };
  const value = json.value;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return { kind: 'junk', reason: 'the reply is not a JSON object' };
  if ((value as Record<string, unknown>)['answerable'] === false) return { kind: 'unanswerable', reason: 'the model marked the passage unanswerable' };
  const parsed = v.safeParse(ReplySchema, value, { abortPipeEarly: true });
  if (!parsed.success) {
    const issue = parsed.issues[0];
    const where = issue.path?.map((p) => String(p.key)).join('.');
    return { kind: 'junk', reason: where ? `${where}: ${issue.message}` : issue.message };
  }
  const question = parsed.output.question;
  const run = sharedRun(question, chunkText);
  if (run >= COPY_SPAN_WORDS) return { kind: 'copied', reason: `the question shares ${run} consecutive words with the passage` };
  return { kind: 'ok', question };
}

/** The cost of asking for a question on each chunk, before starting (chars/4 tokens, `TESTSET_OUTPUT_TOKENS` out). */
export function estimateLlmTestSet(chunks: readonly TestSetChunk[], price: Price): RunEstimate {
  return estimateRun(chunks.map((c) => estimateMessageTokens(testSetMessages(c.text))), { outputTokensPerCall: TESTSET_OUTPUT_TOKENS, price });
}

/** Where replies are kept between runs (IndexedDB in the tab, a file in the CLI, memory in tests). */
export interface TestSetReplyCache {
  get(key: string): Promise<string | null>;
  set(key: string, reply: string): Promise<void>;
}

export function memoryReplyCache(): TestSetReplyCache & { readonly size: number } {
  const map = new Map<string, string>();
  return {
    get: async (key) => map.get(key) ?? null,
    set: async (key, reply) => { map.set(key, reply); },
    get size() { return map.size; },
  };
}

/** SHA-256 hex of the chunk text, provider, model and prompt version, joined by NUL characters. */
export function replyCacheKey(chunkText: string, provider: string, model: string): Promise<string> {
  return sha256Hex([chunkText, provider, model, TESTSET_PROMPT_VERSION].join('\u0000'));
}

export interface LlmTestSetProgress {
  /** Chunks settled, in sample order. */
  done: number;
  total: number;
  written: number;
  dropped: number;
  cached: number;
}

export interface LlmTestSetInput {
  kb: KnowledgeBase;
  n: number;
  seed: number;
  provider: ChatProvider;
  /** The provider's id in the cache key and the provenance (e.g. 'groq', or a custom endpoint's name). */
  providerId: string;
  model: string;
  cache?: TestSetReplyCache;
  concurrency?: number;
  signal?: AbortSignal;
  onProgress?: (p: LlmTestSetProgress) => void;
}

export interface LlmTestSetCounts {
  /** Chunks sampled (one question asked of each). */
  asked: number;
  written: number;
  junk: number;
  unanswerable: number;
  copied: number;
  duplicate: number;
  /** Replies taken from the cache (no call made). */
  cached: number;
}

export interface LlmTestSet {
  queries: BeirQuery[];
  qrels: Qrels;
  /** Query id → the chunk id it was written from. */
  chunks: Record<string, string>;
  provenance: { kind: 'llm'; provider: string; model: string; promptVersion: string; seed: number; asked: number };
  counts: LlmTestSetCounts;
  /** Calls made in this run and the tokens the provider reported for them (0 when it reports none). */
  usage: { calls: number; inputTokens: number; outputTokens: number };
  notes: string[];
}

const fold = (s: string) => s.toLowerCase().replace(/\s+/g, ' ').trim();
const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/** A run stopped by a provider failure: what was kept, and that running again resumes. */
export class LlmTestSetError extends Error {
  override readonly name = 'LlmTestSetError';
  constructor(message: string, readonly written: number, readonly cachedReplies: number) { super(message); }
}

/**
 * Writes the test set: `n` chunks sampled, one question asked of each through the provider (or taken from the cache),
 * the replies filtered as the header says. A provider failure (after its own retries) stops the run once the calls in
 * flight settle (their replies cached) and throws `LlmTestSetError` saying what was kept; Cancel rethrows the abort
 * reason as is.
 */
export async function writeLlmTestSet(input: LlmTestSetInput): Promise<LlmTestSet> {
  const { kb, n, seed, provider, providerId, model, cache, signal, onProgress } = input;
  const concurrency = input.concurrency ?? DEFAULT_TESTSET_CONCURRENCY;
  if (!(Number.isInteger(concurrency) && concurrency >= 1)) throw new RangeError(`LLM test set: concurrency must be a whole number ≥ 1, got ${concurrency}`);
  signal?.throwIfAborted();
  const chunks = sampleTestSetChunks(kb, n, seed);
  const counts: LlmTestSetCounts = { asked: chunks.length, written: 0, junk: 0, unanswerable: 0, copied: 0, duplicate: 0, cached: 0 };
  const usage = { calls: 0, inputTokens: 0, outputTokens: 0 };
  const queries: BeirQuery[] = [];
  const qrels: Qrels = new Map();
  const chunkOf: Record<string, string> = {};
  const seen = new Set<string>();
  const outcomes: (QuestionReply | undefined)[] = new Array(chunks.length);
  let settled = 0; // outcomes folded into the set, in sample order (so duplicates are decided the same every run)
  let stored = 0; // replies in the cache for this run's chunks (hits and new)

  const fill = () => {
    while (settled < chunks.length && outcomes[settled] !== undefined) {
      const r = outcomes[settled]!, c = chunks[settled]!;
      settled++;
      if (r.kind !== 'ok') { counts[r.kind]++; continue; }
      const key = fold(r.question);
      if (seen.has(key)) { counts.duplicate++; continue; }
      seen.add(key);
      const id = `${LLM_QUERY_PREFIX}${c.chunkId}`;
      queries.push({ id, text: r.question });
      qrels.set(id, new Map([[c.docId, 1]]));
      chunkOf[id] = c.chunkId;
      counts.written++;
    }
    const dropped = counts.junk + counts.unanswerable + counts.copied + counts.duplicate;
    onProgress?.({ done: settled, total: chunks.length, written: counts.written, dropped, cached: counts.cached });
  };

  const ask = async (c: TestSetChunk): Promise<string> => {
    const key = cache ? await replyCacheKey(c.text, providerId, model) : '';
    const hit = cache ? await cache.get(key) : null;
    if (hit !== null) { counts.cached++; stored++; return hit; }
    const messages = testSetMessages(c.text);
    const reply = await provider.chat({ messages, model, json: true, temperature: 0, maxTokens: TESTSET_MAX_TOKENS, ...(signal ? { signal } : {}) });
    usage.calls++;
    usage.inputTokens += reply.usage?.inputTokens ?? 0;
    usage.outputTokens += reply.usage?.outputTokens ?? 0;
    if (reply.partial) {
      signal?.throwIfAborted();
      throw new Error(`the reply was cut short${reply.interruptionMessage ? ` (${reply.interruptionMessage})` : ''}`);
    }
    if (cache) { await cache.set(key, reply.text); stored++; } // a whole reply is kept even when Cancel came meanwhile
    return reply.text;
  };

  let next = 0;
  const stop: { error?: unknown; failed: boolean } = { failed: false };
  const worker = async () => {
    while (!stop.failed && next < chunks.length) {
      const at = next++;
      try {
        signal?.throwIfAborted();
        const c = chunks[at]!;
        outcomes[at] = parseQuestionReply(await ask(c), c.text);
        fill();
      } catch (e) {
        if (!stop.failed) Object.assign(stop, { failed: true, error: e });
      }
    }
  };
  fill();
  await Promise.all(Array.from({ length: Math.min(concurrency, Math.max(1, chunks.length)) }, worker));

  if (stop.failed) {
    if (signal?.aborted) throw signal.reason;
    const error = stop.error;
    // Questions written so far, counting replies that came back out of order too (what a rerun keeps at once).
    const pending = outcomes.slice(settled).filter((r) => r?.kind === 'ok').length;
    const written = counts.written + pending;
    const said = error instanceof Error ? error.message : String(error);
    const why = /[.!?]$/.test(said.trim()) ? said.trim() : `${said.trim()}.`;
    throw new LlmTestSetError(
      `The LLM test set stopped: ${why} ${plural(written, 'question was', 'questions were')} written so far and ` +
        `${plural(stored, 'reply is', 'replies are')} cached` +
        (cache ? '; running again resumes from the cache (no chunk is paid for twice).' : ' (no cache was given, so a rerun asks again).'),
      written, stored,
    );
  }

  const notes: string[] = [];
  if (chunks.length < n) notes.push(`only ${plural(chunks.length, 'chunk has', 'chunks have')} at least ${MIN_CHUNK_WORDS} words: ${chunks.length} asked, not ${n}`);
  if (counts.junk) notes.push(`${plural(counts.junk, 'reply was', 'replies were')} not a JSON question: dropped`);
  if (counts.unanswerable) notes.push(`${plural(counts.unanswerable, 'chunk was', 'chunks were')} marked unanswerable by the model: dropped`);
  if (counts.copied) notes.push(`${plural(counts.copied, 'question copied', 'questions copied')} ${COPY_SPAN_WORDS} or more consecutive words of its chunk: dropped`);
  if (counts.duplicate) notes.push(`${plural(counts.duplicate, 'question repeated', 'questions repeated')} an earlier one: dropped`);
  return {
    queries, qrels, chunks: chunkOf,
    provenance: { kind: 'llm', provider: providerId, model, promptVersion: TESTSET_PROMPT_VERSION, seed, asked: chunks.length },
    counts, usage, notes,
  };
}
