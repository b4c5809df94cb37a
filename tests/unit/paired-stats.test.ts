import { describe, expect, it } from 'vitest';
import { bootstrapP, columnValue, drawCounts, holm, pairedTable, percentileInterval, randomizationP, swapDeltas, winTieLoss, type Column } from '../../src/lib/stats/paired.ts';
import { seededRandom } from '../../src/lib/random.ts';
import { auroc, mean, percentile } from '../../src/lib/stats/summary.ts';

const mean1 = (x: number[], root = false): Column => ({ kind: 'mean', x: Float64Array.from(x), defined: new Uint8Array(x.length).fill(1), root });
const aurocCol = (score: number[], positive: number[]): Column => ({ kind: 'auroc', score: Float64Array.from(score), positive: Uint8Array.from(positive), defined: new Uint8Array(score.length).fill(1) });
/** All 2ⁿ swap masks of n rows (the identity included). */
const allMasks = (n: number) => Array.from({ length: 2 ** n }, (_, m) => Uint8Array.from({ length: n }, (_, i) => (m >> i) & 1));

describe('Holm', () => {
  it('adjusts a known table step-down, in input order', () => {
    // sorted 0.005·4 = 0.02, 0.01·3 = 0.03, 0.03·2 = 0.06, 0.04·1 = 0.04 → max(0.06, 0.04) = 0.06
    const out = holm([0.01, 0.04, 0.03, 0.005]);
    [0.03, 0.06, 0.06, 0.02].forEach((p, i) => expect(out[i]).toBeCloseTo(p, 12));
  });
  it('keeps nulls and caps at 1', () => {
    expect(holm([0.5, null, 0.4])).toEqual([0.8, null, 0.8]);
    expect(holm([0.9, 0.8])).toEqual([1, 1]);
  });
});

describe('p-values', () => {
  it('bootstrap p: 2·min of the tails, 1 when every Δ* is 0', () => {
    expect(bootstrapP([0, 0, 0])).toBe(1);
    expect(bootstrapP([1, 2, 3, -1])).toBeCloseTo(0.5); // P(≤0) = 1/4 → 2·1/4
    expect(bootstrapP([1, 2, NaN])).toBe(0);
    expect(bootstrapP([NaN])).toBeNull();
  });
  it('randomization p: (1 + hits) / (1 + R)', () => {
    expect(randomizationP(0, [0, 0, 0])).toBe(1);
    expect(randomizationP(2, [2, -2, 1, 0])).toBeCloseTo(3 / 5);
    expect(randomizationP(NaN, [1])).toBeNull();
  });
  it('a 3-row mean case enumerated by hand', () => {
    // A = 0, B = (1, 2, 3): Δ_obs = 2; swapping row i flips the sign of dᵢ, so Δ = (±1 ± 2 ± 3)/3 and |Δ| ≥ 2
    // only for all + or all − (2 of 8 masks): p = (1 + 2)/(1 + 8) over all 8 masks.
    const { observed, permuted } = swapDeltas(mean1([0, 0, 0]), mean1([1, 2, 3]), allMasks(3));
    expect(observed).toBeCloseTo(2);
    expect([...permuted].map((d) => Math.round(d * 3)).sort((a, b) => a - b)).toEqual([-6, -4, -2, 0, 0, 2, 4, 6]);
    expect(randomizationP(observed, permuted)).toBeCloseTo(3 / 9, 12);
    // With 10,000 seeded random masks the p is near the exact 2/8.
    const table = pairedTable([[mean1([0, 0, 0])], [mean1([1, 2, 3])]], 0, { iterations: 10, permutations: 10_000, seed: 3 });
    expect(table[1]![0]!.pRandomization).toBeGreaterThan(0.23);
    expect(table[1]![0]!.pRandomization).toBeLessThan(0.27);
  });
  it('a 3-row AUROC case enumerated by hand', () => {
    // Rows: positive scored (A 0.9, B 0.5), negatives (A 0.1, B 0.9) and (A 0.5, B 0.5). AUROC(A) = 1; AUROC(B) =
    // (0 + ½ for the tie) / 2 = 0.25.
    const a = aurocCol([0.9, 0.1, 0.5], [1, 0, 0]);
    const b = aurocCol([0.5, 0.9, 0.5], [1, 0, 0]);
    const { observed, permuted } = swapDeltas(a, b, allMasks(3));
    expect(observed).toBeCloseTo(-0.75);
    // Masks (bit i swaps row i): A' keeps, per row, A's or B's score; AUROC(A') by hand for each mask.
    const byHand = allMasks(3).map((m) => {
      const pick = (i: number, s: number) => ([[0.9, 0.1, 0.5], [0.5, 0.9, 0.5]][m[i]! ^ s]![i]!);
      const aucOf = (s: number) => auroc([1, 0, 0], [0, 1, 2].map((i) => pick(i, s)));
      return aucOf(1) - aucOf(0);
    });
    [...permuted].forEach((d, i) => expect(d).toBeCloseTo(byHand[i]!, 12));
    const hits = byHand.filter((d) => Math.abs(d) >= 0.75 - 1e-12).length;
    expect(randomizationP(observed, permuted)).toBeCloseTo((1 + hits) / 9, 12);
  });
});

