/** api-setup.ts: an API run's provider behind the rate limiter, its limits, price and limits line, and its errors. */
import { afterAll, describe, expect, it } from 'vitest';
import { ApiSetupError, apiSetup } from '../../src/lib/eval/core/api-setup.ts';
import { priceFor } from '../../src/lib/eval/core/cost.ts';
import { openaiCompletion, startLlmServer, type LlmServer } from '../helpers/llm-server.ts';

const KEY = 'sk-test-0123456789abcdefghij';
const servers: LlmServer[] = [];
afterAll(async () => { for (const s of servers) await s.close(); });

describe('apiSetup', () => {
  it('without limits: the provider as the registry makes it, no limiter, the table price, no limits line', async () => {
    const srv = await startLlmServer({ replies: [openaiCompletion('hello')] });
    servers.push(srv);
    const api = apiSetup({ provider: 'openai', model: 'gpt-4o-mini', baseUrl: `${srv.url}/v1`, apiKey: KEY });
    expect(api).toMatchObject({ providerId: 'openai', model: 'gpt-4o-mini', baseUrl: `${srv.url}/v1`, apiKey: KEY, limits: null, limiter: null, limitsLine: null });
    expect(api.price).toEqual(priceFor('openai', 'gpt-4o-mini'));
    const r = await api.provider.chat({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] });
    expect(r.text).toBe('hello');
    expect(srv.requests[0]!.headers.authorization).toBe(`Bearer ${KEY}`);
  });

  it('requests / tokens per minute put the provider behind a limiter that counts its calls', async () => {
    const srv = await startLlmServer({ replies: [openaiCompletion('one'), openaiCompletion('two')] });
    servers.push(srv);
    const api = apiSetup({ provider: 'openai', model: 'm', baseUrl: `${srv.url}/v1`, rates: { rpm: 1000, tpm: 50_000 } });
    expect(api.limits).toEqual({ rpm: 1000, tpm: 50_000 });
    expect(api.limitsLine).toBe('rate limits: 1,000 requests and 50,000 tokens per minute');
    await api.provider.chat({ model: 'm', messages: [{ role: 'user', content: 'a' }] });
    await api.provider.chat({ model: 'm', messages: [{ role: 'user', content: 'b' }] });
    expect(api.limiter!.stats.requests).toBe(2);
    expect(srv.requests).toHaveLength(2);
  });

  it('a preset gives the published limits for the model; rates override them; the line names the preset', () => {
    const preset = apiSetup({ provider: 'groq', model: 'llama-3.1-8b-instant', apiKey: 'gsk_0123456789abcdefghijklmn', limitsPreset: 'groq-free' });
    expect(preset.limits).toMatchObject({ rpm: 30, tpm: 6000, preset: 'groq-free' });
    expect(preset.limitsLine).toMatch(/^rate limits: 30 requests and 6,000 tokens per minute \(groq-free for llama-3\.1-8b-instant, as published at https:\/\/console\.groq\.com/);
    const over = apiSetup({ provider: 'groq', model: 'llama-3.1-8b-instant', apiKey: 'gsk_0123456789abcdefghijklmn', limitsPreset: 'groq-free', rates: () => ({ rpm: 10 }) });
    expect(over.limits).toMatchObject({ rpm: 10, tpm: 6000, preset: 'groq-free' });
    expect(over.limiter!.limits).toMatchObject({ rpm: 10, tpm: 6000 });
  });

  it('given prices replace the table\'s and count as known', () => {
    const api = apiSetup({ provider: 'openai', model: 'my-model', apiKey: KEY, prices: { inputPerM: 1.5 } });
    expect(api.price).toEqual({ key: 'openai/my-model', inputPerM: 1.5, outputPerM: 0, known: true });
    expect(apiSetup({ provider: 'openai', model: 'my-model', apiKey: KEY }).price.known).toBe(false);
  });

  it('errors: a refused provider, then an unknown preset, as ApiSetupErrors; what rates and prices throw passes as it is', () => {
    const kindOf = (f: () => unknown) => { try { f(); } catch (e) { return e instanceof ApiSetupError ? `${e.kind}: ${e.message}` : e; } return 'no error'; };
    const thrown = new Error('--rpm must be a number > 0');
    const rates = () => { throw thrown; };
    // The provider's settings are checked first, the preset next, the rates after them.
    const bad = kindOf(() => apiSetup({ provider: 'bogus', model: 'm', limitsPreset: 'nope', rates }));
    expect(bad).toMatch(/^provider: Invalid provider settings: provider: /);
    expect(kindOf(() => apiSetup({ provider: 'openai', model: 'm', apiKey: KEY, limitsPreset: 'nope', rates }))).toBe('limits: unknown rate-limit preset "nope" (known: groq-free)');
    expect(kindOf(() => apiSetup({ provider: 'openai', model: 'm', apiKey: KEY, rates }))).toBe(thrown);
    const order: string[] = [];
    expect(kindOf(() => apiSetup({
      provider: 'openai', model: 'm', apiKey: KEY, rates: () => { order.push('rates'); return null; }, prices: () => { order.push('prices'); throw thrown; },
    }))).toBe(thrown);
    expect(order).toEqual(['rates', 'prices']);
  });

  it('a refused provider\'s message never holds the key', () => {
    try {
      apiSetup({ provider: 'openai', model: 'm', baseUrl: `not a url ${KEY}`, apiKey: KEY });
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(ApiSetupError);
      expect((e as ApiSetupError).kind).toBe('provider');
      expect((e as Error).message).toMatch(/base URL/);
      expect((e as Error).message).not.toContain(KEY);
    }
  });
});
