/**
 * LLM-written test sets: the seeded sample spread over documents, the reply filters (junk, unanswerable, copied span,
 * duplicate) on hand-checked replies, the cost estimate by hand, and the run with a scripted fake provider: resume
 * from the cache without a call, a provider failure that says what was kept, Cancel.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ProviderError } from '../../src/lib/llm/errors.ts';
import type { ChatProvider, ChatRequest, ChatResult } from '../../src/lib/llm/types.ts';
import { KnowledgeBase } from '../../src/lib/retrieval/knowledge-base.ts';
import {
  COPY_SPAN_WORDS, estimateLlmTestSet, LlmTestSetError, memoryReplyCache, parseQuestionReply, replyCacheKey,
  sampleTestSetChunks, TESTSET_PROMPT_VERSION, TESTSET_SYSTEM_PROMPT, testSetMessages, writeLlmTestSet,
  type LlmTestSetProgress, type TestSetChunk,
} from '../../src/lib/tune/llm-test-set.ts';

// Four documents of three 25-word paragraphs (one chunk each at 250 characters), and one of four words (skipped).
const para = (d: string, p: number) => Array.from({ length: 25 }, (_, k) => `${d}p${p}w${k}`).join(' ');
const docs = [
  ...['a', 'b', 'c', 'd'].map((d) => ({ id: d, title: d.toUpperCase(), text: [0, 1, 2].map((p) => para(d, p)).join('\n\n') })),
  { id: 'e', title: 'E', text: 'Table of contents only.' },
];
const kb = KnowledgeBase.build(docs, { chunking: { chunkSize: 250, overlap: 0, separators: ['\n\n', ' '] }, cdfQueries: 0 });

/** A provider answering each chunk by `reply(chunkText, callNo)` (1-based), recording the requests. */
function fakeProvider(reply: (chunk: string, call: number) => string): ChatProvider & { requests: ChatRequest[] } {
  const requests: ChatRequest[] = [];
  return {
    id: 'groq',
    requests,
    async chat(req) {
      requests.push(req);
      const chunk = req.messages[1]!.content.replace(/^Passage:\n/, '').replace(/\n\nReply with the JSON object only\.$/, '');
      const text = reply(chunk, requests.length);
      return { text, usage: { inputTokens: 100, outputTokens: 10 }, finishReason: 'stop', model: req.model } satisfies ChatResult;
    },
    stream() { throw new Error('not used'); },
  };
}
const firstWord = (s: string) => s.split(' ')[0]!;
const askAbout = (chunk: string) => JSON.stringify({ question: `What does ${firstWord(chunk)} mean?`, answerable: true });

describe('sampling chunks', () => {
  it('one chunk of each document per round, short chunks skipped, deterministic per seed', () => {
    expect(kb.size).toBe(13); // 4 × 3 paragraphs + e's one short chunk
    const four = sampleTestSetChunks(kb, 4, 1);
    expect(new Set(four.map((c) => c.docId))).toEqual(new Set(['a', 'b', 'c', 'd']));
    const eight = sampleTestSetChunks(kb, 8, 1);
    expect(eight.slice(0, 4)).toEqual(four);
    for (const d of ['a', 'b', 'c', 'd']) expect(eight.filter((c) => c.docId === d)).toHaveLength(2);
    expect(new Set(eight.map((c) => c.chunkId)).size).toBe(8);
    const all = sampleTestSetChunks(kb, 100, 1);
    expect(all).toHaveLength(12); // e's 4 words are under 20
    expect(all.some((c) => c.docId === 'e')).toBe(false);
    const c0 = all[0]!;
    expect(c0.chunkId).toMatch(new RegExp(`^${c0.docId}#[012]$`));
    expect(c0.text).toBe(para(c0.docId, Number(c0.chunkId.slice(2))));
    expect(sampleTestSetChunks(kb, 8, 1)).toEqual(eight);
    expect(sampleTestSetChunks(kb, 8, 2).map((c) => c.chunkId)).not.toEqual(eight.map((c) => c.chunkId));
    expect(() => sampleTestSetChunks(kb, 0, 1)).toThrow(/at least 1/);
  });
});

