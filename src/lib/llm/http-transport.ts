/**
 * The transport every HTTP adapter shares (openai-compatible.ts, groq.ts, anthropic.ts, hf.ts): the options they
 * take, one call with retries and a timeout (`runCall`), one stream with retries before the first delta and the
 * partial text kept after (`runStream`), POSTs that turn failures into ProviderErrors, and base URL, model and
 * message checks.
 */
import {
  abortedError,
  badResponseError,
  configError,
  describeNetworkError,
  errorFromNetwork,
  errorFromStatus,
  isProviderError,
  malformedStreamError,
  ProviderError,
  streamCutMessage,
  timeoutError,
  type ErrorContext,
} from './errors.ts';
import { redactSecrets, redactUrlForDisplay } from './redact.ts';
import { Deadline, parseRetryAfter, withRetry, type RetryOptions } from './retry.ts';
import { readSse, type SseEvent } from './sse.ts';
import type {
  ChatMessage,
  ChatRequest,
  ChatResult,
  ChatStreamEvent,
  ProviderId,
  StreamInterruption,
  TokenUsage,
} from './types.ts';

export type FetchLike = (input: string, init: RequestInit) => Promise<Response>;

/** Options every HTTP adapter takes. */
export interface HttpProviderOptions {
  /** API root; see each adapter for its default and what it appends. */
  baseUrl?: string | undefined;
  apiKey?: string | undefined;
  /** Model used when a request's `model` is empty. */
  model?: string | undefined;
  /** Injectable fetch (default: the global one, looked up at call time). */
  fetch?: FetchLike | undefined;
  /**
   * Longest wait in ms (default 120 s): for `chat()` the whole reply, for `stream()` the first byte and every gap
   * between chunks. 0 disables it.
   */
  timeoutMs?: number | undefined;
  retry?: RetryOptions | undefined;
  /** Extra request headers (e.g. `OpenAI-Organization`). */
  headers?: Record<string, string> | undefined;
}

export const DEFAULT_TIMEOUT_MS = 120_000;

// ---------------------------------------------------------------------------------------------------------------
// Shared transport: one call with retries + timeout; one stream with retries before the first delta, then partials.
// ---------------------------------------------------------------------------------------------------------------

export interface CallPolicy {
  ctx: ErrorContext;
  signal?: AbortSignal | undefined;
  timeoutMs: number;
  retry: RetryOptions;
  /** Turns anything thrown into a ProviderError (the deadline tells a timeout from a caller's abort). */
  mapError: (e: unknown, dl: Deadline) => ProviderError;
}

/** Runs `call` under a fresh deadline per attempt, retrying retryable failures. */
export function runCall<T>(policy: CallPolicy, call: (dl: Deadline) => Promise<T>): Promise<T> {
  return withRetry(
    async () => {
      const dl = new Deadline(policy.timeoutMs, policy.signal);
      try {
        return await call(dl);
      } catch (e) {
        throw policy.mapError(e, dl);
      } finally {
        dl.clear();
      }
    },
    { ...policy.retry, signal: policy.signal, abortError: () => abortedError(policy.ctx) },
  );
}

/** What a stream has accumulated; event handlers update it. */
export interface StreamState {
  text: string;
  finishReason: string | null;
  usage: TokenUsage | null;
  model: string;
  /** The end-of-stream marker arrived ([DONE], message_stop). */
  done: boolean;
  /** Events an event handler could not read (not JSON, not an object) and skipped. */
  malformed: number;
}

export type Opened<T> = { events: AsyncIterable<T> } | { result: ChatResult };

/**
 * Streams a reply. Failures before the first delta are retried like `runCall`; after it, nothing is retried and the
 * text so far is returned with `finishReason: 'aborted'`, `partial: true` and why. A caller's abort at any point
 * resolves with the partial (possibly empty) text. `onEvent` returns the text an event adds; it may throw a
 * ProviderError for an error event, and counts an event it cannot read in `st.malformed` (skipped; a stream of
 * nothing else is a bad-response error). A stream that ends or breaks before its end marker is a server cut.
 */
