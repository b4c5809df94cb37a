/** Provider registry, config validation, and createProvider end to end (every provider on a local server). */
import { describe, expect, it } from 'vitest';
import { ProviderError } from '../../src/lib/llm/errors.ts';
import { HuggingFaceProvider } from '../../src/lib/llm/hf.ts';
import { createProvider, parseProviderConfig, PROVIDER_IDS, PROVIDERS, publicConfig } from '../../src/lib/llm/registry.ts';
import {
  anthropicMessage,
  anthropicStream,
  openaiCompletion,
  openaiError,
  openaiStream,
} from '../helpers/llm-server.ts';
import { useLlmServer } from '../helpers/llm-test.ts';

const HF_KEY = 'hf_LocalTestTokenAbCdEfGhIjKlMn';
const GROQ_KEY = 'gsk_LocalTestKeyZyXwVuTsRqPo1234';
const ANT_KEY = 'sk-ant-api03-LocalKey-abcdefgh';
const OPENAI_KEY = 'sk-proj-LocalKeyAbCdEfGhIjKlMnOp';
const llm = useLlmServer();
const opts = { retry: llm.fastRetry, timeoutMs: 2_000 };
const messages = [{ role: 'user' as const, content: 'hello' }];

function configFailure(input: unknown): ProviderError {
  try {
    parseProviderConfig(input);
  } catch (e) {
    expect(e).toBeInstanceOf(ProviderError);
    expect((e as ProviderError).kind).toBe('config');
    return e as ProviderError;
  }
  throw new Error('expected a config error');
}

describe('registry', () => {
  it('lists the four HTTP providers, deeply frozen', () => {
    expect(Object.keys(PROVIDERS).sort()).toEqual([...PROVIDER_IDS].sort());
    expect(Object.isFrozen(PROVIDERS)).toBe(true);
    expect(Object.isFrozen(PROVIDERS.groq)).toBe(true);
    expect(Object.isFrozen(PROVIDERS.openai.presets)).toBe(true);
    expect(Object.isFrozen(PROVIDERS.hf.models)).toBe(true);
    expect(() => {
      (PROVIDERS.groq as { label: string }).label = 'x';
    }).toThrow();
    expect(PROVIDERS.groq).toMatchObject({ defaultBaseUrl: 'https://api.groq.com', keyPrefix: 'gsk_', needsKey: true, jsonMode: 'native' });
    expect(PROVIDERS.anthropic).toMatchObject({ defaultBaseUrl: 'https://api.anthropic.com', keyPrefix: 'sk-ant-', jsonMode: 'instructed' });
    expect(PROVIDERS.hf).toMatchObject({ defaultBaseUrl: 'https://router.huggingface.co/v1', keyPrefix: 'hf_', needsKey: true });
    expect(PROVIDERS.openai).toMatchObject({ defaultBaseUrl: 'https://api.openai.com/v1', keyPrefix: null, needsKey: false });
    for (const m of Object.values(PROVIDERS)) expect(m.models.length).toBeGreaterThan(0);
  });
});

