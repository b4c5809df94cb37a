import { describe, expect, it } from 'vitest';
import { checkConfidence, DEFAULT_REJECT_THRESHOLD } from '../../src/lib/retrieval/rejection.ts';

describe('checkConfidence', () => {
  it('defaults to a threshold of 0.15', () => {
    expect(DEFAULT_REJECT_THRESHOLD).toBe(0.15);
  });

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
