/** The OpenAI-compatible adapter (fetch) against a local chat-completions server on 127.0.0.1. */
import { describe, expect, it } from 'vitest';
import { ProviderError } from '../../src/lib/llm/errors.ts';
import { OpenAICompatibleProvider, type OpenAICompatibleOptions } from '../../src/lib/llm/openai-compatible.ts';
import type { ChatResult } from '../../src/lib/llm/types.ts';
import { openaiCompletion, openaiError, openaiStream, startLlmServer } from '../helpers/llm-server.ts';
import { rejection, useLlmServer } from '../helpers/llm-test.ts';

const KEY = 'sk-local-9f8e7d6c5b4a3210zyxw';
const llm = useLlmServer();
const { sleeps, fastRetry } = llm;

const provider = (o: OpenAICompatibleOptions = {}) =>
  new OpenAICompatibleProvider({ baseUrl: `${llm.srv.url}/v1`, apiKey: KEY, retry: fastRetry, timeoutMs: 2_000, ...o });

const messages = [
  { role: 'system' as const, content: 'Answer briefly.' },
  { role: 'user' as const, content: 'What is BM25?' },
];

/** No key in any URL, header other than Authorization, or body of any request the server saw. */
function expectKeyOnlyInAuthHeader() {
  for (const r of [...llm.srv.requests, ...llm.srv.preflights]) {
    expect(r.url).not.toContain(KEY);
    expect(r.rawBody).not.toContain(KEY);
    for (const [name, value] of Object.entries(r.headers)) {
      if (name !== 'authorization') expect(String(value)).not.toContain(KEY);
    }
  }
}

function expectNoKey(e: unknown) {
  const err = e as ProviderError;
  expect(err.message).not.toContain(KEY);
  expect(String(err.stack)).not.toContain(KEY);
  expect(JSON.stringify(err)).not.toContain(KEY);
}

