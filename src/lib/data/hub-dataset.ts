/**
 * A Hugging Face Hub dataset as a knowledge-base source (the Build tab; pure, so a CLI can use it too): configs and
 * splits, the parquet schema with guessed id / title / text / metadata columns, and the rows read as parquet with
 * HTTP range requests (hyparquet), up to a row limit, with progress. BEIR-layout datasets (configs `corpus` and
 * `queries`, judgements in `<dataset>-qrels` or a `qrels` config) bring their queries and qrels along.
 *
 * Where the parquet files come from (docs/build.md "From a Hub dataset"):
 *   1. the repo's own parquet files at the revision (`{config}/{split}-00000-of-00002.parquet`,
 *      `data/{split}-….parquet`, `{config}/{split}/0000.parquet`, `{split}.parquet`), else
 *   2. the Hub's conversion, the ref `refs/convert/parquet` (`{config}/{split}/0000.parquet`), else
 *   3. the Hub's list of that conversion, `GET /api/datasets/{ds}/parquet` (URLs that redirect to the files; not pinned).
 * Each of 1 and 2 is pinned once to its commit sha (`GET /api/datasets/{ds}/revision/{rev}`) and listed with the tree API at that
 * sha (which gives every file's size, so no HEAD); files are read at the sha, so a build reads one immutable state.
 * Shards of a split are read in order until the row limit: a large row group per request, runs of small ones coalesced
 * into one range (parquet-ranges.ts; a file of one-row row groups no longer costs a request per row). Column types and
 * the column guess: hub-columns.ts.
 *
 * Tokens: only in `Authorization`, only to `opts.hubUrl`'s origin (`authorizedFetch`), never in a URL or message.
 * Range reads and API calls go through a retrying fetch (a dropped connection, no answer, 5xx/429: a few tries with
 * backoff), then fail with a message naming the host and file.
 */
import { asyncBufferFromUrl, cachedAsyncBuffer, parquetMetadataAsync, parquetReadObjects, type AsyncBuffer, type FileMetaData } from 'hyparquet';
import * as v from 'valibot';
import type { OnBuildProgress, SkippedItem, SourceDocuments } from './source-documents.ts';
import { readBounded } from '../hub/bounded-read.ts';
import { authorizedFetch, backoffMs, checkHubToken, encodePath, sleep, type Fetch } from '../hub/download.ts';
import { DownloadLimitError } from '../hub/download-limits.ts';
import type { BeirQuery, Qrels } from './beir.ts';
import type { SourceDocument } from './document.ts';
import { asText, columnsOf, guessColumns, metaValue, NUMERIC, SCALAR } from './hub-columns.ts';
import { hostOf, isNetworkError } from './hub-reach.ts';
import { dict } from '../dict.ts';
import type { MetaField } from './kb-source.ts';
import { batchNote, groupRanges, MAX_SPAN_REQUESTS, planBatches, spanBuffer } from './parquet-ranges.ts';

/** Which column plays which part; `null` id = row number, `null` title = none. */
export interface ColumnMapping {
  id: string | null;
  title: string | null;
  text: string;
  metadata: string[];
}

export interface HubDatasetRequest {
  /** `owner/name`. */
  dataset: string;
  config: string;
  split: string;
  /** Branch, tag or commit; default `main`. */
  revision?: string;
  columns: ColumnMapping;
  /** At most this many rows are read (the form's row limit). */
  maxRows: number;
}

export interface HubDatasetColumn {
  name: string;
  /** The parquet type in words ("string", "int64", "list<string>", …). */
  type: string;
}

/** What the form shows before a build: the choices, the schema and the guessed mapping. */
export interface HubDatasetInfo {
  dataset: string;
  /** The commit sha read, when the Hub said. */
  revision: string | null;
  configs: Array<{ config: string; splits: string[] }>;
  config: string;
  split: string;
  columns: HubDatasetColumn[];
  rows: number;
  guess: ColumnMapping;
  /** A BEIR-layout dataset: where its queries and judgements come from. */
  beir: { queries: string; qrels: string } | null;
  notes: string[];
  /** Up to 3 rows of the guessed columns (strings cut at 200 characters), for the form's preview. */
  preview?: Array<Record<string, string>>;
}

export interface HubDatasetOptions {
  /** The Hub from Settings (never from a link). */
  hubUrl: string;
  /** The user's hf_ token; sent only to `hubUrl`. */
  token: string | null;
  fetch?: typeof fetch;
  signal?: AbortSignal;
  onProgress?: OnBuildProgress;
  /** Extra tries after a dropped connection, no answer or a 5xx/429 (default 3). */
  retries?: number;
  /** First backoff in ms (default 400; tests make it small). */
  retryDelayMs?: number;
}

