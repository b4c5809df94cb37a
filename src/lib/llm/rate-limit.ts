/**
 * Client-side rate limits for one provider: at most `rpm` requests and `tpm` tokens in any sliding window of
 * `windowMs` (default 60 s). `wrapProvider` returns a `ChatProvider` that waits, before each call, until the call
 * fits; the wait is abortable through the request's `AbortSignal`. Calls are admitted in arrival order (FIFO), so
 * concurrent callers share the budget fairly.
 *
 * Token accounting. A provider counts tokens only after the fact, so each call reserves an estimate when it starts:
 * its messages' characters / 4 (`estimateTextTokens`, the usual rough rule for English) plus `outputReserve` tokens
 * (default 256, or the request's `maxTokens` when smaller). When the call ends and the provider reported usage,
 * the reservation is replaced by the real input + output tokens. A call whose estimate alone exceeds `tpm` cannot
 * ever fit: it waits until the window is empty and then goes.
 *
 * Retries inside the provider (src/lib/llm/retry.ts) are not seen here: the limiter counts calls of `chat`/`stream`.
 * Presets (`RATE_LIMIT_PRESETS`) hold free-tier limits as published by the provider at the date given; they change
 * and accounts differ — check your account's limits page. The table is a plain mutable object: edit it, or pass your
 * own numbers.
 */
import { sleep as realSleep } from './retry.ts';
import type { ChatMessage, ChatProvider, ChatRequest, ChatResult, ChatStreamEvent, TokenUsage } from './types.ts';

export interface RateLimits {
  /** Requests per window (per minute with the default window). Absent, null or 0: no request limit. */
  rpm?: number | null | undefined;
  /** Tokens (input + output) per window. Absent, null or 0: no token limit. */
  tpm?: number | null | undefined;
  /** Window length in ms. Default 60,000. */
  windowMs?: number | undefined;
}

/** Daily limits a provider also publishes (not enforced here: a run that would pass them is warned about). */
export interface DailyLimits {
  rpd?: number;
  tpd?: number;
}

export interface ModelLimits extends DailyLimits {
  rpm: number;
  tpm: number;
}

export interface RateLimitPreset {
  id: string;
  label: string;
  provider: string;
  /** Limits by model name. */
  models: Record<string, ModelLimits>;
  /** Where the numbers come from. */
  source: string;
  /** When they were read there (YYYY-MM-DD). */
  asOf: string;
  note: string;
}

/**
 * Free-tier presets. Numbers as published by the provider on the page and date given; check your account: limits
 * are per organisation, change over time, and paid tiers are higher. Editable: change or add entries at run time.
 */
export const RATE_LIMIT_PRESETS: Record<string, RateLimitPreset> = {
  'groq-free': {
    id: 'groq-free',
    label: 'Groq free plan',
    provider: 'groq',
    models: {
      'llama-3.3-70b-versatile': { rpm: 30, tpm: 12_000, rpd: 1_000, tpd: 100_000 },
      'llama-3.1-8b-instant': { rpm: 30, tpm: 6_000, rpd: 14_400, tpd: 500_000 },
      'openai/gpt-oss-120b': { rpm: 30, tpm: 8_000, rpd: 1_000, tpd: 200_000 },
      'openai/gpt-oss-20b': { rpm: 30, tpm: 8_000, rpd: 1_000, tpd: 200_000 },
      'qwen/qwen3-32b': { rpm: 60, tpm: 6_000, rpd: 1_000, tpd: 500_000 },
    },
    source: 'https://console.groq.com/docs/rate-limits',
    asOf: '2026-11-29',
    note: 'as published by the provider; check your account (console.groq.com/settings/limits): limits apply per organisation and change',
  },
};

export const DEFAULT_WINDOW_MS = 60_000;
/** Output tokens reserved per call before the provider reports usage (or the request's maxTokens when smaller). */
export const DEFAULT_OUTPUT_RESERVE = 256;

/** Characters per token in the estimates: the usual rough rule for English text. */
export const CHARS_PER_TOKEN = 4;

/** Tokens of a text by the chars/4 rule (rounded up): a rough estimate for English, used before a call is made. */
export function estimateTextTokens(text: string): number {
  return Math.ceil(text.length / CHARS_PER_TOKEN);
}

/** The chars/4 estimate summed over the messages' contents (no per-message overhead). */
export function estimateMessageTokens(messages: readonly ChatMessage[]): number {
  return messages.reduce((a, m) => a + estimateTextTokens(m.content), 0);
}

