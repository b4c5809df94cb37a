/**
 * Vectors from outside (an artifact's embeddings.npy or int8 scales, seed A's embeddings.npy, the embedding cache,
 * a model's output) are screened once on open: one pass over the values finds rows holding NaN or ±Infinity (or a
 * zero vector, which has no direction), and rows that are not unit length where the format says they are.
 * {@link screenVectors} decides what the dense side does with them: when more than half the rows are unusable,
 * dense search is off (a note names the file); otherwise the bad rows are zeroed and left out of dense search
 * (`KnowledgeBase.denseSkip`), with a note naming how many and which.
 */

/** Rows whose L2 norm differs from 1 by more than this are "not unit length" (the writer normalises above 1e-6). */
export const UNIT_NORM_TOLERANCE = 1e-3;
/** Above this share of unusable rows the dense side is refused instead of masked. */
export const DENSE_OFF_SHARE = 0.5;

export interface VectorHealth {
  rows: number;
  /** 1 = the row holds a non-finite value or is all zeros. Null when every row is usable. */
  bad: Uint8Array | null;
  badCount: number;
  /** Usable rows whose norm is off 1 by more than {@link UNIT_NORM_TOLERANCE}. */
  offUnit: number;
}

/** One pass over row-major rows × dim values. */
export function checkVectors(values: ArrayLike<number>, dim: number): VectorHealth {
  const rows = dim > 0 ? Math.floor(values.length / dim) : 0;
  let bad: Uint8Array | null = null, badCount = 0, offUnit = 0;
  for (let r = 0, off = 0; r < rows; r++, off += dim) {
    let s = 0;
    for (let j = 0; j < dim; j++) { const x = values[off + j]!; s += x * x; }
    // s is NaN for a NaN value, Infinity for an infinite (or overflowing) one.
    if (!Number.isFinite(s) || s === 0) {
      (bad ??= new Uint8Array(rows))[r] = 1;
      badCount++;
    } else if (Math.abs(Math.sqrt(s) - 1) > UNIT_NORM_TOLERANCE) offUnit++;
  }
  return { rows, bad, badCount, offUnit };
}

/** Per-row scalars (int8 scales, alphas): flags in `bad` (created when needed) the rows whose value is not finite. */
export function flagNonFinite(values: ArrayLike<number>, bad: Uint8Array | null): Uint8Array | null {
  for (let r = 0; r < values.length; r++) if (!Number.isFinite(values[r]!)) (bad ??= new Uint8Array(values.length))[r] = 1;
  return bad;
}

/** Sets the flagged rows of row-major `values` to 0 in place. */
export function zeroRows(values: Float32Array | Float64Array, dim: number, bad: Uint8Array): void {
  for (let r = 0; r < bad.length; r++) if (bad[r]) values.fill(0, r * dim, (r + 1) * dim);
}

const fmt = (n: number) => n.toLocaleString('en-US');

/** "rows 3, 17, 200 and 4 more" (at most 5 named). */
export function rowList(bad: Uint8Array): string {
  const named: number[] = [];
  let count = 0;
  for (let r = 0; r < bad.length; r++) if (bad[r]) { count++; if (named.length < 5) named.push(r); }
  const rest = count - named.length;
  return `${count === 1 ? 'row' : 'rows'} ${named.join(', ')}${rest > 0 ? ` and ${fmt(rest)} more` : ''}`;
}

/**
 * What the dense side does with `values` of `file`: null = dense off (note pushed); else the rows to leave out
 * of dense search (null: none) and the values to use: a copy with those rows zeroed, so no index kind (int8
 * centroids, an HNSW graph) is poisoned by them (`values` itself, often a view of the file, is never written). `unit`: the format says rows are L2-normalised (a note counts rows that are not; they are
 * normalised by the index as before).
 */
export function screenVectors<T extends Float32Array | Float64Array>(
  file: string, values: T, dim: number, notes: string[], opts: { unit?: boolean } = {},
): { skip: Uint8Array | null; values: T } | null {
  const h = checkVectors(values, dim);
  if (h.rows > 0 && h.badCount > h.rows * DENSE_OFF_SHARE) {
    notes.push(`${file}: ${fmt(h.badCount)} of ${fmt(h.rows)} rows hold NaN or infinite values (or are all zeros); dense search is off for this knowledge base (BM25 still works).`);
    return null;
  }
  let out = values;
  if (h.bad) {
    out = values.slice() as T;
    zeroRows(out, dim, h.bad);
    notes.push(`${file}: ${fmt(h.badCount)} of ${fmt(h.rows)} rows hold NaN or infinite values (or are all zeros): ${rowList(h.bad)}; dense search leaves those chunks out.`);
  }
  if (opts.unit && h.offUnit > 0) {
    notes.push(`${file}: ${fmt(h.offUnit)} of ${fmt(h.rows)} rows are not unit length (the format says L2-normalised); they are normalised for cosine search.`);
  }
  return { skip: h.bad, values: out };
}

/** Whether every value is finite (a query vector). */
export function allFinite(values: ArrayLike<number>): boolean {
  for (let i = 0; i < values.length; i++) if (!Number.isFinite(values[i]!)) return false;
  return true;
}
