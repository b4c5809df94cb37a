/** RAGAS metrics (src/lib/eval/metrics/ragas.ts, ragas-judge.ts): the formulas on hand-computed values, the replies' checks, one row end to end. */
import { describe, expect, it } from 'vitest';
import {
  answerRelevancyScore, contextPrecisionScore, contextRecallScore, cosine, faithfulnessScore, parseAttributed, parseQuestions, parseStatements,
  parseVerdicts, RagasReplyError,
} from '../../src/lib/eval/metrics/ragas.ts';
import { ragasScores, type RagasEmbedder } from '../../src/lib/eval/score/ragas-judge.ts';
import { EVALUATORS } from '../../src/lib/eval/score/evaluators.ts';
import type { ChatProvider, ChatRequest } from '../../src/lib/llm/types.ts';
import type { RagbenchRow } from '../../src/lib/data/ragbench.ts';

describe('RAGAS formulas', () => {
  it('faithfulness = supported statements / statements; NaN without statements', () => {
    expect(faithfulnessScore([true, true, false])).toBeCloseTo(2 / 3, 12);
    expect(faithfulnessScore([false])).toBe(0);
    expect(faithfulnessScore([])).toBeNaN();
  });

  it('context precision = Σ precision@k · v_k / relevant contexts (ranked), 0 when none is useful, NaN without contexts', () => {
    expect(contextPrecisionScore([false, true])).toBeCloseTo(0.5, 12); // (1/2) / 1
    expect(contextPrecisionScore([true, false, true])).toBeCloseTo((1 + 2 / 3) / 2, 12); // 5/6
    expect(contextPrecisionScore([false, true, true])).toBeCloseTo((1 / 2 + 2 / 3) / 2, 12); // 7/12
    expect(contextPrecisionScore([true, true])).toBe(1);
    expect(contextPrecisionScore([false, false])).toBe(0);
    expect(contextPrecisionScore([])).toBeNaN();
  });

  it('context recall = attributable reference sentences / reference sentences', () => {
    expect(contextRecallScore([true, false])).toBe(0.5);
    expect(contextRecallScore([true, true, true, false])).toBe(0.75);
    expect(contextRecallScore([])).toBeNaN();
  });

  it('answer relevancy = mean cosine of the question with each generated question; 0 when noncommittal', () => {
    expect(cosine([1, 0], [1, 1])).toBeCloseTo(Math.SQRT1_2, 12);
    expect(cosine([1, 2], [-2, 1])).toBe(0);
    expect(cosine([0, 0], [1, 1])).toBeNaN();
    const q = [1, 0];
    expect(answerRelevancyScore(q, [[1, 0], [0, 1], [1, 1]], false)).toBeCloseTo((1 + 0 + Math.SQRT1_2) / 3, 12);
    expect(answerRelevancyScore(q, [[-1, 0]], false)).toBe(-1); // a cosine, not clipped (as ragas)
    expect(answerRelevancyScore(q, [[1, 0]], true)).toBe(0);
    expect(answerRelevancyScore(q, [], false)).toBeNaN();
  });
});

describe('RAGAS replies: one JSON object, checked; anything else fails the row', () => {
  it('accepts fences, prose around the object, trailing commas and true/false verdicts', () => {
    expect(parseVerdicts('faithfulness', 'Here:\n```json\n{"verdicts": [1, 0, true,],}\n```', 3)).toEqual([true, false, true]);
    expect(parseStatements('{"statements": [" A is B. ", "", "C."]}')).toEqual(['A is B.', 'C.']);
    expect(parseQuestions('{"questions": ["q1?", "q2?"], "noncommittal": 0}')).toEqual({ questions: ['q1?', 'q2?'], noncommittal: false });
    expect(parseAttributed('{"attributed": [0, 1]}', 2)).toEqual([false, true]);
  });

  it.each([
    ['not JSON', () => parseVerdicts('faithfulness', 'Yes, all supported.', 2), /faithfulness reply: no JSON object/],
    ['broken JSON', () => parseVerdicts('faithfulness', '{"verdicts": [1, 0', 2), /faithfulness reply: invalid JSON: unbalanced braces/],
    ['a verdict out of range', () => parseVerdicts('context precision', '{"verdicts": [1, 2]}', 2), /context precision reply: verdicts\.1: /],
    ['a fractional verdict', () => parseAttributed('{"attributed": [0.5]}', 1), /context recall reply: attributed\.0: /],
    ['a verdict in words', () => parseVerdicts('faithfulness', '{"verdicts": ["yes"]}', 1), /faithfulness reply: verdicts\.0: /],
    ['too few verdicts', () => parseVerdicts('faithfulness', '{"verdicts": [1]}', 2), /1 verdicts for 2 statements/],
    ['too many verdicts', () => parseAttributed('{"attributed": [1, 1, 0]}', 2), /3 verdicts for 2 reference sentences/],
    ['a missing field', () => parseStatements('{"claims": ["x"]}'), /statements reply: statements: /],
    ['no questions', () => parseQuestions('{"questions": [], "noncommittal": 0}'), /answer relevancy reply: questions: /],
    ['a noncommittal flag out of range', () => parseQuestions('{"questions": ["q?"], "noncommittal": 3}'), /answer relevancy reply: noncommittal: /],
  ])('%s is a RagasReplyError', (_what, f, message) => {
    expect(f).toThrow(RagasReplyError);
    expect(f).toThrow(message);
  });
});

