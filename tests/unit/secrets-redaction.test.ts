/** Messages never echo credentials, wherever they came from: links, typed base URLs, settings, provider answers. */
import { describe, expect, it } from 'vitest';
import { parseRagConfig, fromUrlParams } from '../../src/lib/rag/config.ts';
import { normalizeBaseUrl } from '../../src/lib/llm/http-transport.ts';
import { REDACTED, redactSecrets, redactUrlForDisplay } from '../../src/lib/llm/redact.ts';
import { createProvider, parseProviderConfig } from '../../src/lib/llm/registry.ts';
import { ProviderError } from '../../src/lib/llm/errors.ts';
import { DATASET_VIEWER, loadRagbenchFromHub, tokenMayGoTo } from '../../src/lib/data/ragbench.ts';
import { parseSettings, validateSettings, DEFAULT_SETTINGS } from '../../src/ui/app/settings.ts';

/** Secrets that are not key-shaped: only their place in the URL tells they are secret. */
const PASSWORD = 'hunter2hunter2';
const TOKEN = 'Zx9Qw8Er7Ty6';
const SK = 'sk-secret-0123456789abcdef';

const leaks = (s: string) => [PASSWORD, TOKEN, SK, 'sk-secret'].filter((x) => s.includes(x));

describe('redactSecrets on URLs', () => {
  it('removes URL userinfo, also in the forms URL parsers accept without slashes or with backslashes', () => {
    expect(redactSecrets(`https://user:${SK}@evil.example/v1`)).toBe(`https://${REDACTED}@evil.example/v1`);
    expect(redactSecrets(`see http://admin:${PASSWORD}@10.0.0.1:8080/x and https://ok.example/y`))
      .toBe(`see http://${REDACTED}@10.0.0.1:8080/x and https://ok.example/y`);
    expect(redactSecrets(`https:me:${PASSWORD}@evil.example`)).toBe(`https:${REDACTED}@evil.example`);
    expect(redactSecrets(`https:\\\\me:${PASSWORD}@evil.example`)).toBe(`https:\\\\${REDACTED}@evil.example`);
    // The parser reads the authority up to its last '@': so does the redaction.
    expect(redactSecrets(`https://me:${PASSWORD}@x@evil.example/`)).toBe(`https://${REDACTED}@evil.example/`);
    // Not a URL credential: left alone.
    expect(redactSecrets('write to team@example.org or mailto:team@example.org')).toBe('write to team@example.org or mailto:team@example.org');
  });

  it('removes query and fragment values whose name says credential', () => {
    expect(redactSecrets(`https://h.example/v1?api_key=${TOKEN}&model=m#access_token=${TOKEN}`))
      .toBe(`https://h.example/v1?api_key=${REDACTED}&model=m#access_token=${REDACTED}`);
    for (const name of ['key', 'token', 'secret', 'password', 'pwd', 'auth', 'sig', 'X-Amz-Signature', 'client_secret']) {
      expect(redactSecrets(`https://h.example/?${name}=${TOKEN}`), name).toBe(`https://h.example/?${name}=${REDACTED}`);
    }
    expect(redactSecrets('https://h.example/v1?model=llama&n=3')).toBe('https://h.example/v1?model=llama&n=3');
  });

  it('redactUrlForDisplay clips after redacting, so a clipped key cannot show half', () => {
    const raw = `https://${'a'.repeat(40)}.example/?key=${SK}`;
    const shown = redactUrlForDisplay(raw, [], 60);
    expect(shown.length).toBeLessThanOrEqual(61);
    expect(shown).not.toMatch(/sk-s/);
    expect(redactUrlForDisplay(`https://u:${PASSWORD}@h.example/v1`)).toBe(`https://${REDACTED}@h.example/v1`);
  });
});

describe('warnings about refused base URLs never echo the credentials', () => {
  it('Ask link: a base URL with userinfo or a key parameter is ignored with a redacted warning', () => {
    for (const base of [`https://user:${SK}@evil.example/v1`, `https://evil.example/v1?key=${TOKEN}`, `https://me:${PASSWORD}@evil.example/v1`]) {
      const { config, warnings } = fromUrlParams(new URLSearchParams({ base, prov: 'openai' }));
      expect(config.llm.baseUrl).toBeNull();
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toMatch(/^Ignored base="https:\/\/.*evil\.example\/v1.*" in the link: llm\.baseUrl: must not/);
      expect(leaks(warnings[0]!)).toEqual([]);
    }
  });

  it('other link values are shown redacted too', () => {
    const { warnings } = fromUrlParams(new URLSearchParams({ temp: SK }));
    expect(warnings).toHaveLength(1);
    expect(leaks(warnings[0]!)).toEqual([]);
    const r = parseRagConfig({ llm: { model: 7, baseUrl: `ftp://u:${PASSWORD}@h/` } });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(leaks(r.message)).toEqual([]);
  });

  it('normalizeBaseUrl: an invalid URL is quoted redacted; credentials and queries are refused without quoting', () => {
    const msg = (raw: string) => {
      try {
        normalizeBaseUrl('openai', 'OpenAI-compatible', raw);
      } catch (e) {
        return (e as ProviderError).message;
      }
      throw new Error(`accepted ${raw}`);
    };
    const invalid = msg(`https://me:${PASSWORD}@[bad`);
    expect(invalid).toBe(`The OpenAI-compatible base URL "https://${REDACTED}@[bad" is not a valid URL; it should look like https://host/v1.`);
    for (const raw of [`https://me:${PASSWORD}@h.example/v1`, `https://h.example/v1?token=${TOKEN}`, `https://h.example/v1#${TOKEN}`]) {
      expect(leaks(msg(raw))).toEqual([]);
      expect(msg(raw)).toMatch(/must not contain credentials, a query string or a fragment/);
    }
  });

  it('parseProviderConfig / createProvider refuse a base URL with credentials without echoing them', () => {
    for (const baseUrl of [`https://user:${SK}@evil.example/v1`, `https://evil.example/v1?x=${TOKEN}`, `https://u:${PASSWORD}@[bad`]) {
      let message = '';
      try {
        createProvider({ provider: 'openai', model: 'm', baseUrl, apiKey: 'local-key-123' });
      } catch (e) {
        message = (e as Error).message;
      }
      expect(message).toMatch(/^Invalid provider settings: baseUrl: /);
      expect(leaks(message)).toEqual([]);
      expect(() => parseProviderConfig({ provider: 'openai', model: 'm', baseUrl })).toThrow(ProviderError);
    }
  });
});