describe('parseProviderConfig', () => {
  it('accepts and normalises a valid config (trims, blank → default, trailing slash)', () => {
    expect(parseProviderConfig({ provider: 'openai', baseUrl: ' http://localhost:11434/v1/ ', model: ' llama3.2 ', apiKey: '' })).toEqual({
      provider: 'openai',
      baseUrl: 'http://localhost:11434/v1',
      model: 'llama3.2',
      apiKey: undefined,
    });
    expect(parseProviderConfig({ provider: 'groq', model: 'llama-3.1-8b-instant', apiKey: ` ${GROQ_KEY}\n`, baseUrl: '' })).toEqual({
      provider: 'groq',
      baseUrl: undefined,
      model: 'llama-3.1-8b-instant',
      apiKey: GROQ_KEY,
    });
  });

  it('explains every problem clearly', () => {
    expect(configFailure(null).message).toMatch(/must be an object/);
    expect(configFailure({ provider: 'cohere', model: 'x' }).message).toMatch(/provider: Choose a provider: groq, openai, anthropic, hf/);
    expect(configFailure({ provider: 'groq', model: '  ', apiKey: GROQ_KEY }).message).toMatch(/model: Enter a model name/);
    expect(configFailure({ provider: 'groq', model: 'm' }).message).toMatch(/apiKey: Groq needs an API key \(it starts with "gsk_"\); create one at https:\/\/console.groq.com\/keys/);
    expect(configFailure({ provider: 'openai', model: 'gpt-4o-mini' }).message).toMatch(/OpenAI at https:\/\/api.openai.com\/v1 needs an API key; for a local server/);
    expect(configFailure({ provider: 'hf', model: 'm', baseUrl: 'ftp://x', apiKey: HF_KEY }).message).toMatch(/baseUrl: The base URL must start with http/);
    const multi = configFailure({ provider: 'anthropic', model: '', apiKey: 'has space' });
    expect(multi.message).toMatch(/model: .*apiKey: /s);
    expect(multi.provider).toBe('anthropic');
    expect(configFailure({ provider: 'nope', model: 'm' }).provider).toBe('unknown');
  });

  it('catches a key pasted for the wrong provider without showing it', () => {
    const e = configFailure({ provider: 'groq', model: 'm', apiKey: OPENAI_KEY });
    expect(e.message).toMatch(/Groq keys start with "gsk_", but this looks like an OpenAI key/);
    expect(e.message).not.toContain(OPENAI_KEY);
    const h = configFailure({ provider: 'hf', model: 'm', apiKey: GROQ_KEY });
    expect(h.message).toMatch(/this looks like a Groq key/);
    // a custom endpoint (proxy, local mock) may use any key
    expect(parseProviderConfig({ provider: 'groq', model: 'm', apiKey: 'proxy-key', baseUrl: 'http://127.0.0.1:1' }).apiKey).toBe('proxy-key');
  });

  it('never echoes the key in any validation message', () => {
    const key = 'sk-ant-SECRETSECRETSECRET';
    for (const input of [
      { provider: 'anthropic', model: '', apiKey: key },
      { provider: 'anthropic', model: 'm', apiKey: `${key} ` + 'x y' },
      { provider: 'anthropic', model: 'm', apiKey: key, baseUrl: `https://api.anthropic.com/?k=${key}` },
      { provider: 'anthropic', model: 'm', apiKey: key, baseUrl: `https://u:${key}@api.anthropic.com` },
      { provider: 'anthropic', model: 'm', apiKey: key, baseUrl: `not a url ${key}` },
    ]) {
      const e = configFailure(input);
      expect(e.message).not.toContain(key);
      expect(JSON.stringify(e)).not.toContain(key);
    }
  });

  it('publicConfig has no key', () => {
    const pub = publicConfig({ provider: 'hf', model: 'm', apiKey: HF_KEY });
    expect(pub).toEqual({ provider: 'hf', baseUrl: 'https://router.huggingface.co/v1', model: 'm', hasApiKey: true });
    expect(JSON.stringify(pub)).not.toContain(HF_KEY);
  });
});

