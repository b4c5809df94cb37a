/**
 * RAGBench subsets from local files (picked or dropped in the Benchmark tab, or read by the CLI): JSON Lines or
 * parquet, told apart by content (the parquet magic number), not by the name. JSONL must be UTF-8 (a byte order
 * mark is accepted). The subset is named after the rows' `dataset_name` (`covidqa_test` → `covidqa`), or the file
 * name when the rows have none usable. Every message names the file, and a bad row its line (JSONL) or row (parquet).
 */
import { parseRagbenchJsonl, RagbenchError, type RagbenchParseResult, type RagbenchRow } from './ragbench.ts';
import { looksLikeParquet, readRagbenchParquet } from './ragbench-parquet.ts';

/** A subset name: lower-case letters, digits, `_` and `-`, at most 40 characters. */
const SUBSET_NAME = /^[a-z0-9][a-z0-9_-]{0,39}$/;

/** The subset a RAGBench `dataset_name` names (`covidqa_test` → `covidqa`), or null when it is not a usable name. */
export function subsetOfDatasetName(name: string): string | null {
  const s = name.trim().toLowerCase().replace(/_(test|train|validation)$/, '');
  return SUBSET_NAME.test(s) ? s : null;
}

/** The subset a file name suggests (`covidqa.jsonl`, `covidqa_test.parquet` → `covidqa`), or null. */
export function subsetOfFileName(name: string): string | null {
  const base = name.split(/[\\/]/).pop() ?? '';
  return subsetOfDatasetName(base.replace(/\.(jsonl|ndjson|json|parquet)$/i, ''));
}

/** The most frequent usable subset among the rows' dataset_name values (ties: first seen), or null. */
function subsetOfRows(rows: readonly RagbenchRow[]): string | null {
  const counts = new Map<string, number>();
  for (const r of rows) {
    const s = subsetOfDatasetName(r.dataset_name);
    if (s) counts.set(s, (counts.get(s) ?? 0) + 1);
  }
  let best: string | null = null;
  for (const [s, n] of counts) if (best === null || n > counts.get(best)!) best = s;
  return best;
}

function decodeUtf8(bytes: Uint8Array, name: string): string {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new RagbenchError(`${name}: not UTF-8 text and not a parquet file (RAGBench files are JSON Lines in UTF-8, or parquet)`);
  }
}

/**
 * Parses one local RAGBench file. Throws `RagbenchError` (naming the file) when it is empty, not UTF-8 JSONL nor
 * parquet, or holds no valid row; skipped rows are listed in the result, each naming the file and line/row.
 */
export async function parseRagbenchFile(name: string, data: ArrayBuffer | Uint8Array, signal?: AbortSignal): Promise<RagbenchParseResult> {
  const bytes = data instanceof Uint8Array ? data : new Uint8Array(data);
  if (bytes.length === 0) throw new RagbenchError(`${name}: the file is empty`);
  const provisional = subsetOfFileName(name) ?? 'local';
  let res: RagbenchParseResult;
  if (looksLikeParquet(bytes)) {
    const buf = data instanceof ArrayBuffer ? data : (bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer);
    res = await readRagbenchParquet(buf, provisional, { label: name, file: name, ...(signal ? { signal } : {}) });
  } else {
    res = parseRagbenchJsonl(decodeUtf8(bytes, name), provisional, name);
  }
  const subset = subsetOfRows(res.rows) ?? subsetOfFileName(name);
  if (subset === null) throw new RagbenchError(`${name}: cannot tell which subset this is (no usable dataset_name in the rows, and the file name is not a subset name such as covidqa.jsonl)`);
  return { ...res, subset, skipped: res.skipped.map((i) => ({ ...i, subset })) };
}
