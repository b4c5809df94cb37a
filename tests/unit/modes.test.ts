import { describe, expect, it } from 'vitest';
import { isMode, MODE_IDS, MODES, modeAvailability, NO_EMBEDDER, NO_RERANKER } from '../../src/lib/retrieval/modes.ts';

describe('modes', () => {
  it('lists the seven modes', () => {
    expect([...MODE_IDS].sort()).toEqual(['dense', 'hybrid_calibrated', 'hybrid_calibrated_rerank', 'hybrid_fixed', 'hybrid_fixed_rerank', 'rrf', 'sparse']);
  });

  it('isMode accepts only mode ids', () => {
    expect(isMode('rrf')).toBe(true);
    expect(isMode('toString')).toBe(false);
    expect(isMode('bm25')).toBe(false);
    expect(isMode(3)).toBe(false);
  });

  it('only sparse runs without an embedder', () => {
    for (const m of MODE_IDS) {
      const a = modeAvailability(m, { dense: false, reranker: true });
      expect(a.available).toBe(m === 'sparse');
      if (!a.available) expect(a.reason).toBe(NO_EMBEDDER);
    }
  });

  it('rerank modes need a reranker; reasons can be overridden', () => {
    for (const m of MODE_IDS) {
      const a = modeAvailability(m, { dense: true, reranker: false, rerankerReason: 'no cross-encoder' });
      expect(a.available).toBe(!MODES[m].needsReranker);
      if (!a.available) expect(a.reason).toBe('no cross-encoder');
    }
    expect(modeAvailability('hybrid_fixed_rerank', { dense: true, reranker: false })).toEqual({ available: false, reason: NO_RERANKER });
    expect(modeAvailability('dense', { dense: false, reranker: false, denseReason: 'model failed' })).toEqual({ available: false, reason: 'model failed' });
  });
});
