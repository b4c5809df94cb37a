import { describe, expect, it } from 'vitest';
import { correlationIntervals } from '../../src/lib/stats/correlation-boot.ts';
import { correlationCi, kendallTauB, pearson, spearman } from '../../src/lib/stats/correlation.ts';
import { spread } from '../helpers/retrieval-reports.ts';

const close = (a: [number, number] | null, b: [number, number] | null) => {
  expect(a === null).toBe(b === null);
  if (a && b) { expect(a[0]).toBeCloseTo(b[0], 10); expect(a[1]).toBeCloseTo(b[1], 10); }
};

describe('correlationIntervals: correlationCi\'s resamples by counts', () => {
  const cases: Array<[string, number[], number[]]> = [
    ['spread values', spread(60, 1), spread(60, 2)],
    ['many ties on both sides', spread(50, 3).map((v) => Math.round(v * 4)), spread(50, 4).map((v) => Math.round(v * 3))],
    ['NDCG-like: many zeros, predictor −NDCG', spread(40, 5).map((v) => (v < 0.4 ? 0 : v)), spread(40, 5).map((v) => -(v < 0.4 ? 0 : v))],
    ['a near-constant side (resamples with no spread)', [...Array(9).fill(1), 2], spread(10, 6)],
  ];
  for (const [name, x, y] of cases) {
    it(`equals correlationCi of Pearson r, Spearman and Kendall τ-b: ${name}`, () => {
      const opts = { iterations: 700, seed: 13 };
      const got = correlationIntervals(x, y, opts);
      close(got.pearson, correlationCi(x, y, (a, b) => pearson(a, b)?.r ?? null, opts));
      close(got.spearman, correlationCi(x, y, spearman, opts));
      close(got.kendall, correlationCi(x, y, kendallTauB, opts));
    });
  }

  it('null under 3 pairs; the level is read', () => {
    expect(correlationIntervals([1, 2], [2, 1])).toEqual({ pearson: null, spearman: null, kendall: null });
    const x = spread(30, 7), y = spread(30, 8);
    const w = correlationIntervals(x, y, { iterations: 500, level: 0.95 }).pearson!, n = correlationIntervals(x, y, { iterations: 500, level: 0.5 }).pearson!;
    expect(n[0]).toBeGreaterThan(w[0]);
    expect(n[1]).toBeLessThan(w[1]);
  });
});
