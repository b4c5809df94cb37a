/** Small descriptive statistics. */
import { seededRandom } from '../random.ts';

export function mean(xs: readonly number[]): number {
  return xs.length === 0 ? NaN : xs.reduce((a, b) => a + b, 0) / xs.length;
}

/** Percentile by linear interpolation between closest ranks (numpy's default), p in [0, 100]. */
export function percentile(xs: readonly number[], p: number): number {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  const h = ((s.length - 1) * p) / 100;
  const lo = Math.floor(h);
  const hi = Math.ceil(h);
  return s[lo]! + (h - lo) * (s[hi]! - s[lo]!);
}

const isNum = (x: number | null | undefined): x is number => typeof x === 'number' && !Number.isNaN(x);

/** The pairs (p, g) where neither value is NaN, null or undefined. */
export function maskedPairs(
  pred: readonly (number | null | undefined)[],
  gold: readonly (number | null | undefined)[],
): { pred: number[]; gold: number[] } {
  if (pred.length !== gold.length) throw new Error(`length mismatch: ${pred.length} predictions, ${gold.length} gold values`);
  const p: number[] = [];
  const g: number[] = [];
  for (let i = 0; i < pred.length; i++) {
    const a = pred[i];
    const b = gold[i];
    if (isNum(a) && isNum(b)) { p.push(a); g.push(b); }
  }
  return { pred: p, gold: g };
}

/** Root mean squared error over the rows where both values are numbers (not NaN/null); NaN when none is left. */
export function rmse(pred: readonly (number | null | undefined)[], gold: readonly (number | null | undefined)[]): number {
  const m = maskedPairs(pred, gold);
  if (m.pred.length === 0) return NaN;
  let s = 0;
  for (let i = 0; i < m.pred.length; i++) s += (m.pred[i]! - m.gold[i]!) ** 2;
  return Math.sqrt(s / m.pred.length);
}

/**
 * Average ranks (1-based) with ties sharing the mean of the ranks they span: a sorted typed copy gives each distinct
 * value's mean rank, and each value finds its own by binary search (no comparator sort: fast enough to run inside a
 * 10,000-resample bootstrap). Values must not be NaN.
 */
export function averageRanks(xs: readonly number[]): number[] {
  const s = Float64Array.from(xs).sort();
  const values: number[] = [], ranks: number[] = [];
  for (let i = 0; i < s.length;) {
    let j = i;
    while (j + 1 < s.length && s[j + 1] === s[i]) j++;
    values.push(s[i]!);
    ranks.push((i + j) / 2 + 1);
    i = j + 1;
  }
  return xs.map((x) => {
    let lo = 0, hi = values.length;
    while (lo < hi) { const mid = (lo + hi) >>> 1; if (values[mid]! < x) lo = mid + 1; else hi = mid; }
    return ranks[lo]!;
  });
}

/**
 * Area under the ROC curve by the Mann–Whitney U statistic: AUROC = (R₁ − n₁(n₁+1)/2) / (n₁·n₀), R₁ = sum of the
 * positives' average ranks (ties count ½). Rows whose score is NaN/null are dropped; NaN when only one class is left.
 */
export function auroc(yTrue: readonly (0 | 1 | boolean)[], yScore: readonly (number | null | undefined)[]): number {
  if (yTrue.length !== yScore.length) throw new Error(`length mismatch: ${yTrue.length} labels, ${yScore.length} scores`);
  const labels: number[] = [];
  const scores: number[] = [];
  for (let i = 0; i < yTrue.length; i++) {
    const s = yScore[i];
    if (!isNum(s)) continue;
    labels.push(yTrue[i] === true || yTrue[i] === 1 ? 1 : 0);
    scores.push(s);
  }
  const n1 = labels.reduce((a, b) => a + b, 0);
  const n0 = labels.length - n1;
  if (n1 === 0 || n0 === 0) return NaN;
  const ranks = averageRanks(scores);
  let r1 = 0;
  for (let i = 0; i < labels.length; i++) if (labels[i] === 1) r1 += ranks[i]!;
  return (r1 - (n1 * (n1 + 1)) / 2) / (n1 * n0);
}

