import { describe, expect, it } from 'vitest';
import { answerStatsLine } from '../../src/ui/ask/ask-view.ts';

describe('the line under an answer (issue 32: an unlabelled "0.0 s")', () => {
  it('names what the time measures, and the tokens as the LLM\'s', () => {
    expect(answerStatsLine({ ms: 2345, usage: { inputTokens: 1812, outputTokens: 95 } }))
      .toBe("Whole run 2.3 s (retrieval, prompt and the model's answer) · LLM tokens: 1,812 input + 95 output");
    expect(answerStatsLine({ ms: 42, usage: null })).toBe("Whole run 42 ms (retrieval, prompt and the model's answer)");
  });

  it('a run that never started shows no time, never "0.0 s"', () => {
    expect(answerStatsLine({ ms: 0, usage: null })).toBe('');
    expect(answerStatsLine({ ms: 0, usage: { inputTokens: 5, outputTokens: 1 } })).toBe('LLM tokens: 5 input + 1 output');
  });
});
