/** Fusion of a sparse and a dense ranking. */

/** Default RRF constant. */
export const RRF_K = 60;
/** Default weight of the sparse side in fixed linear fusion. */
export const FIXED_ALPHA = 0.5;

/** RRF(d) = Σ_lists 1 / (k + rank_list(d)), rank 1-based; a list that misses d adds nothing. */
export function reciprocalRankFusion(lists: ReadonlyArray<readonly number[]>, k = RRF_K): Map<number, number> {
  const out = new Map<number, number>();
  for (const list of lists) {
    list.forEach((item, i) => out.set(item, (out.get(item) ?? 0) + 1 / (k + i + 1)));
  }
  return out;
}

/** score_i = α·sparse_i + (1 − α)·dense_i, for scores already on a common scale (min-max or calibrated). */
export function linearFusion(sparse: readonly number[], dense: readonly number[], alpha: number): number[] {
  if (sparse.length !== dense.length) throw new Error('linearFusion: score lists differ in length');
  return sparse.map((s, i) => alpha * s + (1 - alpha) * dense[i]!);
}
