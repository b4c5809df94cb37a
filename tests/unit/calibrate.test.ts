import { describe, expect, it } from 'vitest';
import { buildCdf, calibrate, CALIBRATIONS, CDF_MAX_POINTS, cdfRank, isCoarseCdf, minMax, zScore, type CdfTable } from '../../src/lib/retrieval/calibrate.ts';

const closeAll = (actual: readonly number[], expected: readonly number[], digits = 10) => {
  expect(actual).toHaveLength(expected.length);
  expected.forEach((e, i) => expect(actual[i]).toBeCloseTo(e, digits));
};

describe('minMax', () => {
  it('maps to (x − min)/(max − min)', () => {
    // min 2, max 6: (2−2)/4 = 0, (4−2)/4 = 0.5, (6−2)/4 = 1, (3−2)/4 = 0.25
    closeAll(minMax([2, 4, 6, 3]), [0, 0.5, 1, 0.25]);
    // with negatives: min −1, max 3: [0, 0.25·(1+1)=0.5, 1]
    closeAll(minMax([-1, 1, 3]), [0, 0.5, 1]);
  });

  it('maps a constant list to 1 when its value is > 0, else to 0', () => {
    expect(minMax([3, 3, 3])).toEqual([1, 1, 1]);
    expect(minMax([0.2])).toEqual([1]);
    expect(minMax([0, 0])).toEqual([0, 0]);
    expect(minMax([-2, -2])).toEqual([0, 0]);
  });

  it('returns [] for an empty list', () => {
    expect(minMax([])).toEqual([]);
  });
});

describe('zScore', () => {
  it('uses the population standard deviation', () => {
    // mean = 40/8 = 5; Σ(x−5)² = 9+1+1+1+0+0+4+16 = 32; population var = 32/8 = 4 → sd 2
    // (the sample sd would be √(32/7) ≈ 2.138 and give different values)
    closeAll(zScore([2, 4, 4, 4, 5, 5, 7, 9]), [-1.5, -0.5, -0.5, -0.5, 0, 0, 1, 2]);
    // [1, 3]: mean 2, var = (1 + 1)/2 = 1 → [-1, 1]
    closeAll(zScore([1, 3]), [-1, 1]);
  });

  it('maps a constant list to 0 and an empty list to []', () => {
    expect(zScore([4, 4, 4])).toEqual([0, 0, 0]);
    expect(zScore([7])).toEqual([0]);
    expect(zScore([])).toEqual([]);
  });
});

