import { describe, expect, it } from 'vitest';
import {
  bindingFor,
  decideKeySend,
  defaultBinding,
  endpointOrigin,
  hostOf,
  mayReceiveKey,
  parseStoredKey,
  toStoredRecord,
} from '../../src/lib/llm/key-binding.ts';

const KEY = 'gsk_0123456789abcdefABCDEF';

describe('key binding', () => {
  it('binds a key to the origin it was entered for, the provider default when none was given', () => {
    expect(defaultBinding('groq')).toEqual({ provider: 'groq', origin: 'https://api.groq.com' });
    expect(defaultBinding('hf')).toEqual({ provider: 'hf', origin: 'https://router.huggingface.co' });
    expect(defaultBinding('anthropic')).toEqual({ provider: 'anthropic', origin: 'https://api.anthropic.com' });
    expect(bindingFor('openai', null)).toEqual({ provider: 'openai', origin: 'https://api.openai.com' });
    expect(bindingFor('openai', '  ')).toEqual({ provider: 'openai', origin: 'https://api.openai.com' });
    // Origin: scheme, lower-cased host, port (the default port is dropped), no path.
    expect(bindingFor('openai', 'HTTP://LocalHost:11434/v1/')).toEqual({ provider: 'openai', origin: 'http://localhost:11434' });
    expect(bindingFor('openai', 'https://api.together.xyz:443/v1')).toEqual({ provider: 'openai', origin: 'https://api.together.xyz' });
    expect(bindingFor('openai', 'not a url')).toBeNull();
    expect(endpointOrigin('openai', 'ftp://files.example/v1')).toBeNull();
  });

  it('lets a key go without asking only to the same provider at the same origin', () => {
    const b = defaultBinding('groq');
    expect(mayReceiveKey(b, 'groq', null)).toBe(true);
    expect(mayReceiveKey(b, 'groq', 'https://api.groq.com/openai/v1')).toBe(true); // another path, same origin
    expect(mayReceiveKey(b, 'groq', 'https://evil.example')).toBe(false);
    expect(mayReceiveKey(b, 'groq', 'http://api.groq.com')).toBe(false); // scheme differs
    expect(mayReceiveKey(b, 'groq', 'https://api.groq.com:8443')).toBe(false); // port differs
    expect(mayReceiveKey(b, 'groq', 'https://api.groq.com.evil.example')).toBe(false);
    expect(mayReceiveKey(b, 'openai', 'https://api.groq.com')).toBe(false); // another provider
  });

  it('shows hosts as the URL parser writes them (port kept, punycode for look-alikes)', () => {
    expect(hostOf('https://api.groq.com')).toBe('api.groq.com');
    expect(hostOf('http://127.0.0.1:8080')).toBe('127.0.0.1:8080');
    const lookAlike = hostOf(endpointOrigin('openai', 'https://\u0430pi.openai.com/v1')!); // Cyrillic 'а'
    expect(lookAlike).toMatch(/^xn--[a-z0-9-]+\.openai\.com$/);
    expect(lookAlike).not.toBe('api.openai.com');
  });
});

