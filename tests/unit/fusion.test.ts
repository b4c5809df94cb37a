import { describe, expect, it } from 'vitest';
import { FIXED_ALPHA, linearFusion, reciprocalRankFusion, RRF_K } from '../../src/lib/retrieval/fusion.ts';

describe('reciprocalRankFusion', () => {
  it('uses k = 60 by default', () => {
    expect(RRF_K).toBe(60);
    expect(FIXED_ALPHA).toBe(0.5);
  });

  it('sums 1/(k + rank) over the lists, rank 1-based; an item missing from a list gets nothing from it', () => {
    const sparse = [10, 20, 30];
    const dense = [20, 40];
    const rrf = reciprocalRankFusion([sparse, dense]);
    // 10: rank 1 in sparse only → 1/61 = 0.0163934426
    expect(rrf.get(10)).toBeCloseTo(1 / 61, 12);
    expect(rrf.get(10)).toBeCloseTo(0.0163934426, 9);
    // 20: rank 2 in sparse, rank 1 in dense → 1/62 + 1/61 = 0.0161290323 + 0.0163934426 = 0.0325224749
    expect(rrf.get(20)).toBeCloseTo(0.0325224749, 9);
    // 30: rank 3 in sparse only → 1/63 = 0.0158730159
    expect(rrf.get(30)).toBeCloseTo(0.0158730159, 9);
    // 40: rank 2 in dense only → 1/62 = 0.0161290323
    expect(rrf.get(40)).toBeCloseTo(0.0161290323, 9);
    expect([...rrf.keys()].sort((a, b) => a - b)).toEqual([10, 20, 30, 40]);
  });

  it('honours a custom k', () => {
    const rrf = reciprocalRankFusion([[1, 2], [2, 1]], 0);
    // k = 0: item 1 → 1/1 + 1/2 = 1.5; item 2 → 1/2 + 1/1 = 1.5
    expect(rrf.get(1)).toBeCloseTo(1.5, 12);
    expect(rrf.get(2)).toBeCloseTo(1.5, 12);
    const rrf1 = reciprocalRankFusion([[7, 8, 9]], 1);
    // k = 1: 1/2, 1/3, 1/4
    expect(rrf1.get(7)).toBeCloseTo(0.5, 12);
    expect(rrf1.get(8)).toBeCloseTo(1 / 3, 12);
    expect(rrf1.get(9)).toBeCloseTo(0.25, 12);
  });

  it('returns an empty map for no lists or empty lists', () => {
    expect(reciprocalRankFusion([]).size).toBe(0);
    expect(reciprocalRankFusion([[], []]).size).toBe(0);
  });
});

describe('linearFusion', () => {
  it('computes α·sparse + (1 − α)·dense element-wise', () => {
    // α = 0.25: [0.25·1 + 0.75·0, 0.25·0 + 0.75·1, 0.25·0.5 + 0.75·0.5, 0.25·0.8 + 0.75·0.2]
    //         = [0.25, 0.75, 0.5, 0.2 + 0.15 = 0.35]
    const out = linearFusion([1, 0, 0.5, 0.8], [0, 1, 0.5, 0.2], 0.25);
    expect(out).toHaveLength(4);
    expect(out[0]).toBeCloseTo(0.25, 12);
    expect(out[1]).toBeCloseTo(0.75, 12);
    expect(out[2]).toBeCloseTo(0.5, 12);
    expect(out[3]).toBeCloseTo(0.35, 12);
  });

  it('α = 1 gives the sparse scores, α = 0 the dense scores', () => {
    expect(linearFusion([0.3, 0.9], [0.7, 0.1], 1)).toEqual([0.3, 0.9]);
    expect(linearFusion([0.3, 0.9], [0.7, 0.1], 0)).toEqual([0.7, 0.1]);
  });

  it('throws when the lists differ in length', () => {
    expect(() => linearFusion([1, 2], [1], 0.5)).toThrow(/length/);
    expect(() => linearFusion([], [0.5], 0.5)).toThrow();
  });

  it('accepts two empty lists', () => {
    expect(linearFusion([], [], 0.5)).toEqual([]);
  });
});