describe('Hub hosts never get a token from a setting', () => {
  it('settings refuse model or dataset hosts carrying credentials, without echoing them', () => {
    for (const host of [`https://hf_abcdefghijklmnopqrstuv@evil.example/`, `https://u:${PASSWORD}@evil.example/`, `https://evil.example/?token=${TOKEN}`]) {
      for (const field of ['remoteHost', 'datasetsHost'] as const) {
        const stored = parseSettings(JSON.stringify({ ...DEFAULT_SETTINGS, [field]: host }));
        expect(stored.settings[field]).toBe(DEFAULT_SETTINGS[field]);
        expect(stored.warning).toMatch(/reset/);
        expect(leaks(stored.warning!)).toEqual([]);
        expect(stored.warning).not.toContain('hf_');
        const typed = validateSettings({ ...DEFAULT_SETTINGS, [field]: host });
        expect(typed.ok).toBe(false);
        if (!typed.ok) expect(typed.message).toMatch(new RegExp(`^${field}: must be an http\\(s\\) URL without a user name`));
      }
    }
  });

  it('a stored setting cannot carry a token field', () => {
    const { settings } = parseSettings(JSON.stringify({ ...DEFAULT_SETTINGS, token: 'hf_abcdefghijklmnopqrstuv', hfToken: 'hf_x' }));
    expect(JSON.stringify(settings)).not.toContain('hf_');
  });

  it('the dataset viewer token goes only to the Hub viewer origin', async () => {
    expect(tokenMayGoTo(`${DATASET_VIEWER}/rows?dataset=x`)).toBe(true);
    expect(tokenMayGoTo('https://datasets-server.huggingface.co.evil.example/rows')).toBe(false);
    expect(tokenMayGoTo('http://datasets-server.huggingface.co/rows')).toBe(false);
    expect(tokenMayGoTo('not a url')).toBe(false);
    const seen: (string | null)[] = [];
    const fakeFetch = (async (_url: string, init?: RequestInit) => {
      seen.push(new Headers(init?.headers).get('authorization'));
      return new Response(JSON.stringify({ rows: [], num_rows_total: 0 }), { status: 200, headers: { 'Content-Type': 'application/json' } });
    }) as typeof fetch;
    // An empty page is enough to see the request's headers (the loader then reports that there are no rows).
    const load = (endpoint: string) => loadRagbenchFromHub('emanual', { endpoint, token: 'hf_abcdefghijklmnopqrstuv', fetch: fakeFetch, retries: 1 });
    await expect(load('https://evil.example')).rejects.toThrow(/no rows/);
    await expect(load(DATASET_VIEWER)).rejects.toThrow(/no rows/);
    expect(seen).toEqual([null, 'Bearer hf_abcdefghijklmnopqrstuv']);
  });
});

describe('Hub parquet requests', () => {
  it('carry a token only to https://huggingface.co, never to a model host or viewer a setting or link names', async () => {
    const { loadRagbenchSubset, tokenMayGoToHub } = await import('../../src/lib/data/ragbench-hub.ts');
    expect(tokenMayGoToHub('https://huggingface.co/datasets/x/resolve/main/a.parquet')).toBe(true);
    expect(tokenMayGoToHub('https://huggingface.co.evil.example/datasets/x')).toBe(false);
    expect(tokenMayGoToHub('http://huggingface.co/datasets/x')).toBe(false);
    const seen: Array<{ url: string; auth: string | null }> = [];
    const fetchFn = (async (input: RequestInfo | URL, init?: RequestInit) => {
      seen.push({ url: String(input), auth: new Headers(init?.headers).get('authorization') });
      return new Response('not found', { status: 404 });
    }) as typeof fetch;
    for (const hubUrl of ['https://evil.example/', 'https://huggingface.co/']) {
      await loadRagbenchSubset('emanual', { hubUrl, viewerUrl: 'https://viewer.evil.example', token: 'hf_abcdefghijklmnopqrstuvwxyz123456', fetch: fetchFn }).catch(() => undefined);
    }
    const parquet = seen.filter((s) => s.url.includes('.parquet'));
    expect(parquet.filter((s) => s.url.startsWith('https://evil.example/')).length).toBeGreaterThan(0);
    for (const s of seen) expect(s.auth, s.url).toBe(new URL(s.url).origin === 'https://huggingface.co' ? 'Bearer hf_abcdefghijklmnopqrstuvwxyz123456' : null);
  });
});
