/**
 * Score calibration: puts one retriever's scores on a scale that can be mixed with another's.
 * raw = unchanged; minmax and zscore are relative to the candidate list; cdf is relative to the whole corpus.
 */

export type Calibration = 'raw' | 'minmax' | 'zscore' | 'cdf';
export const CALIBRATIONS: readonly Calibration[] = ['raw', 'minmax', 'zscore', 'cdf'];

/** (x − min) / (max − min); a constant list maps to 1 when its value is > 0, else to 0. */
export function minMax(xs: readonly number[]): number[] {
  if (xs.length === 0) return [];
  let lo = Infinity, hi = -Infinity;
  for (const x of xs) { if (x < lo) lo = x; if (x > hi) hi = x; }
  if (hi === lo) return xs.map(() => (hi > 0 ? 1 : 0));
  return xs.map((x) => (x - lo) / (hi - lo));
}

/** (x − mean) / std with the population standard deviation; a constant list maps to 0. */
export function zScore(xs: readonly number[]): number[] {
  if (xs.length === 0) return [];
  const mean = xs.reduce((a, b) => a + b, 0) / xs.length;
  const variance = xs.reduce((a, x) => a + (x - mean) ** 2, 0) / xs.length;
  const sd = Math.sqrt(variance);
  return xs.map((x) => (sd > 0 ? (x - mean) / sd : 0));
}

/**
 * Empirical CDF of a retriever's scores on sample queries scored against the corpus, kept as sorted
 * order statistics (downsampled to at most `maxPoints` so it stays small in IndexedDB).
 */
export interface CdfTable {
  sorted: Float64Array;
  /** How many scores the table was built from (before downsampling). */
  count: number;
  /** How many sample queries produced them. */
  queries: number;
}

export function buildCdf(scoreLists: Iterable<ArrayLike<number>>, maxPoints = 4096): CdfTable {
  const all: number[] = [];
  let queries = 0;
  for (const list of scoreLists) {
    queries++;
    for (let i = 0; i < list.length; i++) all.push(list[i]!);
  }
  const sorted = Float64Array.from(all).sort();
  if (sorted.length <= maxPoints) return { sorted, count: sorted.length, queries };
  const sample = new Float64Array(maxPoints);
  // Evenly spaced order statistics, first and last kept.
  for (let i = 0; i < maxPoints; i++) sample[i] = sorted[Math.round((i * (sorted.length - 1)) / (maxPoints - 1))]!;
  return { sorted: sample, count: sorted.length, queries };
}

/** S_cdf(s) = (number of table scores <= s) / N, by binary search. */
export function cdfRank(table: CdfTable, s: number): number {
  const a = table.sorted;
  if (a.length === 0) return 0;
  let lo = 0, hi = a.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (a[mid]! <= s) lo = mid + 1;
    else hi = mid;
  }
  return lo / a.length;
}

/** Applies a calibration; 'cdf' needs a table (the caller falls back when there is none). */
export function calibrate(method: Calibration, xs: readonly number[], table?: CdfTable): number[] {
  switch (method) {
    case 'raw': return xs.slice();
    case 'minmax': return minMax(xs);
    case 'zscore': return zScore(xs);
    case 'cdf':
      if (!table) throw new Error('calibrate: cdf calibration needs a CDF table built at index time');
      return xs.map((x) => cdfRank(table, x));
  }
}
