/**
 * A Hub dataset's parquet (hub-dataset.ts): the shards' footers and schema, and their rows read in batches of row
 * groups per range request, up to a row limit; the queries and judgements of a BEIR layout.
 */
import { asyncBufferFromUrl, cachedAsyncBuffer, parquetMetadataAsync, parquetReadObjects, type AsyncBuffer, type FileMetaData } from 'hyparquet';
import type { Fetch } from '../hub/download.ts';
import type { BeirQuery, Qrels } from './beir.ts';
import { asText, columnsOf } from './hub-columns.ts';
import { fetchError, statusError, type Ctx } from './hub-dataset-http.ts';
import { list, partName, type Part, type Shard } from './hub-dataset-layout.ts';
import { HubDatasetError, type HubDatasetColumn } from './hub-dataset-types.ts';
import { isNetworkError } from '../hub/hub-reach.ts';
import { batchNote, groupRanges, MAX_SPAN_REQUESTS, planBatches, spanBuffer } from './parquet-ranges.ts';

/** Queries and judgements read at most (BEIR layout). */
const MAX_AUX_ROWS = 1_000_000;

/** `file` caches what it read (footer, small reads); `raw` reads without keeping (coalesced spans). */
export interface OpenShard { shard: Shard; file: AsyncBuffer; raw: AsyncBuffer; metadata: FileMetaData; rows: number }

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
export async function openShards(ctx: Ctx, dataset: string, shards: readonly Shard[]): Promise<OpenShard[]> {
  const out: OpenShard[] = [];
  for (let i = 0; i < shards.length; i += 4) out.push(...await Promise.all(shards.slice(i, i + 4).map((s) => openShard(ctx, dataset, s))));
  return out;
}

// ---------------------------------------------------------------------------------------------------------------
// Reading rows

export const lc = (cols: readonly HubDatasetColumn[]) => new Map(cols.map((c) => [c.name, c]));

/**
 * Reads `columns` of rows [0, maxRows) of the shards in order, a batch of row groups per request: a large row
 * group alone (hyparquet plans its column chunks), runs of small ones as one byte span (parquet-ranges.ts), so a
 * file of one-row row groups costs a request per ≈ 8 MB, not per row.
 */
export async function readRows(ctx: Ctx, shards: readonly OpenShard[], columns: readonly string[], maxRows: number,
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

export const fmt = (n: number) => n.toLocaleString('en-US');

export function needColumns(have: Map<string, HubDatasetColumn>, wanted: ReadonlyArray<string | null>, where: string): void {
  const missing = wanted.filter((c): c is string => c !== null && !have.has(c));
  if (missing.length > 0) {
    throw new HubDatasetError(`${missing.length > 1 ? 'columns' : 'column'} ${list(missing)} ${missing.length > 1 ? 'are' : 'is'} not in ${where}: its columns are ${list([...have.keys()])}`);
  }
}

export async function readQueries(ctx: Ctx, part: Part): Promise<BeirQuery[]> {
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

export async function readQrels(ctx: Ctx, part: Part): Promise<Qrels> {
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

