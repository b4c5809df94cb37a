import { describe, expect, it } from 'vitest';
import { clip01, documentSentenceKeys, traceFromKeys } from '../../src/lib/eval/metrics/trace.ts';

const KEYS = ['0a', '0b', '0c', '1a', '1b']; // |V| = 5

describe('traceFromKeys', () => {
  it('computes the four scores from keys by hand', () => {
    // relevant {0a, 0b, 1a}, utilized {0b, 1a} → relevance 3/5, utilization 2/5, completeness 2/3
    const t = traceFromKeys(KEYS, { overall_supported: true, all_relevant_sentence_keys: ['0a', '0b', '1a'], all_utilized_sentence_keys: ['0b', '1a'] });
    expect(t.relevance).toBeCloseTo(0.6, 12);
    expect(t.utilization).toBeCloseTo(0.4, 12);
    expect(t.completeness).toBeCloseTo(2 / 3, 12);
    expect(t.adherence).toBe(1);
  });

  it('drops invalid keys and repeats', () => {
    // valid relevant {0a, 1b}; '9z', '0a.' (RAGBench's own glitch) and '' are not keys; '0a' twice counts once
    const t = traceFromKeys(KEYS, {
      overall_supported: false,
      all_relevant_sentence_keys: ['0a', '0a', '9z', '0a.', '', '1b'],
      all_utilized_sentence_keys: ['1b', '2a', '1B'],
    });
    expect(t.relevance).toBeCloseTo(2 / 5, 12);
    expect(t.utilization).toBeCloseTo(1 / 5, 12);
    expect(t.completeness).toBeCloseTo(1 / 2, 12);
    expect(t.adherence).toBe(0);
  });

  it('missing fields: no keys, not supported; completeness NaN when nothing is relevant', () => {
    const t = traceFromKeys(KEYS, {});
    expect(t).toEqual({ relevance: 0, utilization: 0, adherence: 0, completeness: NaN });
    // utilized but nothing relevant → completeness still NaN (undefined), utilization counted
    const u = traceFromKeys(KEYS, { overall_supported: true, all_utilized_sentence_keys: ['0c'] });
    expect(u.completeness).toBeNaN();
    expect(u.utilization).toBeCloseTo(0.2, 12);
  });

  it('keys that do not occur in the documents are never counted, so scores stay in [0, 1]', () => {
    const many = Array.from({ length: 50 }, (_, i) => `${i}a`);
    const t = traceFromKeys(['0a', '1a'], { overall_supported: true, all_relevant_sentence_keys: many, all_utilized_sentence_keys: many });
    expect(t).toEqual({ relevance: 1, utilization: 1, adherence: 1, completeness: 1 });
    expect(traceFromKeys([], { overall_supported: true, all_relevant_sentence_keys: ['0a'] })).toEqual({ relevance: NaN, utilization: NaN, adherence: 1, completeness: NaN });
  });

  it('helpers', () => {
    expect(documentSentenceKeys([[['0a', 'x'], ['0b', 'y']], [['1a', 'z']]])).toEqual(['0a', '0b', '1a']);
    expect([clip01(-1), clip01(2), clip01(0.3), clip01(NaN)]).toEqual([0, 1, 0.3, NaN]);
  });
});