describe('reading a reply', () => {
  const chunk = 'Alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima.';
  it(`a question sharing ${COPY_SPAN_WORDS} consecutive words with the chunk is copied; 7 are kept`, () => {
    expect(COPY_SPAN_WORDS).toBe(8);
    // alpha…golf = 7 words (case and punctuation ignored), then "what" is not in the chunk
    expect(parseQuestionReply('{"question": "Alpha, Bravo charlie-delta echo foxtrot golf: what?"}', chunk))
      .toEqual({ kind: 'ok', question: 'Alpha, Bravo charlie-delta echo foxtrot golf: what?' });
    const copied = parseQuestionReply('{"question": "Why alpha bravo charlie delta echo foxtrot golf HOTEL?"}', chunk);
    expect(copied).toEqual({ kind: 'copied', reason: 'the question shares 8 consecutive words with the passage' });
    // 8 shared words, but not consecutive in the chunk
    expect(parseQuestionReply('{"question": "alpha bravo charlie delta echo foxtrot golf india?"}', chunk).kind).toBe('ok');
  });
  it('junk: not JSON, the wrong shape, an empty or over-long question; a fence or text around one object is fine', () => {
    for (const junk of ['not json at all', '[1, 2]', '{"q": "Who?"}', '{"question": 5}', '{"question": "   "}',
      `{"question": "${'x'.repeat(501)}"}`, '{"question": "Who?", "answerable": "yes"}', '{"question": "Who?"']) {
      expect(parseQuestionReply(junk, chunk).kind, junk).toBe('junk');
    }
    expect(parseQuestionReply('{"question": "   "}', chunk)).toEqual({ kind: 'junk', reason: 'question: the question is empty' });
    expect(parseQuestionReply('```json\n{"question": " Who wrote it? "}\n```', chunk)).toEqual({ kind: 'ok', question: 'Who wrote it?' });
    expect(parseQuestionReply('Sure! {"question": "Who?", "answerable": true} Hope that helps.', chunk)).toEqual({ kind: 'ok', question: 'Who?' });
    expect(parseQuestionReply(`{"question": "${'x'.repeat(500)}"}`, chunk).kind).toBe('ok');
  });
  it('unanswerable when the model says so, whatever the question', () => {
    expect(parseQuestionReply('{"question": "", "answerable": false}', chunk).kind).toBe('unanswerable');
    expect(parseQuestionReply('{"question": "Who?", "answerable": false}', chunk).kind).toBe('unanswerable');
  });
});

describe('the prompt, the cost estimate and the cache key', () => {
  it('system + user prompt; the chunk cut to 4,000 characters', () => {
    const m = testSetMessages('Hello there.');
    expect(m.map((x) => x.role)).toEqual(['system', 'user']);
    expect(m[0]!.content).toBe(TESTSET_SYSTEM_PROMPT);
    expect(m[0]!.content).toContain('{"question": string, "answerable": boolean}');
    expect(m[1]!.content).toBe('Passage:\nHello there.\n\nReply with the JSON object only.');
    expect(testSetMessages('y'.repeat(5000))[1]!.content).toContain(`\n${'y'.repeat(4000)}\n\n`);
    expect(testSetMessages('y'.repeat(5000))[1]!.content).not.toContain('y'.repeat(4001));
  });
  it('one chunk by hand: ceil(477/4) + ceil(143/4) = 120 + 36 input tokens, 40 out', () => {
    expect(TESTSET_SYSTEM_PROMPT.length).toBe(477);
    const one: TestSetChunk = { chunkId: 'a#0', docId: 'a', text: 'x'.repeat(100) }; // user: 9 + 100 + 34 = 143 characters
    const e = estimateLlmTestSet([one], { inputPerM: 1, outputPerM: 2 });
    expect(e).toMatchObject({ calls: 1, inputTokens: 156, outputTokens: 40, outputTokensPerCall: 40 });
    expect(e.totalUsd).toBeCloseTo(156e-6 + 80e-6, 12);
    // a 5,000-character chunk is sent as 4,000: user 4,043 characters → 1,011 tokens
    expect(estimateLlmTestSet([one, { ...one, text: 'x'.repeat(5000) }], { inputPerM: 0, outputPerM: 0 }).inputTokens).toBe(156 + 120 + 1011);
  });
  it('the key is SHA-256 of chunk, provider, model and prompt version', async () => {
    const want = createHash('sha256').update(`some text\u0000groq\u0000m1\u0000${TESTSET_PROMPT_VERSION}`).digest('hex');
    expect(TESTSET_PROMPT_VERSION).toBe('testset-v1');
    expect(await replyCacheKey('some text', 'groq', 'm1')).toBe(want);
    expect(await replyCacheKey('some text', 'groq', 'm2')).not.toBe(want);
    expect(await replyCacheKey('some text', 'openai', 'm1')).not.toBe(want);
  });
});