describe('buildCdf / cdfRank', () => {
  it('pools all lists, sorts numerically and counts queries', () => {
    const t = buildCdf([[3, 1], [2, 2], [10, 9, 100]]);
    // numeric sort (a string sort would put 10 and 100 before 2)
    expect([...t.sorted]).toEqual([1, 2, 2, 3, 9, 10, 100]);
    expect(t.count).toBe(7);
    expect(t.queries).toBe(3);
  });

  it('counts a query even when its list is empty', () => {
    const t = buildCdf([[], [1]]);
    expect(t.queries).toBe(2);
    expect(t.count).toBe(1);
  });

  it('S_cdf on hand values: r / (N + 1) at table scores, linear between them, hyperbolic tails inside (0, 1)', () => {
    // table [1, 2, 2, 3]: N = 4 (denominator 5), w = 3 − 1 = 2
    const t = buildCdf([[1, 2, 2, 3]]);
    expect(cdfRank(t, 1)).toBeCloseTo(1 / 5, 12); // r = 1
    expect(cdfRank(t, 1.5)).toBeCloseTo(1.5 / 5, 12); // r = 1, halfway from 1 to 2
    expect(cdfRank(t, 2)).toBeCloseTo(3 / 5, 12); // r = 3: both tied 2s counted
    expect(cdfRank(t, 2.5)).toBeCloseTo(3.5 / 5, 12); // r = 3, halfway from 2 to 3
    expect(cdfRank(t, 3)).toBeCloseTo(4 / 5, 12); // r = N: (5 − 2 / (2 + 0)) / 5
    expect(cdfRank(t, 5)).toBeCloseTo((5 - 2 / 4) / 5, 12); // above: (5 − 2 / (2 + 2)) / 5 = 0.9
    expect(cdfRank(t, 0)).toBeCloseTo(2 / 3 / 5, 12); // below: (2 / (2 + 1)) / 5
    expect(cdfRank(t, -100)).toBeCloseTo(2 / 103 / 5, 12); // (2 / (2 + 101)) / 5
    expect(cdfRank(t, Infinity)).toBe(1);
    expect(cdfRank(t, -Infinity)).toBe(0);
    // a one-valued table: w = 1
    const one = buildCdf([[4, 4]]);
    expect(cdfRank(one, 4)).toBeCloseTo(2 / 3, 12);
    expect(cdfRank(one, 5)).toBeCloseTo((3 - 1 / 2) / 3, 12);
    expect(cdfRank(one, 3)).toBeCloseTo(1 / 2 / 3, 12);
  });

  it('maps distinct raw scores to distinct, ordered values, inside the table, between its steps and past its ends', () => {
    // 2,000 scores on a coarse grid (many ties), probed at 3,000 distinct points across and beyond the range
    const xs = Array.from({ length: 2000 }, (_, i) => Math.round(((i * 7919) % 2000) / 50));
    const t = buildCdf([xs]);
    const probes = Array.from({ length: 3000 }, (_, i) => -5 + i * 0.0173);
    const ranks = probes.map((s) => cdfRank(t, s));
    for (let i = 1; i < ranks.length; i++) expect(ranks[i]!).toBeGreaterThan(ranks[i - 1]!);
    for (const r of ranks) { expect(r).toBeGreaterThan(0); expect(r).toBeLessThan(1); }
  });

  it('rank is 0 for an empty table', () => {
    const t = buildCdf([]);
    expect(t.sorted.length).toBe(0);
    expect(t.queries).toBe(0);
    expect(cdfRank(t, 5)).toBe(0);
  });

  it('downsamples to maxPoints evenly spaced order statistics, keeping first and last', () => {
    // 0..9 shuffled, maxPoints 4: indices round(i·9/3) = 0, 3, 6, 9
    const t = buildCdf([[5, 9, 0, 3], [7, 1, 8], [2, 6, 4]], 4);
    expect([...t.sorted]).toEqual([0, 3, 6, 9]);
    expect(t.count).toBe(10);
    expect(t.queries).toBe(3);
    // 0..10, maxPoints 4: round(0) = 0, round(10/3 = 3.33) = 3, round(20/3 = 6.67) = 7, round(10) = 10
    const u = buildCdf([Array.from({ length: 11 }, (_, i) => 10 - i)], 4);
    expect([...u.sorted]).toEqual([0, 3, 7, 10]);
    expect(u.count).toBe(11);
  });

  it('does not downsample when the scores fit', () => {
    const t = buildCdf([[3, 2, 1]], 3);
    expect([...t.sorted]).toEqual([1, 2, 3]);
  });

  it('keeps up to CDF_MAX_POINTS (2M) scores whole; a table under that and under its count is coarse (saved before issue 32)', () => {
    expect(CDF_MAX_POINTS).toBe(2_000_000);
    expect(isCoarseCdf({ sorted: new Float64Array(4096), count: 1_270_000, queries: 100 })).toBe(true);
    expect(isCoarseCdf({ sorted: new Float64Array(10), count: 10, queries: 1 })).toBe(false);
    expect(isCoarseCdf({ sorted: new Float64Array(CDF_MAX_POINTS), count: 3_600_000, queries: 100 })).toBe(false);
  });

  it('keeps every score by default (seed B keeps its whole corpus table)', () => {
    const xs = Array.from({ length: 10_000 }, (_, i) => (i * 7919) % 10_000); // a permutation of 0..9999
    const t = buildCdf([xs]);
    expect(t.sorted.length).toBe(10_000);
    expect(t.count).toBe(10_000);
    for (let i = 0; i < t.sorted.length; i++) expect(t.sorted[i]).toBe(i);
  });
});

describe('calibrate', () => {
  const table: CdfTable = buildCdf([[1, 2, 3, 4]]);

  it('lists the four methods', () => {
    expect([...CALIBRATIONS]).toEqual(['raw', 'minmax', 'zscore', 'cdf']);
  });

  it('raw returns a copy of the scores', () => {
    const xs = [3, 1, 2];
    const out = calibrate('raw', xs);
    expect(out).toEqual([3, 1, 2]);
    expect(out).not.toBe(xs);
  });

  it('dispatches to minmax and zscore', () => {
    closeAll(calibrate('minmax', [2, 4, 6]), [0, 0.5, 1]);
    closeAll(calibrate('zscore', [1, 3]), [-1, 1]);
  });

  it('cdf maps each score through the table', () => {
    // table [1,2,3,4]: N = 4, w = 3; 0 → (3/4)/5, 2 → 2/5, 3.5 → 3.5/5, 9 → (5 − 3/8)/5
    closeAll(calibrate('cdf', [0, 2, 3.5, 9], table), [0.15, 0.4, 0.7, 0.925]);
  });

  it('cdf without a table throws', () => {
    expect(() => calibrate('cdf', [1, 2])).toThrow(/CDF table/);
  });
});
