import { describe, expect, it } from 'vitest';
import type { RagbenchRow } from '../../src/lib/data/ragbench.ts';
import { ragbenchRowKey } from '../../src/lib/data/ragbench.ts';
import { MemoryResultStore, runSubset } from '../../src/lib/eval/ragbench-run/resumable-rows.ts';
import {
  combineRepeats, judgeRepeated, repeatedJudgeRowEvaluator, RepeatTracker, spreadOf, type RepeatedJudgeResult,
} from '../../src/lib/eval/ragbench/judge-runs.ts';
import type { ChatProvider, ChatRequest, ChatResult } from '../../src/lib/llm/types.ts';
import { ProviderError } from '../../src/lib/llm/errors.ts';

/** Sentences of the test documents: doc 0 has 4 (0a–0d), doc 1 has 2 (1a, 1b): |V| = 6. */
const DOCS: [string, string][][] = [
  [['0a', 'The bridge opened in 1932.'], ['0b', 'It spans the harbour.'], ['0c', 'It is made of steel.'], ['0d', 'Trains cross it.']],
  [['1a', 'The tunnel opened later.'], ['1b', 'It runs under the water.']],
];

const reply = (supported: boolean, relevant: string[], utilized: string[]) =>
  JSON.stringify({ overall_supported: supported, all_relevant_sentence_keys: relevant, all_utilized_sentence_keys: utilized });

type Step = string | Error;
/**
 * Replies by question, one per call in order: A flips (supported, then not, then prose); B agrees three times;
 * C never sends JSON; D fails once (HTTP 500 after retries), then agrees; E always fails.
 */
const SCRIPT: Record<string, Step[]> = {
  'Question A?': [reply(true, ['0a', '0b', '1a'], ['0a']), reply(false, ['0a', '0b'], ['0a', '0b', '1b']), 'I cannot say.'],
  'Question B?': [reply(true, ['0a'], ['0a']), reply(true, ['0a'], ['0a']), reply(true, ['0a'], ['0a'])],
  'Question C?': ['No JSON here.', 'Still none.', 'Sorry.'],
  'Question D?': [new ProviderError('server down', { kind: 'server', provider: 'openai', status: 500 }), reply(true, ['1a'], ['1a']), reply(true, ['1a'], ['1a'])],
  'Question E?': [new Error('offline'), new Error('offline'), new Error('offline')],
};

function scripted() {
  const seen = new Map<string, number>();
  const requests: ChatRequest[] = [];
  const provider: ChatProvider = {
    id: 'openai',
    chat: async (req: ChatRequest): Promise<ChatResult> => {
      requests.push(req);
      const q = /The question was:\n"{3}\n([\s\S]*?)\n"{3}/.exec(req.messages.at(-1)!.content)![1]!;
      const i = seen.get(q) ?? 0;
      seen.set(q, i + 1);
      const step = SCRIPT[q]![i]!;
      if (step instanceof Error) throw step;
      return { text: step, usage: { inputTokens: 100, outputTokens: 10 }, finishReason: 'stop', model: req.model };
    },
    stream: async () => { throw new Error('the judge does not stream'); },
  };
  return { provider, requests };
}

const input = (question: string) => ({ question, documents: DOCS, response: ['An answer.'] });

describe('spreadOf', () => {
  it('mean, population std, min, max over the numbers', () => {
    const s = spreadOf([1, 0, NaN, 1, 0]);
    expect(s).toEqual({ mean: 0.5, std: 0.5, min: 0, max: 1, n: 4 });
    expect(spreadOf([0.2])).toEqual({ mean: 0.2, std: 0, min: 0.2, max: 0.2, n: 1 });
    expect(spreadOf([NaN]).n).toBe(0);
    expect(Number.isNaN(spreadOf([]).mean)).toBe(true);
    // [2, 4, 4, 4, 5, 5, 7, 9]: mean 5, population std 2
    expect(spreadOf([2, 4, 4, 4, 5, 5, 7, 9])).toMatchObject({ mean: 5, std: 2 });
  });
});