/** The form's default row limit and the most it accepts. */
export { guessColumns, typeInWords } from './hub-columns.ts';

export const DEFAULT_MAX_ROWS = 10_000;
export const MAX_ROWS = 200_000;
/** Rows with empty text listed one by one in `skipped` (the rest are counted in a note). */
const SKIPPED_LISTED = 20;
/** Queries and judgements read at most (BEIR layout). */
const MAX_AUX_ROWS = 1_000_000;
const SHA = /^[0-9a-f]{40}$/;
const DATASET_ID = /^[A-Za-z0-9][\w.-]*\/[A-Za-z0-9][\w.-]*$/;
const CONVERT_REF = 'refs/convert/parquet';

/** A problem the user can act on (a name, a column, a token, the Hub failing): its message is shown as is. */
export class HubDatasetError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'HubDatasetError';
  }
}

/**
 * `owner/name` from what a user typed: `owner/name`, `datasets/owner/name`, or a Hub page URL
 * (`https://huggingface.co/datasets/owner/name[/tree/main/…|/viewer/…]`). Null when it is none of these.
 */
export function parseDatasetId(input: string): string | null {
  let s = input.trim();
  if (/^https?:\/\//i.test(s)) {
    try {
      s = new URL(s).pathname;
    } catch {
      return null;
    }
  }
  s = s.replace(/^\/+/, '');
  if (s.startsWith('datasets/')) s = s.slice('datasets/'.length);
  else if (/^https?:/i.test(input.trim())) return null;
  const parts = s.split('/').filter((p) => p !== '');
  if (parts.length < 2) return null;
  const id = `${parts[0]}/${parts[1]}`;
  return DATASET_ID.test(id) && !id.includes('..') ? id : null;
}

// ---------------------------------------------------------------------------------------------------------------
// HTTP: a token only to the Hub's origin, retries for dropped connections and 5xx, errors in words

interface Ctx {
  hub: string;
  host: string;
  f: Fetch;
  signal: AbortSignal | undefined;
}

/** The last part of a request's URL path, for messages ("0000.parquet", "main"). */
function fileOfUrl(input: RequestInfo | URL): string {
  const href = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
  try {
    return decodeURIComponent(new URL(href).pathname.split('/').filter(Boolean).at(-1) ?? 'the answer');
  } catch {
    return 'the answer';
  }
}

const retryableStatus = (s: number) => s >= 500 || s === 429 || s === 408;

/**
 * A fetch that retries a request whose connection dropped (before or while the body came), that got no answer, or
 * that got a 5xx/429/408, `retries` times with jittered backoff. The body is read inside the retry loop (so a cut
 * in the middle of a range is retried too) and handed on as a new Response. Other statuses are handed on as they are.
 */
export function retryingFetch(base: Fetch, retries: number, delayMs: number, signal?: AbortSignal): Fetch {
  return async (input, init) => {
    for (let attempt = 0; ; attempt++) {
      try {
        const res = await base(input, init);
        if (retryableStatus(res.status) && attempt < retries) {
          await res.body?.cancel().catch(() => {});
          await sleep(backoffMs(attempt, delayMs), signal);
          continue;
        }
        const method = (init?.method ?? 'GET').toUpperCase();
        // Bounded by the kind of the file named (a parquet range: 1 GB; an API page: 256 MB), download-limits.ts.
        const body = method === 'HEAD' || res.status === 204 || res.status === 304 ? null : await readBounded(res, { file: fileOfUrl(input) });
        return new Response(body as Uint8Array<ArrayBuffer> | null, { status: res.status, statusText: res.statusText, headers: res.headers });
      } catch (e) {
        if (e instanceof DownloadLimitError) throw new HubDatasetError(e.message);
        if (signal?.aborted || (e as Error).name === 'AbortError') throw e;
        if (attempt >= retries || !(isNetworkError(e) || (e instanceof Error && /terminated|socket|ECONNRESET|network/i.test(e.message)))) throw e;
        await sleep(backoffMs(attempt, delayMs), signal);
      }
    }
  };
}

function makeCtx(opts: HubDatasetOptions): Ctx {
  checkHubToken(opts.token);
  const hub = opts.hubUrl.replace(/\/+$/, '');
  const base: Fetch = opts.fetch ?? ((i, init) => fetch(i, init));
  const retried = retryingFetch(base, opts.retries ?? 3, opts.retryDelayMs ?? 400, opts.signal);
  return { hub, host: hostOf(hub), f: authorizedFetch(retried, opts.token, hub), signal: opts.signal };
}

const privateMessage = (dataset: string) => `${dataset} is private or gated: add a token in Settings (a Hugging Face token, hf_…, that may read it)`;

