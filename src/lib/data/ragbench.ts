/**
 * RAGBench (Friel et al. 2024, `rungalileo/ragbench` on the Hugging Face Hub): RAG answers with TRACe gold labels
 * and the scores of other evaluators on the same rows. One row per (question, documents, response); the key is
 * (id, generation_model_name), since some subsets answer one question with two generator models.
 *
 * Two sources, one row schema (valibot): JSON Lines files (`parseRagbenchJsonl`, one row a line, as in the dataset's
 * own export) and the Hub's dataset viewer (`loadRagbenchFromHub`). Malformed rows are skipped and reported with
 * the subset and line (or viewer row index) and what is wrong; whole-input problems (nothing parsable, a failed
 * request) throw `RagbenchError`.
 */
import * as v from 'valibot';
import { readBoundedJson } from '../hub/bounded-read.ts';
import { DownloadLimitError } from '../hub/download-limits.ts';
import { HubUnreachableError, hostOf, isNetworkError, onOrigin } from '../hub/hub-reach.ts';

export const RAGBENCH_DATASET = 'rungalileo/ragbench';

/** The seven test subsets used here; the Hub dataset has more (cuad, finqa, pubmedqa, tatqa, techqa). */
export const RAGBENCH_SUBSETS = ['covidqa', 'delucionqa', 'emanual', 'expertqa', 'hagrid', 'hotpotqa', 'msmarco'] as const;

export class RagbenchError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RagbenchError';
  }
}

const Id = v.union([v.string(), v.pipe(v.number(), v.transform(String))]);
const Str = v.string();
const Strings = v.array(v.string());
const Keyed = v.tuple([v.string(), v.string()]);
/** A score column: a number, or null where that evaluator gave none. */
const Score = v.nullable(v.number());

const SupportInfo = v.object({
  response_sentence_key: v.string(),
  explanation: v.optional(v.nullable(v.string()), ''),
  supporting_sentence_keys: v.optional(v.nullable(Strings), []),
  fully_supported: v.optional(v.nullable(v.boolean()), null),
});

export const RagbenchRowSchema = v.object({
  id: Id,
  question: Str,
  documents: Strings,
  response: Str,
  generation_model_name: Str,
  annotating_model_name: Str,
  dataset_name: Str,
  documents_sentences: v.array(v.array(Keyed)),
  response_sentences: v.array(Keyed),
  sentence_support_information: v.array(SupportInfo),
  unsupported_response_sentence_keys: Strings,
  /** Gold: false = the response is not fully supported (a hallucination); null = not annotated. */
  adherence_score: v.nullable(v.boolean()),
  overall_supported_explanation: v.nullable(Str),
  relevance_explanation: v.nullable(Str),
  all_relevant_sentence_keys: Strings,
  all_utilized_sentence_keys: Strings,
  trulens_groundedness: Score,
  trulens_context_relevance: Score,
  ragas_faithfulness: Score,
  ragas_context_relevance: Score,
  gpt3_adherence: Score,
  gpt3_context_relevance: Score,
  gpt35_utilization: Score,
  relevance_score: Score,
  utilization_score: Score,
  completeness_score: Score,
});

export type RagbenchRow = v.InferOutput<typeof RagbenchRowSchema>;

/** The 26 fields every row has. */
export const RAGBENCH_FIELDS = Object.keys(RagbenchRowSchema.entries) as (keyof RagbenchRow)[];

/** A skipped row: where it was and why. */
export interface RagbenchIssue {
  subset: string;
  /** The local file the row came from, when it came from one (named in messages instead of the subset). */
  file?: string;
  /** 1-based line of a JSONL file, or the 0-based row index of a parquet file or the viewer (see `source`). */
  line: number;
  source: 'line' | 'row_idx';
  message: string;
}

export interface RagbenchParseResult {
  subset: string;
  rows: RagbenchRow[];
  /** Malformed rows, skipped. */
  skipped: RagbenchIssue[];
  /** Rows seen (valid + skipped). */
  total: number;
}

/** Row key: (id, generation_model_name). */
export function ragbenchRowKey(row: Pick<RagbenchRow, 'id' | 'generation_model_name'>): string {
  return `${row.id}\u241f${row.generation_model_name}`;
}

export function formatIssue(i: RagbenchIssue): string {
  return `${i.file ?? i.subset} ${i.source === 'line' ? 'line' : 'row'} ${i.line}: ${i.message}`;
}

function issueText(issues: readonly v.BaseIssue<unknown>[]): string {
  return issues.slice(0, 3).map((i) => {
    const path = v.getDotPath(i);
    const missing = i.input === undefined && i.kind === 'schema' ? 'missing' : i.message;
    return `${path ?? 'row'}: ${missing}`;
  }).join('; ') + (issues.length > 3 ? `; and ${issues.length - 3} more` : '');
}