describe('win/tie/loss', () => {
  it('counts per row, skipping rows without a value', () => {
    expect(winTieLoss([0.5, 0.5, 0.5, null, 0.2], [0.6, 0.5, 0.4, 0.9, null], true)).toEqual({ win: 1, tie: 1, loss: 1 });
    expect(winTieLoss([0.5, 0.5, 0.5], [0.6, 0.4, 0.3], false)).toEqual({ win: 2, tie: 0, loss: 1 });
    expect(winTieLoss([0.5], [0.5 + 1e-12], true)).toEqual({ win: 0, tie: 1, loss: 0 });
  });
});

describe('kernels', () => {
  const rand = seededRandom(99);
  const n = 57;
  const score = Array.from({ length: n }, () => Math.round(rand() * 10) / 10); // many ties
  const pos = Array.from({ length: n }, () => (rand() < 0.4 ? 1 : 0));
  const x = Array.from({ length: n }, () => rand());
  const defined = Uint8Array.from({ length: n }, () => (rand() < 0.8 ? 1 : 0));

  it('AUROC and means under resample counts equal the plain formulas on the resampled rows', () => {
    const counts = new Float64Array(n);
    const r = seededRandom(5);
    for (let t = 0; t < 20; t++) {
      drawCounts(counts, r);
      const idx = [...counts].flatMap((c, i) => Array<number>(c).fill(i));
      expect(idx).toHaveLength(n);
      const cols: Column[] = [aurocCol(idx.map((i) => score[i]!), idx.map((i) => pos[i]!)), { kind: 'mean', x: Float64Array.from(idx, (i) => x[i]!), defined: Uint8Array.from(idx, (i) => defined[i]!), root: true }];
      const direct = [auroc(idx.map((i) => pos[i]!) as (0 | 1)[], idx.map((i) => score[i]!)), Math.sqrt(mean(idx.filter((i) => defined[i]).map((i) => x[i]!)))];
      cols.forEach((c, k) => expect(columnValue(c)).toBeCloseTo(direct[k]!, 12));
    }
  });

  it('pairedTable: bootstrap values equal per-resample recomputation; identical runs give Δ 0 and p 1', () => {
    const a: Column[] = [aurocCol(score, pos), { kind: 'mean', x: Float64Array.from(x), defined, root: false }];
    const b: Column[] = [aurocCol(score.map((s, i) => (i % 3 ? s : 1 - s)), pos), { kind: 'mean', x: Float64Array.from(x, (v) => v * 0.9), defined, root: false }];
    const t = pairedTable([a, a.map((c) => ({ ...c })), b], 0, { iterations: 500, permutations: 500, seed: 1 });
    for (const cell of t[1]!) {
      expect(cell.delta).toBe(0);
      expect(cell.deltaCi).toEqual([0, 0]);
      expect(cell.pBootstrap).toBe(1);
      expect(cell.pRandomization).toBe(1);
    }
    // The baseline's interval equals a slow bootstrap with the same resamples.
    const r = seededRandom(1);
    const counts = new Float64Array(n);
    const slow: number[] = [];
    for (let it = 0; it < 500; it++) {
      drawCounts(counts, r);
      const idx = [...counts].flatMap((c, i) => Array<number>(c).fill(i));
      slow.push(auroc(idx.map((i) => pos[i]!) as (0 | 1)[], idx.map((i) => score[i]!)));
    }
    const ok = slow.filter((s) => !Number.isNaN(s));
    expect(t[0]![0]!.ci![0]).toBeCloseTo(percentile(ok, 2.5), 12);
    expect(t[0]![0]!.ci![1]).toBeCloseTo(percentile(ok, 97.5), 12);
    expect(t[2]![0]!.delta).toBeCloseTo(columnValue(b[0]!) - columnValue(a[0]!), 12);
    expect(t[2]![1]!.pRandomization).toBeLessThan(0.05);
  });

  it('percentile interval ignores non-finite values', () => {
    expect(percentileInterval(Float64Array.from([NaN, 1, 2, 3, Infinity]), 0.5)).toEqual([1.5, 2.5]);
    expect(percentileInterval(Float64Array.from([NaN]), 0.95)).toBeNull();
  });
});

describe('resample draws', () => {
  it('pairedTable draws the resamples drawCounts draws from seededRandom(seed) (its inlined mulberry32)', () => {
    // One row of value 1, the others 0: each resample's mean is count(row 0)/n, so the bootstrap values show the draws.
    const n = 7;
    const x = [1, 0, 0, 0, 0, 0, 0];
    const t = pairedTable([[mean1(x)], [mean1(x)]], 0, { iterations: 9, permutations: 1, seed: 42, level: 0.5 });
    const r = seededRandom(42);
    const means: number[] = [];
    for (let it = 0; it < 9; it++) means.push(drawCounts(new Float64Array(n), r)[0]! / n);
    expect(t[0]![0]!.ci![0]).toBeCloseTo(percentile(means, 25), 12);
    expect(t[0]![0]!.ci![1]).toBeCloseTo(percentile(means, 75), 12);
  });
});
