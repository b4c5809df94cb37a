import { describe, expect, it } from 'vitest';
import {
  addEstimates, costOf, DEFAULT_JUDGE_OUTPUT_TOKENS, estimateJudgeRun, estimateRun, formatUsd, meteredProvider, priceFor, PRICES, sumUsage, UsageMeter,
} from '../../src/lib/eval/core/cost.ts';
import { judgeTrace, type JudgeInput } from '../../src/lib/eval/metrics/judge.ts';
import type { ChatProvider, ChatRequest, ChatResult } from '../../src/lib/llm/types.ts';

describe('cost estimate', () => {
  it('estimateRun: tokens × repeats, calls × assumed output, priced per 1M', () => {
    const e = estimateRun([100, 250], { repeats: 3, outputTokensPerCall: 50, price: { inputPerM: 0.59, outputPerM: 0.79 } });
    expect(e.calls).toBe(6);
    expect(e.inputTokens).toBe(1050); // (100 + 250) × 3
    expect(e.outputTokens).toBe(300); // 6 × 50
    expect(e.inputUsd).toBeCloseTo(0.0006195, 12); // 1050 × 0.59 / 1e6
    expect(e.outputUsd).toBeCloseTo(0.000237, 12); // 300 × 0.79 / 1e6
    expect(e.totalUsd).toBeCloseTo(0.0008565, 12);
    const f = estimateRun([10], { outputTokensPerCall: 5, price: { inputPerM: 1, outputPerM: 2 } });
    expect(f).toMatchObject({ calls: 1, inputTokens: 10, outputTokens: 5 });
    expect(addEstimates(e, f)).toMatchObject({ calls: 7, inputTokens: 1060, outputTokens: 305 });
    expect(addEstimates(e, f).totalUsd).toBeCloseTo(0.0008565 + 10e-6 + 10e-6, 12);
  });

  it('costOf', () => {
    expect(costOf({ inputTokens: 2_000_000, outputTokens: 500_000 }, { inputPerM: 1, outputPerM: 5 })).toEqual({ inputUsd: 2, outputUsd: 2.5, totalUsd: 4.5 });
  });

  it('price table: known entries, unknown models cost 0, editable, custom tables', () => {
    expect(priceFor('groq', 'llama-3.3-70b-versatile')).toEqual({ key: 'groq/llama-3.3-70b-versatile', inputPerM: 0.59, outputPerM: 0.79, known: true });
    expect(priceFor('openai', 'llama3.1:8b')).toEqual({ key: 'openai/llama3.1:8b', inputPerM: 0, outputPerM: 0, known: false });
    expect(priceFor('x', 'y', { 'x/y': { inputPerM: 3, outputPerM: 4 } })).toMatchObject({ inputPerM: 3, outputPerM: 4, known: true });
    PRICES['openai/my-local'] = { inputPerM: 0.5, outputPerM: 0.25, source: 'test' };
    try {
      expect(priceFor('openai', 'my-local')).toMatchObject({ inputPerM: 0.5, known: true });
    } finally {
      delete PRICES['openai/my-local'];
    }
    for (const [k, p] of Object.entries(PRICES)) {
      expect(p.inputPerM, k).toBeGreaterThan(0);
      expect(p.source, k).toMatch(/^https:\/\//);
    }
  });

  it('estimateJudgeRun counts chars/4 of exactly the messages the judge sends', async () => {
    const inputs: JudgeInput[] = [
      { question: 'What colour is the sky?', documents: ['The sky is blue. It is high.'], response: 'The sky is blue.' },
      { question: 'Who wrote it?', documents: ['Ann wrote the book.', 'Bob read it.'], response: ['Ann wrote it.', 'Bob read it.'] },
    ];
    // What a provider actually receives, by the hand rule ceil(chars / 4) per message.
    const sent: number[] = [];
    const recorder: ChatProvider = {
      id: 'openai',
      chat: async (req: ChatRequest): Promise<ChatResult> => {
        sent.push(req.messages.reduce((a, m) => a + Math.ceil(m.content.length / 4), 0));
        return { text: '{}', usage: null, finishReason: 'stop', model: 'm' };
      },
      stream: async () => { throw new Error('unused'); },
    };
    for (const i of inputs) await judgeTrace(recorder, i, { model: 'm' });
    const e = estimateJudgeRun(inputs, { repeats: 3, price: { inputPerM: 2, outputPerM: 10 } });
    expect(e.calls).toBe(6);
    expect(e.inputTokens).toBe((sent[0]! + sent[1]!) * 3);
    expect(e.outputTokens).toBe(6 * DEFAULT_JUDGE_OUTPUT_TOKENS);
    expect(e.totalUsd).toBeCloseTo(((sent[0]! + sent[1]!) * 3 * 2 + 6 * DEFAULT_JUDGE_OUTPUT_TOKENS * 10) / 1e6, 12);
    expect(sent[0]).toBeGreaterThan(300); // the annotation prompt is long; the estimate is not a few tokens
  });
});

describe('actual usage', () => {
  it('sumUsage: calls without usage are counted apart', () => {
    expect(sumUsage([{ inputTokens: 10, outputTokens: 5 }, null, { inputTokens: 3, outputTokens: 2 }, undefined]))
      .toEqual({ calls: 4, callsWithUsage: 2, inputTokens: 13, outputTokens: 7 });
    expect(sumUsage([])).toEqual({ calls: 0, callsWithUsage: 0, inputTokens: 0, outputTokens: 0 });
  });

  it('meteredProvider sums every call (chat and stream) and counts failures', async () => {
    const usages = [{ inputTokens: 100, outputTokens: 20 }, null, { inputTokens: 50, outputTokens: 30 }];
    let i = 0;
    const inner: ChatProvider = {
      id: 'groq',
      chat: async () => ({ text: 'a', usage: usages[i++]!, finishReason: 'stop', model: 'm' }),
      stream: async (_r, onDelta) => {
        onDelta({ delta: 'b' });
        if (i >= usages.length) throw new Error('boom');
        return { text: 'b', usage: usages[i++]!, finishReason: 'stop', model: 'm' };
      },
    };
    const meter = new UsageMeter();
    const p = meteredProvider(inner, meter);
    await p.chat({ model: 'm', messages: [] });
    await p.stream({ model: 'm', messages: [] }, () => {});
    await p.chat({ model: 'm', messages: [] });
    await expect(p.stream({ model: 'm', messages: [] }, () => {})).rejects.toThrow('boom');
    expect(meter.summary).toEqual({ calls: 3, callsWithUsage: 2, inputTokens: 150, outputTokens: 50 });
    expect(meter.failedCalls).toBe(1);
    expect(meter.cost({ inputPerM: 1, outputPerM: 2 }).totalUsd).toBeCloseTo((150 + 100) / 1e6, 12);
    expect(p.id).toBe('groq');
  });

  it('formatUsd', () => {
    expect(formatUsd(0)).toBe('$0');
    expect(formatUsd(0.0008565)).toBe('$0.00086');
    expect(formatUsd(0.5)).toBe('$0.5000');
    expect(formatUsd(12.345)).toBe('$12.35');
  });
});
