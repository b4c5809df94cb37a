/**
 * Paired statistics of Compare (compare.ts): every report's figures on the same shared rows, the paired bootstrap
 * (one set of resample indexes for every report and metric) and the paired randomization test (one set of swap
 * masks for every pair and metric), Holm's step-down correction and per-row win/tie/loss.
 *
 * Speed: 5 reports × 3,000 rows × 4 metrics with 10,000 resamples and 10,000 permutations must stay near a second;
 * the kernels that make it so, and their formulas, are in paired-kernels.ts.
 */
import { seededRandom } from '../random.ts';
import { AurocKernel, AurocSwapKernel, BATCH, columnValue, interleave, MeanBlock, MeanSwapBlock, type AurocColumn, type Column, type MeanColumn } from './paired-kernels.ts';
import { bootstrapP, percentileInterval, randomizationP } from './paired-tests.ts';

export { columnValue, type Column } from './paired-kernels.ts';
export { bootstrapP, holm, percentileInterval, randomizationP, winTieLoss } from './paired-tests.ts';

export interface PairedOptions {
  /** Bootstrap resamples (default 10,000). */
  iterations?: number;
  /** Randomization-test permutations (default 10,000). */
  permutations?: number;
  /** Seed: resamples draw from mulberry32(seed), swap masks from mulberry32(seed + 1). Default 0. */
  seed?: number;
  /** Interval level (default 0.95). */
  level?: number;
}

export interface PairedCell {
  /** The column's value on all shared rows, and its percentile-bootstrap interval. */
  value: number;
  ci: [number, number] | null;
  /** Against the baseline (NaN / null in the baseline's own cells). */
  delta: number;
  deltaCi: [number, number] | null;
  pBootstrap: number | null;
  pRandomization: number | null;
}

/**
 * Resample counts: n row indexes drawn with replacement, as how often each row was drawn, into slot `b` of a batch
 * (counts[stride·i + b]; stride 1, b 0: a plain array of n). The slot is zeroed first.
 */
export function drawCounts(counts: Float64Array, rand: () => number, stride = 1, b = 0): Float64Array {
  const n = counts.length / stride;
  for (let i = 0; i < n; i++) counts[stride * i + b] = 0;
  for (let k = 0; k < n; k++) counts[stride * Math.floor(rand() * n) + b]!++;
  return counts;
}

/**
 * `drawCounts` with mulberry32's step inlined (the same sequence as seededRandom(seed) of src/lib/random.ts, a
 * third faster than calling it: the state stays in a register). Drawing is about a fifth of Compare's time.
 */
class CountDraws {
  private a: number;
  constructor(seed: number) { this.a = seed >>> 0; }

  draw(counts: Float64Array, stride: number, b: number): void {
    const n = counts.length / stride;
    for (let i = 0; i < n; i++) counts[stride * i + b] = 0;
    let a = this.a;
    for (let k = 0; k < n; k++) {
      a = (a + 0x6d2b79f5) >>> 0;
      let t = a;
      t = Math.imul(t ^ (t >>> 15), t | 1);
      t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
      counts[stride * Math.floor((((t ^ (t >>> 14)) >>> 0) / 4294967296) * n) + b]!++;
    }
    this.a = a;
  }
}

/** Swap mask b of a batch: each row swapped with probability ½ (32 rows per random draw), as bit b of bits[i] and as W[4i + b]. */
function drawMask(bits: Uint8Array, W: Float64Array, b: number, rand: () => number): void {
  const clear = ~(1 << b) & 0xff;
  for (let i = 0; i < bits.length; i += 32) {
    let r = Math.floor(rand() * 4294967296);
    const end = Math.min(i + 32, bits.length);
    for (let j = i; j < end; j++) { const x = r & 1; bits[j] = (bits[j]! & clear) | (x << b); W[BATCH * j + b] = x; r >>>= 1; }
  }
}

/** Δ = m(B') − m(A') of a pair of columns under each mask, and the observed Δ (mask all zeros). */
export function swapDeltas(a: Column, b: Column, masks: readonly Uint8Array[]): { observed: number; permuted: Float64Array } {
  let one: (mask: Uint8Array) => number;
  if (a.kind === 'auroc' && b.kind === 'auroc') {
    const k = new AurocSwapKernel(a, b);
    one = (m) => k.delta(m);
  } else if (a.kind === 'mean' && b.kind === 'mean') {
    const block = new MeanSwapBlock([[a, b]]);
    one = (m) => block.deltas(interleave(Float64Array.from(m)), 1)[0]!;
  } else throw new Error('a pair of columns of different kinds');
  return { observed: one(new Uint8Array(a.defined.length)), permuted: Float64Array.from(masks, one) };
}

/**
 * The paired statistics of a table: columns[r][j] is metric j of report r over the same shared rows. Every report's
 * value and bootstrap interval, and for r ≠ baseline: Δ = m(r) − m(baseline) with its paired-bootstrap interval and
 * p, and the randomization p. Resample indexes are drawn once per resample and used for every report and metric;
 * swap masks once per permutation and used for every pair and metric.
 */
