/**
 * The learned per-query α on hand-made data: ridge regression pinned on a hand-computed fit; a predictor that tells
 * which side a query needs gives each held-out query its best α, where one fixed α serves only half of them.
 */
import { describe, expect, it } from 'vitest';
import { fitRidge, predictRidge } from '../../src/lib/stats/ridge.ts';
import { ALPHA_GRID, learnedAlpha } from '../../src/lib/tune/learned-alpha.ts';

describe('ridge regression', () => {
  it('matches the hand-computed fit: z standardised (population sd), w = Σz(y − ȳ) / (Σz² + λ)', () => {
    // x = 1, 2, 3 (mean 2, sd √(2/3)), y = 2, 4, 6: z = ∓1.2247, 0; Σz² = 3, Σz(y − ȳ) = 4.899, w = 4.899 / 4 = 1.2247;
    // ŷ(3) = 4 + 1.2247 · 1.2247 = 5.5. The constant second column is dropped.
    const m = fitRidge([[1, 7], [2, 7], [3, 7]], [2, 4, 6], 1);
    expect(m.features).toEqual([0]);
    expect(m.intercept).toBe(4);
    expect(m.weights[0]).toBeCloseTo(Math.sqrt(1.5), 12);
    expect(predictRidge(m, [3, 7])).toBeCloseTo(5.5, 12);
    expect(predictRidge(m, [2, 0])).toBeCloseTo(4, 12);
    // a row with a missing value is left out of the fit
    expect(fitRidge([[1, 7], [2, 7], [3, 7], [NaN, 7]], [2, 4, 6, 100], 1).intercept).toBe(4);
    expect(() => fitRidge([[1]], [1], 0)).toThrow(/λ > 0/);
  });
});

describe('learned per-query α', () => {
  // Query qi needs the BM25 side (α = 1) when its predictor "qpp.wig.sparse" is high, the dense side (α = 0) when low.
  const ids = Array.from({ length: 20 }, (_, i) => `q${i}`);
  const high = (id: string) => Number(id.slice(1)) % 2 === 0;
  const atAlpha = ALPHA_GRID.map((a) => new Map(ids.map((id) => [id, high(id) ? a : 1 - a])));
  const predictors = new Map(ids.map((id) => [id, { 'qpp.wig.sparse': high(id) ? 5 + Number(id.slice(1)) / 100 : 1, 'qpp.nqc.sparse': 0.3 }]));
  const rrf = new Map(ids.map((id) => [id, 0.4]));
  it('gives each held-out query its side; the best fixed α serves half; compared by the paired bootstrap', () => {
    const r = learnedAlpha({ tuning: ids.slice(0, 12), heldOut: ids.slice(12), atAlpha, rrf, predictors, metric: 'ndcg@10' });
    expect(r.predictors).toEqual(['qpp.wig.sparse']); // the constant one dropped
    expect(r.fitted).toBe(12);
    expect(r.flat).toBe(0);
    // on the tuning queries every α has mean 0.5: the first (0) is kept
    expect(r.bestFixedAlpha).toBe(0);
    expect(r.learned.score).toBe(1);
    expect(r.meanAlpha).toBe(0.5);
    expect(r.against[0]).toMatchObject({ label: 'the best fixed α (0)', score: 0.5, delta: 0.5, wins: 4, ties: 4, losses: 0 });
    expect(r.against[1]).toMatchObject({ label: 'RRF', wins: 8, losses: 0 });
    expect(r.against[1]!.score).toBeCloseTo(0.4, 12);
    expect(r.against[1]!.delta).toBeCloseTo(0.6, 12);
    expect(r.verdict).toMatch(/^Learned per-query α \(ridge on 1 predictors, fitted on 12 tuning queries \(0 scored alike at every α left out\)\): on the 8 held-out queries ndcg@10 1\.0000; it /);
  });
  it('queries every α scores alike are left out; with nothing to learn it keeps the best fixed α', () => {
    const flat = ALPHA_GRID.map(() => new Map(ids.map((id) => [id, 0.5])));
    const r = learnedAlpha({ tuning: ids.slice(0, 12), heldOut: ids.slice(12), atAlpha: flat, rrf, predictors, metric: 'ndcg@10' });
    expect(r).toMatchObject({ fitted: 0, flat: 12, predictors: [], meanAlpha: 0 });
    expect(r.verdict).toMatch(/no fit \(every tuning query scored alike at every α\): the best fixed α throughout/);
  });
});
