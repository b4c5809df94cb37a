/**
 * RAGBench rows from a parquet file (hyparquet): a local file's bytes or a remote file read with HTTP range requests.
 * Rows are read one row group at a time (so a remote file is fetched in column-chunk ranges, never as one download),
 * only the 26 RAGBench columns are asked for, and every row passes the same valibot schema as JSONL rows.
 * Parquet values are mapped to JSON's: INT64 (bigint) → number, a NaN double → null (as the JSONL parser reads NaN).
 */
import { parquetMetadataAsync, parquetReadObjects, parquetSchema, type AsyncBuffer, type FileMetaData } from 'hyparquet';
import { formatIssue, RAGBENCH_FIELDS, RagbenchError, RowCollector, type RagbenchParseResult } from './ragbench.ts';

/** "PAR1": the first and last four bytes of every parquet file. */
export const PARQUET_MAGIC = [0x50, 0x41, 0x52, 0x31] as const;

/** True when the bytes start with the parquet magic number. */
export function looksLikeParquet(bytes: Uint8Array): boolean {
  return bytes.length >= 8 && PARQUET_MAGIC.every((b, i) => bytes[i] === b);
}

/** A parquet value as the JSON row schema expects it. */
export function jsonValue(x: unknown): unknown {
  if (typeof x === 'bigint') return Number(x);
  if (typeof x === 'number' && Number.isNaN(x)) return null;
  if (Array.isArray(x)) return x.map(jsonValue);
  if (x !== null && typeof x === 'object' && !(x instanceof Date) && !(x instanceof Uint8Array)) {
    return Object.fromEntries(Object.entries(x).map(([k, v]) => [k, jsonValue(v)]));
  }
  return x;
}

export interface ParquetReadOptions {
  /** Named in messages (a file name, or "<subset> on the Hub"). */
  label: string;
  /** Issues name this file (local files). */
  file?: string;
  signal?: AbortSignal;
  onProgress?: (loaded: number, total: number) => void;
}

/** Bytes read from the end for the footer: RAGBench footers are a few KB; a larger one costs one more range. */
const FOOTER_FETCH = 1 << 16;

async function metadataOf(file: AsyncBuffer, label: string): Promise<FileMetaData> {
  try {
    return await parquetMetadataAsync(file, { initialFetchSize: FOOTER_FETCH });
  } catch (e) {
    throw new RagbenchError(`${label}: not a readable parquet file (${(e as Error).message})`);
  }
}

/**
 * Reads the RAGBench rows of a parquet file. Missing columns are a whole-file error naming them; bad rows are
 * skipped and reported with their 0-based row index. Throws `RagbenchError` when no row is valid.
 */
export async function readRagbenchParquet(file: AsyncBuffer, subset: string, opts: ParquetReadOptions): Promise<RagbenchParseResult> {
  const metadata = await metadataOf(file, opts.label);
  const present = new Set(parquetSchema(metadata).children.map((c) => c.element.name));
  const missing = RAGBENCH_FIELDS.filter((f) => !present.has(f));
  if (missing.length > 0) {
    throw new RagbenchError(`${opts.label}: not a RAGBench file: missing column${missing.length > 1 ? 's' : ''} ${missing.slice(0, 5).join(', ')}${missing.length > 5 ? ` and ${missing.length - 5} more` : ''}`);
  }
  const total = Number(metadata.num_rows);
  const c = new RowCollector(subset, 'row_idx', opts.file);
  let start = 0;
  opts.onProgress?.(0, total);
  for (const group of metadata.row_groups) {
    opts.signal?.throwIfAborted();
    const end = start + Number(group.num_rows);
    let rows: Record<string, unknown>[];
    try {
      rows = await parquetReadObjects({ file, metadata, columns: [...RAGBENCH_FIELDS], rowStart: start, rowEnd: end });
    } catch (e) {
      opts.signal?.throwIfAborted();
      throw new RagbenchError(`${opts.label}: rows ${start}–${end - 1} could not be read (${(e as Error).message})`);
    }
    rows.forEach((r, i) => c.add(jsonValue(r), start + i));
    start = end;
    opts.onProgress?.(start, total);
  }
  const res = c.result();
  if (res.rows.length === 0) {
    throw new RagbenchError(res.total === 0 ? `${opts.label}: the parquet file has no rows`
      : `${opts.label}: no valid row in ${res.total} (first problem: ${formatIssue(res.skipped[0]!)})`);
  }
  return res;
}