/**
 * The limits of a preset for a model. Throws with the known models when the preset has none for this one (a preset
 * never silently applies another model's limits).
 */
export function presetLimits(presetId: string, model: string, presets: Record<string, RateLimitPreset> = RATE_LIMIT_PRESETS): ModelLimits & { preset: RateLimitPreset } {
  const p = presets[presetId];
  if (!p) throw new Error(`unknown rate-limit preset "${presetId}" (known: ${Object.keys(presets).join(', ') || 'none'})`);
  const m = p.models[model];
  if (!m) throw new Error(`preset "${presetId}" has no limits for model "${model}" (it has: ${Object.keys(p.models).join(', ')}); give --rpm/--tpm instead`);
  return { ...m, preset: p };
}

/** Shortest time (ms) `calls` calls using `tokens` tokens take under the limits (0 without limits). */
export function minDurationMs(calls: number, tokens: number, limits: RateLimits): number {
  const w = limits.windowMs ?? DEFAULT_WINDOW_MS;
  const byReq = limits.rpm ? Math.max(0, Math.ceil(calls / limits.rpm) - 1) * w : 0;
  const byTok = limits.tpm ? Math.max(0, Math.ceil(tokens / limits.tpm) - 1) * w : 0;
  return Math.max(byReq, byTok);
}

export interface LimiterOptions {
  /** Clock in ms (tests inject a fake one). Default `Date.now`. */
  now?: () => number;
  /** Abortable sleep (tests inject one that advances the fake clock). Default: a timer. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** See DEFAULT_OUTPUT_RESERVE. */
  outputReserve?: number;
  /** Called before each wait (e.g. to show "rate limit: waiting 12 s"). */
  onWait?: (info: { ms: number; reason: 'rpm' | 'tpm' }) => void;
}

export interface LimiterStats {
  /** Calls admitted. */
  requests: number;
  /** Waits made (one call may wait more than once when its estimate is revised). */
  waits: number;
  /** Total time spent waiting (ms, by the limiter's clock). */
  waitedMs: number;
}

/** A slot taken by one call; `settle` replaces its token reservation by the real usage. */
export interface Ticket {
  readonly at: number;
  readonly reserved: number;
  settle(usage: TokenUsage | null): void;
}

interface Entry { at: number; tokens: number }

function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException('The operation was aborted.', 'AbortError');
}

/** Waits for `p`, or rejects as soon as `signal` aborts. */
function raceAbort<T>(p: Promise<T>, signal?: AbortSignal): Promise<T> {
  if (!signal) return p;
  if (signal.aborted) return Promise.reject(abortReason(signal));
  return new Promise<T>((ok, fail) => {
    const onAbort = () => fail(abortReason(signal));
    signal.addEventListener('abort', onAbort, { once: true });
    p.then((v) => { signal.removeEventListener('abort', onAbort); ok(v); }, (e) => { signal.removeEventListener('abort', onAbort); fail(e); });
  });
}

/** Sliding-window limiter over requests and tokens. */
export class RateLimiter {
  readonly limits: Readonly<RateLimits>;
  readonly windowMs: number;
  readonly stats: LimiterStats = { requests: 0, waits: 0, waitedMs: 0 };
  private readonly entries: Entry[] = [];
  private readonly now: () => number;
  private readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  private readonly onWait: LimiterOptions['onWait'];
  readonly outputReserve: number;
  private tail: Promise<void> = Promise.resolve();

  constructor(limits: RateLimits, opts: LimiterOptions = {}) {
    for (const k of ['rpm', 'tpm', 'windowMs'] as const) {
      const x = limits[k];
      if (x != null && (!Number.isFinite(x) || x < 0)) throw new Error(`rate limit ${k} must be a number >= 0, got ${x}`);
    }
    this.limits = { ...limits };
    this.windowMs = limits.windowMs || DEFAULT_WINDOW_MS;
    this.now = opts.now ?? Date.now;
    this.sleep = opts.sleep ?? realSleep;
    this.onWait = opts.onWait;
    this.outputReserve = Math.max(0, opts.outputReserve ?? DEFAULT_OUTPUT_RESERVE);
  }

  /** Requests and tokens inside the window now. */
  usage(): { requests: number; tokens: number } {
    this.prune(this.now());
    return { requests: this.entries.length, tokens: this.entries.reduce((a, e) => a + e.tokens, 0) };
  }

