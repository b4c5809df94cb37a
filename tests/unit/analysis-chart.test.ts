import { describe, expect, test } from 'vitest';
import { clipLine, h1ScatterChart, leastSquares, predictorLabel } from '../../src/ui/reports/analysis-chart.ts';
import { MAX_POINTS } from '../../src/ui/reports/report-charts.ts';

const row = { predictor: 'entropy', retriever: 'sparse', calibration: 'cdf', pearson_r: -0.4321, n: 3 } as const;

describe('leastSquares', () => {
  test('hand-computed: x = 1,2,3, y = 2,4,5 gives b = 3/2, a = 2/3', () => {
    // x̄ = 2, ȳ = 11/3; Σ(x−x̄)(y−ȳ) = (−1)(−5/3) + 0 + (1)(4/3) = 3; Σ(x−x̄)² = 2; b = 3/2; a = 11/3 − 3 = 2/3
    const f = leastSquares([1, 2, 3], [2, 4, 5])!;
    expect(f.b).toBeCloseTo(1.5, 12);
    expect(f.a).toBeCloseTo(2 / 3, 12);
  });

  test('a falling line: y = 10 − 2x exactly', () => {
    const f = leastSquares([0, 1, 4], [10, 8, 2])!;
    expect(f.b).toBeCloseTo(-2, 12);
    expect(f.a).toBeCloseTo(10, 12);
  });

  test('no line through one point or a constant x', () => {
    expect(leastSquares([1], [1])).toBeNull();
    expect(leastSquares([], [])).toBeNull();
    expect(leastSquares([2, 2, 2], [1, 2, 3])).toBeNull();
  });
});

describe('h1ScatterChart', () => {
  test('points, the fit from the smallest to the largest x, r in the title', () => {
    const spec = h1ScatterChart({ x: [3, 1, 2], y: [5, 2, 4], keys: ['q3', 'q1', 'q2'] }, row, 'ndcg@10', null);
    expect(spec.title).toBe('entropy (sparse, cdf) vs ndcg@10: r = -0.432, n = 3');
    const [pts, fit] = spec.traces;
    expect(pts!.mode).toBe('markers');
    expect(pts!.x).toEqual([3, 1, 2]);
    expect(pts!.text).toEqual(['q3', 'q1', 'q2']);
    expect(fit!.mode).toBe('lines');
    expect(fit!.x).toEqual([1, 3]);
    expect(fit!.y[0]).toBeCloseTo(2 / 3 + 1.5, 12);
    expect(fit!.y[1]).toBeCloseTo(2 / 3 + 4.5, 12);
    expect(fit!.name).toBe('fit: ndcg@10 = 0.667 + 1.500·x');
  });

  test('no fit line for a constant predictor; r n/a in the title', () => {
    const spec = h1ScatterChart({ x: [1, 1], y: [0, 1], keys: ['a', 'b'] }, { ...row, pearson_r: null, calibration: null, n: 2 }, 'ndcg@10');
    expect(spec.traces).toHaveLength(1);
    expect(spec.title).toBe('entropy (sparse) vs ndcg@10: r = n/a, n = 2');
    expect(predictorLabel({ predictor: 'nqc', retriever: 'dense', calibration: null })).toBe('nqc (dense)');
  });

  test('many points are thinned for drawing, the fit uses them all', () => {
    const n = MAX_POINTS.scatter + 500;
    const x = Array.from({ length: n }, (_, i) => i);
    const y = x.map((v) => (v < n - 1 ? 1 : 1 + n)); // one outlier at the end moves the fit
    const spec = h1ScatterChart({ x, y, keys: x.map(String) }, row, 'ndcg@10', null);
    expect(spec.traces[0]!.x).toHaveLength(MAX_POINTS.scatter);
    const all = leastSquares(x, y)!;
    expect(spec.traces[1]!.y[1]).toBeCloseTo(all.a + all.b * (n - 1), 9);
  });

  test('the fit line stays within NDCG [0, 1]: cut where it crosses 1 (or 0), none where it is outside everywhere', () => {
    // y = 0.5 + 0.25·x over x in [0, 4]: crosses 1 at x = 2
    const spec = h1ScatterChart({ x: [0, 1, 2, 3, 4], y: [0.5, 0.75, 1, 1, 1], keys: ['a', 'b', 'c', 'd', 'e'] }, row, 'ndcg@10');
    const fit = spec.traces[1]!;
    const { a, b } = leastSquares([0, 1, 2, 3, 4], [0.5, 0.75, 1, 1, 1])!;
    expect(a + b * 4).toBeGreaterThan(1);
    expect(Math.max(...(fit.y as number[]))).toBeLessThanOrEqual(1);
    expect(fit.x[0]).toBe(0);
    expect(fit.x[1]).toBeCloseTo((1 - a) / b, 12);
    expect(fit.y[1]).toBeCloseTo(1, 12);
    expect(clipLine({ a: 1.25, b: -0.5 }, 0, 1, 0, 1)).toEqual({ x: [0.5, 1], y: [1, 0.75] });
    expect(clipLine({ a: 0.5, b: -1 }, 0, 1, 0, 1)).toEqual({ x: [0, 0.5], y: [0.5, 0] });
    expect(clipLine({ a: 2, b: 0 }, 0, 1, 0, 1)).toBeNull();
    expect(clipLine({ a: 1.5, b: 1 }, 0, 1, 0, 1)).toBeNull();
  });
});
