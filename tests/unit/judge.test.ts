import { describe, expect, it } from 'vitest';
import {
  extractJson,
  judgeMessages,
  judgeTrace,
  keyDocuments,
  normaliseKey,
  parseJudgeReply,
  sentenceLetters,
  stripTrailingCommas,
} from '../../src/lib/eval/metrics/judge.ts';
import type { ChatProvider, ChatRequest, ChatResult } from '../../src/lib/llm/types.ts';

const FULL = {
  relevance_explanation: 'r',
  all_relevant_sentence_keys: ['0a', '1b'],
  overall_supported_explanation: 'o',
  overall_supported: true,
  sentence_support_information: [{ response_sentence_key: 'r1', explanation: 'e', supporting_sentence_keys: ['0a'], fully_supported: true }],
  all_utilized_sentence_keys: ['0a'],
};

function fakeProvider(reply: string): ChatProvider & { requests: ChatRequest[] } {
  const requests: ChatRequest[] = [];
  const result = (): ChatResult => ({ text: reply, usage: { inputTokens: 10, outputTokens: 5 }, finishReason: 'stop', model: 'fake' });
  return {
    id: 'openai',
    requests,
    async chat(req) { requests.push(req); return result(); },
    async stream(req, onDelta) { requests.push(req); onDelta({ delta: reply }); return result(); },
  };
}

describe('sentence keys', () => {
  it('bijective base-26 letters as RAGBench: a…z, aa, ab', () => {
    expect([0, 1, 25, 26, 27, 51, 52, 701, 702].map(sentenceLetters)).toEqual(['a', 'b', 'z', 'aa', 'ab', 'az', 'ba', 'zz', 'aaa']);
  });
  it('keys documents by index and sentence', () => {
    expect(keyDocuments(['One. Two!', 'Three'])).toEqual([[['0a', 'One.'], ['0b', 'Two!']], [['1a', 'Three']]]);
  });
  it('normalises keys the way judges mangle them', () => {
    expect(['0a.', ' 1C ', '[2b]', '"0aa",', 'r1:'].map(normaliseKey)).toEqual(['0a', '1c', '2b', '0aa', 'r1']);
  });
});

describe('judge prompt', () => {
  it('shows keyed document sentences, the question and r-keyed answer sentences, and the schema', () => {
    const { messages, documents, response } = judgeMessages({
      question: 'Where is Paris?',
      documents: [[['0a', 'Paris is in France.'], ['0b', 'It is big.']], [['1a', 'Rome is in Italy.']]],
      response: 'Paris is in France. It has the Eiffel Tower.',
    });
    expect(documents.flat().map(([k]) => k)).toEqual(['0a', '0b', '1a']);
    expect(response).toEqual([['r1', 'Paris is in France.'], ['r2', 'It has the Eiffel Tower.']]);
    const user = messages.at(-1)!.content;
    expect(messages[0]!.role).toBe('system');
    for (const s of ['0a. Paris is in France.', '1a. Rome is in Italy.', 'Where is Paris?', 'r1. Paris is in France.', 'r2. It has the Eiffel Tower.',
      '"overall_supported": boolean', '"all_relevant_sentence_keys": [string]', '"all_utilized_sentence_keys": [string]', '"sentence_support_information"']) {
      expect(user).toContain(s);
    }
  });
});