export function pairedTable(columns: readonly Column[][], baseline: number, opts: PairedOptions = {}): PairedCell[][] {
  const { iterations = 10_000, permutations = 10_000, seed = 0, level = 0.95 } = opts;
  const metrics = columns[0]?.length ?? 0;
  const n = columns[0]?.[0]?.defined.length ?? 0;
  for (const row of columns) {
    if (row.length !== metrics) throw new Error('every report needs the same metrics');
    for (const c of row) if (c.defined.length !== n) throw new Error('every column needs the same rows');
  }
  const base = columns[baseline];
  if (!base) throw new Error(`no report ${baseline}`);
  for (let j = 0; j < metrics; j++) if (columns.some((r) => r[j]!.kind !== base[j]!.kind)) throw new Error(`metric ${j} has columns of different kinds`);

  // Bootstrap: every (report, metric) under each resample; resamples drawn in batches of 4 for the sum blocks.
  const boot = columns.map((row) => row.map(() => new Float64Array(iterations)));
  const meanCells: Array<[number, number]> = [];
  const aurocCells: Array<{ r: number; j: number; kernel: AurocKernel }> = [];
  columns.forEach((row, r) => row.forEach((c, j) => { if (c.kind === 'mean') meanCells.push([r, j]); else aurocCells.push({ r, j, kernel: new AurocKernel(c) }); }));
  const meanBlock = new MeanBlock(meanCells.map(([r, j]) => columns[r]![j] as MeanColumn));
  const meanTargets = meanCells.map(([r, j]) => boot[r]![j]!);
  const weights = new Float64Array(BATCH * n);
  const out4 = new Float64Array(BATCH);
  const draws = new CountDraws(seed);
  for (let it = 0; it < iterations; it += BATCH) {
    const count = Math.min(BATCH, iterations - it);
    for (let b = 0; b < count; b++) draws.draw(weights, BATCH, b);
    if (meanCells.length) {
      const vals = meanBlock.evaluate(weights, count);
      for (let b = 0; b < count; b++) for (let k = 0; k < meanTargets.length; k++) meanTargets[k]![it + b] = vals[b * meanTargets.length + k]!;
    }
    for (const { r, j, kernel } of aurocCells) {
      kernel.evaluate4(weights, count, out4);
      for (let b = 0; b < count; b++) boot[r]![j]![it + b] = out4[b]!;
    }
  }

  // Randomization: Δ of every (report ≠ baseline, metric) under each swap mask, masks drawn in batches of 4.
  const pairs: Array<[number, number]> = [];
  columns.forEach((_, r) => { if (r !== baseline) for (let j = 0; j < metrics; j++) pairs.push([r, j]); });
  const perm = new Map(pairs.map(([r, j]) => [`${r}:${j}`, new Float64Array(permutations)]));
  const observed = new Map<string, number>();
  const meanPairs = pairs.filter(([, j]) => base[j]!.kind === 'mean');
  const meanSwap = new MeanSwapBlock(meanPairs.map(([r, j]) => [base[j] as MeanColumn, columns[r]![j] as MeanColumn] as const));
  const aurocSwap = pairs.filter(([, j]) => base[j]!.kind === 'auroc').map(([r, j]) => ({ key: `${r}:${j}`, kernel: new AurocSwapKernel(base[j] as AurocColumn, columns[r]![j] as AurocColumn) }));
  const bits = new Uint8Array(n);
  const maskWeights = new Float64Array(BATCH * n);
  if (meanPairs.length) { const d = meanSwap.deltas(maskWeights, 1); meanPairs.forEach(([r, j], k) => observed.set(`${r}:${j}`, d[k]!)); }
  for (const { key, kernel } of aurocSwap) observed.set(key, kernel.delta(new Uint8Array(n)));
  const swapTargets = meanPairs.map(([r, j]) => perm.get(`${r}:${j}`)!);
  const aurocTargets = aurocSwap.map(({ key }) => perm.get(key)!);
  const rand2 = seededRandom(seed + 1);
  for (let it = 0; it < permutations; it += BATCH) {
    const count = Math.min(BATCH, permutations - it);
    for (let b = 0; b < count; b++) drawMask(bits, maskWeights, b, rand2);
    if (meanPairs.length) {
      const d = meanSwap.deltas(maskWeights, count);
      for (let b = 0; b < count; b++) for (let k = 0; k < swapTargets.length; k++) swapTargets[k]![it + b] = d[b * swapTargets.length + k]!;
    }
    aurocSwap.forEach(({ kernel }, k) => {
      kernel.delta4(bits, count, out4);
      for (let b = 0; b < count; b++) aurocTargets[k]![it + b] = out4[b]!;
    });
  }

  const baseValues = base.map(columnValue);
  return columns.map((row, r) => row.map((c, j) => {
    const ci = percentileInterval(boot[r]![j]!, level);
    if (r === baseline) return { value: baseValues[j]!, ci, delta: NaN, deltaCi: null, pBootstrap: null, pRandomization: null };
    const value = columnValue(c);
    const diff = new Float64Array(iterations);
    const a = boot[baseline]![j]!, b = boot[r]![j]!;
    for (let it = 0; it < iterations; it++) diff[it] = b[it]! - a[it]!;
    const key = `${r}:${j}`;
    return {
      value, ci, delta: value - baseValues[j]!, deltaCi: percentileInterval(diff, level),
      pBootstrap: bootstrapP(diff), pRandomization: randomizationP(observed.get(key)!, perm.get(key)!),
    };
  }));
}
