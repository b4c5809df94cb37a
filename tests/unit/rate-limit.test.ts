import { describe, expect, it } from 'vitest';
import {
  DEFAULT_OUTPUT_RESERVE, estimateMessageTokens, estimateTextTokens, minDurationMs, presetLimits, RATE_LIMIT_PRESETS, RateLimiter, wrapProvider,
} from '../../src/lib/llm/rate-limit.ts';
import type { ChatProvider, ChatRequest, ChatResult, ChatStreamEvent, TokenUsage } from '../../src/lib/llm/types.ts';

/** A fake clock: `sleep` records the wait and moves the time forward at once. */
function fakeClock() {
  const c = {
    t: 0,
    sleeps: [] as number[],
    now: () => c.t,
    sleep: async (ms: number, signal?: AbortSignal) => {
      signal?.throwIfAborted();
      c.sleeps.push(ms);
      c.t += ms;
    },
  };
  return c;
}

/** A provider that records when it was called (by the fake clock) and reports the given usage. */
function fakeProvider(clock: { now: () => number }, usage: TokenUsage | null = null) {
  const calls: { at: number; kind: 'chat' | 'stream'; model: string }[] = [];
  const provider: ChatProvider = {
    id: 'openai',
    chat: async (r: ChatRequest): Promise<ChatResult> => {
      calls.push({ at: clock.now(), kind: 'chat', model: r.model });
      return { text: 'ok', usage, finishReason: 'stop', model: 'm' };
    },
    stream: async (r: ChatRequest, onDelta: (e: ChatStreamEvent) => void): Promise<ChatResult> => {
      calls.push({ at: clock.now(), kind: 'stream', model: r.model });
      onDelta({ delta: 'o' });
      onDelta({ delta: 'k' });
      return { text: 'ok', usage, finishReason: 'stop', model: 'm' };
    },
  };
  return { provider, calls };
}

/** A request whose messages hold `chars` characters in all (chars/4 tokens when chars is a multiple of 4). */
const req = (chars: number, extra: Partial<ChatRequest> = {}): ChatRequest => ({ model: 'm', messages: [{ role: 'user', content: 'x'.repeat(chars) }], ...extra });

describe('token estimate', () => {
  it('is chars/4 rounded up, per message', () => {
    expect(estimateTextTokens('')).toBe(0);
    expect(estimateTextTokens('abcd')).toBe(1);
    expect(estimateTextTokens('abcde')).toBe(2);
    expect(estimateMessageTokens([{ role: 'system', content: 'abcde' }, { role: 'user', content: 'x'.repeat(400) }])).toBe(2 + 100);
  });

  it('reserves the output tokens, or maxTokens when smaller', () => {
    const l = new RateLimiter({ tpm: 1000 });
    expect(l.reserveFor(req(400))).toBe(100 + DEFAULT_OUTPUT_RESERVE);
    expect(l.reserveFor(req(400, { maxTokens: 30 }))).toBe(130);
    expect(new RateLimiter({}, { outputReserve: 0 }).reserveFor(req(400, { maxTokens: 30 }))).toBe(100);
  });
});