describe('createProvider against local servers', () => {
  it('hf: OpenAI wire format with an hf_ token, default model from the config', async () => {
    llm.srv.reply(openaiCompletion('hi from HF', { usage: { prompt_tokens: 3, completion_tokens: 4 } }));
    const p = createProvider({ provider: 'hf', baseUrl: `${llm.srv.url}/v1`, model: 'meta-llama/Llama-3.1-8B-Instruct:cerebras', apiKey: HF_KEY }, opts);
    expect(p).toMatchObject({ id: 'hf', label: 'Hugging Face', model: 'meta-llama/Llama-3.1-8B-Instruct:cerebras' });
    const res = await p.chat({ model: '', messages });
    expect(res).toMatchObject({ text: 'hi from HF', usage: { inputTokens: 3, outputTokens: 4 } });
    const r = llm.srv.requests[0]!;
    expect(r.path).toBe('/v1/chat/completions');
    expect(r.headers['authorization']).toBe(`Bearer ${HF_KEY}`);
    expect(r.body).toMatchObject({ model: 'meta-llama/Llama-3.1-8B-Instruct:cerebras', messages });
    expect(JSON.stringify(p)).not.toContain(HF_KEY);
    expect(JSON.parse(JSON.stringify(p))).toEqual({ provider: 'hf', baseUrl: `${llm.srv.url}/v1`, model: 'meta-llama/Llama-3.1-8B-Instruct:cerebras', hasApiKey: true });
    expect(Object.isFrozen(p)).toBe(true);
  });

  it('hf: streaming with include_usage, and 402 / 403 messages', async () => {
    llm.srv.reply({ sse: openaiStream(['to', 'ken'], { usage: { prompt_tokens: 9, completion_tokens: 2 } }) });
    const p = new HuggingFaceProvider({ baseUrl: `${llm.srv.url}/v1`, apiKey: HF_KEY, ...opts });
    const res = await p.stream({ model: 'Qwen/Qwen2.5-7B-Instruct', messages }, () => undefined);
    expect(res).toMatchObject({ text: 'token', usage: { inputTokens: 9, outputTokens: 2 } });
    expect(llm.srv.requests[0]!.body).toMatchObject({ stream: true, stream_options: { include_usage: true } });

    llm.srv.reply({ status: 402, json: { error: 'You have exceeded your monthly included credits for Inference Providers.' } });
    const e402 = await p.chat({ model: 'm', messages }).catch((e: unknown) => e as ProviderError);
    expect(e402).toMatchObject({ kind: 'rate-limit', status: 402, retryable: false, provider: 'hf' });
    expect((e402 as ProviderError).message).toMatch(/Hugging Face says the account has no credits.*monthly included credits/);

    llm.srv.reply({ status: 403, json: { error: 'This authentication method does not have sufficient permissions to call Inference Providers' } });
    const e403 = (await p.chat({ model: 'm', messages }).catch((e: unknown) => e)) as ProviderError;
    expect(e403.kind).toBe('auth');
    expect(e403.message).toMatch(/Make calls to Inference Providers/);
    expect(e403.message).not.toContain(HF_KEY);
    expect(llm.srv.requests).toHaveLength(3);
    expect(() => new HuggingFaceProvider({})).toThrow(/Hugging Face needs an access token/);
  });

  it('groq, anthropic and openai through createProvider', async () => {
    llm.srv.reply(openaiCompletion('g'), anthropicMessage('a'), openaiCompletion('o'));
    const g = createProvider({ provider: 'groq', baseUrl: llm.srv.url, model: 'llama-3.1-8b-instant', apiKey: GROQ_KEY }, opts);
    const a = createProvider({ provider: 'anthropic', baseUrl: llm.srv.url, model: 'claude-haiku-4-5', apiKey: ANT_KEY }, opts);
    const o = createProvider({ provider: 'openai', baseUrl: `${llm.srv.url}/v1`, model: 'llama3.2' }, opts);
    expect((await g.chat({ model: '', messages })).text).toBe('g');
    expect((await a.chat({ model: '', messages })).text).toBe('a');
    expect((await o.chat({ model: 'other-model', messages })).text).toBe('o');
    expect(llm.srv.requests.map((r) => [r.path, (r.body as { model: string }).model])).toEqual([
      ['/openai/v1/chat/completions', 'llama-3.1-8b-instant'],
      ['/v1/messages', 'claude-haiku-4-5'],
      ['/v1/chat/completions', 'other-model'],
    ]);
    expect(llm.srv.requests[2]!.headers['authorization']).toBeUndefined();
    for (const p of [g, a, o]) {
      const s = JSON.stringify(p);
      for (const k of [GROQ_KEY, ANT_KEY]) expect(s).not.toContain(k);
    }
  });

  it('streams through createProvider and surfaces errors as ProviderError', async () => {
    llm.srv.reply({ sse: anthropicStream(['x', 'y']) }, openaiError(401, 'bad key'));
    const a = createProvider({ provider: 'anthropic', baseUrl: llm.srv.url, model: 'm', apiKey: ANT_KEY }, opts);
    const d: string[] = [];
    expect((await a.stream({ model: '', messages }, (e) => d.push(e.delta))).text).toBe('xy');
    expect(d).toEqual(['x', 'y']);
    const g = createProvider({ provider: 'groq', baseUrl: llm.srv.url, model: 'm', apiKey: GROQ_KEY }, opts);
    await expect(g.chat({ model: '', messages })).rejects.toMatchObject({ kind: 'auth', provider: 'groq' });
  });

  it('throws a config ProviderError for invalid settings before any request', () => {
    expect(() => createProvider({ provider: 'groq', model: 'm' })).toThrow(ProviderError);
    expect(llm.srv.requests).toHaveLength(0);
  });
});