describe('OpenAI-compatible: requests', () => {
  it('sends exactly the chat-completions request and parses the answer and usage', async () => {
    llm.srv.reply(openaiCompletion('BM25 is a ranking function.', { model: 'gpt-test-0613', usage: { prompt_tokens: 31, completion_tokens: 7 } }));
    const res = await provider().chat({ model: 'gpt-test', messages, temperature: 0.2, maxTokens: 64 });
    expect(res).toEqual({ text: 'BM25 is a ranking function.', usage: { inputTokens: 31, outputTokens: 7 }, finishReason: 'stop', model: 'gpt-test-0613' });
    expect(llm.srv.requests).toHaveLength(1);
    const r = llm.srv.requests[0]!;
    expect(r.method).toBe('POST');
    expect(r.path).toBe('/v1/chat/completions');
    expect(r.headers['authorization']).toBe(`Bearer ${KEY}`);
    expect(r.headers['content-type']).toBe('application/json');
    expect(r.body).toEqual({ model: 'gpt-test', messages, temperature: 0.2, max_tokens: 64 });
    expectKeyOnlyInAuthHeader();
  });

  it('JSON mode sends response_format json_object and adds a JSON instruction only when no message mentions JSON', async () => {
    llm.srv.reply(openaiCompletion('{"ok":true}'), openaiCompletion('{"ok":true}'));
    const p = provider();
    expect((await p.chat({ model: 'm', messages, json: true })).text).toBe('{"ok":true}');
    const b0 = llm.srv.requests[0]!.body as Record<string, unknown>;
    expect(b0['response_format']).toEqual({ type: 'json_object' });
    expect(b0['messages']).toEqual([{ role: 'system', content: 'Respond with a single valid JSON object and nothing else.' }, ...messages]);
    const withJson = [{ role: 'user' as const, content: 'Reply in JSON: {"a": number}' }];
    await p.chat({ model: 'm', messages: withJson, json: true });
    expect((llm.srv.requests[1]!.body as Record<string, unknown>)['messages']).toEqual(withJson);
  });

  it('sends no Authorization header without a key (local servers), and max_completion_tokens when asked', async () => {
    llm.srv.reply(openaiCompletion('hi', { usage: null }));
    const res = await new OpenAICompatibleProvider({ baseUrl: `${llm.srv.url}/v1/`, maxTokensField: 'max_completion_tokens' }).chat({
      model: 'llama3.2',
      messages,
      maxTokens: 10,
    });
    expect(res.usage).toBeNull();
    expect(llm.srv.requests[0]!.headers['authorization']).toBeUndefined();
    expect(llm.srv.requests[0]!.path).toBe('/v1/chat/completions');
    expect(llm.srv.requests[0]!.body).toMatchObject({ max_completion_tokens: 10 });
  });

  it('uses the default model when a request leaves it empty', async () => {
    llm.srv.reply(openaiCompletion('ok'));
    await provider({ model: 'default-model' }).chat({ model: '', messages });
    expect(llm.srv.requests[0]!.body).toMatchObject({ model: 'default-model' });
    await expect(provider().chat({ model: ' ', messages })).rejects.toMatchObject({ kind: 'config' });
  });

  it('the server answers CORS preflights with open Allow-Origin/Allow-Headers', async () => {
    const res = await fetch(`${llm.srv.url}/v1/chat/completions`, {
      method: 'OPTIONS',
      headers: { Origin: 'http://page.example', 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'authorization,content-type' },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(res.headers.get('access-control-allow-headers')).toBe('*');
    expect(llm.srv.preflights).toHaveLength(1);
    expect(llm.srv.requests).toHaveLength(0);
  });

  it('keeps the key out of toJSON', () => {
    const p = provider({ model: 'm' });
    expect(JSON.stringify(p)).not.toContain(KEY);
    expect(JSON.parse(JSON.stringify(p))).toMatchObject({ id: 'openai', hasApiKey: true, baseUrl: `${llm.srv.url}/v1` });
  });

  it('rejects base URLs with credentials or a query string', () => {
    expect(() => new OpenAICompatibleProvider({ baseUrl: `http://127.0.0.1:1/v1?api_key=${KEY}` })).toThrow(/query string/);
    let thrown: unknown;
    try {
      new OpenAICompatibleProvider({ baseUrl: `http://user:${KEY}@127.0.0.1:1/v1`, apiKey: KEY });
    } catch (e) {
      thrown = e;
    }
    expect(thrown).toBeInstanceOf(ProviderError);
    expect((thrown as ProviderError).kind).toBe('config');
    expectNoKey(thrown);
  });
});

describe('OpenAI-compatible: streaming', () => {
  it('streams deltas, asks for usage in the last chunk and parses it', async () => {
    llm.srv.reply({ sse: openaiStream(['BM', '25 ', 'ranks.'], { usage: { prompt_tokens: 40, completion_tokens: 3 } }) });
    const deltas: string[] = [];
    const res = await provider().stream({ model: 'gpt-test', messages, json: true }, (e) => deltas.push(e.delta));
    expect(deltas).toEqual(['BM', '25 ', 'ranks.']);
    expect(res).toEqual({ text: 'BM25 ranks.', usage: { inputTokens: 40, outputTokens: 3 }, finishReason: 'stop', model: 'test-model' });
    const r = llm.srv.requests[0]!;
    expect(r.headers['accept']).toBe('text/event-stream');
    expect(r.body).toMatchObject({ model: 'gpt-test', stream: true, stream_options: { include_usage: true }, response_format: { type: 'json_object' } });
    expectKeyOnlyInAuthHeader();
  });

  it('leaves stream_options out when includeUsage is false, and accepts a plain JSON answer to a stream request', async () => {
    llm.srv.reply(openaiCompletion('whole answer', { usage: { prompt_tokens: 2, completion_tokens: 2 } }));
    const deltas: string[] = [];
    const res = await provider({ includeUsage: false }).stream({ model: 'm', messages }, (e) => deltas.push(e.delta));
    expect(llm.srv.requests[0]!.body).not.toHaveProperty('stream_options');
    expect(deltas).toEqual(['whole answer']);
    expect(res.text).toBe('whole answer');
    expect(res.usage).toEqual({ inputTokens: 2, outputTokens: 2 });
  });

  it('keeps the partial text when the caller aborts mid-stream', async () => {
    llm.srv.reply({ sse: openaiStream(['one ', 'two ', 'three']), hangAfter: 3 });
    const ac = new AbortController();
    const deltas: string[] = [];
    const res = await provider().stream({ model: 'm', messages, signal: ac.signal }, (e) => {
      deltas.push(e.delta);
      if (deltas.length === 2) ac.abort();
    });
    expect(res).toMatchObject({ text: 'one two ', finishReason: 'aborted', partial: true, interruption: 'signal' });
    expect(llm.srv.requests).toHaveLength(1);
  });

  it('keeps and marks the partial text when the connection is cut mid-stream (no retry)', async () => {
    llm.srv.reply({ sse: openaiStream(['Hello', ', wor', 'ld']), cutAfter: 3 });
    const deltas: string[] = [];
    const res = await provider().stream({ model: 'm', messages }, (e) => deltas.push(e.delta));
    expect(res.text).toBe('Hello, wor');
    expect(deltas.join('')).toBe(res.text);
    expect(res).toMatchObject({ finishReason: 'aborted', partial: true, interruption: 'connection' });
    expect(res.interruptionMessage).toMatch(/^The server closed the stream before the answer was complete \(the connection to OpenAI-compatible server broke: .+\)/);
    expect(res.interruptionMessage).not.toContain(KEY);
    expect(llm.srv.requests).toHaveLength(1);
  });

  it('marks a stream that ends without [DONE] or a finish reason as cut', async () => {
    llm.srv.reply({ sse: openaiStream(['abc'], { finishReason: null, done: false }) });
    const res = await provider().stream({ model: 'm', messages }, () => undefined);
    expect(res).toMatchObject({ text: 'abc', partial: true, interruption: 'connection' });
  });

  it('a stall mid-stream ends with the partial text and interruption timeout', async () => {
    llm.srv.reply({ sse: openaiStream(['slow ', 'start']), hangAfter: 2 });
    const t0 = Date.now();
    const res = await provider({ timeoutMs: 150 }).stream({ model: 'm', messages }, () => undefined);
    expect(res).toMatchObject({ text: 'slow ', partial: true, interruption: 'timeout', finishReason: 'aborted' });
    expect(Date.now() - t0).toBeLessThan(1500);
  });

  it('retries a stream that is cut before any text arrives', async () => {
    llm.srv.reply({ sse: openaiStream(['x']), cutAfter: 1 }, { sse: openaiStream(['fine']) });
    const res = await provider().stream({ model: 'm', messages }, () => undefined);
    expect(res.text).toBe('fine');
    expect(res.partial).toBeUndefined();
    expect(llm.srv.requests).toHaveLength(2);
  });

  it('an error chunk after text gives a partial result; before text it is retried', async () => {
    llm.srv.reply({ sse: [...openaiStream(['part'], { finishReason: null, done: false }), { data: { error: { message: 'upstream died' } } }] });
    const res = await provider().stream({ model: 'm', messages }, () => undefined);
    expect(res).toMatchObject({ text: 'part', partial: true, interruption: 'error' });
    expect(res.interruptionMessage).toMatch(/upstream died/);

    llm.srv.reset();
    llm.srv.reply({ sse: [{ data: { error: { message: 'busy' } } }] }, { sse: openaiStream(['ok']) });
    expect((await provider().stream({ model: 'm', messages }, () => undefined)).text).toBe('ok');
    expect(llm.srv.requests).toHaveLength(2);
  });

  it('an abort before the answer resolves stream() with empty partial text, and rejects chat()', async () => {
    llm.srv.reply({ hang: true }, { hang: true });
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 50);
    const res: ChatResult = await provider().stream({ model: 'm', messages, signal: ac.signal }, () => undefined);
    expect(res).toMatchObject({ text: '', partial: true, interruption: 'signal', finishReason: 'aborted' });
    const ac2 = new AbortController();
    setTimeout(() => ac2.abort(), 50);
    const e = await rejection(provider().chat({ model: 'm', messages, signal: ac2.signal }));
    expect(e.kind).toBe('aborted');
    expect(e.retryable).toBe(false);
  });

  it('an exception thrown by onDelta propagates and is not retried', async () => {
    llm.srv.reply({ sse: openaiStream(['a', 'b']) });
    await expect(
      provider().stream({ model: 'm', messages }, () => {
        throw new Error('consumer bug');
      }),
    ).rejects.toThrow('consumer bug');
    expect(llm.srv.requests).toHaveLength(1);
  });
});

describe('OpenAI-compatible: errors and retries', () => {
  it('retries after a 429 with Retry-After (seconds) and succeeds', async () => {
    llm.srv.reply(openaiError(429, 'Rate limit reached for requests', { 'Retry-After': '2' }), openaiCompletion('after wait'));
    const res = await provider().chat({ model: 'm', messages });
    expect(res.text).toBe('after wait');
    expect(llm.srv.requests).toHaveLength(2);
    expect(sleeps).toEqual([2000]);
  });

  it('honours an HTTP-date Retry-After and retry-after-ms', async () => {
    const date = new Date(Date.now() + 3_000).toUTCString();
    llm.srv.reply(openaiError(429, 'slow down', { 'Retry-After': date }), openaiError(503, 'busy', { 'retry-after-ms': '15' }), openaiCompletion('ok'));
    await provider().chat({ model: 'm', messages });
    expect(sleeps).toHaveLength(2);
    expect(sleeps[0]).toBeGreaterThan(1_000);
    expect(sleeps[0]).toBeLessThanOrEqual(3_000);
    expect(sleeps[1]).toBe(15);
  });

  it('surfaces a Retry-After beyond the cap at once, saying how long to wait', async () => {
    llm.srv.reply(openaiError(429, 'daily quota exceeded', { 'Retry-After': '3600' }));
    const e = await rejection(provider().chat({ model: 'm', messages }));
    expect(llm.srv.requests).toHaveLength(1);
    expect(e).toMatchObject({ kind: 'rate-limit', status: 429, retryable: true, retryAfterMs: 3_600_000 });
    expect(e.message).toMatch(/rate limit or quota reached .*daily quota exceeded.*wait 60 min/);
  });

  it('does not retry a 401 and says what to do, without echoing the key', async () => {
    llm.srv.reply(openaiError(401, `Incorrect API key provided: ${KEY}. You can find your API key at https://platform.openai.com.`));
    const e = await rejection(provider().chat({ model: 'm', messages }));
    expect(llm.srv.requests).toHaveLength(1);
    expect(e).toMatchObject({ kind: 'auth', status: 401, provider: 'openai', retryable: false });
    expect(e.message).toMatch(/rejected the API key \(HTTP 401: Incorrect API key provided: \[redacted\]/);
    expectNoKey(e);
    expect(e.providerMessage).not.toContain(KEY);
  });

  it('404 names the unknown model', async () => {
    llm.srv.reply(openaiError(404, 'The model `gpt-nope` does not exist'));
    const e = await rejection(provider().chat({ model: 'gpt-nope', messages }));
    expect(e).toMatchObject({ kind: 'not-found', status: 404, retryable: false });
    expect(e.message).toMatch(/does not know model "gpt-nope"/);
  });

  it('retries 5xx then surfaces the last error', async () => {
    llm.srv.reply(openaiError(500, 'boom'), openaiError(502, 'bad gateway'), openaiError(503, 'down for maintenance'));
    const e = await rejection(provider().chat({ model: 'm', messages }));
    expect(llm.srv.requests).toHaveLength(3);
    expect(sleeps).toHaveLength(2);
    expect(e).toMatchObject({ kind: 'server', status: 503, retryable: true });
    expect(e.message).toMatch(/overloaded or unavailable \(HTTP 503: down for maintenance\)/);
  });

  it('times out a request that never answers, retrying within the policy', async () => {
    llm.srv.reply({ hang: true }, { hang: true });
    const t0 = Date.now();
    const e = await rejection(provider({ timeoutMs: 100, retry: { ...fastRetry, maxRetries: 1 } }).chat({ model: 'm', messages }));
    expect(e).toMatchObject({ kind: 'timeout', retryable: true });
    expect(e.message).toMatch(/did not answer within 0.1 s/);
    expect(llm.srv.requests).toHaveLength(2);
    expect(Date.now() - t0).toBeLessThan(2000);
  });

  it('a refused connection is a network error that mentions the URL but never the key', async () => {
    const dead = await startLlmServer();
    const url = dead.url;
    await dead.close();
    const e = await rejection(
      new OpenAICompatibleProvider({ baseUrl: `${url}/v1`, apiKey: KEY, retry: { ...fastRetry, maxRetries: 1 } }).chat({ model: 'm', messages }),
    );
    expect(e).toMatchObject({ kind: 'network', retryable: true });
    expect(e.message).toContain(`Could not reach OpenAI-compatible server at ${url}/v1/chat/completions`);
    expect(e.message).toMatch(/ECONNREFUSED/);
    expectNoKey(e);
  });

  it('a browser-style fetch failure (CORS) gets the CORS advice', async () => {
    const e = await rejection(
      provider({ fetch: async () => Promise.reject(new TypeError('Failed to fetch')), retry: { ...fastRetry, maxRetries: 0 } }).chat({ model: 'm', messages }),
    );
    expect(e.kind).toBe('network');
    expect(e.message).toMatch(/CORS refusal/);
  });

  it('a 200 that is not a completion is a bad-response error', async () => {
    llm.srv.reply({ body: '<html>login page</html>' });
    const e = await rejection(provider().chat({ model: 'm', messages }));
    expect(e).toMatchObject({ kind: 'bad-response', retryable: false });
    expect(llm.srv.requests).toHaveLength(1);
  });
});