export async function runStream<T>(
  policy: CallPolicy,
  open: (dl: Deadline) => Promise<Opened<T>>,
  onEvent: (ev: T, st: StreamState) => string,
  onDelta: (e: ChatStreamEvent) => void,
): Promise<ChatResult> {
  const { ctx } = policy;
  const st: StreamState = { text: '', finishReason: null, usage: null, model: ctx.model ?? '', done: false, malformed: 0 };
  const skipped = (): Partial<ChatResult> => (st.malformed > 0 ? { malformedEvents: st.malformed } : {});
  let delivered = false;
  const consumer: { failure: { e: unknown } | null } = { failure: null };
  const partial = (interruption: StreamInterruption, message: string): ChatResult => ({
    text: st.text,
    usage: st.usage,
    finishReason: 'aborted',
    model: st.model,
    partial: true,
    interruption,
    interruptionMessage: redactSecrets(message, ctx.keys),
    ...skipped(),
  });
  const emit = (delta: string) => {
    if (!delta) return;
    st.text += delta;
    delivered = true;
    try {
      onDelta({ delta });
    } catch (e) {
      consumer.failure = { e };
      throw e;
    }
  };
  const cancelled = `Stopped: the request to ${ctx.label} was cancelled; the text received so far is kept.`;

  try {
    return await runCall(
      {
        ...policy,
        // A throwing onDelta must not be retried (the caller would see the deltas twice): stop here, rethrown below.
        mapError: (e, dl) =>
          consumer.failure
            ? new ProviderError('The stream consumer failed.', { kind: 'aborted', provider: ctx.provider, retryable: false })
            : policy.mapError(e, dl),
      },
      async (dl): Promise<ChatResult> => {
        // A retry only happens before any text was delivered: start from a clean state (usage, finish reason).
        Object.assign(st, { text: '', finishReason: null, usage: null, model: ctx.model ?? '', done: false, malformed: 0 });
        const opened = await open(dl);
        if ('result' in opened) {
          st.model = opened.result.model || st.model;
          emit(opened.result.text);
          return opened.result;
        }
        dl.kick();
        let fromEvent = false;
        let seen = 0;
        try {
          for await (const ev of opened.events) {
            dl.kick();
            seen++;
            fromEvent = true;
            const delta = onEvent(ev, st);
            fromEvent = false;
            emit(delta);
            if (st.done) break;
          }
        } catch (e) {
          if (consumer.failure) throw consumer.failure.e;
          if (fromEvent && isProviderError(e)) {
            if (!delivered) throw e;
            return partial('error', e.message);
          }
          if (dl.callerAborted) return partial('signal', cancelled);
          if (!delivered) throw policy.mapError(e, dl);
          if (dl.timedOut) {
            return partial('timeout', timeoutError(ctx, 'send the rest of the answer').message + ' The text received so far is kept.');
          }
          return partial('connection', streamCutMessage(`the connection to ${ctx.label} broke: ${describeNetworkError(e)}`));
        }
        // Some SDK iterators end quietly on abort instead of throwing.
        if (dl.callerAborted) return partial('signal', cancelled);
        if (dl.timedOut) {
          if (!delivered) throw timeoutError(ctx);
          return partial('timeout', timeoutError(ctx, 'send the rest of the answer').message + ' The text received so far is kept.');
        }
        if (st.malformed > 0 && !delivered && st.finishReason === null) throw malformedStreamError(ctx, st.malformed, seen);
        if (!st.done && st.finishReason === null) {
          if (!delivered) throw errorFromNetwork(ctx, new Error('the stream ended before any answer arrived'));
          return partial('connection', streamCutMessage(`${ctx.label} sent no end-of-stream marker`));
        }
        return { text: st.text, usage: st.usage, finishReason: st.finishReason, model: st.model, ...skipped() };
      },
    );
  } catch (e) {
    if (consumer.failure) throw consumer.failure.e;
    if (isProviderError(e) && e.kind === 'aborted') return partial('signal', cancelled);
    throw e;
  }
}

