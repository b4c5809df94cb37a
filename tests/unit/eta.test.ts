/** The one ETA rule (eval/core/eta.ts) of the RAGBench and retrieval benchmark progress, on hand-computed values. */
import { describe, expect, it } from 'vitest';
import { etaText, remainingMs } from '../../src/lib/eval/core/eta.ts';

describe('remainingMs', () => {
  it('is the mean time of the computed items times the items left', () => {
    // 3 items in 1,500 ms → 500 ms each; 7 left → 3,500 ms.
    expect(remainingMs(1500, 3, 7)).toBe(3500);
    // 4 items in 10 s → 2.5 s each; 120 left → 300 s.
    expect(remainingMs(10_000, 4, 120)).toBe(300_000);
  });
  it('is unknown until one item is computed, and 0 when nothing is left', () => {
    expect(remainingMs(800, 0, 5)).toBeNull();
    expect(remainingMs(800, 2, 0)).toBe(0);
    expect(remainingMs(Number.NaN, 2, 3)).toBeNull();
  });
});

describe('etaText', () => {
  it('writes seconds, minutes and hours', () => {
    expect(etaText(null)).toBe('ETA …');
    expect(etaText(0)).toBe('ETA <1 s');
    expect(etaText(999)).toBe('ETA <1 s');
    expect(etaText(41_600)).toBe('ETA 42 s');
    expect(etaText(185_000)).toBe('ETA 3 min 05 s');
    expect(etaText(3_720_000)).toBe('ETA 1 h 02 min');
  });
});