describe('RateLimiter with a fake clock', () => {
  it('RPM: a call waits until the oldest call in its way leaves the 60 s window', async () => {
    const clock = fakeClock();
    const { provider, calls } = fakeProvider(clock);
    const p = wrapProvider(provider, { rpm: 2 }, clock);
    await p.chat(req(4)); // a at 0
    clock.t = 10_000;
    await p.chat(req(4)); // b at 10 s
    clock.t = 20_000;
    await p.chat(req(4)); // c: a and b in the window → waits for a to leave at 60 s
    await p.chat(req(4)); // d at 60 s: b (10 s) and c (60 s) in the window → waits for b to leave at 70 s
    expect(clock.sleeps).toEqual([40_000, 10_000]);
    expect(calls.map((c) => c.at)).toEqual([0, 10_000, 60_000, 70_000]);
    expect(p.limiter.stats).toEqual({ requests: 4, waits: 2, waitedMs: 50_000 });
  });

  it('RPM: concurrent calls are admitted one after the other, in order', async () => {
    const clock = fakeClock();
    const { provider, calls } = fakeProvider(clock);
    const p = wrapProvider(provider, { rpm: 1 }, clock);
    const texts = await Promise.all([p.chat(req(4, { model: 'a' })), p.stream(req(4, { model: 'b' }), () => {}), p.chat(req(4, { model: 'c' }))]);
    expect(texts.map((t) => t.text)).toEqual(['ok', 'ok', 'ok']);
    // (the fake clock jumps at once, so the time a call is seen is not its admission time; the order is)
    expect(calls.map((c) => [c.model, c.kind])).toEqual([['a', 'chat'], ['b', 'stream'], ['c', 'chat']]);
    expect(clock.sleeps).toEqual([60_000, 60_000]);
    expect(p.limiter.stats).toMatchObject({ requests: 3, waits: 2, waitedMs: 120_000 });
  });

  it('TPM: waits until enough tokens leave the window; the reservation becomes the reported usage', async () => {
    // Each request: 160 chars = 40 tokens reserved (no output reserve); the provider reports 40 + 10 = 50 used.
    const clock = fakeClock();
    const { provider, calls } = fakeProvider(clock, { inputTokens: 40, outputTokens: 10 });
    const p = wrapProvider(provider, { tpm: 100 }, { ...clock, outputReserve: 0 });
    await p.chat(req(160)); // 0 s: window 50
    clock.t = 10_000;
    await p.chat(req(160)); // 50 + 40 = 90 <= 100: goes; window 100
    expect(p.limiter.usage()).toEqual({ requests: 2, tokens: 100 });
    clock.t = 20_000;
    await p.chat(req(160)); // 100 + 40 > 100: the first (50) must leave at 60 s → wait 40 s
    expect(clock.sleeps).toEqual([40_000]);
    expect(calls.map((c) => c.at)).toEqual([0, 10_000, 60_000]);
  });

  it('TPM: the reported usage, when smaller than the reservation, frees the budget', async () => {
    const run = async (usage: TokenUsage | null) => {
      const clock = fakeClock();
      const { provider } = fakeProvider(clock, usage);
      const p = wrapProvider(provider, { tpm: 100 }, { ...clock, outputReserve: 0 });
      await p.chat(req(160));
      clock.t = 10_000;
      await p.chat(req(160));
      clock.t = 20_000;
      await p.chat(req(160));
      return clock.sleeps;
    };
    expect(await run({ inputTokens: 5, outputTokens: 5 })).toEqual([]); // 10 + 10 + 40 <= 100
    expect(await run(null)).toEqual([40_000]); // no usage reported: 40 + 40 + 40 > 100 until the first leaves
  });

  it('TPM: a call larger than the whole budget waits for an empty window, then goes alone', async () => {
    const clock = fakeClock();
    const { provider, calls } = fakeProvider(clock);
    const p = wrapProvider(provider, { tpm: 50 }, { ...clock, outputReserve: 0 });
    await p.chat(req(320)); // 80 tokens > 50, window empty: goes at 0
    clock.t = 5_000;
    await p.chat(req(320)); // waits until the first leaves at 60 s
    expect(calls.map((c) => c.at)).toEqual([0, 60_000]);
    expect(clock.sleeps).toEqual([55_000]);
  });

  it('RPM and TPM together: the longer wait wins', async () => {
    const clock = fakeClock();
    const { provider, calls } = fakeProvider(clock);
    const p = wrapProvider(provider, { rpm: 3, tpm: 100 }, { ...clock, outputReserve: 0 });
    await p.chat(req(240)); // 60 tokens at 0
    clock.t = 30_000;
    await p.chat(req(80)); // 20 tokens at 30 s (80 <= 100)
    clock.t = 40_000;
    await p.chat(req(160)); // 40 more: 120 > 100 → the 60 at 0 s must leave (60 s); rpm (3) is not reached → wait 20 s
    clock.t = 70_000;
    await p.chat(req(4)); // rpm: calls at 30, 60 s in the window (0 s left) → fits
    expect(clock.sleeps).toEqual([20_000]);
    expect(calls.map((c) => c.at)).toEqual([0, 30_000, 60_000, 70_000]);
  });

  it('a custom window', async () => {
    const clock = fakeClock();
    const { provider } = fakeProvider(clock);
    const p = wrapProvider(provider, { rpm: 1, windowMs: 1_000 }, clock);
    await p.chat(req(4));
    await p.chat(req(4));
    expect(clock.sleeps).toEqual([1_000]);
  });

  it('aborts while waiting: the call is rejected with the reason, takes no slot, and the queue behind moves on', async () => {
    let t = 0;
    const pending: number[] = [];
    const sleep = (ms: number, signal?: AbortSignal) => new Promise<void>((_, fail) => {
      pending.push(ms);
      signal?.addEventListener('abort', () => fail(signal.reason), { once: true });
    });
    const { provider, calls } = fakeProvider({ now: () => t });
    const p = wrapProvider(provider, { rpm: 1 }, { now: () => t, sleep });
    await p.chat(req(4));
    const first = new AbortController();
    const second = new AbortController();
    const waiting = p.chat(req(4, { signal: first.signal }));
    const queued = p.chat(req(4, { signal: second.signal })); // queued behind the waiting call
    await new Promise((r) => setTimeout(r, 5));
    expect(pending).toEqual([60_000]);
    second.abort(new Error('stop queued'));
    await expect(queued).rejects.toThrow('stop queued');
    first.abort(new Error('stop waiting'));
    await expect(waiting).rejects.toThrow('stop waiting');
    expect(calls).toHaveLength(1);
    expect(p.limiter.usage().requests).toBe(1);
    // An already aborted signal never waits.
    await expect(p.chat(req(4, { signal: AbortSignal.abort(new Error('gone')) }))).rejects.toThrow('gone');
    // The limiter still works: once the window has passed, a call goes.
    t = 60_000;
    await expect(p.chat(req(4))).resolves.toMatchObject({ text: 'ok' });
    expect(calls).toHaveLength(2);
  });

  it('aborts a real timer wait promptly', async () => {
    const { provider } = fakeProvider({ now: Date.now });
    const p = wrapProvider(provider, { rpm: 1 });
    await p.chat(req(4));
    const c = new AbortController();
    const t0 = Date.now();
    const call = p.chat(req(4, { signal: c.signal }));
    setTimeout(() => c.abort(new Error('cancelled')), 20);
    await expect(call).rejects.toThrow('cancelled');
    // At 1 rpm the wait would be ~60 s: far less means the abort ended it (a busy machine may add seconds).
    expect(Date.now() - t0).toBeLessThan(30_000);
  });

  it('stream passes the deltas through', async () => {
    const clock = fakeClock();
    const { provider } = fakeProvider(clock);
    const p = wrapProvider(provider, { rpm: 10 }, clock);
    const deltas: string[] = [];
    await p.stream(req(4), (e) => deltas.push(e.delta));
    expect(deltas).toEqual(['o', 'k']);
    expect(p.id).toBe('openai');
  });

  it('refuses negative limits', () => {
    expect(() => new RateLimiter({ rpm: -1 })).toThrow(/rpm/);
  });
});