describe('tolerant reply parsing', () => {
  it('a clean reply', () => {
    const p = parseJudgeReply(JSON.stringify(FULL));
    expect(p.parseFailed).toBe(false);
    expect(p.defaulted).toEqual([]);
    expect(p.reply).toEqual(FULL);
  });

  it('code fences and prose around the object', () => {
    const text = 'Sure! Here is my assessment:\n```json\n' + JSON.stringify(FULL, null, 2) + '\n```\nLet me know {if} you need more.';
    const p = parseJudgeReply(text);
    expect(p.parseFailed).toBe(false);
    expect(p.reply.all_relevant_sentence_keys).toEqual(['0a', '1b']);
  });

  it('braces inside strings, trailing commas, string booleans and mangled keys', () => {
    const text = `{"overall_supported": "True", "relevance_explanation": "uses {braces} and \\"quotes\\"",
      "all_relevant_sentence_keys": ["0a.", "1B", "0a",], "all_utilized_sentence_keys": ["0a"],}`;
    expect(extractJson(text).error).toBeNull();
    const p = parseJudgeReply(text);
    expect(p.parseFailed).toBe(false);
    expect(p.reply.overall_supported).toBe(true);
    expect(p.reply.relevance_explanation).toBe('uses {braces} and "quotes"');
    expect(p.reply.all_relevant_sentence_keys).toEqual(['0a', '1b']);
    expect(p.defaulted.sort()).toEqual(['overall_supported_explanation', 'sentence_support_information']);
    // a brace block in the prose that is not JSON is passed over
    expect(extractJson('Note {this}: {"overall_supported": false}').value).toEqual({ overall_supported: false });
    expect(stripTrailingCommas('{"a": [1, 2,], "b": "x,]",}')).toBe('{"a": [1, 2], "b": "x,]"}');
  });

  it('missing or mistyped fields get defaults and are listed', () => {
    const p = parseJudgeReply('{"all_relevant_sentence_keys": "0a", "all_utilized_sentence_keys": ["0b"]}');
    expect(p.parseFailed).toBe(false);
    expect(p.reply.all_relevant_sentence_keys).toEqual([]);
    expect(p.reply.all_utilized_sentence_keys).toEqual(['0b']);
    expect(p.reply.overall_supported).toBe(false);
    expect(p.reply.sentence_support_information).toEqual([]);
    expect(p.defaulted).toContain('all_relevant_sentence_keys');
    expect(p.defaulted).toContain('overall_supported');
    expect(p.defaulted).not.toContain('all_utilized_sentence_keys');
  });

  it('a missing overall_supported follows the sentence verdicts when all are given', () => {
    const sup = (f: boolean | null) => ({ response_sentence_key: 'r1', supporting_sentence_keys: [], fully_supported: f });
    expect(parseJudgeReply(JSON.stringify({ sentence_support_information: [sup(true), sup(true)] })).reply.overall_supported).toBe(true);
    expect(parseJudgeReply(JSON.stringify({ sentence_support_information: [sup(true), sup(false)] })).reply.overall_supported).toBe(false);
    expect(parseJudgeReply(JSON.stringify({ sentence_support_information: [sup(true), sup(null)] })).reply.overall_supported).toBe(false);
    // partial entries get defaults inside
    const p = parseJudgeReply('{"sentence_support_information": [{"response_sentence_key": "r1."}]}');
    expect(p.reply.sentence_support_information).toEqual([{ response_sentence_key: 'r1', explanation: '', supporting_sentence_keys: [], fully_supported: null }]);
  });

  it('no JSON object at all is a parse failure', () => {
    for (const text of ['I cannot evaluate this.', '', '[1, 2, 3]', '{"unterminated": ', '{not json}']) {
      const p = parseJudgeReply(text);
      expect(p.parseFailed, text).toBe(true);
      expect(p.error).toBeTruthy();
      expect(p.reply.overall_supported).toBe(false);
    }
  });
});

describe('judgeTrace with a fake provider', () => {
  const input = { question: 'q?', documents: [[['0a', 'A.'], ['0b', 'B.']], [['1a', 'C.'], ['1b', 'D.']]] as [string, string][][], response: ['Ans.'] };

  it('asks once in JSON mode at temperature 0 and scores from the keys', async () => {
    const provider = fakeProvider('```json\n' + JSON.stringify({ ...FULL, all_relevant_sentence_keys: ['0a', '1b', 'zz'] }) + '\n```');
    const ctl = new AbortController();
    const r = await judgeTrace(provider, input, { model: 'm', signal: ctl.signal });
    expect(provider.requests).toHaveLength(1);
    expect(provider.requests[0]).toMatchObject({ model: 'm', json: true, temperature: 0 });
    expect(provider.requests[0]!.signal).toBe(ctl.signal);
    // V = 4 keys; relevant {0a, 1b}; utilized {0a} → 0.5, 0.25, completeness 1/2
    expect(r.scores).toEqual({ relevance: 0.5, utilization: 0.25, adherence: 1, completeness: 0.5 });
    expect(r.parseFailed).toBe(false);
    expect(r.usage).toEqual({ inputTokens: 10, outputTokens: 5 });
  });

  it('a reply that cannot be parsed gives NaN scores and says so', async () => {
    const r = await judgeTrace(fakeProvider('The answer looks fine to me.'), input, { model: 'm' });
    expect(r.parseFailed).toBe(true);
    expect(r.scores.adherence).toBeNaN();
    expect(r.scores.relevance).toBeNaN();
    expect(r.raw).toBe('The answer looks fine to me.');
  });
});
