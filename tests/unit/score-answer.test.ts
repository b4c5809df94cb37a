import { describe, expect, it } from 'vitest';
import { scoreAnswer, scoreRequest, ScoreError, type ScoreModels } from '../../src/lib/eval/score/score-answer.ts';
import type { ChatProvider, ChatRequest } from '../../src/lib/llm/types.ts';

/** A provider that answers each call with the next scripted reply and records the requests. */
function scripted(replies: string[]) {
  const requests: ChatRequest[] = [];
  const provider: ChatProvider = {
    id: 'openai',
    chat: async (req) => {
      requests.push(req);
      const text = replies.shift();
      if (text === undefined) throw new Error('no reply scripted');
      return { text, usage: { inputTokens: 10, outputTokens: 5 }, finishReason: 'stop' };
    },
  } as ChatProvider;
  return { provider, requests };
}

const JUDGE = { provider: 'openai', baseUrl: null, model: 'judge-model', repeats: 1 };
/** Sentences 0a, 0b (first context) and 1a (second): |V| = 3. */
const BRIDGE = { question: 'When did the bridge open?', answer: 'The bridge opened in 1932.', contexts: ['The bridge opened in 1932. It spans the harbour.', 'The tunnel opened later.'] };

describe('scoreAnswer', () => {
  it('lexical, hand-computed: the answer copies the one sentence the question asks about', async () => {
    // V = {0a, 0b, 1a}. The answer's claim {pari, capit, franc} is all in 0a (utilized); 0b holds only pari, whose
    // idf ln 1.6 is under half the claim's weight (ln 1.6 + 2 ln(8/3)), so 0b is not; the question's words
    // {capit, franc} are in 0a alone (relevant). relevance = 1/3, utilization = 1/3, completeness = 1/1, adherence 1.
    const r = await scoreAnswer('lexical', {}, {}, {
      question: 'What is the capital of France?', answer: 'Paris is the capital of France.',
      contexts: ['Paris is the capital of France. The Seine flows through Paris.', 'Bananas are yellow.'],
    });
    expect(r.evaluator).toBe('lexical');
    expect(r.scores.relevance).toBeCloseTo(1 / 3, 12);
    expect(r.scores.utilization).toBeCloseTo(1 / 3, 12);
    expect(r.scores.completeness).toBe(1);
    expect(r.scores.adherence).toBe(1);
    expect(r.ragas).toBeNull();
  });

  it('the LLM judge: one call on the keyed contexts and answer; its keys give the four scores', async () => {
    const p = scripted([JSON.stringify({ overall_supported: true, all_relevant_sentence_keys: ['0a', '1a'], all_utilized_sentence_keys: ['0a'] })]);
    const r = await scoreAnswer('llm', { judge: JUDGE }, { judge: p.provider }, BRIDGE);
    expect(r.scores).toEqual({ relevance: 2 / 3, utilization: 1 / 3, adherence: 1, completeness: 1 / 2 });
    expect(p.requests).toHaveLength(1);
    expect(p.requests[0]!.model).toBe('judge-model');
    expect(p.requests[0]!.json).toBe(true);
    const prompt = p.requests[0]!.messages.at(-1)!.content;
    for (const s of ['0a', '0b', '1a', 'It spans the harbour.', 'The tunnel opened later.', 'r1', BRIDGE.question]) expect(prompt).toContain(s);
  });

  it.each([
    ['prose, no JSON', 'I think the answer is fine.', /no JSON object/],
    ['JSON without the keys TRACe needs', '{"verdict": "supported"}', /lacks all_relevant_sentence_keys, all_utilized_sentence_keys, overall_supported/],
    ['a support verdict but no keys', '{"overall_supported": true}', /lacks all_relevant_sentence_keys, all_utilized_sentence_keys\)/],
  ])('a malformed judge reply (%s) is a failed score, never 0', async (_name, reply, message) => {
    const p = scripted([reply]);
    const err = await scoreAnswer('llm', { judge: JUDGE }, { judge: p.provider }, BRIDGE).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ScoreError);
    expect((err as Error).message).toMatch(message);
    expect((err as Error).message).toMatch(/no score/);
  });

  it('RAGAS: faithfulness from the contexts, context precision and recall from the reference; answer relevancy absent without an embedder', async () => {
    const p = scripted(['{"statements": ["The bridge opened in 1932."]}', '{"verdicts": [1]}', '{"verdicts": [1, 0]}', '{"attributed": [1]}']);
    const r = await scoreAnswer('ragas', { judge: JUDGE, ragas: { embedder: null } }, { judge: p.provider, embedder: null }, { ...BRIDGE, reference: 'It opened in 1932.' });
    expect(r.ragas).toEqual({ faithfulness: 1, answer_relevancy: NaN, context_precision: 1, context_recall: 1 });
    expect(Object.values(r.scores).every(Number.isNaN)).toBe(true);
    expect(p.requests).toHaveLength(4);
    expect(p.requests[2]!.messages[1]!.content).toContain('It opened in 1932.');
  });

  it('RAGAS without a reference: context precision and recall are absent (NaN), and no call is made for them', async () => {
    const p = scripted(['{"statements": ["The bridge opened in 1932."]}', '{"verdicts": [0]}']);
    const r = await scoreAnswer('ragas', { judge: JUDGE, ragas: { embedder: null } }, { judge: p.provider }, BRIDGE);
    expect(r.ragas).toEqual({ faithfulness: 0, answer_relevancy: NaN, context_precision: NaN, context_recall: NaN });
    expect(p.requests).toHaveLength(2);
  });
});

describe('scoreRequest (the models worker side)', () => {
  const request = (o: Record<string, unknown> = {}) => ({ evaluator: 'lexical', judge: null, input: { ...BRIDGE, reference: null }, ...o });

  it('scores a lexical request without models or a key', async () => {
    const r = await scoreRequest(request(), null, null);
    expect(r.evaluator).toBe('lexical');
    expect(r.scores.adherence).toBe(1);
  });

  it.each([
    ['an unknown evaluator', request({ evaluator: 'vibes' }), /evaluator is not an evaluator/],
    ['an empty answer', request({ input: { ...BRIDGE, answer: '  ', reference: null } }), /input\.answer is empty: there is nothing to score/],
    ['a context that is not text', request({ input: { ...BRIDGE, contexts: [1], reference: null } }), /input\.contexts\.0 /],
    ['an over-long question', request({ input: { ...BRIDGE, question: 'x'.repeat(4001), reference: null } }), /input\.question is over 4000 characters/],
    ['no request at all', null, /The score request is invalid/],
    ['the LLM judge without a provider', request({ evaluator: 'llm' }), /LLM judge needs a provider and model/],
    ['the LLM judge on the in-browser model', request({ evaluator: 'llm', judge: { provider: 'browser', baseUrl: null, model: 'x' } }), /needs an API provider/],
    ['NLI with no NLI model loaded', request({ evaluator: 'nli' }), /needs the NLI model: load it under Settings/],
  ])('refuses %s with a message', async (_name, req, message) => {
    const models: ScoreModels = { loaded: () => [], embed: async () => new Float32Array(), rerank: async () => [], nli: async () => ({ entailment: 0, neutral: 0, contradiction: 1 }) };
    await expect(scoreRequest(req, models, null)).rejects.toThrow(message);
  });
});
