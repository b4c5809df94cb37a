import { describe, expect, it, vi } from 'vitest';
import { errorFromNetwork, errorFromStatus, ProviderError, providerMessageFromBody, safeUrl } from '../../src/lib/llm/errors.ts';
import { REDACTED, redactSecrets, redactValue } from '../../src/lib/llm/redact.ts';
import { backoffDelay, Deadline, parseRetryAfter, withRetry } from '../../src/lib/llm/retry.ts';
import { readSse, SseParser } from '../../src/lib/llm/sse.ts';

const KEY = 'sk-test-Zq8vW3kP0aL9mN2bX7cR';

describe('redactSecrets', () => {
  it('removes every occurrence of each key, and its URL-encoded and Base64 forms', () => {
    const weird = 'k3y/with+odd=chars&more';
    const text = `key ${KEY} again ${KEY}; url ?k=${encodeURIComponent(weird)} basic ${btoa(weird)} raw ${weird}`;
    const out = redactSecrets(text, [KEY, weird]);
    expect(out).not.toContain(KEY);
    expect(out).not.toContain(weird);
    expect(out).not.toContain(encodeURIComponent(weird));
    expect(out).not.toContain(btoa(weird));
    expect(out.split(REDACTED).length - 1).toBeGreaterThanOrEqual(5);
  });

  it('ignores empty, blank and missing keys and leaves other text alone', () => {
    expect(redactSecrets('nothing secret here', ['', '  ', undefined, null])).toBe('nothing secret here');
    expect(redactSecrets('Check the API key configuration', [])).toBe('Check the API key configuration');
  });

  it('removes a longer key whole even when another key is its prefix', () => {
    expect(redactSecrets('abcdef123456', ['abc', 'abcdef123456'])).toBe(REDACTED);
  });

  it('catches key-shaped strings and bearer credentials it was not told about', () => {
    const out = redactSecrets(
      'a gsk_ABCDEFGHIJKLMNOPQRSTUV b hf_abcdefghijklmnopqrstuvwx c sk-ant-api03-xyzxyzxyz d Bearer abcdefgh12345678 e x-api-key: zzzzyyyyxxxx1111',
    );
    for (const s of ['gsk_ABCDEFGHIJKLMNOPQRSTUV', 'hf_abcdefghijklmnopqrstuvwx', 'sk-ant-api03-xyzxyzxyz', 'abcdefgh12345678', 'zzzzyyyyxxxx1111']) {
      expect(out).not.toContain(s);
    }
    expect(out).toContain('Bearer [redacted]');
  });

  it('redactValue drops key fields and redacts strings deeply', () => {
    const v = redactValue({ provider: 'groq', apiKey: KEY, nested: [{ note: `has ${KEY}` }] }, [KEY]);
    expect(JSON.stringify(v)).not.toContain(KEY);
    expect(v).toEqual({ provider: 'groq', nested: [{ note: `has ${REDACTED}` }] });
  });

  it('ProviderError redacts its message and provider message, and serialises without a cause', () => {
    const e = new ProviderError(`bad key ${KEY}`, { kind: 'auth', provider: 'openai', status: 401, providerMessage: `Incorrect API key provided: ${KEY}` }, [KEY]);
    expect(e.message).not.toContain(KEY);
    expect(e.providerMessage).not.toContain(KEY);
    expect(String(e.stack)).not.toContain(KEY);
    expect(JSON.stringify(e)).not.toContain(KEY);
    expect(e.retryable).toBe(false);
    expect(e.cause).toBeUndefined();
  });
});

