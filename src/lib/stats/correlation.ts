/**
 * Correlations between a predictor and a per-query metric (QPP evaluation, H1): Pearson r with its two-sided
 * p-value (t = r·sqrt((n−2)/(1−r²)), Student t with n−2 df), Spearman ρ (Pearson of average ranks), Kendall τ-b,
 * and a seeded percentile-bootstrap interval of any of them (pairs resampled with replacement).
 * Undefined values (fewer than 3 pairs, a constant side, a value that is not finite) are null, never NaN; arrays of
 * different lengths are a caller's bug and throw.
 */
import { percentileInterval } from './paired.ts';
import { seededRandom } from '../random.ts';
import { averageRanks } from './summary.ts';

/** The pairs, checked: same length (else throws), at least 3 and all finite (else null). */
function usable(x: readonly number[], y: readonly number[]): boolean {
  if (x.length !== y.length) throw new Error(`correlation: ${x.length} predictor values but ${y.length} metric values`);
  if (x.length < 3) return false;
  for (let i = 0; i < x.length; i++) if (!Number.isFinite(x[i]) || !Number.isFinite(y[i])) return false;
  return true;
}

/** Godfrey's Lanczos coefficients (g = 607/128, 15 terms). */
const LANCZOS_G = 607 / 128;
const LANCZOS = [0.99999999999999709182, 57.156235665862923517, -59.597960355475491248, 14.136097974741747174,
  -0.49191381609762019978, 0.33994649984811888699e-4, 0.46523628927048575665e-4, -0.98374475304879564677e-4,
  0.15808870322491248884e-3, -0.21026444172410488319e-3, 0.21743961811521264320e-3, -0.16431810653676389022e-3,
  0.84418223983852743293e-4, -0.26190838401581408670e-4, 0.36899182659531622704e-5];
/** ln Γ(x) for x > 0 by Lanczos (relative error about 1e-15), by reflection below ½. */
export function logGamma(x: number): number {
  if (x < 0.5) return Math.log(Math.PI / Math.sin(Math.PI * x)) - logGamma(1 - x);
  const z = x - 1;
  let a = LANCZOS[0]!;
  for (let i = 1; i < LANCZOS.length; i++) a += LANCZOS[i]! / (z + i);
  const t = z + LANCZOS_G + 0.5;
  // ln Γ(z+1) = ½ ln 2π + (z + ½) ln t − t + ln A(z)
  return 0.5 * Math.log(2 * Math.PI) + (z + 0.5) * Math.log(t) - t + Math.log(a);
}

/** Continued fraction of I_x(a, b) by the modified Lentz method (Numerical Recipes `betacf`). */
function betaContinuedFraction(x: number, a: number, b: number): number {
  // EPS a little above the double spacing near 1 (1.1e-16), else |del − 1| can stall above it for every iteration.
  const TINY = 1e-300, EPS = 3e-16;
  const qab = a + b, qap = a + 1, qam = a - 1;
  let c = 1, d = 1 - (qab * x) / qap;
  if (Math.abs(d) < TINY) d = TINY;
  d = 1 / d;
  let h = d;
  for (let m = 1; m <= 1000; m++) {
    const m2 = 2 * m;
    let aa = (m * (b - m) * x) / ((qam + m2) * (a + m2));
    d = 1 + aa * d; if (Math.abs(d) < TINY) d = TINY;
    c = 1 + aa / c; if (Math.abs(c) < TINY) c = TINY;
    d = 1 / d; h *= d * c;
    aa = (-(a + m) * (qab + m) * x) / ((a + m2) * (qap + m2));
    d = 1 + aa * d; if (Math.abs(d) < TINY) d = TINY;
    c = 1 + aa / c; if (Math.abs(c) < TINY) c = TINY;
    d = 1 / d;
    const del = d * c;
    h *= del;
    if (Math.abs(del - 1) < EPS) break;
  }
  return h;
}

/**
 * The regularised incomplete beta function I_x(a, b) = B(x; a, b) / B(a, b), x ∈ [0, 1], a, b > 0: the continued
 * fraction where it converges fast (x < (a+1)/(a+b+2)), else through I_x(a, b) = 1 − I_{1−x}(b, a).
 */