describe('decideKeySend', () => {
  const groq = defaultBinding('groq');

  it('sends to the bound endpoint the user chose', () => {
    expect(decideKeySend(groq, 'groq', null, false)).toEqual({ action: 'send' });
    expect(decideKeySend(groq, 'groq', 'https://api.groq.com', false)).toEqual({ action: 'send' });
  });

  it('asks, showing both hosts, before a key goes to another host', () => {
    const d = decideKeySend(groq, 'groq', 'https://evil.example/openai/v1', false);
    expect(d).toMatchObject({ action: 'confirm', reason: 'endpoint', targetOrigin: 'https://evil.example', boundHost: 'api.groq.com', targetHost: 'evil.example' });
    if (d.action !== 'confirm') throw new Error('expected a confirmation');
    expect(d.question).toBe('Your Groq key was entered for api.groq.com. Send it to evil.example?');
    expect(d.declined).toMatch(/^Not sent: your Groq key was not sent to evil\.example \(it was entered for api\.groq\.com\), and no request was made\./);
  });

  it('asks for a base URL from a link at another origin; the key’s own origin (e.g. the page reloaded from its URL) needs no question', () => {
    const local = bindingFor('openai', 'http://127.0.0.1:9000/v1')!;
    expect(decideKeySend(local, 'openai', 'http://127.0.0.1:9000/v1', true)).toEqual({ action: 'send' });
    const d = decideKeySend(local, 'openai', 'http://127.0.0.1:9001/v1', true);
    expect(d).toMatchObject({ action: 'confirm', reason: 'link', targetHost: '127.0.0.1:9001' });
    const other = decideKeySend(groq, 'groq', 'https://evil.example', true);
    if (other.action !== 'confirm') throw new Error('expected a confirmation');
    expect(other.question).toBe('This base URL came from a link, not from you. Your Groq key was entered for api.groq.com. Send it to evil.example?');
    // A link that names only the provider sends nothing elsewhere: the default endpoint is where the key was entered.
    expect(decideKeySend(groq, 'groq', null, true)).toEqual({ action: 'send' });
  });

  it('shows whole origins when only the scheme differs', () => {
    const d = decideKeySend(groq, 'groq', 'http://api.groq.com', false);
    expect(d).toMatchObject({ action: 'confirm', boundHost: 'https://api.groq.com', targetHost: 'http://api.groq.com' });
  });

  it('names the provider the key belongs to when it differs', () => {
    const d = decideKeySend(groq, 'openai', null, false);
    if (d.action !== 'confirm') throw new Error('expected a confirmation');
    expect(d.question).toBe('Your Groq key was entered for api.groq.com. Send it to api.openai.com?');
  });

  it('refuses an endpoint that is no http(s) URL, without echoing it', () => {
    const d = decideKeySend(groq, 'groq', `javascript:alert(1)//${KEY}`, false);
    expect(d.action).toBe('refuse');
    expect(JSON.stringify(d)).not.toContain(KEY);
  });

  it('never puts the key in a question or message', () => {
    const d = decideKeySend(groq, 'groq', `https://evil.example/${KEY}`, true);
    expect(JSON.stringify(d)).not.toContain(KEY);
  });
});

describe('stored key records', () => {
  it('round-trips a record with its binding', () => {
    const bound = { key: KEY, binding: bindingFor('groq', 'https://proxy.example/openai')! };
    const rec = toStoredRecord(bound);
    expect(rec).toEqual({ key: KEY, provider: 'groq', origin: 'https://proxy.example' });
    expect(parseStoredKey('groq', structuredClone(rec))).toEqual({ ok: true, value: bound, legacy: false });
  });

  it('reads a bare string (the old shape) as bound to the provider default endpoint only', () => {
    const r = parseStoredKey('hf', 'hf_abcdefghijklmnopqrstuv');
    expect(r).toEqual({ ok: true, legacy: true, value: { key: 'hf_abcdefghijklmnopqrstuv', binding: { provider: 'hf', origin: 'https://router.huggingface.co' } } });
    if (!r.ok) throw new Error('expected a record');
    expect(mayReceiveKey(r.value.binding, 'hf', 'https://evil.example/v1')).toBe(false);
  });

  it('refuses malformed records with a message that names the provider and never the record', () => {
    const bad: unknown[] = [
      '', 'two words', 42, null, ['x'],
      { key: KEY }, // no binding
      { key: KEY, provider: 'openai', origin: 'https://api.groq.com' }, // stored under another provider
      { key: KEY, provider: 'groq', origin: 'https://api.groq.com/openai/v1' }, // not an origin
      { key: KEY, provider: 'groq', origin: 'https://user:pw@api.groq.com' },
      { key: KEY, provider: 'groq', origin: 'javascript:alert(1)' },
      { key: KEY, provider: 'groq', origin: 'https://api.groq.com', extra: 1 },
    ];
    for (const raw of bad) {
      const r = parseStoredKey('groq', raw);
      expect(r.ok, JSON.stringify(raw)).toBe(false);
      if (r.ok) continue;
      expect(r.message).toBe('The saved Groq key was not readable and was removed; enter it again.');
      expect(r.message).not.toContain(KEY);
    }
    expect(parseStoredKey('browser', KEY).ok).toBe(false);
    expect(parseStoredKey('evil', KEY)).toEqual({ ok: false, message: 'A saved key under an unknown name was ignored and removed.' });
  });
});
