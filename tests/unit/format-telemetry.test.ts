import { describe, expect, it } from 'vitest';
import { entropyLine, formatMs, formatRerankPairs, modelStartLine } from '../../src/ui/shared/format.ts';

describe('telemetry formatting', () => {
  it('milliseconds with one decimal; not measured yet reads as pending', () => {
    expect(formatMs(12.345)).toBe('12.3 ms');
    expect(formatMs(0)).toBe('0.0 ms');
    expect(formatMs(null)).toBe('pending…');
    expect(formatMs(Number.NaN)).toBe('—');
    expect(formatMs(-1)).toBe('—');
  });

  it('rerank pairs: total, scored and from the cache', () => {
    expect(formatRerankPairs({ scored: 12, cached: 8 })).toBe('20 pairs: 12 scored, 8 from the cache');
    expect(formatRerankPairs({ scored: 0, cached: 1 })).toBe('1 pair: 0 scored, 1 from the cache');
    expect(formatRerankPairs(null)).toBe('pending…');
  });
});

describe('modelStartLine', () => {
  it('load, warm-up and first query; unknown load left out, no warm-up and a pending first query said so', () => {
    expect(modelStartLine({ loadMs: 1800, warmupMs: 310.04, firstQueryMs: 42 })).toBe('load 1800.0 ms · warm-up 310.0 ms · first query 42.0 ms');
    expect(modelStartLine({ loadMs: 12.25, warmupMs: null, firstQueryMs: null })).toBe('load 12.3 ms · no warm-up · first query pending…');
    expect(modelStartLine({})).toBe('no warm-up · first query pending…');
  });
});

describe('entropyLine', () => {
  it('names the basis, the calibration and k', () => {
    expect(entropyLine({ basis: 'calibrated', sparse: 'cdf', dense: 'cdf', k: 20 })).toBe("H of the cdf-calibrated scores of each retriever's top 20 (seed B)");
    expect(entropyLine({ basis: 'calibrated', sparse: 'cdf', dense: 'minmax', k: 5 })).toBe("H of the cdf (sparse) / minmax (dense)-calibrated scores of each retriever's top 5 (seed B)");
    expect(entropyLine({ basis: 'raw', sparse: 'raw', dense: 'raw', k: 20 })).toMatch(/raw scores .* top 20 .*not seed B/);
    expect(entropyLine({ basis: 'calibrated', sparse: 'cdf', dense: 'cdf', k: 10, kDense: 40 })).toBe("H of the cdf-calibrated scores of BM25's top 10 and the dense index's top 40 (seed B)");
  });
});
