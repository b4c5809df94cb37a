/**
 * Batches for forward passes: inputs ordered by length, so each batch pads to a length close to its own inputs'.
 * A batch is padded to its longest input and every padded position costs a full pass through the model; with
 * inputs in arrival order one long input makes the whole batch pay for it (~15–20 % extra work when reranking
 * 20 State of the Union chunks 16 at a time; padding shares per batch size: docs/internals/models.md). Results are written back in the callers' order.
 */

/** Indices of `lengths`, shortest first (ties keep input order), cut into runs of at most `batchSize`. */
export function lengthSortedBatches(lengths: readonly number[], batchSize: number): number[][] {
  const size = Math.max(1, Math.floor(batchSize));
  const order = lengths.map((_, i) => i).sort((a, b) => lengths[a]! - lengths[b]! || a - b);
  const batches: number[][] = [];
  for (let i = 0; i < order.length; i += size) batches.push(order.slice(i, i + size));
  return batches;
}

/**
 * Padding share of `batches` over inputs of token counts `lengths`: padded positions per real token minus one,
 * share = Σ_b |b|·max_{i∈b} lengths[i] / Σ_i lengths[i] − 1 (0 = no padding; 0.28 = 28 % extra positions).
 * 0 when there are no tokens.
 */
export function paddingShare(lengths: readonly number[], batches: readonly (readonly number[])[]): number {
  let real = 0;
  let padded = 0;
  for (const rows of batches) {
    let max = 0;
    for (const r of rows) {
      const n = lengths[r];
      if (n === undefined || !Number.isFinite(n) || n < 0) throw new Error(`paddingShare: row ${r} has no valid length`);
      real += n;
      max = Math.max(max, n);
    }
    padded += rows.length * max;
  }
  return real > 0 ? padded / real - 1 : 0;
}