/** Pearson correlation over the rows where both values are numbers; NaN with fewer than 2 rows or zero variance. */
export function pearson(x: readonly (number | null | undefined)[], y: readonly (number | null | undefined)[]): number {
  const m = maskedPairs(x, y);
  const n = m.pred.length;
  if (n < 2) return NaN;
  const mx = mean(m.pred);
  const my = mean(m.gold);
  let sxy = 0, sxx = 0, syy = 0;
  for (let i = 0; i < n; i++) {
    const dx = m.pred[i]! - mx;
    const dy = m.gold[i]! - my;
    sxy += dx * dy; sxx += dx * dx; syy += dy * dy;
  }
  return sxx === 0 || syy === 0 ? NaN : sxy / Math.sqrt(sxx * syy);
}

export interface BootstrapOptions {
  /** Resamples. Default 1000. */
  iterations?: number;
  /** Seed of the mulberry32 generator (src/lib/random.ts). Default 0. */
  seed?: number;
  /** Confidence level of the percentile interval. Default 0.95. */
  level?: number;
}

export interface BootstrapResult {
  /** The statistic on the original sample (for pairedBootstrap: statFn(a) − statFn(b)). */
  estimate: number;
  /** Mean of the statistic over the resamples that gave a number. */
  mean: number;
  /** Percentile interval (numpy linear interpolation) of the resampled statistic. */
  ci: [number, number];
  /** Resamples whose statistic was a number (NaN resamples, e.g. one class only for AUROC, are left out). */
  iterations: number;
}

function resampleIndexes(n: number, rand: () => number): number[] {
  return Array.from({ length: n }, () => Math.floor(rand() * n));
}

function summarise(estimate: number, stats: number[], level: number): BootstrapResult {
  const ok = stats.filter((s) => !Number.isNaN(s));
  const tail = ((1 - level) / 2) * 100;
  return {
    estimate,
    mean: mean(ok),
    ci: [percentile(ok, tail), percentile(ok, 100 - tail)],
    iterations: ok.length,
  };
}

/**
 * Percentile bootstrap of a statistic of one sample of rows: resample rows with replacement `iterations` times,
 * seeded, so the interval is reproducible.
 */
export function bootstrapCI<T>(values: readonly T[], statFn: (sample: readonly T[]) => number, opts: BootstrapOptions = {}): BootstrapResult {
  const { iterations = 1000, seed = 0, level = 0.95 } = opts;
  const rand = seededRandom(seed);
  const stats: number[] = [];
  for (let it = 0; it < iterations; it++) stats.push(statFn(resampleIndexes(values.length, rand).map((i) => values[i]!)));
  return summarise(statFn(values), stats, level);
}

/**
 * Paired bootstrap of statFn(a) − statFn(b), where a[i] and b[i] describe the same row (e.g. two evaluators' scores
 * with the gold label): each resample draws the same row indexes for both. Returns the mean difference and its
 * percentile interval; an interval that excludes 0 means the difference is unlikely to be resampling noise.
 */
export function pairedBootstrap<T>(
  a: readonly T[],
  b: readonly T[],
  statFn: (sample: readonly T[]) => number,
  opts: BootstrapOptions = {},
): BootstrapResult {
  if (a.length !== b.length) throw new Error(`paired samples differ in length: ${a.length} vs ${b.length}`);
  const { iterations = 1000, seed = 0, level = 0.95 } = opts;
  const rand = seededRandom(seed);
  const stats: number[] = [];
  for (let it = 0; it < iterations; it++) {
    const idx = resampleIndexes(a.length, rand);
    stats.push(statFn(idx.map((i) => a[i]!)) - statFn(idx.map((i) => b[i]!)));
  }
  return summarise(statFn(a) - statFn(b), stats, level);
}
