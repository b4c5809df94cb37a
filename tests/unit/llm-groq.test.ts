/** The Groq adapter through groq-sdk, pointed at a local OpenAI-style server via baseURL. */
import { describe, expect, it } from 'vitest';
import { GroqProvider, type GroqProviderOptions } from '../../src/lib/llm/groq.ts';
import { ProviderError } from '../../src/lib/llm/errors.ts';
import { openaiCompletion, openaiError, openaiStream } from '../helpers/llm-server.ts';
import { rejection, useLlmServer } from '../helpers/llm-test.ts';

const KEY = 'gsk_LocalTestKey0123456789abcdef';
const llm = useLlmServer();
const { sleeps, fastRetry } = llm;

const groq = (o: GroqProviderOptions = {}) => new GroqProvider({ baseUrl: llm.srv.url, apiKey: KEY, retry: fastRetry, timeoutMs: 2_000, ...o });
const messages = [
  { role: 'system' as const, content: 'You answer from context.' },
  { role: 'user' as const, content: 'Who wrote the 1790 address?' },
];

function expectNoKeyAnywhere(e?: ProviderError) {
  for (const r of llm.srv.requests) {
    expect(r.url).not.toContain(KEY);
    expect(r.rawBody).not.toContain(KEY);
  }
  if (e) {
    expect(e.message).not.toContain(KEY);
    expect(JSON.stringify(e)).not.toContain(KEY);
    expect(String(e.stack)).not.toContain(KEY);
  }
}

