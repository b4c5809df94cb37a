/**
 * Every HTTP provider says why a stream ended: a server cut (connection broken or body closed before the end
 * marker), the provider's error event (with its message) and malformed events (skipped and counted; a stream of
 * nothing else is a clear error) are told apart from the user's stop, in both wire formats.
 */
import { describe, expect, it } from 'vitest';
import { AnthropicProvider } from '../../src/lib/llm/anthropic.ts';
import { GroqProvider } from '../../src/lib/llm/groq.ts';
import { HuggingFaceProvider } from '../../src/lib/llm/hf.ts';
import { OpenAICompatibleProvider } from '../../src/lib/llm/openai-compatible.ts';
import type { ChatProvider } from '../../src/lib/llm/types.ts';
import { faultyStream, STREAM_ERROR_MESSAGE, type WireFormat } from '../helpers/llm-server.ts';
import { rejection, useLlmServer } from '../helpers/llm-test.ts';

const llm = useLlmServer();
const messages = [{ role: 'user' as const, content: 'Who wrote the 1790 address?' }];
const parts = ['George ', 'Washington', ' wrote it.'];

const PROVIDERS: Array<{ name: string; format: WireFormat; label: string; make: () => ChatProvider }> = [
  { name: 'openai', format: 'openai', label: 'OpenAI-compatible server', make: () => new OpenAICompatibleProvider({ baseUrl: llm.srv.url, retry: llm.fastRetry, timeoutMs: 5_000 }) },
  { name: 'hf', format: 'openai', label: 'Hugging Face', make: () => new HuggingFaceProvider({ baseUrl: llm.srv.url, apiKey: 'hf_LocalTestToken0123456789', retry: llm.fastRetry, timeoutMs: 5_000 }) },
  { name: 'groq', format: 'openai', label: 'Groq', make: () => new GroqProvider({ baseUrl: llm.srv.url, apiKey: 'gsk_LocalTestKey0123456789abcdef', retry: llm.fastRetry, timeoutMs: 5_000 }) },
  { name: 'anthropic', format: 'anthropic', label: 'Anthropic', make: () => new AnthropicProvider({ baseUrl: llm.srv.url, apiKey: 'sk-ant-LocalTestKey0123456789', retry: llm.fastRetry, timeoutMs: 5_000 }) },
];

describe.each(PROVIDERS)('$name: why a stream ended', ({ format, label, make }) => {
  it('a connection destroyed mid-stream is a server cut, not a stop; the text so far is kept and nothing is retried', async () => {
    llm.srv.reply(faultyStream(format, parts, 'cut'));
    const deltas: string[] = [];
    const res = await make().stream({ model: 'm', messages }, (e) => deltas.push(e.delta));
    expect(res).toMatchObject({ text: 'George ', partial: true, interruption: 'connection' });
    expect(deltas.join('')).toBe('George ');
    expect(res.interruptionMessage).toMatch(new RegExp(`^The server closed the stream before the answer was complete \\(the connection to ${label} broke: `));
    expect(llm.srv.requests).toHaveLength(1);
  });

  it('a body that ends without the end marker is a server cut', async () => {
    llm.srv.reply(faultyStream(format, parts, 'close'));
    const res = await make().stream({ model: 'm', messages }, () => undefined);
    expect(res).toMatchObject({ text: parts.join(''), partial: true, interruption: 'connection' });
    expect(res.interruptionMessage).toBe(`The server closed the stream before the answer was complete (${label} sent no end-of-stream marker). The text received so far is kept; ask again for the rest.`);
  });

  it("the provider's error event ends the answer with its message", async () => {
    llm.srv.reply(faultyStream(format, parts, 'error-event'));
    const res = await make().stream({ model: 'm', messages }, () => undefined);
    expect(res).toMatchObject({ text: 'George ', partial: true, interruption: 'error' });
    expect(res.interruptionMessage).toContain(STREAM_ERROR_MESSAGE);
    expect(res.interruptionMessage).toContain(label);
  });

  it('malformed events are skipped and counted; the answer is complete', async () => {
    llm.srv.reply(faultyStream(format, parts, 'malformed'));
    const res = await make().stream({ model: 'm', messages }, () => undefined);
    expect(res.text).toBe(parts.join(''));
    expect(res.partial).toBeUndefined();
    expect(res.malformedEvents).toBe(2);
  });

  it('a stream of nothing but malformed events is a clear, non-retried error', async () => {
    llm.srv.reply(faultyStream(format, parts, 'malformed-only'));
    const e = await rejection(make().stream({ model: 'm', messages }, () => undefined));
    expect(e.kind).toBe('bad-response');
    expect(e.message).toContain('3 of the 3 stream events it sent could not be read (each should be a JSON object) and no answer text arrived');
    expect(llm.srv.requests).toHaveLength(1);
  });

  it('the user stopping is still told apart: interruption signal', async () => {
    llm.srv.reply({ ...faultyStream(format, parts, 'malformed'), chunkDelayMs: 50 });
    const ctl = new AbortController();
    const res = await make().stream({ model: 'm', messages, signal: ctl.signal }, () => ctl.abort());
    expect(res).toMatchObject({ text: 'George ', partial: true, interruption: 'signal' });
    expect(res.interruptionMessage).toMatch(/^Stopped: the request to .+ was cancelled/);
  });
});
