/**
 * The weighted term–document matrix A (terms × documents) in compressed sparse column form (one column per
 * document, its term rows ascending), with w = (1 + ln tf) · idf and idf = ln(N / df) (Deerwester et al. 1990's
 * log-entropy family; the notes' weighting).
 */
import type { TermCounts, Vocabulary } from './vocabulary.ts';

export interface SparseColumns {
  rows: number;
  cols: number;
  /** colPtr[j]..colPtr[j+1] index the entries of column j. */
  colPtr: Int32Array;
  rowIdx: Int32Array;
  values: Float64Array;
}

/** idf = ln(N / df), per term row. */
export function inverseDocumentFrequency(df: Int32Array, documents: number): Float64Array {
  return Float64Array.from(df, (n) => Math.log(documents / n));
}

/** A's columns from each document's counts; words outside the vocabulary are not counted. */
export function tfidfMatrix(docs: readonly TermCounts[], vocab: Vocabulary, idf: Float64Array): SparseColumns {
  const colPtr = new Int32Array(docs.length + 1);
  const rowsOf: Int32Array[] = [];
  const tfsOf: Float64Array[] = [];
  let nnz = 0;
  for (const d of docs) {
    const entries: [number, number][] = [];
    for (const [w, tf] of d) {
      const r = vocab.termRow.get(w);
      if (r !== undefined) entries.push([r, tf]);
    }
    entries.sort((a, b) => a[0] - b[0]);
    rowsOf.push(Int32Array.from(entries, (e) => e[0]));
    tfsOf.push(Float64Array.from(entries, (e) => e[1]));
    nnz += entries.length;
  }
  const rowIdx = new Int32Array(nnz);
  const values = new Float64Array(nnz);
  let k = 0;
  for (let j = 0; j < docs.length; j++) {
    const rs = rowsOf[j]!, tfs = tfsOf[j]!;
    for (let e = 0; e < rs.length; e++) {
      const r = rs[e]!;
      rowIdx[k] = r;
      values[k++] = (1 + Math.log(tfs[e]!)) * idf[r]!; // w = (1 + ln tf) · idf
    }
    colPtr[j + 1] = k;
  }
  return { rows: vocab.df.length, cols: docs.length, colPtr, rowIdx, values };
}

/** Y = A · X, X (cols × l) and Y (rows × l) column-major. */
export function multiply(a: SparseColumns, x: Float64Array, l: number): Float64Array {
  const { rows, cols, colPtr, rowIdx, values } = a;
  const y = new Float64Array(rows * l);
  for (let c = 0; c < l; c++) {
    const yo = c * rows, xo = c * cols;
    for (let j = 0; j < cols; j++) {
      const xj = x[xo + j]!;
      if (xj === 0) continue;
      for (let e = colPtr[j]!, end = colPtr[j + 1]!; e < end; e++) { const r = yo + rowIdx[e]!; y[r] = y[r]! + values[e]! * xj; }
    }
  }
  return y;
}

/** Z = Aᵀ · Y, Y (rows × l) and Z (cols × l) column-major. */
export function multiplyTransposed(a: SparseColumns, y: Float64Array, l: number): Float64Array {
  const { rows, cols, colPtr, rowIdx, values } = a;
  const z = new Float64Array(cols * l);
  for (let c = 0; c < l; c++) {
    const yo = c * rows, zo = c * cols;
    for (let j = 0; j < cols; j++) {
      let s = 0;
      for (let e = colPtr[j]!, end = colPtr[j + 1]!; e < end; e++) s += values[e]! * y[yo + rowIdx[e]!]!;
      z[zo + j] = s;
    }
  }
  return z;
}
