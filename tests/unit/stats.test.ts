import { describe, expect, it } from 'vitest';
import { mean, percentile } from '../../src/lib/stats/summary.ts';

describe('percentile (numpy linear interpolation)', () => {
  const oneToTwenty = Array.from({ length: 20 }, (_, i) => i + 1);

  it('p95 of 1..20 = 19.05', () => {
    // h = (20 − 1)·0.95 = 18.05 → s[18] + 0.05·(s[19] − s[18]) = 19 + 0.05 = 19.05
    expect(percentile(oneToTwenty, 95)).toBeCloseTo(19.05, 10);
  });

  it('p50 interpolates between the middle values; p0 and p100 are min and max', () => {
    // [1,2,3,4]: h = 3·0.5 = 1.5 → 2 + 0.5·1 = 2.5
    expect(percentile([4, 1, 3, 2], 50)).toBeCloseTo(2.5, 12);
    // p25 of [10, 20, 30, 40, 50]: h = 4·0.25 = 1 → 20
    expect(percentile([50, 10, 40, 20, 30], 25)).toBe(20);
    // p90 of [10, 20, 30, 40, 50]: h = 3.6 → 40 + 0.6·10 = 46
    expect(percentile([50, 10, 40, 20, 30], 90)).toBeCloseTo(46, 10);
    expect(percentile([5, -3, 9], 0)).toBe(-3);
    expect(percentile([5, -3, 9], 100)).toBe(9);
  });

  it('sorts numerically without modifying the input', () => {
    const xs = [100, 9, 10];
    // sorted [9, 10, 100] (a string sort would give [10, 100, 9]); p50: h = 1 → 10
    expect(percentile(xs, 50)).toBe(10);
    expect(xs).toEqual([100, 9, 10]);
  });

  it('a single value is every percentile; an empty list gives NaN', () => {
    expect(percentile([7], 0)).toBe(7);
    expect(percentile([7], 99)).toBe(7);
    expect(percentile([], 50)).toBeNaN();
  });
});

describe('mean', () => {
  it('averages', () => {
    expect(mean([1, 2, 3, 4])).toBe(2.5);
    expect(mean([-1, 1])).toBe(0);
    expect(mean([0.1, 0.2])).toBeCloseTo(0.15, 12);
  });

  it('is NaN for an empty list', () => {
    expect(mean([])).toBeNaN();
  });
});