describe('errors', () => {
  const ctx = { provider: 'openai' as const, label: 'Test', keys: [KEY], url: `http://u:p@host:1/v1/chat/completions?key=${KEY}#x`, model: 'm1', keyPrefix: 'sk-' };

  it('safeUrl drops credentials, query and fragment', () => {
    expect(safeUrl(ctx.url)).toBe('http://host:1/v1/chat/completions');
  });

  it('maps statuses to kinds, retryability and advice', () => {
    const cases: [number, string, boolean, RegExp][] = [
      [401, 'auth', false, /rejected the API key.*start with "sk-"/],
      [403, 'auth', false, /refused access/],
      [404, 'not-found', false, /does not know model "m1"/],
      [429, 'rate-limit', true, /rate limit or quota/],
      [402, 'rate-limit', false, /no credits or quota/],
      [400, 'bad-request', false, /rejected the request/],
      [413, 'bad-request', false, /too large/],
      [408, 'timeout', true, /timed out/],
      [500, 'server', true, /internal error.*try again/],
      [503, 'server', true, /overloaded or unavailable/],
      [529, 'server', true, /overloaded/],
    ];
    for (const [status, kind, retryable, re] of cases) {
      const e = errorFromStatus(ctx, status, { error: { message: `detail for ${KEY}` } });
      expect(e.kind, String(status)).toBe(kind);
      expect(e.retryable, String(status)).toBe(retryable);
      expect(e.status).toBe(status);
      expect(e.message).toMatch(re);
      expect(e.message).toContain('detail for [redacted]');
      expect(e.message).not.toContain(KEY);
    }
  });

  it('reads provider messages from every error body shape', () => {
    expect(providerMessageFromBody({ error: { message: 'openai style' } })).toBe('openai style');
    expect(providerMessageFromBody({ type: 'error', error: { type: 'x', message: 'anthropic style' } })).toBe('anthropic style');
    expect(providerMessageFromBody({ error: 'hf style' })).toBe('hf style');
    expect(providerMessageFromBody({ detail: 'fastapi style' })).toBe('fastapi style');
    expect(providerMessageFromBody({ detail: [{ msg: 'a' }, { msg: 'b' }] })).toBe('a; b');
    expect(providerMessageFromBody('<!DOCTYPE html><html>')).toMatch(/HTML page/);
    expect(providerMessageFromBody('{"error":{"message":"as text"}}')).toBe('as text');
    expect(providerMessageFromBody('')).toBeUndefined();
  });

  it('network errors explain the cause and, for browser-style failures, CORS', () => {
    const node = errorFromNetwork(ctx, Object.assign(new TypeError('fetch failed'), { cause: { code: 'ECONNREFUSED' } }));
    expect(node.kind).toBe('network');
    expect(node.retryable).toBe(true);
    expect(node.message).toMatch(/Could not reach Test at http:\/\/host:1\/v1\/chat\/completions \(connection refused/);
    expect(node.message).not.toContain(KEY);
    const browser = errorFromNetwork(ctx, new TypeError('Failed to fetch'));
    expect(browser.message).toMatch(/CORS/);
  });
});

describe('retry', () => {
  it('parses Retry-After as seconds, HTTP date, and retry-after-ms', () => {
    const now = Date.parse('2025-01-01T00:00:00Z');
    expect(parseRetryAfter(new Headers({ 'retry-after': '2' }), now)).toBe(2000);
    expect(parseRetryAfter(new Headers({ 'retry-after': '0.25' }), now)).toBe(250);
    expect(parseRetryAfter(new Headers({ 'retry-after': 'Wed, 01 Jan 2025 00:00:03 GMT' }), now)).toBe(3000);
    expect(parseRetryAfter(new Headers({ 'retry-after': 'Tue, 31 Dec 2024 00:00:00 GMT' }), now)).toBe(0);
    expect(parseRetryAfter(new Headers({ 'retry-after-ms': '40', 'retry-after': '9' }), now)).toBe(40);
    expect(parseRetryAfter({ 'Retry-After': '1' }, now)).toBe(1000);
    expect(parseRetryAfter(new Headers({ 'retry-after': 'soon' }), now)).toBeUndefined();
    expect(parseRetryAfter(new Headers(), now)).toBeUndefined();
  });

  it('backs off exponentially with jitter and a cap', () => {
    const o = { baseDelayMs: 100, maxDelayMs: 1000, random: () => 1 };
    expect([1, 2, 3, 4, 5].map((a) => backoffDelay(a, o))).toEqual([100, 200, 400, 800, 1000]);
    expect(backoffDelay(1, { ...o, random: () => 0 })).toBe(50);
  });

  const retryable = (retryAfterMs?: number) =>
    new ProviderError('x', { kind: 'rate-limit', provider: 'openai', status: 429, retryAfterMs });

  it('retries retryable errors, honouring Retry-After, and stops at maxRetries', async () => {
    const sleeps: number[] = [];
    const sleep = async (ms: number) => void sleeps.push(ms);
    const fn = vi.fn(async () => {
      throw retryable(1500);
    });
    await expect(withRetry(fn, { maxRetries: 2, sleep })).rejects.toMatchObject({ kind: 'rate-limit' });
    expect(fn).toHaveBeenCalledTimes(3);
    expect(sleeps).toEqual([1500, 1500]);
  });

  it('does not sleep through a Retry-After above the cap', async () => {
    const sleep = vi.fn(async () => undefined);
    const fn = vi.fn(async () => {
      throw retryable(3_600_000);
    });
    await expect(withRetry(fn, { sleep, maxRetryAfterMs: 20_000 })).rejects.toMatchObject({ retryAfterMs: 3_600_000 });
    expect(fn).toHaveBeenCalledTimes(1);
    expect(sleep).not.toHaveBeenCalled();
  });

  it('does not retry non-retryable errors or foreign errors', async () => {
    const sleep = vi.fn(async () => undefined);
    const auth = vi.fn(async () => {
      throw new ProviderError('no', { kind: 'auth', provider: 'openai', status: 401 });
    });
    await expect(withRetry(auth, { sleep })).rejects.toMatchObject({ kind: 'auth' });
    expect(auth).toHaveBeenCalledTimes(1);
    const foreign = vi.fn(async () => {
      throw new Error('bug');
    });
    await expect(withRetry(foreign, { sleep })).rejects.toThrow('bug');
    expect(foreign).toHaveBeenCalledTimes(1);
  });

  it('stops waiting when the signal aborts during a backoff', async () => {
    const ac = new AbortController();
    const fn = vi.fn(async () => {
      throw retryable(60_000);
    });
    setTimeout(() => ac.abort(), 20);
    const t0 = Date.now();
    await expect(withRetry(fn, { signal: ac.signal, abortError: () => new Error('cancelled'), maxRetryAfterMs: 120_000 })).rejects.toThrow('cancelled');
    // The backoff asked for 60 s; anything far below that means the abort ended the wait (a busy machine may add seconds).
    expect(Date.now() - t0).toBeLessThan(30_000);
  });

  it('Deadline tells a timeout from a caller abort, and kick() restarts the clock', async () => {
    // Fake timers: the test is about the clock logic, not about how promptly a busy machine runs timers.
    vi.useFakeTimers();
    try {
      const d = new Deadline(300);
      await vi.advanceTimersByTimeAsync(150);
      d.kick();
      await vi.advanceTimersByTimeAsync(200); // 350 ms after the start, 200 ms after the kick
      expect(d.signal.aborted).toBe(false);
      await vi.advanceTimersByTimeAsync(100); // 300 ms after the kick
      expect(d.signal.aborted).toBe(true);
      expect(d.timedOut).toBe(true);
      expect(d.callerAborted).toBe(false);
    } finally {
      vi.useRealTimers();
    }
    const ac = new AbortController();
    const d2 = new Deadline(1000, ac.signal);
    ac.abort();
    expect(d2.signal.aborted).toBe(true);
    expect(d2.callerAborted).toBe(true);
    expect(d2.timedOut).toBe(false);
    d2.clear();
  });
});

describe('SSE parsing', () => {
  it('handles LF, CRLF and CR line ends, split anywhere', () => {
    const stream = 'data: {"a":1}\r\n\r\nevent: e\rdata: x\r\rdata: [DONE]\n\n';
    for (let cut = 0; cut <= stream.length; cut++) {
      const p = new SseParser();
      const evs = [...p.push(stream.slice(0, cut)), ...p.push(stream.slice(cut))];
      expect(evs.map((e) => [e.event, e.data]), `cut at ${cut}`).toEqual([
        [null, '{"a":1}'],
        ['e', 'x'],
        [null, '[DONE]'],
      ]);
    }
  });

  it('joins multi-line data, skips comments, strips one leading space and a BOM, drops an unterminated event', () => {
    const p = new SseParser();
    const evs = p.push('\ufeff: keep-alive\ndata:line1\ndata:  line2\nid: 7\nretry: 10\n\ndata: tail');
    expect(evs).toEqual([{ event: null, data: 'line1\n line2', id: '7' }]);
    expect(p.end()).toEqual([]);
  });

  it('readSse decodes UTF-8 split across chunks', async () => {
    const bytes = new TextEncoder().encode('data: héllo ✓\n\ndata: [DONE]\n\n');
    const body = new ReadableStream<Uint8Array>({
      start(c) {
        for (let i = 0; i < bytes.length; i += 3) c.enqueue(bytes.slice(i, i + 3));
        c.close();
      },
    });
    const out: string[] = [];
    let kicks = 0;
    for await (const e of readSse(body, () => kicks++)) out.push(e.data);
    expect(out).toEqual(['héllo ✓', '[DONE]']);
    expect(kicks).toBeGreaterThan(5);
  });
});
