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
 * Empirical CDF of a retriever's scores on sample queries scored against the corpus, kept as sorted order statistics:
 * every score up to CDF_MAX_POINTS (seed B keeps its whole table, 1.7M scores, and looks them up with np.searchsorted;
 * SciFact's 12,699 chunks × 100 pseudo-queries are 1.27M scores, a 10 MB Float64Array), evenly spaced ones beyond.
 * Tables saved before issue 32 hold at most 4,096 (`isCoarseCdf`); they are still read and interpolated (`cdfRank`).
 */
export interface CdfTable {
  sorted: Float64Array;
  /** How many scores the table was built from (its length, or more when it was thinned). */
  count: number;
  /** How many sample queries produced them. */
  queries: number;
}

/** The most order statistics a table keeps (16 MB of Float64): beyond, evenly spaced ones (a rank error ≤ 5·10⁻⁷). */
export const CDF_MAX_POINTS = 2_000_000;

/** A table thinned below what buildCdf keeps now: one saved before issue 32 (4,096 points), to be built again. */
export function isCoarseCdf(t: CdfTable): boolean {
  return t.sorted.length < Math.min(t.count, CDF_MAX_POINTS);
}

/** Every score (up to `maxPoints`; beyond, evenly spaced order statistics, first and last kept), sorted. */
export function buildCdf(scoreLists: Iterable<ArrayLike<number>>, maxPoints = CDF_MAX_POINTS): CdfTable {
  let total = 0;
  const lists: ArrayLike<number>[] = [];
  for (const list of scoreLists) { lists.push(list); total += list.length; }
  const sorted = new Float64Array(total);
  let at = 0;
  for (const list of lists) for (let i = 0; i < list.length; i++) sorted[at++] = list[i]!;
  sorted.sort();
  const queries = lists.length;
  if (sorted.length <= maxPoints) return { sorted, count: sorted.length, queries };
  const m = Math.max(2, Math.floor(maxPoints));
  const sample = new Float64Array(m);
  for (let i = 0; i < m; i++) sample[i] = sorted[Math.round((i * (sorted.length - 1)) / (m - 1))]!;
  return { sorted: sample, count: sorted.length, queries };
}

/** r(s) = #{table scores ≤ s}: np.searchsorted(table, s, side='right'), by binary search. */
export function cdfCount(sorted: Float64Array, s: number): number {
  let lo = 0, hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid]! <= s) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * S_cdf(s) = (r + (s − t[r−1]) / (t[r] − t[r−1])) / (N + 1), r = #{t ≤ s}: seed B's percentile r / N (np.searchsorted)
 * on the N + 1 grid, interpolated linearly between neighbouring table scores so that distinct scores get distinct
 * values; the tails stay inside (0, 1) and keep their order: below t[0], (w / (w + t[0] − s)) / (N + 1); at or above
 * t[N−1], (N + 1 − w / (w + s − t[N−1])) / (N + 1), with w = t[N−1] − t[0] (1 for a one-valued table).
 * A table score s itself maps to r / (N + 1). An empty table maps everything to 0; NaN maps to NaN.
 */
export function cdfRank(table: CdfTable, s: number): number {
  const a = table.sorted;
  const n = a.length;
  if (n === 0) return 0;
  if (Number.isNaN(s)) return NaN;
  const span = a[n - 1]! - a[0]!;
  const w = span > 0 && Number.isFinite(span) ? span : 1;
  if (s < a[0]!) return (w / (w + (a[0]! - s))) / (n + 1);
  const r = cdfCount(a, s);
  if (r >= n) return (n + 1 - w / (w + (s - a[n - 1]!))) / (n + 1);
  const lo = a[r - 1]!, hi = a[r]!;
  return (r + (s - lo) / (hi - lo)) / (n + 1);
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
