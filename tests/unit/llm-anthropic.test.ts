/** The Anthropic Messages adapter against a local Messages-format server. */
import { describe, expect, it } from 'vitest';
import { AnthropicProvider, buildAnthropicBody, stripCodeFence, type AnthropicProviderOptions } from '../../src/lib/llm/anthropic.ts';
import { anthropicError, anthropicMessage, anthropicStream } from '../helpers/llm-server.ts';
import { rejection, useLlmServer } from '../helpers/llm-test.ts';

const KEY = 'sk-ant-api03-LocalTestKey-0123456789';
const llm = useLlmServer();
const { sleeps, fastRetry } = llm;

const claude = (o: AnthropicProviderOptions = {}) =>
  new AnthropicProvider({ baseUrl: llm.srv.url, apiKey: KEY, retry: fastRetry, timeoutMs: 2_000, ...o });
const messages = [
  { role: 'system' as const, content: 'Use only the passages.' },
  { role: 'user' as const, content: 'Passage 1: …' },
  { role: 'user' as const, content: 'Question: what changed in 1865?' },
];

describe('Anthropic Messages', () => {
  it('sends the browser-direct headers, system prompt, merged turns and max_tokens; parses text, usage and stop reason', async () => {
    llm.srv.reply(anthropicMessage('Slavery was abolished.', { usage: { input_tokens: 120, output_tokens: 6 }, model: 'claude-haiku-4-5-20251001' }));
    const res = await claude().chat({ model: 'claude-haiku-4-5', messages, temperature: 1.7 });
    expect(res).toEqual({ text: 'Slavery was abolished.', usage: { inputTokens: 120, outputTokens: 6 }, finishReason: 'stop', model: 'claude-haiku-4-5-20251001' });
    const r = llm.srv.requests[0]!;
    expect(r.method).toBe('POST');
    expect(r.path).toBe('/v1/messages');
    expect(r.headers['x-api-key']).toBe(KEY);
    expect(r.headers['anthropic-version']).toBe('2023-06-01');
    expect(r.headers['anthropic-dangerous-direct-browser-access']).toBe('true');
    expect(r.headers['authorization']).toBeUndefined();
    expect(r.body).toEqual({
      model: 'claude-haiku-4-5',
      max_tokens: 4096,
      system: 'Use only the passages.',
      messages: [{ role: 'user', content: 'Passage 1: …\n\nQuestion: what changed in 1865?' }],
      temperature: 1,
    });
    expect(r.url).not.toContain(KEY);
    expect(r.rawBody).not.toContain(KEY);
  });

  it('JSON mode: instruction in the system prompt and a "{" prefill that the result starts with', async () => {
    llm.srv.reply(anthropicMessage('"answer": 42}', { stopReason: 'max_tokens' }));
    const res = await claude().chat({ model: 'm', messages, json: true, maxTokens: 100 });
    expect(res.text).toBe('{"answer": 42}');
    expect(res.finishReason).toBe('length');
    const body = llm.srv.requests[0]!.body as Record<string, unknown>;
    expect(body['system']).toMatch(/^Use only the passages\.\n\nRespond with a single valid JSON object/);
    expect(body['max_tokens']).toBe(100);
    expect((body['messages'] as unknown[]).at(-1)).toEqual({ role: 'assistant', content: '{' });
    expect(body).not.toHaveProperty('response_format');
  });

  it('JSON mode without prefill strips a code fence', async () => {
    llm.srv.reply(anthropicMessage('```json\n{"a":1}\n```'));
    const res = await claude({ jsonPrefill: false }).chat({ model: 'm', messages, json: true });
    expect(res.text).toBe('{"a":1}');
    expect(stripCodeFence('plain')).toBe('plain');
    const { prefill } = buildAnthropicBody({ model: 'm', messages: [...messages, { role: 'assistant', content: 'Sure' }], json: true }, 'm', {
      stream: false,
      defaultMaxTokens: 10,
      jsonPrefill: true,
    });
    expect(prefill).toBe(''); // the conversation already ends with an assistant turn
  });

  it('streams text deltas with usage from message_start and message_delta', async () => {
    llm.srv.reply({ sse: anthropicStream(['In 1865 ', 'the 13th ', 'Amendment…'], { inputTokens: 88, outputTokens: 11 }) });
    const deltas: string[] = [];
    const res = await claude().stream({ model: 'm', messages }, (e) => deltas.push(e.delta));
    expect(deltas).toEqual(['In 1865 ', 'the 13th ', 'Amendment…']);
    expect(res).toEqual({ text: 'In 1865 the 13th Amendment…', usage: { inputTokens: 88, outputTokens: 11 }, finishReason: 'stop', model: 'claude-test' });
    expect(llm.srv.requests[0]!.body).toMatchObject({ stream: true });
  });

  it('streams JSON mode with the prefill in the first delta', async () => {
    llm.srv.reply({ sse: anthropicStream(['"a"', ': 1}']) });
    const deltas: string[] = [];
    const res = await claude().stream({ model: 'm', messages, json: true }, (e) => deltas.push(e.delta));
    expect(deltas).toEqual(['{"a"', ': 1}']);
    expect(res.text).toBe('{"a": 1}');
  });

  it('keeps partial text on abort, on a cut connection and on a stream without message_stop', async () => {
    llm.srv.reply({ sse: anthropicStream(['one ', 'two ', 'three']), hangAfter: 5 });
    const ac = new AbortController();
    const got: string[] = [];
    const aborted = await claude().stream({ model: 'm', messages, signal: ac.signal }, (e) => {
      got.push(e.delta);
      if (got.length === 2) ac.abort();
    });
    expect(aborted).toMatchObject({ text: 'one two ', partial: true, interruption: 'signal', finishReason: 'aborted', usage: { inputTokens: 20 } });

    llm.srv.reply({ sse: anthropicStream(['alpha ', 'beta']), cutAfter: 4 });
    const cut = await claude().stream({ model: 'm', messages }, () => undefined);
    expect(cut).toMatchObject({ text: 'alpha ', partial: true, interruption: 'connection', finishReason: 'aborted' });

    llm.srv.reply({ sse: anthropicStream(['done?'], { stop: false }).filter((i) => typeof i === 'string' || i.event !== 'message_delta') });
    const noStop = await claude().stream({ model: 'm', messages }, () => undefined);
    expect(noStop).toMatchObject({ text: 'done?', partial: true, interruption: 'connection' });
  });

  it('an overloaded_error event before any text is retried; after text it ends the answer as partial', async () => {
    const overloaded = { event: 'error', data: { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } } };
    llm.srv.reply({ sse: [overloaded] }, { sse: anthropicStream(['ok']) });
    expect((await claude().stream({ model: 'm', messages }, () => undefined)).text).toBe('ok');
    expect(llm.srv.requests).toHaveLength(2);

    llm.srv.reset();
    llm.srv.reply({ sse: [...anthropicStream(['half'], { stop: false }).slice(0, 4), overloaded] });
    const res = await claude().stream({ model: 'm', messages }, () => undefined);
    expect(res).toMatchObject({ text: 'half', partial: true, interruption: 'error' });
    expect(res.interruptionMessage).toMatch(/Anthropic is overloaded \(overloaded_error: Overloaded\)/);
  });

  it('retries 529 overloaded and 429 with Retry-After; does not retry 401', async () => {
    llm.srv.reply(
      anthropicError(529, 'overloaded_error', 'Overloaded'),
      anthropicError(429, 'rate_limit_error', 'Number of request tokens has exceeded your per-minute rate limit', { 'retry-after': '3' }),
      anthropicMessage('finally'),
    );
    expect((await claude().chat({ model: 'm', messages })).text).toBe('finally');
    expect(llm.srv.requests).toHaveLength(3);
    expect(sleeps[1]).toBe(3000);

    llm.srv.reset();
    llm.srv.reply(anthropicError(401, 'authentication_error', 'invalid x-api-key'));
    const e = await rejection(claude().chat({ model: 'm', messages }));
    expect(llm.srv.requests).toHaveLength(1);
    expect(e).toMatchObject({ kind: 'auth', status: 401, provider: 'anthropic', retryable: false });
    expect(e.message).toMatch(/^Anthropic rejected the API key \(HTTP 401: invalid x-api-key\).*"sk-ant-"/);
    expect(e.message).not.toContain(KEY);
  });

  it('404 for an unknown model and a timeout', async () => {
    llm.srv.reply(anthropicError(404, 'not_found_error', 'model: claude-nope'));
    const e = await rejection(claude().chat({ model: 'claude-nope', messages }));
    expect(e).toMatchObject({ kind: 'not-found' });
    expect(e.message).toMatch(/Anthropic does not know model "claude-nope".*model: claude-nope/);

    llm.srv.reply({ hang: true });
    const t = await rejection(claude({ timeoutMs: 80, retry: { ...fastRetry, maxRetries: 0 } }).chat({ model: 'm', messages }));
    expect(t).toMatchObject({ kind: 'timeout', provider: 'anthropic' });
  });

  it('accepts a base URL ending in /v1 and needs a key', async () => {
    llm.srv.reply(anthropicMessage('ok'));
    await claude({ baseUrl: `${llm.srv.url}/v1` }).chat({ model: 'm', messages });
    expect(llm.srv.requests[0]!.path).toBe('/v1/messages');
    expect(() => new AnthropicProvider({})).toThrow(/Anthropic needs an API key/);
    expect(JSON.stringify(claude())).not.toContain(KEY);
  });
});