export function incompleteBeta(x: number, a: number, b: number): number {
  if (!(a > 0 && b > 0) || !(x >= 0 && x <= 1)) throw new Error(`incompleteBeta: need x in [0, 1] and a, b > 0 (x=${x}, a=${a}, b=${b})`);
  if (x === 0 || x === 1) return x;
  // front = x^a (1−x)^b / B(a, b)
  const front = Math.exp(logGamma(a + b) - logGamma(a) - logGamma(b) + a * Math.log(x) + b * Math.log1p(-x));
  if (x < (a + 1) / (a + b + 2)) return (front * betaContinuedFraction(x, a, b)) / a;
  return 1 - (front * betaContinuedFraction(1 - x, b, a)) / b;
}

/** Two-sided p of Student's t with `df` degrees of freedom: P(|T| ≥ |t|) = I_{df/(df+t²)}(df/2, 1/2). */
export function studentTwoSidedP(t: number, df: number): number {
  if (!(df > 0)) throw new Error(`studentTwoSidedP: need df > 0, got ${df}`);
  if (!Number.isFinite(t)) return Number.isNaN(t) ? NaN : 0;
  return incompleteBeta(df / (df + t * t), df / 2, 0.5);
}

/** Pearson r = Σ dx·dy / √(Σ dx² · Σ dy²) (deviations from the means), clamped to [−1, 1]; null when undefined. */
export function pearsonR(x: readonly number[], y: readonly number[]): number | null {
  if (!usable(x, y)) return null;
  const n = x.length;
  let mx = 0, my = 0;
  for (let i = 0; i < n; i++) { mx += x[i]!; my += y[i]!; }
  mx /= n; my /= n;
  let sxy = 0, sxx = 0, syy = 0;
  for (let i = 0; i < n; i++) {
    const dx = x[i]! - mx, dy = y[i]! - my;
    sxy += dx * dy; sxx += dx * dx; syy += dy * dy;
  }
  if (sxx === 0 || syy === 0) return null; // a constant side
  return Math.max(-1, Math.min(1, sxy / Math.sqrt(sxx * syy)));
}

/** Pearson r and its two-sided p (t = r·sqrt((n−2)/(1−r²)), n−2 df; p = 0 when |r| = 1); null when undefined. */
export function pearson(x: readonly number[], y: readonly number[]): { r: number; p: number } | null {
  const r = pearsonR(x, y);
  if (r === null) return null;
  const df = x.length - 2;
  if (Math.abs(r) === 1) return { r, p: 0 };
  return { r, p: studentTwoSidedP(r * Math.sqrt(df / (1 - r * r)), df) };
}

/** Spearman ρ = Pearson r of the average ranks (ties share the mean of the ranks they span); null when undefined. */
export function spearman(x: readonly number[], y: readonly number[]): number | null {
  if (!usable(x, y)) return null;
  return pearsonR(averageRanks(x), averageRanks(y));
}

/** Dense 1-based ranks (equal values share one; no gaps) and Σ t(t−1)/2 over groups of t equal values. */
function denseRanks(xs: readonly number[]): { ranks: Float64Array; max: number; tiedPairs: number } {
  const sorted = Float64Array.from(xs).sort();
  const unique: number[] = [];
  let tied = 0, run = 1;
  for (let k = 0; k < sorted.length; k++) {
    if (k > 0 && sorted[k] === sorted[k - 1]) { run++; continue; }
    tied += (run * (run - 1)) / 2; run = 1;
    unique.push(sorted[k]!);
  }
  tied += (run * (run - 1)) / 2;
  const ranks = new Float64Array(xs.length);
  xs.forEach((x, i) => {
    let lo = 0, hi = unique.length;
    while (lo < hi) { const mid = (lo + hi) >>> 1; if (unique[mid]! < x) lo = mid + 1; else hi = mid; }
    ranks[i] = lo + 1;
  });
  return { ranks, max: unique.length, tiedPairs: tied };
}

