/**
 * Shannon entropy of a score list and the entropy-derived fusion weight. A flat (high-entropy) score list means
 * the retriever cannot tell its candidates apart, so the other retriever gets more weight.
 *
 * Seed B, step 4: "For each retriever's calibrated score distribution over candidate documents, I compute Shannon
 * entropy" — `calibratedEntropy` takes H of a retriever's own top candidate_k scores after the run's calibration
 * (basis 'calibrated', the default); basis 'raw' takes H of the raw scores (kept as a named analysis variant).
 */
import { calibrate, type Calibration, type CdfTable } from './calibrate.ts';

/** Default ε in α = H_dense / (H_dense + H_sparse + ε). */
export const ALPHA_EPSILON = 1e-9;

/**
 * H = −Σ p_i log2 p_i with p_i = S_i / Σ S_j; softmax p_i = e^{S_i} / Σ e^{S_j} when any score is negative.
 * An all-zero list is treated as uniform; an empty list has H = 0.
 */
export function entropy(scores: readonly number[]): number {
  const n = scores.length;
  if (n === 0) return 0;
  let p: number[];
  if (scores.some((s) => s < 0)) {
    const max = Math.max(...scores);
    const e = scores.map((s) => Math.exp(s - max));
    const z = e.reduce((a, b) => a + b, 0);
    p = e.map((x) => x / z);
  } else {
    const z = scores.reduce((a, b) => a + b, 0);
    p = z > 0 ? scores.map((s) => s / z) : scores.map(() => 1 / n);
  }
  let h = 0;
  for (const pi of p) if (pi > 0) h -= pi * Math.log2(pi);
  return h;
}

/** α = H_dense / (H_dense + H_sparse + ε): the weight of the sparse scores in calibrated fusion. */
export function entropyAlpha(hDense: number, hSparse: number, epsilon = ALPHA_EPSILON): number {
  return hDense / (hDense + hSparse + epsilon);
}

/** What the entropy of calibrated fusion is taken over: the calibrated scores (seed B, the default) or the raw ones. */
export type EntropyBasis = 'calibrated' | 'raw';
export const ENTROPY_BASES: readonly EntropyBasis[] = ['calibrated', 'raw'];
export const DEFAULT_ENTROPY_BASIS: EntropyBasis = 'calibrated';

/** The calibration a retriever's scores get: cdf falls back to minmax without a corpus table (search.ts calibrateSide). */
export function effectiveCalibration(calibration: Calibration, table: CdfTable | null): Calibration {
  return calibration === 'cdf' && !table ? 'minmax' : calibration;
}

/** H of the calibrated scores; null for an empty list, or cdf without a table. */
export function entropyUnder(calibration: Calibration, scores: readonly number[], table: CdfTable | null): number | null {
  if (scores.length === 0 || (calibration === 'cdf' && !table)) return null;
  return entropy(calibrate(calibration, scores, table ?? undefined));
}

/** Entropy of a candidate list under a calibration, cdf falling back to minmax without a table. */
export function candidateEntropy(calibration: Calibration, scores: readonly number[], table: CdfTable | null): number | null {
  return entropyUnder(effectiveCalibration(calibration, table), scores, table);
}

/** The calibration H is taken under for a basis: the run's calibration, or raw. */
export function entropyCalibration(basis: EntropyBasis, calibration: Calibration): Calibration {
  return basis === 'raw' ? 'raw' : calibration;
}

/**
 * The α of calibrated fusion for one query, from each retriever's own top-candidate_k scores (best first):
 *   H_side = H(calibrate_c(top candidate_k scores of side))  (c = the run's calibration, or raw for basis 'raw')
 *   α = H_dense / (H_dense + H_sparse + ε)
 * An empty list counts H = 0.
 */
export function fusionEntropy(
  basis: EntropyBasis, calibration: Calibration, candidateK: number | { sparse: number; dense: number },
  sparse: readonly number[], dense: readonly number[], tables: { sparse: CdfTable | null; dense: CdfTable | null },
): { hSparse: number; hDense: number; alpha: number; calibration: { sparse: Calibration; dense: Calibration } } {
  const c = entropyCalibration(basis, calibration);
  // Each retriever's own top k (seed A's bm25_k and dense_k when they differ; candidate_k for both by default).
  const ks = typeof candidateK === 'number' ? { sparse: candidateK, dense: candidateK } : candidateK;
  const kOf = (k: number) => Math.max(0, Math.floor(k));
  const hSparse = candidateEntropy(c, sparse.slice(0, kOf(ks.sparse)), tables.sparse) ?? 0;
  const hDense = candidateEntropy(c, dense.slice(0, kOf(ks.dense)), tables.dense) ?? 0;
  return {
    hSparse, hDense, alpha: entropyAlpha(hDense, hSparse),
    calibration: { sparse: effectiveCalibration(c, tables.sparse), dense: effectiveCalibration(c, tables.dense) },
  };
}

/** How close to log2 k an entropy counts as saturated: within 1 % of it. */
export const SATURATION_TOLERANCE = 0.01;

/**
 * Whether both entropies sit at their maximum, so that they carry no signal and α = H_dense / (H_dense + H_sparse + ε)
 * is ½: log2 k − H ≤ 1 % · log2 k on each side, k = the number of scores that side's H was taken over (≥ 2). Under
 * corpus-CDF calibration a query's top candidates all sit near percentile 1, their calibrated scores are near-uniform
 * and both H are at log2 k: seed B's own H1 result (CDF entropy barely tracks retrieval quality). False when an
 * entropy is missing or not finite, or a side has fewer than 2 scores.
 */
export function entropiesSaturated(
  h: { sparse: number | null; dense: number | null }, k: { sparse: number; dense: number }, tolerance = SATURATION_TOLERANCE,
): boolean {
  const side = (x: number | null, n: number) => {
    if (x === null || !Number.isFinite(x) || !(n >= 2)) return false;
    const max = Math.log2(n);
    return max - x <= tolerance * max;
  };
  return side(h.sparse, k.sparse) && side(h.dense, k.dense);
}