/** Validates one decoded row; returns the row or the reason it was rejected (no subset/line). */
export function validateRagbenchRow(value: unknown): { row: RagbenchRow; error: null } | { row: null; error: string } {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return { row: null, error: 'not a JSON object' };
  const r = v.safeParse(RagbenchRowSchema, value);
  if (!r.success) return { row: null, error: issueText(r.issues) };
  return { row: r.output, error: null };
}

/** Collects rows, skipping invalid ones and repeated keys, and reporting both (shared by every source). */
export class RowCollector {
  readonly rows: RagbenchRow[] = [];
  readonly skipped: RagbenchIssue[] = [];
  private readonly seen = new Map<string, number>();
  total = 0;

  constructor(readonly subset: string, readonly source: RagbenchIssue['source'], readonly file?: string) {}

  add(value: unknown, line: number): void {
    this.total++;
    const r = validateRagbenchRow(value);
    if (r.error !== null) { this.skip(line, r.error); return; }
    const key = ragbenchRowKey(r.row);
    const first = this.seen.get(key);
    if (first !== undefined) {
      this.skip(line, `duplicate key (id "${r.row.id}", generation_model_name "${r.row.generation_model_name}") first seen at ${this.source === 'line' ? 'line' : 'row'} ${first}`);
      return;
    }
    this.seen.set(key, line);
    this.rows.push(r.row);
  }

  skip(line: number, message: string): void {
    this.skipped.push({ subset: this.subset, ...(this.file !== undefined ? { file: this.file } : {}), line, source: this.source, message });
  }

  result(): RagbenchParseResult {
    return { subset: this.subset, rows: this.rows, skipped: this.skipped, total: this.total };
  }
}

/**
 * Parses a RAGBench JSONL file. Bad JSON, missing fields, wrong types and repeated (id, generation_model_name) keys
 * skip that line and are reported in `skipped`; bare NaN/Infinity (as Python's json module writes them) read as null.
 * Throws `RagbenchError` when the text has lines but no valid row at all. A leading UTF-8 byte order mark is ignored;
 * `file` (a local file's name) names the file in every message.
 */
export function parseRagbenchJsonl(text: string, subset: string, file?: string): RagbenchParseResult {
  const c = new RowCollector(subset, 'line', file);
  const lines = (text.charCodeAt(0) === 0xfeff ? text.slice(1) : text).split('\n');
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i]!.trim();
    if (raw === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch (e) {
      try {
        value = JSON.parse(raw.replace(/(?<=[:,[]\s*)-?(?:NaN|Infinity)(?=\s*[,\]}])/g, 'null'));
      } catch {
        c.total++;
        c.skip(i + 1, `not valid JSON (${(e as Error).message})`);
        continue;
      }
    }
    c.add(value, i + 1);
  }
  const res = c.result();
  if (res.total > 0 && res.rows.length === 0) {
    throw new RagbenchError(`${file ?? subset}: no valid row in ${res.total} (first problem: ${formatIssue(res.skipped[0]!)})`);
  }
  return res;
}

// ---------------------------------------------------------------------------------------------------- Hub loader

/** The Hub's dataset viewer API. Rows come from `GET {endpoint}/rows?dataset=…&config=…&split=…&offset=…&length=…`. */
export const DATASET_VIEWER = 'https://datasets-server.huggingface.co';
/** The viewer serves at most 100 rows a request. */
export const VIEWER_PAGE = 100;

export interface HubLoadOptions {
  /** Default `DATASET_VIEWER`; tests point it at a local server speaking the same wire format. */
  endpoint?: string;
  dataset?: string;
  split?: string;
  /** Rows per request (1–100). Default 100. */
  pageSize?: number;
  /**
   * Optional `Authorization: Bearer` token for gated or private copies. It is bound to the Hub's viewer
   * (`DATASET_VIEWER`'s origin): requests to another endpoint (a setting, a test server) go without it.
   */
  token?: string;
  signal?: AbortSignal;
  fetch?: typeof fetch;
  onProgress?: (loaded: number, total: number) => void;
  /** Attempts per request on 429 / 5xx / network errors, with waits doubling from `retryDelayMs`. Default 4. */
  retries?: number;
  /** First wait before a retry. Default 500 ms. */
  retryDelayMs?: number;
}

