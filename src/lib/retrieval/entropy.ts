/**
 * Shannon entropy of a score list and the entropy-derived fusion weight. A flat (high-entropy) score list means
 * the retriever cannot tell its candidates apart, so the other retriever gets more weight.
 */

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