describe('writing a test set', () => {
  const base = { kb, seed: 7, providerId: 'groq', model: 'm1' };
  it('filters and counts the replies, gold = the chunk\'s document; a second run with the cache makes no call', async () => {
    const s = sampleTestSetChunks(kb, 8, 7).map((c) => c.text);
    const scripted = new Map<string, string>([
      [s[0]!, 'I cannot help with that.'],
      [s[1]!, '{"question": "", "answerable": false}'],
      [s[2]!, JSON.stringify({ question: s[2]!.split(' ').slice(0, 8).join(' ') })],
      [s[3]!, '{"question": "Where is it?"}'],
      [s[4]!, '{"question": "  where IS   it? "}'],
    ]);
    const provider = fakeProvider((chunk) => scripted.get(chunk) ?? askAbout(chunk));
    const cache = memoryReplyCache();
    const progress: LlmTestSetProgress[] = [];
    const set = await writeLlmTestSet({ ...base, n: 8, provider, cache, onProgress: (p) => progress.push(p) });
    expect(set.counts).toEqual({ asked: 8, written: 4, junk: 1, unanswerable: 1, copied: 1, duplicate: 1, cached: 0 });
    expect(set.usage).toEqual({ calls: 8, inputTokens: 800, outputTokens: 80 });
    expect(set.notes).toEqual([
      '1 reply was not a JSON question: dropped',
      '1 chunk was marked unanswerable by the model: dropped',
      '1 question copied 8 or more consecutive words of its chunk: dropped',
      '1 question repeated an earlier one: dropped',
    ]);
    const chunks = sampleTestSetChunks(kb, 8, 7);
    const kept = [3, 5, 6, 7].map((i) => chunks[i]!);
    expect(set.queries.map((q) => q.id)).toEqual(kept.map((c) => `llm:${c.chunkId}`));
    expect(set.queries[0]!.text).toBe('Where is it?');
    expect(set.queries[1]!.text).toBe(`What does ${firstWord(kept[1]!.text)} mean?`);
    for (const c of kept) {
      expect(set.qrels.get(`llm:${c.chunkId}`)).toEqual(new Map([[c.docId, 1]]));
      expect(set.chunks[`llm:${c.chunkId}`]).toBe(c.chunkId);
    }
    expect(set.provenance).toEqual({ kind: 'llm', provider: 'groq', model: 'm1', promptVersion: 'testset-v1', seed: 7, asked: 8 });
    expect(provider.requests[0]).toMatchObject({ model: 'm1', json: true, temperature: 0, maxTokens: 200 });
    expect(progress.at(-1)).toEqual({ done: 8, total: 8, written: 4, dropped: 4, cached: 0 });
    expect(progress.every((p, i) => i === 0 || p.done >= progress[i - 1]!.done)).toBe(true);
    expect(cache.size).toBe(8); // junk cached too

    const again = fakeProvider(() => { throw new Error('must not be called'); });
    const resumed = await writeLlmTestSet({ ...base, n: 8, provider: again, cache });
    expect(again.requests).toHaveLength(0);
    expect(resumed.counts).toEqual({ ...set.counts, cached: 8 });
    expect(resumed.usage).toEqual({ calls: 0, inputTokens: 0, outputTokens: 0 });
    expect({ q: resumed.queries, r: resumed.qrels, c: resumed.chunks, n: resumed.notes }).toEqual({ q: set.queries, r: set.qrels, c: set.chunks, n: set.notes });
  });

  it('a provider failing on the 3rd call: the error says 2 written and cached; the rerun asks only for the rest', async () => {
    const failing = fakeProvider((chunk, call) => {
      if (call === 3) throw new ProviderError('Groq rate limit (429): retries exhausted.', { kind: 'rate-limit', provider: 'groq', status: 429 });
      return askAbout(chunk);
    });
    const cache = memoryReplyCache();
    const err = await writeLlmTestSet({ ...base, n: 6, provider: failing, cache, concurrency: 1 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LlmTestSetError);
    const e = err as LlmTestSetError;
    expect(e.message).toBe('The LLM test set stopped: Groq rate limit (429): retries exhausted. 2 questions were written so far and 2 replies are cached; running again resumes from the cache (no chunk is paid for twice).');
    expect([e.written, e.cachedReplies]).toEqual([2, 2]);
    expect(failing.requests).toHaveLength(3);
    const ok = fakeProvider(askAbout);
    const set = await writeLlmTestSet({ ...base, n: 6, provider: ok, cache, concurrency: 1 });
    expect(ok.requests).toHaveLength(4);
    expect(set.counts).toMatchObject({ written: 6, cached: 2 });
  });

  it('with two calls in flight, the calls that succeeded before a failure are never paid again', async () => {
    const cache = memoryReplyCache();
    const failing = fakeProvider((chunk, call) => { if (call === 3) throw new Error('boom'); return askAbout(chunk); });
    await expect(writeLlmTestSet({ ...base, n: 6, provider: failing, cache })).rejects.toThrow(/^The LLM test set stopped: boom\. /);
    const ok = fakeProvider(askAbout);
    const set = await writeLlmTestSet({ ...base, n: 6, provider: ok, cache });
    expect(failing.requests.length - 1 + ok.requests.length).toBe(6);
    expect(set.counts.written).toBe(6);
  });

  it('Cancel: the abort reason comes back as is, the reply already paid for is cached', async () => {
    const ac = new AbortController();
    const reason = new DOMException('stopped by the user', 'AbortError');
    const provider = fakeProvider((chunk, call) => {
      if (call === 2) {
        ac.abort(reason);
        throw new ProviderError('The request to Groq was cancelled.', { kind: 'aborted', provider: 'groq', retryable: false });
      }
      return askAbout(chunk);
    });
    const cache = memoryReplyCache();
    await expect(writeLlmTestSet({ ...base, n: 6, provider, cache, concurrency: 1, signal: ac.signal })).rejects.toBe(reason);
    expect(provider.requests).toHaveLength(2);
    expect(cache.size).toBe(1);
    const none = fakeProvider(askAbout);
    await expect(writeLlmTestSet({ ...base, n: 6, provider: none, signal: ac.signal })).rejects.toBe(reason);
    expect(none.requests).toHaveLength(0);
  });

  it('fewer chunks than asked for: a note; no cache: the error says a rerun asks again', async () => {
    const set = await writeLlmTestSet({ ...base, n: 50, provider: fakeProvider(askAbout) });
    expect(set.counts.asked).toBe(12);
    expect(set.notes).toEqual(['only 12 chunks have at least 20 words: 12 asked, not 50']);
    const failing = fakeProvider(() => { throw new Error('down'); });
    await expect(writeLlmTestSet({ ...base, n: 3, provider: failing, concurrency: 1 }))
      .rejects.toThrow('The LLM test set stopped: down. 0 questions were written so far and 0 replies are cached (no cache was given, so a rerun asks again).');
  });
  it('a reply cut short (connection lost) is not cached: the error says so', async () => {
    const cache = memoryReplyCache();
    const cut: ChatProvider = {
      id: 'groq',
      chat: async (req) => ({ text: '{"quest', usage: null, finishReason: 'aborted', model: req.model, partial: true, interruptionMessage: 'connection lost' }),
      stream() { throw new Error('not used'); },
    };
    await expect(writeLlmTestSet({ ...base, n: 2, provider: cut, cache, concurrency: 1 }))
      .rejects.toThrow('The LLM test set stopped: the reply was cut short (connection lost). 0 questions were written');
    expect(cache.size).toBe(0);
  });
});