const ViewerPage = v.object({
  rows: v.array(v.object({
    row_idx: v.number(),
    row: v.unknown(),
    truncated_cells: v.optional(v.array(v.string()), []),
  })),
  num_rows_total: v.number(),
});

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((ok, fail) => {
    if (signal?.aborted) { fail(signal.reason); return; }
    const t = setTimeout(() => { signal?.removeEventListener('abort', onAbort); ok(); }, ms);
    const onAbort = () => { clearTimeout(t); fail(signal!.reason); };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** The viewer's `/rows` URL for one page. */
export function viewerRowsUrl(endpoint: string, dataset: string, config: string, split: string, offset: number, length: number): string {
  const u = new URL('rows', endpoint.endsWith('/') ? endpoint : `${endpoint}/`);
  u.search = new URLSearchParams({ dataset, config, split, offset: String(offset), length: String(length) }).toString();
  return u.toString();
}

/** Whether the viewer token may go with a request to `url`: only to the Hub's own viewer origin. */
export function tokenMayGoTo(url: string): boolean {
  return onOrigin(url, DATASET_VIEWER);
}

async function getPage(url: string, opts: HubLoadOptions, subset: string, where: string): Promise<v.InferOutput<typeof ViewerPage>> {
  const f = opts.fetch ?? fetch;
  const attempts = Math.max(1, opts.retries ?? 4);
  const viewer = `the dataset viewer (${hostOf(url)})`;
  let last = '';
  let unreachable = 0;
  for (let a = 0; a < attempts; a++) {
    if (a > 0) await sleep((opts.retryDelayMs ?? 500) * 2 ** (a - 1), opts.signal);
    let res: Response;
    try {
      res = await f(url, {
        ...(opts.signal ? { signal: opts.signal } : {}),
        ...(opts.token && tokenMayGoTo(url) ? { headers: { Authorization: `Bearer ${opts.token}` } } : {}),
      });
    } catch (e) {
      if (opts.signal?.aborted) throw e;
      if (isNetworkError(e)) unreachable++;
      last = `no answer: ${(e as Error).message}`;
      continue;
    }
    if (res.status === 429 || res.status >= 500) { last = `HTTP ${res.status}`; continue; }
    if (!res.ok) {
      let detail = '';
      try { detail = String(((await readBoundedJson(res, { file: where, limit: 64 * 1024 })) as { error?: unknown }).error ?? '').slice(0, 300); } catch { /* not JSON, or too long */ }
      throw new RagbenchError(`${subset}: ${viewer} answered HTTP ${res.status}${detail ? ` (${detail})` : ''} for ${where}`);
    }
    let body: unknown;
    try {
      body = await readBoundedJson(res, { file: where, kind: 'viewer-page' });
    } catch (e) {
      if (e instanceof DownloadLimitError) throw new RagbenchError(`${subset}: ${viewer}: ${e.message}`);
      throw new RagbenchError(`${subset}: ${viewer} sent invalid JSON for ${where}: ${(e as Error).message}`);
    }
    const page = v.safeParse(ViewerPage, body);
    if (!page.success) throw new RagbenchError(`${subset}: unexpected reply from ${viewer} for ${where}: ${issueText(page.issues)}`);
    return page.output;
  }
  if (unreachable === attempts) throw new HubUnreachableError([hostOf(url)]);
  throw new RagbenchError(`${subset}: ${viewer} failed ${attempts} times for ${where} (${last})`);
}

/**
 * Loads one subset's split from the Hub's dataset viewer, page by page
 * (`https://datasets-server.huggingface.co/rows?dataset=rungalileo%2Fragbench&config=<subset>&split=test&offset=<o>&length=100`).
 * The viewer cuts very large cells (`truncated_cells`); such a page is asked again in smaller pages, and a row still
 * truncated alone is skipped and reported, never scored on partial text.
 */
export async function loadRagbenchFromHub(subset: string, opts: HubLoadOptions = {}): Promise<RagbenchParseResult> {
  const endpoint = opts.endpoint ?? DATASET_VIEWER;
  const dataset = opts.dataset ?? RAGBENCH_DATASET;
  const split = opts.split ?? 'test';
  const pageSize = Math.min(VIEWER_PAGE, Math.max(1, Math.floor(opts.pageSize ?? VIEWER_PAGE)));
  const c = new RowCollector(subset, 'row_idx');
  let total = Infinity;
  let offset = 0;
  let length = pageSize;
  while (offset < total) {
    opts.signal?.throwIfAborted();
    const where = `${dataset} ${subset}/${split} rows ${offset}–${offset + length - 1}`;
    const page = await getPage(viewerRowsUrl(endpoint, dataset, subset, split, offset, length), opts, subset, where);
    total = page.num_rows_total;
    if (page.rows.length === 0) {
      if (offset < total) throw new RagbenchError(`${subset}: the dataset viewer returned no rows at offset ${offset} of ${total}`);
      break;
    }
    const truncated = page.rows.some((r) => r.truncated_cells.length > 0);
    if (truncated && length > 1) { length = Math.max(1, Math.floor(length / 2)); continue; }
    for (const r of page.rows) {
      if (r.truncated_cells.length > 0) {
        c.total++;
        c.skip(r.row_idx, `cells truncated by the dataset viewer: ${r.truncated_cells.join(', ')}`);
      } else c.add(r.row, r.row_idx);
    }
    offset += page.rows.length;
    length = pageSize;
    opts.onProgress?.(Math.min(offset, total), total);
  }
  const res = c.result();
  if (res.rows.length === 0) {
    throw new RagbenchError(res.total === 0 ? `${subset}: the dataset viewer has no rows for ${dataset} ${subset}/${split}`
      : `${subset}: no valid row in ${res.total} (first problem: ${formatIssue(res.skipped[0]!)})`);
  }
  return res;
}
