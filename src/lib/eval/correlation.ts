/**
 * Correlations between a predictor and a per-query metric (QPP evaluation, H1): Pearson r with its two-sided
 * p-value (t = r·sqrt((n−2)/(1−r²)), Student t with n−2 df), Spearman ρ (Pearson of average ranks), Kendall τ-b,
 * and a seeded percentile-bootstrap interval of any of them (pairs resampled with replacement).
 * Undefined values (fewer than 3 pairs, a constant side) are null, never NaN.
 *
 * CONTRACT STUB (issue 13): signatures fixed; the qpp helper implements the bodies.
 */

export function pearson(x: readonly number[], y: readonly number[]): { r: number; p: number } | null {
  void x; void y;
  throw new Error('not implemented');
}

export function spearman(x: readonly number[], y: readonly number[]): number | null {
  void x; void y;
  throw new Error('not implemented');
}

export function kendallTauB(x: readonly number[], y: readonly number[]): number | null {
  void x; void y;
  throw new Error('not implemented');
}

export interface CorrelationCiOptions { iterations: number; seed: number; level: number }
export const CORRELATION_CI_DEFAULTS: Readonly<CorrelationCiOptions> = Object.freeze({ iterations: 10_000, seed: 0, level: 0.95 });

/** Percentile-bootstrap interval of `stat` over resampled pairs (mulberry32(seed)); null when no resample gives a number. */
export function correlationCi(
  x: readonly number[], y: readonly number[],
  stat: (x: readonly number[], y: readonly number[]) => number | null,
  opts: Partial<CorrelationCiOptions> = {},
): [number, number] | null {
  void x; void y; void stat; void opts;
  throw new Error('not implemented');
}
