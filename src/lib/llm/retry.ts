/**
 * Retries and timeouts for provider calls.
 *
 * - `withRetry` repeats a call that failed with a retryable `ProviderError` (429, 408, 409, 5xx, network, timeout)
 *   after the wait the provider asked for (Retry-After / retry-after-ms) or else an exponential backoff with jitter.
 *   A Retry-After longer than `maxRetryAfterMs` is not slept through: the error is surfaced at once (its message
 *   says how long the provider asked to wait), so a daily quota never freezes the UI.
 * - `Deadline` is an AbortSignal that fires on the caller's signal or when no progress was made for `ms`
 *   (`kick()` restarts the clock: a streamed reply can run long as long as chunks keep coming).
 */
import { sleep } from '../wait.ts';
import { isProviderError } from './errors.ts';

export { parseRetryAfter, sleep, type HeaderSource } from '../wait.ts';

export interface RetryInfo {
  /** 1 for the first retry. */
  attempt: number;
  delayMs: number;
  error: Error;
}

export interface RetryOptions {
  /** Retries after the first attempt (default 2, so at most 3 requests). */
  maxRetries?: number;
  /** First backoff delay (default 500 ms); doubles on each retry, with jitter in [50 %, 100 %]. */
  baseDelayMs?: number;
  /** Upper bound of a backoff delay (default 8 s). */
  maxDelayMs?: number;
  /** Longest Retry-After that is waited for (default 20 s); a longer one surfaces the error at once. */
  maxRetryAfterMs?: number;
  /** Injectable sleep (tests); must reject when `signal` aborts. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Injectable randomness for the jitter, in [0, 1). */
  random?: () => number;
  /** Called before each retry's wait (e.g. to show "rate limited, retrying in 2 s"). */
  onRetry?: (info: RetryInfo) => void;
}

export const RETRY_DEFAULTS = Object.freeze({
  maxRetries: 2,
  baseDelayMs: 500,
  maxDelayMs: 8_000,
  maxRetryAfterMs: 20_000,
});

/** Backoff before retry number `attempt` (1-based): base·2^(attempt−1), capped, times a jitter in [0.5, 1). */
export function backoffDelay(attempt: number, opts: RetryOptions = {}): number {
  const base = opts.baseDelayMs ?? RETRY_DEFAULTS.baseDelayMs;
  const cap = opts.maxDelayMs ?? RETRY_DEFAULTS.maxDelayMs;
  const raw = Math.min(cap, base * 2 ** Math.max(0, attempt - 1));
  const r = (opts.random ?? Math.random)();
  return Math.round(raw * (0.5 + 0.5 * Math.min(Math.max(r, 0), 1)));
}

/**
 * Runs `fn` until it succeeds, fails with a non-retryable error, or the retries are used up (then the last error is
 * thrown). Only `ProviderError`s with `retryable: true` are retried. When `signal` aborts during a wait,
 * `abortError()` is thrown.
 */
export async function withRetry<T>(
  fn: (attempt: number) => Promise<T>,
  opts: RetryOptions & { signal?: AbortSignal | undefined; abortError?: () => Error } = {},
): Promise<T> {
  const maxRetries = Math.max(0, Math.floor(opts.maxRetries ?? RETRY_DEFAULTS.maxRetries));
  const maxRetryAfter = opts.maxRetryAfterMs ?? RETRY_DEFAULTS.maxRetryAfterMs;
  const doSleep = opts.sleep ?? sleep;
  for (let attempt = 0; ; attempt++) {
    try {
      return await fn(attempt);
    } catch (e) {
      if (!isProviderError(e) || !e.retryable || attempt >= maxRetries) throw e;
      if (opts.signal?.aborted) throw opts.abortError ? opts.abortError() : e;
      if (e.retryAfterMs !== undefined && e.retryAfterMs > maxRetryAfter) throw e;
      const delayMs = e.retryAfterMs ?? backoffDelay(attempt + 1, opts);
      opts.onRetry?.({ attempt: attempt + 1, delayMs, error: e });
      try {
        await doSleep(delayMs, opts.signal);
      } catch (sleepErr) {
        if (opts.signal?.aborted && opts.abortError) throw opts.abortError();
        throw sleepErr;
      }
      if (opts.signal?.aborted) throw opts.abortError ? opts.abortError() : e;
    }
  }
}

/**
 * An AbortSignal that fires when the caller's signal aborts or after `ms` without a `kick()`.
 * `timedOut` / `callerAborted` tell the two apart afterwards. Call `clear()` when done.
 */
export class Deadline {
  readonly #controller = new AbortController();
  readonly #parent: AbortSignal | undefined;
  readonly #ms: number;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #timedOut = false;
  readonly #onParentAbort = () => this.#controller.abort(this.#parent?.reason);

  constructor(ms: number | undefined, parent?: AbortSignal) {
    this.#ms = ms !== undefined && Number.isFinite(ms) && ms > 0 ? ms : 0;
    this.#parent = parent;
    if (parent?.aborted) this.#controller.abort(parent.reason);
    else parent?.addEventListener('abort', this.#onParentAbort, { once: true });
    this.kick();
  }

  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  get timedOut(): boolean {
    return this.#timedOut;
  }

  get callerAborted(): boolean {
    return this.#parent?.aborted === true && !this.#timedOut;
  }

  /** Progress was made: restart the clock. */
  kick(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    if (this.#ms > 0 && !this.#controller.signal.aborted) {
      this.#timer = setTimeout(() => {
        this.#timedOut = true;
        this.#controller.abort(new DOMException(`No answer within ${this.#ms} ms`, 'TimeoutError'));
      }, this.#ms);
    }
  }

  clear(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#parent?.removeEventListener('abort', this.#onParentAbort);
  }
}