  private prune(now: number): void {
    while (this.entries.length > 0 && this.entries[0]!.at + this.windowMs <= now) this.entries.shift();
  }

  /** How long a call of `tokens` tokens must wait now (0 = it fits), and which limit holds it back. */
  waitFor(tokens: number): { ms: number; reason: 'rpm' | 'tpm' | null } {
    const now = this.now();
    this.prune(now);
    const e = this.entries;
    let ms = 0;
    let reason: 'rpm' | 'tpm' | null = null;
    const rpm = this.limits.rpm;
    if (rpm && e.length >= rpm) {
      // the (e.length − rpm + 1) oldest entries must leave the window
      const until = e[e.length - rpm]!.at + this.windowMs - now;
      if (until > ms) { ms = until; reason = 'rpm'; }
    }
    const tpm = this.limits.tpm;
    if (tpm) {
      let sum = e.reduce((a, x) => a + x.tokens, 0);
      if (sum > 0 && sum + tokens > tpm) {
        // drop oldest entries until the call fits (or the window is empty: a call larger than tpm then goes alone)
        let j = 0;
        while (j < e.length && sum + tokens > tpm) { sum -= e[j]!.tokens; j++; }
        const until = e[j - 1]!.at + this.windowMs - now;
        if (until > ms) { ms = until; reason = 'tpm'; }
      }
    }
    return { ms: Math.max(0, ms), reason };
  }

  /**
   * Waits until a call of `tokens` tokens fits, then records it. Calls are admitted in order; an abort while
   * waiting rejects with the signal's reason and takes nothing.
   */
  async acquire(tokens: number, signal?: AbortSignal): Promise<Ticket> {
    const prev = this.tail;
    let release!: () => void;
    this.tail = new Promise<void>((ok) => { release = ok; });
    try {
      await raceAbort(prev, signal);
      for (;;) {
        signal?.throwIfAborted();
        const w = this.waitFor(tokens);
        if (w.ms <= 0) break;
        this.stats.waits++;
        this.onWait?.({ ms: w.ms, reason: w.reason! });
        const t0 = this.now();
        try {
          await this.sleep(w.ms, signal);
        } finally {
          this.stats.waitedMs += Math.max(0, this.now() - t0);
        }
      }
      const entry: Entry = { at: this.now(), tokens: Math.max(0, tokens) };
      this.entries.push(entry);
      this.stats.requests++;
      return {
        at: entry.at,
        reserved: entry.tokens,
        settle: (usage) => { if (usage) entry.tokens = Math.max(0, usage.inputTokens) + Math.max(0, usage.outputTokens); },
      };
    } finally {
      release();
    }
  }

  /** The tokens a request reserves: its messages by chars/4 plus the output reserve (or maxTokens when smaller). */
  reserveFor(req: ChatRequest): number {
    const out = req.maxTokens !== undefined ? Math.min(req.maxTokens, this.outputReserve) : this.outputReserve;
    return estimateMessageTokens(req.messages) + out;
  }
}

export interface RateLimitedProvider extends ChatProvider {
  readonly limiter: RateLimiter;
  /** The wrapped provider. */
  readonly inner: ChatProvider;
}

/**
 * `provider` behind a rate limiter: each `chat`/`stream` waits (abortable via the request's signal) until it fits
 * in the limits, then runs; its token reservation is replaced by the reported usage afterwards. Pass a `RateLimiter`
 * to share one budget between several wrapped providers (e.g. the answering model and the judge on one account).
 */
export function wrapProvider(provider: ChatProvider, limits: RateLimits | RateLimiter, opts: LimiterOptions = {}): RateLimitedProvider {
  const limiter = limits instanceof RateLimiter ? limits : new RateLimiter(limits, opts);
  const run = async (req: ChatRequest, call: () => Promise<ChatResult>): Promise<ChatResult> => {
    const ticket = await limiter.acquire(limiter.reserveFor(req), req.signal);
    const res = await call();
    ticket.settle(res.usage);
    return res;
  };
  return {
    id: provider.id,
    limiter,
    inner: provider,
    chat: (req: ChatRequest) => run(req, () => provider.chat(req)),
    stream: (req: ChatRequest, onDelta: (e: ChatStreamEvent) => void) => run(req, () => provider.stream(req, onDelta)),
  };
}