/** The error for a non-2xx fetch Response (reads its body for the provider's message). */
export async function errorFromResponse(ctx: ErrorContext, res: Response): Promise<ProviderError> {
  const text = await res.text().catch(() => '');
  return errorFromStatus(ctx, res.status, text, parseRetryAfter(res.headers));
}

/** Maps anything a fetch-based call throws to a ProviderError. */
export function mapFetchError(ctx: ErrorContext): (e: unknown, dl: Deadline) => ProviderError {
  return (e, dl) => {
    if (isProviderError(e)) return e;
    if (dl.callerAborted) return abortedError(ctx);
    if (dl.timedOut) return timeoutError(ctx);
    return errorFromNetwork(ctx, e);
  };
}

/** POSTs JSON and returns the parsed JSON answer; throws ProviderError for an HTTP error or an unreadable body. */
export async function postJson(
  ctx: ErrorContext,
  fetchFn: FetchLike,
  url: string,
  headers: Record<string, string>,
  body: unknown,
  dl: Deadline,
): Promise<unknown> {
  const res = await fetchFn(url, { method: 'POST', headers, body: JSON.stringify(body), signal: dl.signal });
  if (!res.ok) throw await errorFromResponse(ctx, res);
  const text = await res.text();
  try {
    return JSON.parse(text);
  } catch {
    throw badResponseError(ctx, text.trim() ? 'the body is not JSON' : 'the body is empty');
  }
}

/** POSTs JSON asking for an event stream; falls back to `fromJson` when the server answers plain JSON instead. */
export async function postForStream(
  ctx: ErrorContext,
  fetchFn: FetchLike,
  url: string,
  headers: Record<string, string>,
  body: unknown,
  dl: Deadline,
  fromJson: (json: unknown) => ChatResult,
): Promise<Opened<SseEvent>> {
  const res = await fetchFn(url, {
    method: 'POST',
    headers: { ...headers, Accept: 'text/event-stream' },
    body: JSON.stringify(body),
    signal: dl.signal,
  });
  if (!res.ok) throw await errorFromResponse(ctx, res);
  return streamOf(ctx, res, dl, fromJson);
}

/** The events of a 2xx streaming answer (read as SSE), or its result when the server answered plain JSON instead. */
export async function streamOf(ctx: ErrorContext, res: Response, dl: Deadline, fromJson: (json: unknown) => ChatResult): Promise<Opened<SseEvent>> {
  const type = res.headers.get('content-type') ?? '';
  if (/application\/json/i.test(type)) {
    const text = await res.text();
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      throw badResponseError(ctx, 'the body is not JSON');
    }
    return { result: fromJson(json) };
  }
  if (!res.body) throw badResponseError(ctx, 'the body is empty');
  return { events: readSse(res.body, () => dl.kick()) };
}

/** Validates and normalises a base URL (http/https, no credentials, query or fragment; no trailing slash). */
export function normalizeBaseUrl(provider: ProviderId, label: string, raw: string, keys: readonly (string | undefined)[] = []): string {
  let u: URL;
  try {
    u = new URL(raw.trim());
  } catch {
    throw configError(provider, `The ${label} base URL "${redactUrlForDisplay(raw.trim(), keys)}" is not a valid URL; it should look like https://host/v1.`, keys);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') {
    throw configError(provider, `The ${label} base URL must start with http:// or https://.`, keys);
  }
  if (u.username || u.password || u.search || u.hash) {
    throw configError(
      provider,
      `The ${label} base URL must not contain credentials, a query string or a fragment; enter the API key in the key field instead.`,
      keys,
    );
  }
  return `${u.origin}${u.pathname.replace(/\/+$/, '')}`;
}

export function resolveModel(ctx: Pick<ErrorContext, 'provider' | 'label'>, req: ChatRequest, fallback: string | undefined): string {
  const model = (req.model ?? '').trim() || (fallback ?? '').trim();
  if (!model) throw configError(ctx.provider, `No model chosen for ${ctx.label}: enter a model name.`);
  return model;
}

export function checkMessages(provider: ProviderId, messages: readonly ChatMessage[]): void {
  if (!Array.isArray(messages) || messages.length === 0) throw configError(provider, 'A chat request needs at least one message.');
}