/** What a failed answer means, in words; `notFound` for 404. */
function statusError(ctx: Ctx, status: number, dataset: string, notFound: string, what: string): HubDatasetError {
  if (status === 401 || status === 403) return new HubDatasetError(privateMessage(dataset));
  if (status === 404) return new HubDatasetError(notFound);
  return new HubDatasetError(`${ctx.host} answered HTTP ${status} for ${what}${retryableStatus(status) ? ' (after several tries)' : ''}: try again later`);
}

function fetchError(ctx: Ctx, e: unknown, what: string): Error {
  if (ctx.signal?.aborted) return ctx.signal.reason instanceof Error ? ctx.signal.reason : (e as Error);
  if (e instanceof HubDatasetError) return e;
  return new HubDatasetError(`no answer from the Hub (${ctx.host}) while reading ${what}: the connection failed or dropped (${(e as Error).message}), also when tried again. Check the connection and the Hub URL in Settings, then try again`);
}

/** GET a Hub API path as JSON; null for a 404 when `allow404`. */
async function apiJson(ctx: Ctx, url: string, dataset: string, notFound: string, what: string, allow404 = false): Promise<{ json: unknown; link: string | null } | null> {
  let res: Response;
  try {
    res = await ctx.f(url, { headers: { Accept: 'application/json' }, ...(ctx.signal ? { signal: ctx.signal } : {}) });
  } catch (e) {
    throw fetchError(ctx, e, what);
  }
  if (res.status === 404 && allow404) return null;
  if (!res.ok) throw statusError(ctx, res.status, dataset, notFound, what);
  try {
    return { json: await res.json(), link: res.headers.get('Link') };
  } catch {
    throw new HubDatasetError(`${ctx.host} did not answer JSON for ${what}: is the Hub URL in Settings a Hub?`);
  }
}

const apiBase = (ctx: Ctx, dataset: string) => `${ctx.hub}/api/datasets/${encodePath(dataset)}`;

/** The commit sha a revision points at; null when the revision (or the dataset) does not exist and `allow404`. */
async function resolveSha(ctx: Ctx, dataset: string, revision: string, allow404: boolean): Promise<string | null> {
  if (SHA.test(revision)) return revision;
  const r = await apiJson(ctx, `${apiBase(ctx, dataset)}/revision/${encodeURIComponent(revision)}`, dataset,
    `no such dataset ${dataset} (revision "${revision}") on ${ctx.host}: check the name (owner/name) and the revision`, `${dataset}@${revision}`, allow404);
  if (!r) return null;
  const sha = (r.json as { sha?: unknown } | null)?.sha;
  if (typeof sha !== 'string' || !SHA.test(sha)) throw new HubDatasetError(`${ctx.host} gave no commit sha for ${dataset}@${revision}: is the Hub URL in Settings a Hub?`);
  return sha;
}

interface TreeEntry { path: string; size: number | null }
const TreeEntries = v.array(v.object({ type: v.string(), path: v.string(), size: v.optional(v.number()) }));

