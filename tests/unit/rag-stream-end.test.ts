/**
 * The RAG answer carries why its stream ended (against the loopback LLM server): a server cut or an error event is
 * an error with the partial text and the provider's words, never "Stopped."; only the user's stop is.
 */
import { describe, expect, it } from 'vitest';
import type { SourceDocument } from '../../src/lib/retrieval/document.ts';
import { OpenAICompatibleProvider } from '../../src/lib/llm/openai-compatible.ts';
import { answerQuestion } from '../../src/lib/rag/answer.ts';
import { malformedEventsNote, STREAM_ENDED } from '../../src/lib/rag/stream-end.ts';
import { cloneConfig, DEFAULT_RAG_CONFIG, type RagConfig } from '../../src/lib/rag/config.ts';
import { generateAnswer, streamEndOf } from '../../src/lib/rag/generate.ts';
import { KnowledgeBase } from '../../src/lib/retrieval/knowledge-base.ts';
import { faultyStream, openaiCompletion, openaiStream, STREAM_ERROR_MESSAGE } from '../helpers/llm-server.ts';
import { useLlmServer } from '../helpers/llm-test.ts';

const llm = useLlmServer();
const DOCS: SourceDocument[] = [
  { id: 'a', title: 'Rock A', text: 'Basalt forms when lava cools quickly. Basalt columns line the coast near the harbour.' },
  { id: 'b', title: 'Rock B', text: 'Obsidian is volcanic glass with sharp edges. Pumice floats on water.' },
];
const kb = KnowledgeBase.build(DOCS, { cdfQueries: 0 });
const parts = ['Basalt forms ', 'when lava cools [1].', ' Done.'];

function config(agentic = false): RagConfig {
  const c = cloneConfig(DEFAULT_RAG_CONFIG);
  c.retrieval.rejectThreshold = 0;
  c.llm.model = 'm';
  c.agentic = agentic;
  return c;
}
const provider = () => new OpenAICompatibleProvider({ baseUrl: llm.srv.url, retry: llm.fastRetry, timeoutMs: 5_000 });
const ask = (signal?: AbortSignal, onDelta?: () => void, agentic = false) =>
  answerQuestion(kb, 'basalt', config(agentic), {
    provider: provider(), models: {}, ...(signal ? { signal } : {}),
    onEvent: (e) => { if (e.type === 'delta') onDelta?.(); },
  });

describe('answerQuestion says why the answer stream ended', () => {
  it('a server cut: status error, the partial text kept, "The server closed the stream…"', async () => {
    llm.srv.reply(faultyStream('openai', parts, 'cut'));
    const res = await ask();
    expect(res).toMatchObject({ status: 'error', answer: 'Basalt forms ', partial: true, streamEnd: 'connection', finishReason: 'aborted' });
    expect(res.reason).toMatch(/^The server closed the stream before the answer was complete \(the connection to OpenAI-compatible server broke: /);
    expect(res.reason).not.toContain('Stopped');
  });

  it('an error event: status error with the provider message', async () => {
    llm.srv.reply(faultyStream('openai', parts, 'error-event'));
    const res = await ask();
    expect(res).toMatchObject({ status: 'error', answer: 'Basalt forms ', partial: true, streamEnd: 'error' });
    expect(res.reason).toBe(`OpenAI-compatible server reported an error in the middle of the answer: ${STREAM_ERROR_MESSAGE}`);
  });

  it('malformed events: answered in full, the skipped events counted', async () => {
    llm.srv.reply(faultyStream('openai', parts, 'malformed'));
    const res = await ask();
    expect(res).toMatchObject({ status: 'answered', answer: parts.join(''), partial: false, streamEnd: 'complete', malformedEvents: 2 });
    expect(res.citations.map((c) => c.doc_id)).toEqual(['a']);
  });

  it('only malformed events: an error that says so', async () => {
    llm.srv.reply(faultyStream('openai', parts, 'malformed-only'));
    const res = await ask();
    expect(res.status).toBe('error');
    expect(res.reason).toContain('could not be read (each should be a JSON object) and no answer text arrived');
  });

  it('the user stop: status aborted, "Stopped."', async () => {
    llm.srv.reply({ sse: openaiStream(parts), chunkDelayMs: 50 });
    const ctl = new AbortController();
    const res = await ask(ctl.signal, () => ctl.abort());
    expect(res).toMatchObject({ status: 'aborted', answer: 'Basalt forms ', partial: true, streamEnd: 'signal', reason: 'Stopped.' });
  });

  it('agentic: a cut answer is reported, not reflected on', async () => {
    llm.srv.reply(
      openaiCompletion('1. basalt'),
      openaiCompletion('{"grades": [{"source": 1, "relevant": true}, {"source": 2, "relevant": true}]}'),
      faultyStream('openai', parts, 'cut'),
    );
    const res = await ask(undefined, undefined, true);
    expect(res).toMatchObject({ status: 'error', answer: 'Basalt forms ', streamEnd: 'connection' });
    expect(res.reason).toMatch(/^The server closed the stream/);
    expect(llm.srv.requests).toHaveLength(3);
  });
});

describe('agentic extra round', () => {
  it('a cut extra-round answer keeps the first, complete answer', async () => {
    llm.srv.reply(
      openaiCompletion('1. basalt'),
      openaiCompletion('{"grades": [{"source": 1, "relevant": true}, {"source": 2, "relevant": true}]}'),
      { sse: openaiStream(parts) },
      openaiCompletion('search for "pumice".'),
      openaiCompletion('{"grades": [{"source": 1, "relevant": true}, {"source": 2, "relevant": true}]}'),
      faultyStream('openai', ['Pumice floats '], 'cut'),
    );
    const res = await ask(undefined, undefined, true);
    expect(llm.srv.requests).toHaveLength(6);
    expect(res).toMatchObject({ status: 'answered', answer: parts.join(''), partial: false, streamEnd: 'complete' });
  });
});

describe('streamEndOf', () => {
  const base = { text: 'x', usage: null, model: 'm' };
  it('reads the interruption, and treats an unexplained "aborted" as a stop only when the signal fired', () => {
    expect(streamEndOf({ ...base, finishReason: 'stop' })).toBe('complete');
    expect(streamEndOf({ ...base, finishReason: 'aborted', partial: true, interruption: 'error' })).toBe('error');
    expect(streamEndOf({ ...base, finishReason: 'aborted' })).toBe('connection');
    const ctl = new AbortController();
    ctl.abort();
    expect(streamEndOf({ ...base, finishReason: 'aborted' }, ctl.signal)).toBe('signal');
  });

  it('a provider without words of its own gets the generic reason', async () => {
    const silent = { id: 'openai' as const, chat: () => Promise.reject(new Error('unused')), stream: async () => ({ ...base, finishReason: 'aborted', partial: true, interruption: 'connection' as const }) };
    const g = await generateAnswer(silent, { model: 'm', messages: [{ role: 'user', content: 'q' }] });
    expect(g).toMatchObject({ end: 'connection', endMessage: null, partial: true, aborted: false });
    const res = await answerQuestion(kb, 'basalt', config(), { provider: silent, models: {} });
    expect(res.reason).toBe(STREAM_ENDED.connection);
  });
});

describe('malformedEventsNote', () => {
  it('counts in words', () => {
    expect(malformedEventsNote(1)).toBe('1 unreadable stream event was skipped (not JSON objects); the answer is made of the rest.');
    expect(malformedEventsNote(3)).toBe('3 unreadable stream events were skipped (not JSON objects); the answer is made of the rest.');
  });
});