describe('Groq via groq-sdk', () => {
  it('posts to {baseURL}/openai/v1/chat/completions with the SDK headers and our body', async () => {
    llm.srv.reply(openaiCompletion('George Washington.', { model: 'llama-3.3-70b-versatile', usage: { prompt_tokens: 50, completion_tokens: 4 } }));
    const res = await groq().chat({ model: 'llama-3.3-70b-versatile', messages, temperature: 0, maxTokens: 32, json: true });
    expect(res).toEqual({ text: 'George Washington.', usage: { inputTokens: 50, outputTokens: 4 }, finishReason: 'stop', model: 'llama-3.3-70b-versatile' });
    const r = llm.srv.requests[0]!;
    expect(r.method).toBe('POST');
    expect(r.path).toBe('/openai/v1/chat/completions');
    expect(r.headers['authorization']).toBe(`Bearer ${KEY}`);
    expect(r.headers['x-stainless-lang']).toBe('js');
    expect(r.headers['x-stainless-retry-count']).toBe('0');
    expect(r.body).toEqual({
      model: 'llama-3.3-70b-versatile',
      messages: [{ role: 'system', content: 'Respond with a single valid JSON object and nothing else.' }, ...messages],
      temperature: 0,
      max_completion_tokens: 32,
      response_format: { type: 'json_object' },
    });
    expectNoKeyAnywhere();
  });

  it('accepts a base URL that already ends in /openai/v1', async () => {
    llm.srv.reply(openaiCompletion('ok'));
    await groq({ baseUrl: `${llm.srv.url}/openai/v1/` }).chat({ model: 'm', messages });
    expect(llm.srv.requests[0]!.path).toBe('/openai/v1/chat/completions');
  });

  it('streams deltas and reads usage from x_groq in the last chunk', async () => {
    llm.srv.reply({ sse: openaiStream(['George ', 'Washing', 'ton.'], { groqUsage: { prompt_tokens: 50, completion_tokens: 3 } }) });
    const deltas: string[] = [];
    const res = await groq().stream({ model: 'llama-3.1-8b-instant', messages }, (e) => deltas.push(e.delta));
    expect(deltas).toEqual(['George ', 'Washing', 'ton.']);
    expect(res).toEqual({ text: 'George Washington.', usage: { inputTokens: 50, outputTokens: 3 }, finishReason: 'stop', model: 'test-model' });
    expect(llm.srv.requests[0]!.body).toMatchObject({ model: 'llama-3.1-8b-instant', stream: true });
    expect(llm.srv.requests[0]!.body).not.toHaveProperty('stream_options');
  });

  it('retries once after a 429 with Retry-After, with the SDK retries off', async () => {
    llm.srv.reply(openaiError(429, 'Rate limit reached for model', { 'Retry-After': '1' }), openaiCompletion('second try'));
    const res = await groq().chat({ model: 'm', messages });
    expect(res.text).toBe('second try');
    expect(llm.srv.requests).toHaveLength(2);
    expect(sleeps).toEqual([1000]);
    expect(llm.srv.requests.map((r) => r.headers['x-stainless-retry-count'])).toEqual(['0', '0']);
  });

  it('does not retry a 401; the message says what to do and hides the key', async () => {
    llm.srv.reply(openaiError(401, `Invalid API Key ${KEY}`, {}, 'invalid_request_error'));
    const e = await rejection(groq().chat({ model: 'm', messages }));
    expect(llm.srv.requests).toHaveLength(1);
    expect(e).toMatchObject({ kind: 'auth', status: 401, provider: 'groq', retryable: false });
    expect(e.message).toMatch(/^Groq rejected the API key \(HTTP 401: Invalid API Key \[redacted\]\).*start with "gsk_"/);
    expectNoKeyAnywhere(e);
  });

  it('retries 5xx and then surfaces it', async () => {
    llm.srv.reply(openaiError(500, 'internal'), openaiError(503, 'over capacity'), openaiError(503, 'over capacity'));
    const e = await rejection(groq().chat({ model: 'm', messages }));
    expect(llm.srv.requests).toHaveLength(3);
    expect(e).toMatchObject({ kind: 'server', status: 503, retryable: true });
    expect(e.message).toMatch(/Groq is overloaded or unavailable \(HTTP 503: over capacity\)/);
  });

  it('404 names the model', async () => {
    llm.srv.reply(openaiError(404, 'The model `nope` does not exist or you do not have access to it.'));
    const e = await rejection(groq().chat({ model: 'nope', messages }));
    expect(e).toMatchObject({ kind: 'not-found', status: 404 });
    expect(e.message).toMatch(/Groq does not know model "nope"/);
  });

  it('keeps the partial text on abort and on a cut connection mid-stream', async () => {
    llm.srv.reply({ sse: openaiStream(['a ', 'b ', 'c']), hangAfter: 3 });
    const ac = new AbortController();
    const deltas: string[] = [];
    const aborted = await groq().stream({ model: 'm', messages, signal: ac.signal }, (e) => {
      deltas.push(e.delta);
      if (deltas.length === 2) ac.abort();
    });
    expect(aborted).toMatchObject({ text: 'a b ', finishReason: 'aborted', partial: true, interruption: 'signal' });

    llm.srv.reply({ sse: openaiStream(['x ', 'y ', 'z']), cutAfter: 3 });
    const cut = await groq().stream({ model: 'm', messages }, () => undefined);
    expect(cut).toMatchObject({ text: 'x y ', finishReason: 'aborted', partial: true, interruption: 'connection' });
    expect(llm.srv.requests).toHaveLength(2);
  });

  it('times out (no answer) and stalls (mid-stream)', async () => {
    llm.srv.reply({ hang: true });
    const e = await rejection(groq({ timeoutMs: 100, retry: { ...fastRetry, maxRetries: 0 } }).chat({ model: 'm', messages }));
    expect(e).toMatchObject({ kind: 'timeout', provider: 'groq' });

    llm.srv.reply({ sse: openaiStream(['first']), hangAfter: 2 });
    const res = await groq({ timeoutMs: 150 }).stream({ model: 'm', messages }, () => undefined);
    expect(res).toMatchObject({ text: 'first', partial: true, interruption: 'timeout' });
  });

  it('needs a key, and keeps it out of JSON', () => {
    expect(() => new GroqProvider({ baseUrl: llm.srv.url })).toThrow(/Groq needs an API key/);
    const p = groq();
    expect(JSON.stringify(p)).not.toContain(KEY);
  });
});