/** Every file of the repo at `sha` (the tree API, recursive, following `Link: rel="next"` pages). */
async function listTree(ctx: Ctx, dataset: string, sha: string): Promise<TreeEntry[]> {
  const out: TreeEntry[] = [];
  let url: string | null = `${apiBase(ctx, dataset)}/tree/${sha}?recursive=true&expand=false`;
  for (let page = 0; url && page < 1000; page++) {
    const r = await apiJson(ctx, url, dataset, `no files listed for ${dataset}@${sha.slice(0, 7)} on ${ctx.host}`, `the file list of ${dataset}`);
    const parsed = v.safeParse(TreeEntries, r!.json);
    if (!parsed.success) throw new HubDatasetError(`${ctx.host} answered a file list of ${dataset} this app cannot read: is the Hub URL in Settings a Hub?`);
    for (const e of parsed.output) if (e.type === 'file') out.push({ path: e.path, size: e.size ?? null });
    const next = /<([^>]+)>;\s*rel="next"/.exec(r!.link ?? '');
    url = next ? new URL(next[1]!, ctx.hub).toString() : null;
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------------------
// Layout: configs, splits and their shards

interface Shard { path: string; size: number | null; url: string }
interface SplitFiles { config: string; split: string; shards: Shard[]; partial: boolean }
interface Layout { dataset: string; sha: string; ref: string; splits: SplitFiles[]; notes: string[] }

/** Config and split of a parquet file's path in a repo, by the Hub's naming conventions; null if not parquet. */
export function splitOfPath(path: string, converted = false): { config: string; split: string; partial: boolean } | null {
  if (!path.endsWith('.parquet')) return null;
  const parts = path.split('/');
  const file = parts.at(-1)!;
  const dirs = parts.slice(0, -1);
  const cfg = (ds: string[]) => {
    const d = ds.at(-1) === 'data' ? ds.slice(0, -1) : ds;
    return d.length === 0 ? 'default' : d.join('/');
  };
  // `{config}/{split}/0000.parquet` (the conversion's layout; `partial-{split}` when only the first 5 GB were converted)
  if ((converted || /^\d+\.parquet$/.test(file)) && dirs.length >= 2 && /^\d+\.parquet$/.test(file)) {
    const raw = dirs.at(-1)!;
    const partial = raw.startsWith('partial-');
    return { config: cfg(dirs.slice(0, -1)), split: partial ? raw.slice('partial-'.length) : raw, partial };
  }
  // `{config}/{split}-00000-of-00003.parquet`, `data/{split}-….parquet`, `{split}-0000x-of-0000n.parquet`
  const sharded = /^(.+?)-\d{5}-of-\d{5}\.parquet$/.exec(file);
  if (sharded) return { config: cfg(dirs), split: sharded[1]!, partial: false };
  // `{config}/{split}.parquet`, `{split}.parquet`
  return { config: cfg(dirs), split: file.slice(0, -'.parquet'.length), partial: false };
}

function groupSplits(ctx: Ctx, dataset: string, sha: string, files: TreeEntry[], converted: boolean): SplitFiles[] {
  const by = new Map<string, SplitFiles>();
  for (const f of files) {
    const s = splitOfPath(f.path, converted);
    if (!s) continue;
    const key = `${s.config}\u0000${s.split}`;
    let g = by.get(key);
    if (!g) by.set(key, (g = { config: s.config, split: s.split, shards: [], partial: s.partial }));
    g.shards.push({ path: f.path, size: f.size, url: `${ctx.hub}/datasets/${encodePath(dataset)}/resolve/${sha}/${encodePath(f.path)}` });
  }
  for (const g of by.values()) g.shards.sort((a, b) => a.path.localeCompare(b.path, 'en', { numeric: true }));
  return [...by.values()];
}

/** The dataset's parquet splits: its own files at the revision, else the Hub's conversion. */
async function discover(ctx: Ctx, dataset: string, revision: string): Promise<Layout> {
  const sha = (await resolveSha(ctx, dataset, revision, false))!;
  const own = groupSplits(ctx, dataset, sha, await listTree(ctx, dataset, sha), false);
  if (own.length > 0) return { dataset, sha, ref: revision, splits: own, notes: [] };
  const csha = await resolveSha(ctx, dataset, CONVERT_REF, true);
  const conv = csha ? groupSplits(ctx, dataset, csha, await listTree(ctx, dataset, csha), true) : [];
  if (conv.length === 0) {
    const listed = await parquetListing(ctx, dataset);
    if (listed.length > 0) {
      return { dataset, sha, ref: revision, splits: listed, notes: [`${dataset} has no parquet files of its own: read from the Hub's parquet list (${CONVERT_REF}, not pinned to a commit: a conversion made during the build would be read from then on).`] };
    }
    throw new HubDatasetError(`${dataset} has no parquet files (neither its own nor the Hub's conversion, ${CONVERT_REF}): this app reads datasets as parquet; pick another dataset or wait for the Hub to convert it`);
  }
  const notes = [`${dataset} has no parquet files of its own: read from the Hub's conversion (${CONVERT_REF} at ${csha!.slice(0, 7)}).`];
  for (const s of conv) if (s.partial) notes.push(`${s.config}/${s.split}: the Hub converted only the first part of this split (partial).`);
  return { dataset, sha: csha!, ref: CONVERT_REF, splits: conv, notes };
}

const ParquetList = v.record(v.string(), v.record(v.string(), v.array(v.pipe(v.string(), v.url()))));

/** The Hub's list of its conversion, `GET /api/datasets/{ds}/parquet` → `{config: {split: [url]}}` (each URL redirects to the file). */
async function parquetListing(ctx: Ctx, dataset: string): Promise<SplitFiles[]> {
  const r = await apiJson(ctx, `${apiBase(ctx, dataset)}/parquet`, dataset, '', `the parquet list of ${dataset}`, true);
  if (!r) return [];
  const parsed = v.safeParse(ParquetList, r.json);
  if (!parsed.success) return [];
  const out: SplitFiles[] = [];
  for (const [config, splits] of Object.entries(parsed.output)) {
    for (const [split, urls] of Object.entries(splits)) {
      const shards = urls.filter((u) => /^https?:/i.test(u)).map((url, i) => ({ path: `${config}/${split}/${i}.parquet`, size: null, url }));
      if (shards.length > 0) out.push({ config, split, shards, partial: false });
    }
  }
  return out;
}

function configsOf(layout: Layout): Array<{ config: string; splits: string[] }> {
  const m = new Map<string, string[]>();
  for (const s of layout.splits) {
    const l = m.get(s.config) ?? [];
    l.push(s.split);
    m.set(s.config, l);
  }
  return [...m].map(([config, splits]) => ({ config, splits }));
}

const list = (xs: readonly string[]) => xs.map((x) => `"${x}"`).join(', ');

function pickSplit(layout: Layout, config: string | undefined, split: string | undefined): SplitFiles {
  const configs = configsOf(layout);
  const prefer = (names: readonly string[], want: readonly string[]) => want.find((w) => names.includes(w)) ?? names[0]!;
  const cfg = config ?? prefer(configs.map((c) => c.config), ['corpus', 'default']);
  const c = configs.find((x) => x.config === cfg);
  if (!c) throw new HubDatasetError(`no such config "${cfg}" in ${layout.dataset}: its configs are ${list(configs.map((x) => x.config))}`);
  const sp = split ?? prefer(c.splits, ['corpus', 'train', 'test']);
  const s = layout.splits.find((x) => x.config === cfg && x.split === sp);
  if (!s) throw new HubDatasetError(`no such split "${sp}" in ${layout.dataset} (config "${cfg}"): its splits are ${list(c.splits)}`);
  return s;
}

// ---------------------------------------------------------------------------------------------------------------
// Parquet: footers, schema, rows

/** `file` caches what it read (footer, small reads); `raw` reads without keeping (coalesced spans). */
interface OpenShard { shard: Shard; file: AsyncBuffer; raw: AsyncBuffer; metadata: FileMetaData; rows: number }

async function openShard(ctx: Ctx, dataset: string, shard: Shard): Promise<OpenShard> {
  const notFound = `no such file ${shard.path} in ${dataset} (it was listed a moment ago): try again`;
  try {
    const init: RequestInit = ctx.signal ? { signal: ctx.signal } : {};
    // Errors in words before hyparquet sees them (it would say "fetch failed 401").
    const f: Fetch = async (input, i) => {
      const res = await ctx.f(input, i);
      if (!res.ok) throw statusError(ctx, res.status, dataset, notFound, shard.path);
      return res;
    };
    const raw = await asyncBufferFromUrl({ url: shard.url, requestInit: init, fetch: f, ...(shard.size ? { byteLength: shard.size } : {}) });
    const file = cachedAsyncBuffer(raw);
    const metadata = await parquetMetadataAsync(file);
    return { shard, file, raw, metadata, rows: Number(metadata.num_rows) };
  } catch (e) {
    if (e instanceof HubDatasetError || ctx.signal?.aborted) throw e;
    if (isNetworkError(e)) throw fetchError(ctx, e, shard.path);
    throw new HubDatasetError(`${dataset}: ${shard.path} is not a readable parquet file (${(e as Error).message})`);
  }
}

/** Opens the shards' footers, a few at a time, in order. */
async function openShards(ctx: Ctx, dataset: string, shards: readonly Shard[]): Promise<OpenShard[]> {
  const out: OpenShard[] = [];
  for (let i = 0; i < shards.length; i += 4) out.push(...await Promise.all(shards.slice(i, i + 4).map((s) => openShard(ctx, dataset, s))));
  return out;
}


// ---------------------------------------------------------------------------------------------------------------
// BEIR layout

interface Part { dataset: string; layout: Layout; split: SplitFiles }
interface BeirParts { queries: Part; qrels: Part }

const partName = (p: Part) => `${p.dataset}:${p.split.config}/${p.split.split}`;

function findPart(layout: Layout, name: string, preferSplits: readonly string[] = []): SplitFiles | null {
  const inConfig = layout.splits.filter((s) => s.config === name);
  if (inConfig.length > 0) return preferSplits.map((w) => inConfig.find((s) => s.split === w)).find(Boolean) ?? inConfig.find((s) => s.split === name) ?? inConfig[0]!;
  return layout.splits.find((s) => s.split === name) ?? null;
}

/** Queries and judgements of a BEIR-layout dataset when `split` is its corpus; null otherwise. */
async function beirParts(ctx: Ctx, layout: Layout, split: SplitFiles): Promise<BeirParts | null> {
  const corpus = findPart(layout, 'corpus');
  const queries = findPart(layout, 'queries');
  if (!corpus || !queries || corpus !== split) return null;
  const QRELS_SPLITS = ['test', 'dev', 'validation', 'train'];
  const own = findPart(layout, 'qrels', QRELS_SPLITS);
  if (own) return { queries: { dataset: layout.dataset, layout, split: queries }, qrels: { dataset: layout.dataset, layout, split: own } };
  const sibling = `${layout.dataset}-qrels`;
  let qlayout: Layout;
  try {
    qlayout = await discover(ctx, sibling, 'main');
  } catch (e) {
    if (ctx.signal?.aborted) throw e;
    return null;
  }
  const qsplit = QRELS_SPLITS.map((w) => qlayout.splits.find((s) => s.split === w)).find(Boolean) ?? qlayout.splits[0];
  if (!qsplit) return null;
  return { queries: { dataset: layout.dataset, layout, split: queries }, qrels: { dataset: sibling, layout: qlayout, split: qsplit } };
}

// ---------------------------------------------------------------------------------------------------------------
// Reading rows

const lc = (cols: readonly HubDatasetColumn[]) => new Map(cols.map((c) => [c.name, c]));

/**
 * Reads `columns` of rows [0, maxRows) of the shards in order, a batch of row groups per request: a large row
 * group alone (hyparquet plans its column chunks), runs of small ones as one byte span (parquet-ranges.ts), so a
 * file of one-row row groups costs a request per ≈ 8 MB, not per row.
 */
async function readRows(ctx: Ctx, shards: readonly OpenShard[], columns: readonly string[], maxRows: number,
  onBatch: (rows: Record<string, unknown>[], firstRow: number) => void, onProgress?: (done: number, total: number, item: string) => void): Promise<number> {
  const total = Math.min(maxRows, shards.reduce((s, x) => s + x.rows, 0));
  let done = 0;
  onProgress?.(0, total, shards[0]?.shard.path ?? '');
  for (const s of shards) {
    if (done >= total) return done;
    const groups = groupRanges(s.metadata, columns);
    const batches = planBatches(groups, total - done);
    if (batches.length > MAX_SPAN_REQUESTS) {
      throw new HubDatasetError(`${s.shard.path}: reading ${fmt(batches.at(-1)!.rowEnd)} rows would take ${fmt(batches.length)} range requests (more than ${fmt(MAX_SPAN_REQUESTS)}; its row groups are small and scattered): lower the row limit`);
    }
    const why = batchNote(s.shard.path, groups, batches);
    for (const b of batches) {
      ctx.signal?.throwIfAborted();
      let rows: Record<string, unknown>[];
      try {
        const file = b.last > b.first ? spanBuffer(s.file, b.start, await s.raw.slice(b.start, b.end)) : s.file;
        rows = await parquetReadObjects({ file, metadata: s.metadata, columns: [...columns], rowStart: b.rowStart, rowEnd: b.rowEnd });
      } catch (e) {
        if (ctx.signal?.aborted) throw ctx.signal.reason instanceof Error ? ctx.signal.reason : e;
        if (e instanceof HubDatasetError) throw e;
        if (isNetworkError(e)) throw fetchError(ctx, e, s.shard.path);
        throw new HubDatasetError(`${s.shard.path}: rows ${b.rowStart}–${b.rowEnd - 1} could not be read (${(e as Error).message})`);
      }
      onBatch(rows, done);
      done += rows.length;
      onProgress?.(done, total, `${why ?? s.shard.path}: rows ${fmt(done - rows.length)}–${fmt(done)}`);
    }
  }
  return done;
}

const fmt = (n: number) => n.toLocaleString('en-US');

function needColumns(have: Map<string, HubDatasetColumn>, wanted: ReadonlyArray<string | null>, where: string): void {
  const missing = wanted.filter((c): c is string => c !== null && !have.has(c));
  if (missing.length > 0) {
    throw new HubDatasetError(`${missing.length > 1 ? 'columns' : 'column'} ${list(missing)} ${missing.length > 1 ? 'are' : 'is'} not in ${where}: its columns are ${list([...have.keys()])}`);
  }
}

async function readQueries(ctx: Ctx, part: Part): Promise<BeirQuery[]> {
  const shards = await openShards(ctx, part.dataset, part.split.shards);
  const cols = lc(columnsOf(shards[0]!.metadata));
  const id = ['_id', 'id', 'query_id', 'query-id', 'qid'].find((c) => cols.has(c));
  const text = ['text', 'query', 'question'].find((c) => cols.has(c));
  if (!id || !text) throw new HubDatasetError(`${partName(part)}: BEIR queries need an id (_id) and a text column: its columns are ${list([...cols.keys()])}`);
  const out: BeirQuery[] = [];
  await readRows(ctx, shards, [id, text], MAX_AUX_ROWS, (rows) => {
    for (const r of rows) {
      const q = asText(r[id]);
      const t = asText(r[text]).trim();
      if (q !== '' && t !== '') out.push({ id: q, text: t });
    }
  });
  return out;
}

async function readQrels(ctx: Ctx, part: Part): Promise<Qrels> {
  const shards = await openShards(ctx, part.dataset, part.split.shards);
  const cols = lc(columnsOf(shards[0]!.metadata));
  const names = ['query-id', 'corpus-id', 'score'];
  needColumns(cols, names, `the judgements ${partName(part)} (BEIR qrels)`);
  const qrels: Qrels = new Map();
  await readRows(ctx, shards, names, MAX_AUX_ROWS, (rows) => {
    for (const r of rows) {
      const q = asText(r['query-id']);
      const d = asText(r['corpus-id']);
      const s = Number(r.score);
      if (q === '' || d === '' || !Number.isFinite(s)) continue;
      let m = qrels.get(q);
      if (!m) qrels.set(q, (m = new Map()));
      m.set(d, s);
    }
  });
  return qrels;
}

// ---------------------------------------------------------------------------------------------------------------
// The two entry points

const InspectRequest = v.object({
  dataset: v.string(),
  config: v.optional(v.pipe(v.string(), v.minLength(1))),
  split: v.optional(v.pipe(v.string(), v.minLength(1))),
  revision: v.optional(v.pipe(v.string(), v.minLength(1))),
});

function datasetOf(input: string): string {
  const ds = parseDatasetId(input);
  if (!ds) throw new HubDatasetError(`"${input.slice(0, 100)}" is not a Hub dataset: type owner/name (e.g. BeIR/scifact) or paste the dataset's page URL`);
  return ds;
}

/** Rows sampled from the first shard for the text guess and the preview. */
const SAMPLE_ROWS = 20;

export async function inspectHubDataset(req: { dataset: string; config?: string; split?: string; revision?: string }, opts: HubDatasetOptions): Promise<HubDatasetInfo> {
  const r = v.safeParse(InspectRequest, req);
  if (!r.success) throw new HubDatasetError(`the dataset form is incomplete (${r.issues[0]!.message})`);
  const dataset = datasetOf(r.output.dataset);
  const ctx = makeCtx(opts);
  const layout = await discover(ctx, dataset, r.output.revision ?? 'main');
  const split = pickSplit(layout, r.output.config, r.output.split);
  const shards = await openShards(ctx, dataset, split.shards);
  const columns = columnsOf(shards[0]!.metadata);
  const sampleCols = columns.filter((c) => c.type === 'string' || c.type === 'list<string>' || c.type === 'json' || SCALAR.has(c.type)).map((c) => c.name);
  const sample = shards[0]!.rows > 0 && sampleCols.length > 0
    ? await parquetReadObjects({ file: shards[0]!.file, metadata: shards[0]!.metadata, columns: sampleCols, rowStart: 0, rowEnd: Math.min(SAMPLE_ROWS, shards[0]!.rows) })
      .catch((e: unknown) => { if (ctx.signal?.aborted || e instanceof HubDatasetError) throw e; return []; })
    : [];
  const guess = guessColumns(columns, sample);
  const notes = [...layout.notes];
  if (!guess.text) notes.push(`No column looks like text: pick the text column (${list(columns.map((c) => c.name))}).`);
  if (split.shards.length > 1) notes.push(`${split.config}/${split.split} is ${split.shards.length} parquet files, read in order.`);
  const beir = await beirParts(ctx, layout, split);
  if (beir) notes.push(`BEIR layout: queries from ${partName(beir.queries)}, judgements from ${partName(beir.qrels)} (they come along for the retrieval benchmark).`);
  const shown = [guess.id, guess.title, guess.text, ...guess.metadata].filter((c): c is string => !!c);
  const preview = sample.slice(0, 3).map((row) => Object.fromEntries(shown.map((c) => {
    const t = asText(row[c]);
    return [c, t.length > 200 ? `${t.slice(0, 200)}…` : t];
  })));
  return {
    dataset, revision: layout.sha, configs: configsOf(layout), config: split.config, split: split.split, columns,
    rows: shards.reduce((s, x) => s + x.rows, 0), guess,
    beir: beir ? { queries: partName(beir.queries), qrels: partName(beir.qrels) } : null,
    notes, preview,
  };
}

const Mapping = v.object({
  id: v.nullable(v.pipe(v.string(), v.minLength(1))),
  title: v.nullable(v.pipe(v.string(), v.minLength(1))),
  text: v.pipe(v.string(), v.minLength(1, 'pick the text column')),
  metadata: v.array(v.pipe(v.string(), v.minLength(1))),
});
const DocumentsRequest = v.object({
  dataset: v.string(),
  config: v.pipe(v.string(), v.minLength(1, 'pick a config')),
  split: v.pipe(v.string(), v.minLength(1, 'pick a split')),
  revision: v.optional(v.pipe(v.string(), v.minLength(1))),
  columns: Mapping,
  maxRows: v.pipe(v.number(), v.integer('the row limit must be a whole number'), v.minValue(1, 'the row limit must be at least 1'),
    v.maxValue(MAX_ROWS, `the row limit is at most ${fmt(MAX_ROWS)}`)),
});

export async function hubDatasetDocuments(req: HubDatasetRequest, opts: HubDatasetOptions): Promise<SourceDocuments> {
  const r = v.safeParse(DocumentsRequest, req);
  if (!r.success) throw new HubDatasetError(`the dataset form: ${r.issues.map((i) => `${v.getDotPath(i) ?? 'request'}: ${i.message}`).join('; ')}`);
  const q = r.output;
  const dataset = datasetOf(q.dataset);
  const ctx = makeCtx(opts);
  const progress = (done: number, total: number, item: string) => opts.onProgress?.({ stage: 'download', done, total, item });
  const layout = await discover(ctx, dataset, q.revision ?? 'main');
  const split = pickSplit(layout, q.config, q.split);
  const where = `${dataset} (${split.config}/${split.split})`;
  const shards = await openShards(ctx, dataset, split.shards);
  const have = lc(columnsOf(shards[0]!.metadata));
  const m = q.columns;
  needColumns(have, [m.id, m.title, m.text, ...m.metadata], where);
  const meta = [...new Set(m.metadata)].filter((c) => c !== m.id && c !== m.title && c !== m.text);
  const wanted = [...new Set([m.id, m.title, m.text, ...meta].filter((c): c is string => c !== null))];
  const totalRows = shards.reduce((s, x) => s + x.rows, 0);

  const docs: SourceDocument[] = [];
  const skipped: SkippedItem[] = [];
  const seen = new Map<string, number>();
  let empty = 0;
  let duplicates = 0;
  const read = await readRows(ctx, shards, wanted, q.maxRows, (rows, first) => {
    rows.forEach((row, i) => {
      const n = first + i;
      const text = asText(row[m.text]).trim();
      if (text === '') {
        if (++empty <= SKIPPED_LISTED) skipped.push({ path: `row ${n}`, reason: `empty text (column "${m.text}")` });
        return;
      }
      const rawId = m.id === null ? '' : asText(row[m.id]).trim();
      let id = rawId === '' ? String(n) : rawId;
      const k = seen.get(id);
      if (k !== undefined) {
        duplicates++;
        let j = k + 1;
        while (seen.has(`${id}-${j}`)) j++;
        seen.set(id, j);
        id = `${id}-${j}`;
      }
      seen.set(id, 1);
      const doc: SourceDocument = { id, title: m.title === null ? '' : asText(row[m.title]).trim(), text };
      if (meta.length > 0) {
        const md = dict<string | number>();
        for (const c of meta) {
          const val = metaValue(row[c]);
          if (val !== undefined) md[c] = val;
        }
        doc.meta = md;
      }
      docs.push(doc);
    });
  }, progress);

  const notes = [...layout.notes];
  if (read < totalRows) notes.push(`read the first ${fmt(read)} of ${fmt(totalRows)} rows (the row limit)`);
  if (empty > 0) notes.push(`${fmt(empty)} row${empty > 1 ? 's' : ''} with empty text ${empty > 1 ? 'were' : 'was'} skipped${empty > SKIPPED_LISTED ? ` (the first ${SKIPPED_LISTED} are listed)` : ''}`);
  if (duplicates > 0) notes.push(`${fmt(duplicates)} duplicate id${duplicates > 1 ? 's' : ''} got a suffix (-2, -3, …)`);
  if (docs.length === 0) throw new HubDatasetError(`${where}: no row has text in column "${m.text}" (of ${fmt(read)} read): pick another text column`);

  const fields: MetaField[] = meta.map((name) => ({ name, label: name, type: NUMERIC.has(have.get(name)!.type) ? 'number' : 'string' }));
  const out: SourceDocuments = {
    docs, fields, pages: 0, skipped, notes,
    origin: { kind: 'hub-dataset', dataset, config: split.config, split: split.split, revision: layout.sha, rows: read },
  };
  const beir = await beirParts(ctx, layout, split);
  if (beir) {
    const queries = await readQueries(ctx, beir.queries);
    const qrels = await readQrels(ctx, beir.qrels);
    const ids = new Set(docs.map((d) => d.id));
    let missing = 0;
    for (const j of qrels.values()) for (const d of j.keys()) if (!ids.has(d)) missing++;
    notes.push(`BEIR layout: ${fmt(queries.length)} queries (${partName(beir.queries)}) and judgements for ${fmt(qrels.size)} of them (${partName(beir.qrels)}) came along`);
    if (missing > 0) notes.push(`${fmt(missing)} judged document${missing > 1 ? 's are' : ' is'} not in the knowledge base${read < totalRows ? ' (the row limit cut the corpus)' : ''}`);
    out.queries = queries;
    out.qrels = qrels;
  }
  return out;
}
