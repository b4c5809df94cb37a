import { describe, expect, it } from 'vitest';
import { MODE_IDS } from '../../src/lib/retrieval/modes.ts';
import {
  checkConfidence, DEFAULT_REJECT_THRESHOLDS, idfCoverage, rejectThresholdFor, supportedConfidence,
} from '../../src/lib/retrieval/rejection.ts';

describe('idfCoverage', () => {
  it('is the share of the query idf the item holds', () => {
    // idf 2, 1, 1 with the first and third matched: (2 + 1) / (2 + 1 + 1) = 0.75
    expect(idfCoverage([2, 1, 1], [true, false, true])).toBe(0.75);
    // one rare word of four matched: 3 / (3 + 2 + 2 + 5) = 0.25
    expect(idfCoverage([3, 2, 2, 5], [true, false, false, false])).toBe(0.25);
    expect(idfCoverage([1.5, 0.5], [true, true])).toBe(1);
    expect(idfCoverage([1.5, 0.5], [false, false])).toBe(0);
    expect(idfCoverage([], [])).toBe(0);
  });
});

describe('supportedConfidence', () => {
  it('is the smaller of the lexical and the model evidence, each clipped to [0, 1]', () => {
    expect(supportedConfidence(0.25, 0.9)).toBe(0.25);
    expect(supportedConfidence(0.8, 0.4)).toBe(0.4);
    expect(supportedConfidence(1, -0.2)).toBe(0); // a negative cosine is no support
    expect(supportedConfidence(1.3, 1.1)).toBe(1);
  });
});

describe('default thresholds', () => {
  it('every mode has one in (0, 1); an asked threshold (also 0) wins over it', () => {
    for (const m of MODE_IDS) {
      expect(DEFAULT_REJECT_THRESHOLDS[m], m).toBeGreaterThan(0);
      expect(DEFAULT_REJECT_THRESHOLDS[m], m).toBeLessThan(1);
      expect(rejectThresholdFor(m, null)).toBe(DEFAULT_REJECT_THRESHOLDS[m]);
      expect(rejectThresholdFor(m, undefined)).toBe(DEFAULT_REJECT_THRESHOLDS[m]);
      expect(rejectThresholdFor(m, 0)).toBe(0);
      expect(rejectThresholdFor(m, 0.42)).toBe(0.42);
    }
  });
});

describe('checkConfidence', () => {
  it('rejects a confidence below the threshold, with a reason naming both numbers', () => {
    const r = checkConfidence(0.1, 0.15);
    expect(r.rejected).toBe(true);
    if (!r.rejected) throw new Error('unreachable');
    expect(r.confidence).toBe(0.1);
    expect(r.reason).toContain('0.100');
    expect(r.reason).toContain('0.15');
    expect(r.reason).toMatch(/Low confidence/);
  });

  it('accepts a confidence at or above the threshold', () => {
    expect(checkConfidence(0.15, 0.15)).toEqual({ rejected: false, confidence: 0.15 });
    expect(checkConfidence(0.9, 0.15)).toEqual({ rejected: false, confidence: 0.9 });
  });

  it('never rejects a null confidence and explains why in a note', () => {
    const r = checkConfidence(null, 0.99);
    expect(r.rejected).toBe(false);
    if (r.rejected) throw new Error('unreachable');
    expect(r.confidence).toBeNull();
    expect(r.note).toMatch(/no calibrated confidence/);
    const custom = checkConfidence(null, 0.5, 'BM25 scores are unbounded');
    expect(custom).toEqual({ rejected: false, confidence: null, note: 'BM25 scores are unbounded' });
  });

  it('with threshold 0 nothing non-negative is rejected', () => {
    expect(checkConfidence(0, 0).rejected).toBe(false);
  });
});
