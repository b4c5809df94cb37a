import { describe, expect, it } from 'vitest';
import { checkConfidence } from '../../src/lib/retrieval/rejection.ts';
import { MODE_IDS } from '../../src/lib/retrieval/modes.ts';
import { confidenceBasis, confidenceHelp, confidenceLabel } from '../../src/ui/search/confidence-view.ts';

/** The number after "confidence" (the banner says "confidence is 0.268", the card "confidence 0.268"). */
const quoted = (text: string) => /confidence (?:is )?(\d\.\d+|n\/a)/.exec(text)?.[1];

describe('one confidence figure for the banner and the top card', () => {
  it.each([0.26843, 0.0004, 0.29951, 0.1])('%s: the rejection banner quotes the number the card shows, labelled', (c) => {
    const r = checkConfidence(c, 0.3);
    if (!r.rejected) throw new Error('expected a rejection');
    expect(quoted(r.reason)).toBeDefined();
    expect(quoted(r.reason)).toBe(quoted(confidenceLabel(r.confidence)));
    expect(Number(quoted(r.reason))).toBeCloseTo(c, 3);
    expect(r.reason).toContain('below the threshold 0.3');
  });

  it('a search without a confidence says so instead of a number', () => {
    expect(confidenceLabel(null)).toBe('confidence n/a');
    expect(confidenceBasis(null, 'sparse', 'the query has no terms')).toMatch(/^no confidence for this search \(the query has no terms\)/);
  });

  it('"it counts the query\'s words, not their meaning" only for a lexical (BM25-only) search; a model\'s modes say what theirs is (issue 32)', () => {
    expect(confidenceBasis(0.4, 'sparse')).toMatch(/words, not their meaning/);
    expect(confidenceHelp('sparse')).toMatch(/It counts words, not meaning/);
    for (const mode of MODE_IDS.filter((m) => m !== 'sparse')) {
      expect(confidenceBasis(0.4, mode), mode).not.toMatch(/meaning/);
      expect(confidenceBasis(0.4, mode), mode).toMatch(/the smaller of the query’s word match \(BM25\) and the model’s score/);
      expect(confidenceHelp(mode), mode).not.toMatch(/not meaning/);
    }
  });
});
