import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../src/lib/random.ts';
import { auroc, averageRanks, bootstrapCI, maskedPairs, pairedBootstrap, pearson, rmse } from '../../src/lib/stats/summary.ts';

/** Independent AUROC: share of (positive, negative) pairs ranked right, ties ½ (O(n²)). */
function pairwiseAuroc(y: readonly number[], s: readonly number[]): number {
  let num = 0, den = 0;
  for (let i = 0; i < y.length; i++) {
    if (y[i] !== 1) continue;
    for (let j = 0; j < y.length; j++) {
      if (y[j] !== 0) continue;
      den++;
      num += s[i]! > s[j]! ? 1 : s[i] === s[j] ? 0.5 : 0;
    }
  }
  return num / den;
}

describe('rmse', () => {
  it('by hand', () => {
    // errors 1, −2, 0 → sqrt((1 + 4 + 0)/3)
    expect(rmse([1, 0, 3], [0, 2, 3])).toBeCloseTo(Math.sqrt(5 / 3), 12);
  });
  it('masks rows where either side is NaN or null; NaN when nothing is left', () => {
    // kept: (1, 0) and (0.5, 0.5) → sqrt((1 + 0)/2)
    expect(rmse([1, NaN, 0.5, null, 2], [0, 1, 0.5, 0.3, null])).toBeCloseTo(Math.sqrt(0.5), 12);
    expect(rmse([NaN, null], [1, 2])).toBeNaN();
    expect(rmse([], [])).toBeNaN();
    expect(maskedPairs([1, NaN, 3], [null, 2, 4])).toEqual({ pred: [3], gold: [4] });
    expect(() => rmse([1], [1, 2])).toThrow(/length/);
  });
});

describe('auroc (Mann–Whitney U)', () => {
  it('perfect, reversed and hand-computed with ties', () => {
    expect(auroc([0, 0, 1, 1], [0.1, 0.2, 0.8, 0.9])).toBe(1);
    expect(auroc([1, 1, 0, 0], [0.1, 0.2, 0.8, 0.9])).toBe(0);
    // positives 0.5, 0.7; negatives 0.5, 0.1: pairs (0.5,0.5)=½ (0.5,0.1)=1 (0.7,0.5)=1 (0.7,0.1)=1 → 3.5/4
    expect(auroc([1, 1, 0, 0], [0.5, 0.7, 0.5, 0.1])).toBeCloseTo(0.875, 12);
    // all scores tied → 0.5
    expect(auroc([1, 0, 1, 0, 0], [3, 3, 3, 3, 3])).toBe(0.5);
    expect(auroc([true, false], [0.9, 0.1])).toBe(1);
  });
  it('is NaN when only one class is present; NaN/null scores are dropped', () => {
    expect(auroc([1, 1, 1], [0.1, 0.2, 0.3])).toBeNaN();
    expect(auroc([0, 0], [0.1, 0.2])).toBeNaN();
    expect(auroc([], [])).toBeNaN();
    // the only negative has a NaN score → one class left
    expect(auroc([1, 0, 1], [0.2, NaN, 0.4])).toBeNaN();
    expect(auroc([1, 0, 0, 1], [0.9, null, 0.1, 0.05])).toBeCloseTo(pairwiseAuroc([1, 0, 1], [0.9, 0.1, 0.05]), 12);
  });
  it('average ranks', () => {
    expect(averageRanks([10, 20, 20, 5])).toEqual([2, 3.5, 3.5, 1]);
  });
  it('matches the O(n²) pairwise definition on random data with many ties', () => {
    const rand = seededRandom(42);
    for (let t = 0; t < 20; t++) {
      const n = 5 + Math.floor(rand() * 200);
      const y = Array.from({ length: n }, () => (rand() < 0.3 ? 1 : 0));
      y[0] = 1; y[1] = 0;
      const s = Array.from({ length: n }, () => Math.round(rand() * 10) / 10);
      expect(auroc(y as (0 | 1)[], s)).toBeCloseTo(pairwiseAuroc(y, s), 12);
    }
  });
});

describe('pearson', () => {
  it('by hand and edge cases', () => {
    expect(pearson([1, 2, 3], [2, 4, 6])).toBeCloseTo(1, 12);
    expect(pearson([1, 2, 3], [3, 2, 1])).toBeCloseTo(-1, 12);
    // x = 1,2,3,4; y = 1,3,2,4: mx = my = 2.5; Σdxdy = 2.25+(−0.5·0.5)+(0.5·−0.5)+2.25 = 4; Σdx² = Σdy² = 5 → 0.8
    expect(pearson([1, 2, 3, 4], [1, 3, 2, 4])).toBeCloseTo(0.8, 12);
    expect(pearson([1, 1, 1], [1, 2, 3])).toBeNaN();
    expect(pearson([1], [1])).toBeNaN();
    expect(pearson([1, 2, NaN, 3], [2, 4, 5, null])).toBeCloseTo(1, 12);
  });
});

describe('bootstrap', () => {
  const xs = Array.from({ length: 200 }, (_, i) => (i * 37) % 101);
  const meanOf = (s: readonly number[]) => s.reduce((a, b) => a + b, 0) / s.length;
  it('bootstrapCI is seeded, brackets the estimate, and narrows with more data', () => {
    const a = bootstrapCI(xs, meanOf, { seed: 7, iterations: 500 });
    const b = bootstrapCI(xs, meanOf, { seed: 7, iterations: 500 });
    expect(a).toEqual(b);
    expect(a.estimate).toBeCloseTo(meanOf(xs), 12);
    expect(a.ci[0]).toBeLessThan(a.estimate);
    expect(a.ci[1]).toBeGreaterThan(a.estimate);
    expect(a.iterations).toBe(500);
    // standard error of the mean ≈ sd/√n; the 95% interval ≈ ±1.96 SE
    const sd = Math.sqrt(xs.reduce((s, x) => s + (x - a.estimate) ** 2, 0) / xs.length);
    const half = (a.ci[1] - a.ci[0]) / 2;
    expect(half).toBeGreaterThan(1.5 * sd / Math.sqrt(xs.length));
    expect(half).toBeLessThan(2.5 * sd / Math.sqrt(xs.length));
    expect(bootstrapCI(xs, meanOf, { seed: 8, iterations: 500 }).ci).not.toEqual(a.ci);
  });
  it('pairedBootstrap: a constant shift gives exactly that difference; identical samples give 0', () => {
    const ys = xs.map((x) => x + 3);
    const d = pairedBootstrap(ys, xs, meanOf, { seed: 1, iterations: 300 });
    expect(d.estimate).toBeCloseTo(3, 10);
    expect(d.mean).toBeCloseTo(3, 10);
    expect(d.ci[0]).toBeCloseTo(3, 10);
    expect(d.ci[1]).toBeCloseTo(3, 10);
    const z = pairedBootstrap(xs, xs, meanOf, { seed: 1, iterations: 100 });
    expect(z.ci).toEqual([0, 0]);
    expect(() => pairedBootstrap([1], [1, 2], meanOf)).toThrow(/length/);
  });
  it('leaves NaN resamples out (AUROC of a resample with one class)', () => {
    const rows = [{ y: 1, s: 0.9 }, { y: 0, s: 0.1 }];
    const r = bootstrapCI(rows, (s) => auroc(s.map((x) => x.y as 0 | 1), s.map((x) => x.s)), { seed: 3, iterations: 200 });
    expect(r.iterations).toBeLessThan(200);
    expect(r.iterations).toBeGreaterThan(0);
    expect(r.ci).toEqual([1, 1]);
  });
});