/** A judge answering by the prompt's task line, recording every request. */
function judge(replies: Partial<Record<string, string>>): ChatProvider & { requests: ChatRequest[] } {
  const requests: ChatRequest[] = [];
  return {
    id: 'openai', requests,
    async chat(req) {
      requests.push(req);
      const task = /^Task: RAGAS ([a-z ]+)\./m.exec(req.messages.at(-1)!.content)![1]!;
      return { text: replies[task] ?? 'no scripted reply', usage: { inputTokens: 100, outputTokens: 10 }, finishReason: 'stop', model: req.model };
    },
    async stream() { throw new Error('not streamed'); },
  };
}

/** Embeds the question as (1, 0) and every other text by a table. */
function embedder(vectors: Record<string, [number, number]>): RagasEmbedder & { calls: string[][] } {
  const calls: string[][] = [];
  return {
    calls,
    async embed(texts) { calls.push([...texts]); return new Float32Array(texts.flatMap((t) => vectors[t] ?? [0, 0])); },
  };
}

const INPUT = {
  question: 'What does the engine burn?',
  contexts: ['The engine was designed in 1901.', 'The engine burns quartz.'],
  answer: 'The engine burns quartz. It was built in 1901 in Paris.',
  reference: 'The engine burns quartz. Its designer was Ada.',
};
const REPLIES = {
  statements: '{"statements": ["The engine burns quartz.", "The engine was built in 1901.", "The engine was built in Paris."]}',
  faithfulness: '{"verdicts": [1, 1, 0]}',
  'answer relevancy': '{"questions": ["What does the engine burn?", "Where was the engine built?", "When was it built?"], "noncommittal": 0}',
  'context precision': '{"verdicts": [0, 1]}',
  'context recall': '{"attributed": [1, 0]}',
};
const VECTORS: Record<string, [number, number]> = {
  'What does the engine burn?': [1, 0], 'Where was the engine built?': [0, 1], 'When was it built?': [1, 1],
};

