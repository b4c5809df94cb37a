/**
 * Coalesced reads of parquet row groups over HTTP ranges. hyparquet fetches each row group it reads with its own
 * range request, so a file written with one row per row group costs one request per row (10,000 rows: 10,027
 * requests, minutes). Here adjacent row groups are planned into batches whose byte span (the requested columns'
 * chunks, plus small gaps of other columns) stays under {@link SPAN_BYTES}; each batch is fetched with one request
 * and hyparquet reads its row groups from memory ({@link spanBuffer}).
 */
import type { AsyncBuffer, FileMetaData } from 'hyparquet';

/** A batch's byte span at most (a single row group larger than this is one batch of its own). */
export const SPAN_BYTES = 8 << 20;
/** Unrequested bytes (other columns) between two row groups' chunks that a batch reads through rather than split. */
export const GAP_BYTES = 1 << 20;
/** Range requests one read may plan; past it the read is refused (lower the row limit). */
export const MAX_SPAN_REQUESTS = 2_000;
/** Row groups averaging fewer rows than this are "tiny": the progress line says why the read takes requests. */
export const TINY_GROUP_ROWS = 100;

export interface GroupRange {
  /** Rows in the row group. */
  rows: number;
  /** [start, end) bytes of the requested columns' chunks. */
  start: number;
  end: number;
}

export interface Batch {
  /** Row groups [first, last] of the file. */
  first: number;
  last: number;
  /** Rows [rowStart, rowEnd) of the file. */
  rowStart: number;
  rowEnd: number;
  /** The byte span fetched with one request. */
  start: number;
  end: number;
}

/** The requested columns' byte range of each row group (top-level column names; all columns when omitted). */
export function groupRanges(metadata: FileMetaData, columns?: readonly string[]): GroupRange[] {
  return metadata.row_groups.map((g) => {
    let start = Infinity, end = 0;
    for (const c of g.columns) {
      const m = c.meta_data;
      if (!m || (columns && !columns.includes(m.path_in_schema[0]!))) continue;
      const s = Number(m.dictionary_page_offset || m.data_page_offset);
      start = Math.min(start, s);
      end = Math.max(end, s + Number(m.total_compressed_size));
    }
    return { rows: Number(g.num_rows), start: start === Infinity ? 0 : start, end };
  });
}

/**
 * Batches of consecutive row groups covering rows [0, maxRows): a group joins the batch when it starts at or after
 * the batch's end, within {@link GAP_BYTES} of it, and the span stays within {@link SPAN_BYTES}.
 */
export function planBatches(groups: readonly GroupRange[], maxRows: number, opts: { spanBytes?: number; gapBytes?: number } = {}): Batch[] {
  const spanBytes = opts.spanBytes ?? SPAN_BYTES, gapBytes = opts.gapBytes ?? GAP_BYTES;
  const out: Batch[] = [];
  let row = 0;
  let cur: Batch | null = null;
  for (let i = 0; i < groups.length && row < maxRows; i++) {
    const g = groups[i]!;
    const rowEnd = Math.min(row + g.rows, maxRows);
    const joins = cur !== null && g.start >= cur.end && g.start - cur.end <= gapBytes && g.end - cur.start <= spanBytes;
    if (cur && joins) {
      cur.last = i;
      cur.rowEnd = rowEnd;
      cur.end = g.end;
    } else {
      if (cur) out.push(cur);
      cur = { first: i, last: i, rowStart: row, rowEnd, start: g.start, end: g.end };
    }
    row = rowEnd;
  }
  if (cur) out.push(cur);
  return out;
}

/** Why a read of tiny row groups takes the requests it does, or null when the groups are not tiny. */
export function batchNote(path: string, groups: readonly GroupRange[], batches: readonly Batch[]): string | null {
  const used = batches.length > 0 ? batches[batches.length - 1]!.last + 1 : 0;
  if (used < 2) return null;
  const rows = groups.slice(0, used).reduce((s, g) => s + g.rows, 0);
  const mean = rows / used;
  if (mean >= TINY_GROUP_ROWS) return null;
  const n = (x: number) => x.toLocaleString('en-US');
  const each = Number.isInteger(mean) ? `${n(mean)} ${mean === 1 ? 'row' : 'rows'} each` : `${n(Math.round(mean * 10) / 10)} rows each on average`;
  return `${path} stores ${n(used)} row groups of ${each}: reading them in ${n(batches.length)} ${batches.length === 1 ? 'request' : 'requests'}`;
}

/**
 * `file` with bytes [start, start + bytes.byteLength) served from memory; other slices go to `file` (hyparquet
 * only asks for the chunks of the planned row groups, all inside the span).
 */
export function spanBuffer(file: AsyncBuffer, start: number, bytes: ArrayBuffer): AsyncBuffer {
  const end = start + bytes.byteLength;
  return {
    byteLength: file.byteLength,
    slice(s: number, e: number = file.byteLength) {
      return s >= start && e <= end ? bytes.slice(s - start, e - start) : file.slice(s, e);
    },
  };
}