/**
 * Kendall τ-b = (n_c − n_d) / sqrt((n_0 − n_x)(n_0 − n_y)), n_0 = n(n−1)/2, n_x / n_y = pairs tied in x / y (a pair
 * tied in both counts in both); null when undefined. Knight's O(n log n) algorithm as scipy's `kendalltau`: order
 * by (x, y), count the discordant pairs with a Fenwick tree over y's ranks. Sorts are numeric sorts of typed arrays
 * (each item's x rank, y rank and position packed in one exact integer key), so it runs inside a bootstrap;
 * up to 200,000 pairs.
 */
export function kendallTauB(x: readonly number[], y: readonly number[]): number | null {
  if (!usable(x, y)) return null;
  const n = x.length;
  if (n > 200_000) throw new Error(`kendallTauB: at most 200,000 pairs, got ${n}`);
  const rx = denseRanks(x), ry = denseRanks(y);
  const n0 = (n * (n - 1)) / 2;
  if (rx.tiedPairs === n0 || ry.tiedPairs === n0) return null; // a constant side
  // key = (rank_x · (maxY + 1) + rank_y) · n + i: sorting the keys orders by (x, y), and the key gives i back
  const span = ry.max + 1;
  const keys = new Float64Array(n);
  for (let i = 0; i < n; i++) keys[i] = (rx.ranks[i]! * span + ry.ranks[i]!) * n + i;
  keys.sort();
  const tree = new Float64Array(ry.max + 1);
  let dis = 0, bothTies = 0, run = 1;
  const xyOf = (k: number) => Math.floor(keys[k]! / n);
  for (let i = 0, k = 0; i < n;) {
    // one group of equal x: each item is discordant with the earlier items (smaller x) of larger y rank
    const gx = Math.floor(xyOf(i) / span);
    while (k < n && Math.floor(xyOf(k) / span) === gx) {
      dis += i;
      for (let idx = xyOf(k) % span; idx > 0; idx &= idx - 1) dis -= tree[idx]!;
      if (k > i && xyOf(k) === xyOf(k - 1)) run++;
      else { bothTies += (run * (run - 1)) / 2; run = 1; }
      k++;
    }
    for (; i < k; i++) for (let idx = xyOf(i) % span; idx <= ry.max; idx += idx & -idx) tree[idx]!++;
  }
  bothTies += (run * (run - 1)) / 2;
  // n_c − n_d = (n_0 − n_x − n_y + n_xy) − 2·n_d: the pairs tied in neither, less twice the discordant ones
  const conMinusDis = n0 - rx.tiedPairs - ry.tiedPairs + bothTies - 2 * dis;
  return Math.max(-1, Math.min(1, conMinusDis / Math.sqrt((n0 - rx.tiedPairs) * (n0 - ry.tiedPairs))));
}

export interface CorrelationCiOptions { iterations: number; seed: number; level: number }
export const CORRELATION_CI_DEFAULTS: Readonly<CorrelationCiOptions> = Object.freeze({ iterations: 10_000, seed: 0, level: 0.95 });

/** Percentile-bootstrap interval of `stat` over resampled pairs (mulberry32(seed)); null when no resample gives a number. */
export function correlationCi(
  x: readonly number[], y: readonly number[],
  stat: (x: readonly number[], y: readonly number[]) => number | null,
  opts: Partial<CorrelationCiOptions> = {},
): [number, number] | null {
  const o: CorrelationCiOptions = { ...CORRELATION_CI_DEFAULTS, ...opts };
  if (x.length !== y.length) throw new Error(`correlationCi: ${x.length} predictor values but ${y.length} metric values`);
  if (!Number.isInteger(o.iterations) || o.iterations < 1) throw new Error(`correlationCi: iterations must be a whole number ≥ 1, got ${o.iterations}`);
  if (!(o.level > 0 && o.level < 1)) throw new Error(`correlationCi: level must be in (0, 1), got ${o.level}`);
  const n = x.length;
  if (n === 0) return null;
  const rand = seededRandom(o.seed);
  const values = new Float64Array(o.iterations);
  const xs = new Array<number>(n), ys = new Array<number>(n);
  for (let b = 0; b < o.iterations; b++) {
    for (let i = 0; i < n; i++) {
      const j = Math.floor(rand() * n);
      xs[i] = x[j]!; ys[i] = y[j]!;
    }
    values[b] = stat(xs, ys) ?? NaN;
  }
  return percentileInterval(values, o.level);
}