describe('ragasScores: one row through the judge and the embedder', () => {
  it('gives the hand-computed values in five calls (temperature 0, JSON mode), the question and its three generated ones embedded once', async () => {
    const p = judge(REPLIES);
    const e = embedder(VECTORS);
    const r = await ragasScores(p, e, INPUT, { model: 'judge-m' });
    expect(r.scores.faithfulness).toBeCloseTo(2 / 3, 12);
    expect(r.scores.answer_relevancy).toBeCloseTo((1 + 0 + Math.SQRT1_2) / 3, 6);
    expect(r.scores.context_precision).toBe(0.5);
    expect(r.scores.context_recall).toBe(0.5);
    expect(r.calls).toBe(5);
    expect(r.usage).toEqual({ inputTokens: 500, outputTokens: 50 });
    expect(p.requests.map((q) => /^Task: RAGAS ([a-z ]+)\./m.exec(q.messages[1]!.content)![1])).toEqual(['statements', 'faithfulness', 'answer relevancy', 'context precision', 'context recall']);
    expect(p.requests.every((q) => q.json === true && q.temperature === 0 && q.model === 'judge-m')).toBe(true);
    expect(e.calls).toEqual([['What does the engine burn?', 'What does the engine burn?', 'Where was the engine built?', 'When was it built?']]);
    // The prompts carry what the verdicts are about: statements numbered, contexts in retrieval order, the reference split into sentences.
    expect(p.requests[1]!.messages[1]!.content).toContain('Context 1:\n"""\nThe engine was designed in 1901.\n"""\n\nContext 2:');
    expect(p.requests[1]!.messages[1]!.content).toContain('1. The engine burns quartz.\n2. The engine was built in 1901.\n3. The engine was built in Paris.');
    expect(p.requests[4]!.messages[1]!.content).toContain('1. The engine burns quartz.\n2. Its designer was Ada.');
  });

  it('without an embedder answer relevancy is absent (NaN, not 0) and not asked for; without a reference, context precision and recall are', async () => {
    const p = judge(REPLIES);
    const r = await ragasScores(p, null, { ...INPUT, reference: null }, { model: 'm' });
    expect(r.scores.faithfulness).toBeCloseTo(2 / 3, 12);
    expect(r.scores.answer_relevancy).toBeNaN();
    expect(r.scores.context_precision).toBeNaN();
    expect(r.scores.context_recall).toBeNaN();
    expect(r.calls).toBe(2);
  });

  it('an answer with no statement has no faithfulness (its verdict step is skipped); a noncommittal answer has answer relevancy 0', async () => {
    const p = judge({ ...REPLIES, statements: '{"statements": []}', 'answer relevancy': '{"questions": ["What is it?"], "noncommittal": 1}' });
    const r = await ragasScores(p, embedder(VECTORS), INPUT, { model: 'm' });
    expect(r.scores.faithfulness).toBeNaN();
    expect(r.scores.answer_relevancy).toBe(0);
    expect(r.calls).toBe(4);
  });

  it('one unusable reply fails the whole row', async () => {
    const p = judge({ ...REPLIES, 'context precision': '{"verdicts": [1]}' });
    await expect(ragasScores(p, embedder(VECTORS), INPUT, { model: 'm' })).rejects.toThrow('RAGAS context precision reply: 1 verdicts for 2 contexts');
    await expect(ragasScores(judge({ ...REPLIES, faithfulness: 'All good.' }), null, INPUT, { model: 'm' })).rejects.toBeInstanceOf(RagasReplyError);
  });
});

describe('the ragas evaluator in the registry', () => {
  const row = { question: INPUT.question, documents: INPUT.contexts, response: INPUT.reference } as unknown as RagbenchRow;
  const judgeSettings = { provider: 'openai', baseUrl: null, model: 'm', repeats: 1 };

  it('needs a judge, and the embedder its settings name', () => {
    expect(() => EVALUATORS.ragas.build({ judge: null }, {})).toThrow('Choose a provider and model for the RAGAS judge.');
    expect(() => EVALUATORS.ragas.build({ judge: judgeSettings, ragas: { embedder: 'e@fp32' } }, { judge: judge(REPLIES) }))
      .toThrow('RAGAS answer relevancy needs the embedder e@fp32: load it first.');
    expect(EVALUATORS.ragas.api).toBe(true);
    expect(EVALUATORS.ragas.notes!({ judge: judgeSettings, ragas: { embedder: null } })[0]).toMatch(/answer relevancy is absent \(not 0\)/);
    expect(EVALUATORS.ragas.notes!({ judge: judgeSettings, ragas: { embedder: 'e@fp32' } })[0]).toMatch(/embedded by the loaded embedder e@fp32/);
  });

  it('pipeline: our answer over its contexts, RAGBench\'s answer as the reference; TRACe left NaN beside RAGAS', async () => {
    const built = EVALUATORS.ragas.build({ judge: judgeSettings, ragas: { embedder: 'e@fp32' } }, { judge: judge(REPLIES), embedder: { ...embedder(VECTORS), spec: { id: 'e', dtype: 'fp32', device: 'cpu' }, dim: 2 } });
    const s = await built.pipeline({ question: INPUT.question, contexts: INPUT.contexts, answer: INPUT.answer, row });
    expect([s.relevance, s.utilization, s.adherence, s.completeness].every(Number.isNaN)).toBe(true);
    expect(s.ragas).toMatchObject({ context_precision: 0.5, context_recall: 0.5 });
    expect(s.ragas!.faithfulness).toBeCloseTo(2 / 3, 12);
  });

  it('validate: RAGBench\'s answer over its documents, with no other reference', async () => {
    const built = EVALUATORS.ragas.build({ judge: judgeSettings, ragas: { embedder: null } }, { judge: judge(REPLIES) });
    const s = await built.row(row);
    expect(s.ragas!.faithfulness).toBeCloseTo(2 / 3, 12);
    expect(s.ragas!.answer_relevancy).toBeNaN();
    expect(s.ragas!.context_precision).toBeNaN();
    expect(s.ragas!.context_recall).toBeNaN();
  });
});