describe('judgeRepeated', () => {
  it('a flip: means and spreads over the parsed replies, the unparsed one counted', async () => {
    const { provider, requests } = scripted();
    const r = await judgeRepeated(provider, input('Question A?'), { model: 'judge', repeats: 3, temperature: 0.7 });
    expect(requests).toHaveLength(3);
    expect(requests.every((q) => q.temperature === 0.7 && q.json === true && q.model === 'judge')).toBe(true);
    // reply 1: rel 3/6, util 1/6, compl |{0a}|/|{0a,0b,1a}| = 1/3, adh 1
    // reply 2: rel 2/6, util 3/6, compl 2/2 = 1, adh 0;  reply 3: not parsed
    expect(r.parseFailedCalls).toBe(1);
    expect(r.parseFailed).toBe(false);
    expect(r.verdicts).toEqual([1, 0]);
    expect(r.flipped).toBe(true);
    expect(r.scores.relevance).toBeCloseTo(5 / 12, 12);
    expect(r.scores.utilization).toBeCloseTo(1 / 3, 12);
    expect(r.scores.completeness).toBeCloseTo(2 / 3, 12);
    expect(r.scores.adherence).toBeCloseTo(0.5, 12);
    expect(r.spread.relevance.std).toBeCloseTo(1 / 12, 12); // |1/2 − 1/3| / 2
    expect(r.spread.utilization.std).toBeCloseTo(1 / 6, 12);
    expect(r.spread.completeness.std).toBeCloseTo(1 / 3, 12);
    expect(r.spread.adherence).toMatchObject({ std: 0.5, min: 0, max: 1, n: 2 });
    expect(r.spread.relevance.min).toBeCloseTo(1 / 3, 12);
    expect(r.spread.relevance.max).toBeCloseTo(1 / 2, 12);
    expect(r.usage).toEqual({ inputTokens: 300, outputTokens: 30 });
    expect(r.repeats).toBe(3);
  });

  it('agreement: no flip, zero spread', async () => {
    const { provider } = scripted();
    const r = await judgeRepeated(provider, input('Question B?'), { model: 'judge', repeats: 3 });
    expect(r.flipped).toBe(false);
    expect(r.verdicts).toEqual([1, 1, 1]);
    expect(r.scores).toEqual({ relevance: 1 / 6, utilization: 1 / 6, adherence: 1, completeness: 1 });
    expect(r.spread.relevance.std).toBe(0);
  });

  it('nothing parsed: NaN scores, a parse-failed row', async () => {
    const { provider } = scripted();
    const r = await judgeRepeated(provider, input('Question C?'), { model: 'judge', repeats: 3 });
    expect(r.parseFailed).toBe(true);
    expect(r.parseFailedCalls).toBe(3);
    expect(Object.values(r.scores).every(Number.isNaN)).toBe(true);
    expect(r.flipped).toBe(false);
  });

  it('a failed call is counted apart; all calls failing throws the first error', async () => {
    const { provider } = scripted();
    const d = await judgeRepeated(provider, input('Question D?'), { model: 'judge', repeats: 3 });
    expect(d.errors).toEqual(['server down']);
    expect(d.results).toHaveLength(2);
    expect(d.scores.adherence).toBe(1);
    await expect(judgeRepeated(provider, input('Question E?'), { model: 'judge', repeats: 3 })).rejects.toThrow('offline');
  });

  it('an abort stops the repeats', async () => {
    const c = new AbortController();
    let calls = 0;
    const provider: ChatProvider = {
      id: 'openai',
      chat: async () => { calls++; c.abort(new Error('stop')); return { text: reply(true, [], []), usage: null, finishReason: 'stop', model: 'm' }; },
      stream: async () => { throw new Error('unused'); },
    };
    await expect(judgeRepeated(provider, input('Q?'), { model: 'm', repeats: 5 }, c.signal)).rejects.toThrow('stop');
    expect(calls).toBe(1);
  });
});