describe('presets', () => {
  it('Groq free plan, per model; unknown models refused; editable', () => {
    expect(presetLimits('groq-free', 'llama-3.3-70b-versatile')).toMatchObject({ rpm: 30, tpm: 12_000, rpd: 1_000 });
    expect(presetLimits('groq-free', 'llama-3.1-8b-instant')).toMatchObject({ rpm: 30, tpm: 6_000 });
    expect(RATE_LIMIT_PRESETS['groq-free']!.source).toMatch(/^https:\/\/console\.groq\.com/);
    expect(() => presetLimits('groq-free', 'no-such-model')).toThrow(/no limits for model "no-such-model"/);
    expect(() => presetLimits('nope', 'x')).toThrow(/unknown rate-limit preset "nope"/);
    const before = RATE_LIMIT_PRESETS['groq-free']!.models['llama-3.3-70b-versatile']!;
    try {
      RATE_LIMIT_PRESETS['groq-free']!.models['llama-3.3-70b-versatile'] = { rpm: 10, tpm: 1_000 };
      expect(presetLimits('groq-free', 'llama-3.3-70b-versatile')).toMatchObject({ rpm: 10, tpm: 1_000 });
    } finally {
      RATE_LIMIT_PRESETS['groq-free']!.models['llama-3.3-70b-versatile'] = before;
    }
  });

  it('minimum duration of a run under limits', () => {
    expect(minDurationMs(30, 0, { rpm: 30 })).toBe(0);
    expect(minDurationMs(31, 0, { rpm: 30 })).toBe(60_000);
    expect(minDurationMs(90, 0, { rpm: 30 })).toBe(120_000);
    expect(minDurationMs(10, 25_000, { rpm: 30, tpm: 12_000 })).toBe(120_000); // ceil(25000/12000) = 3 windows
    expect(minDurationMs(1000, 1e9, {})).toBe(0);
  });
});