describe('RepeatTracker summary', () => {
  it('parse-failure rates by call and by row, flip rate, mean spread', async () => {
    const { provider } = scripted();
    const t = new RepeatTracker(3);
    for (const q of ['Question A?', 'Question B?', 'Question C?', 'Question D?']) {
      t.add(q, await judgeRepeated(provider, input(q), { model: 'judge', repeats: 3 }));
    }
    const s = t.summary();
    expect(s).toMatchObject({
      repeats: 3, rows: 4, calls: 11, parseFailedCalls: 4, parseFailedRows: 1, failedCalls: 1,
      flippedRows: 1, comparableRows: 3, flipped: ['Question A?'],
    });
    expect(s.callParseFailureRate).toBeCloseTo(4 / 11, 12);
    expect(s.rowParseFailureRate).toBeCloseTo(1 / 4, 12);
    expect(s.flipRate).toBeCloseTo(1 / 3, 12);
    // rows with two or more values: A (std 1/12), B (0), D (0)
    expect(s.meanStd.relevance).toBeCloseTo(1 / 36, 12);
    expect(s.meanRange.relevance).toBeCloseTo(1 / 18, 12);
    expect(s.meanStd.adherence).toBeCloseTo(0.5 / 3, 12);
    expect(t.summary(['Question B?']).rows).toBe(1);
  });

  it('combineRepeats of nothing parsed', () => {
    const r = combineRepeats([]);
    expect(r.parseFailed).toBe(true);
    expect(r.usage).toBeNull();
  });
});

// ------------------------------------------------------------------------------------------------ runSubset

function makeRow(id: string, question: string, adherence: boolean): RagbenchRow {
  return {
    id, question, documents: DOCS.map((d) => d.map(([, t]) => t).join(' ')), response: 'An answer.',
    generation_model_name: 'gen', annotating_model_name: 'ann', dataset_name: 'test',
    documents_sentences: DOCS, response_sentences: [['a', 'An answer.']], sentence_support_information: [],
    unsupported_response_sentence_keys: [], adherence_score: adherence, overall_supported_explanation: null, relevance_explanation: null,
    all_relevant_sentence_keys: [], all_utilized_sentence_keys: [],
    trulens_groundedness: null, trulens_context_relevance: null, ragas_faithfulness: null, ragas_context_relevance: null,
    gpt3_adherence: null, gpt3_context_relevance: null, gpt35_utilization: null,
    relevance_score: 0.5, utilization_score: 0.2, completeness_score: 1,
  };
}

describe('repeatedJudgeRowEvaluator in runSubset', () => {
  it('scores are the means; the spread and flip of each row come through the callback; the cache is used', async () => {
    const rows = [makeRow('a', 'Question A?', false), makeRow('b', 'Question B?', true), makeRow('c', 'Question C?', true)];
    const { provider, requests } = scripted();
    const tracker = new RepeatTracker(3);
    const seen: [string, RepeatedJudgeResult][] = [];
    const evaluate = repeatedJudgeRowEvaluator(provider, { model: 'judge', repeats: 3 }, (row, r) => {
      seen.push([row.id, r]);
      tracker.add(ragbenchRowKey(row), r);
    });
    const store = new MemoryResultStore();
    const run = await runSubset(rows, 'test', evaluate, store, 'h', { concurrency: 2 });
    expect(requests).toHaveLength(9);
    expect(run.failures).toEqual([]);
    const byId = new Map(run.validation.rows.map((r, i) => [r.id, run.validation.predictions[i]!]));
    expect(byId.get('a')!.relevance).toBeCloseTo(5 / 12, 12);
    expect(byId.get('a')!.adherence).toBeCloseTo(0.5, 12);
    expect(byId.get('b')!.adherence).toBe(1);
    expect(Number.isNaN(byId.get('c')!.adherence)).toBe(true);
    expect(seen.map(([id]) => id).sort()).toEqual(['a', 'b', 'c']);
    expect(tracker.summary().flipped).toEqual([ragbenchRowKey(rows[0]!)]);
    // AUROC over a (hallucination, predicted 0.5) and b (supported, 1); c has no score and is left out.
    expect(run.validation.auroc).toBe(1);
    const again = await runSubset(rows, 'test', evaluate, store, 'h');
    expect(again.computed).toBe(0);
    expect(requests).toHaveLength(9);
  });
});
