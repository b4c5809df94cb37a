/**
 * Groq through the official `groq-sdk` (OpenAI-style chat completions at `{baseURL}/openai/v1/chat/completions`).
 *
 * The SDK is created with `dangerouslyAllowBrowser: true` (this app is browser-only; the key is the user's own),
 * `maxRetries: 0` (retries follow this module's policy, shared with every provider: Retry-After honoured and
 * capped, injectable sleep), `logLevel: 'off'` (nothing of the request is ever logged) and our timeout.
 * Things the SDK does that matter here (groq-sdk 1.6):
 * - it throws `APIError` subclasses with `status`, `headers` and the parsed body in `error`, and its message is
 *   `"<status> <JSON of the body>"`; we rebuild the message from the status and the body's `error.message`;
 * - its own timeout only covers the wait for response headers, so ours (a `Deadline` signal) also guards the body
 *   and each gap between stream chunks;
 * - its stream iterator cannot skip a malformed event (it throws and logs the raw chunk), ends quietly when the
 *   signal aborts and turns error events into status-less `APIError`s: so a stream is read from the SDK's raw
 *   response (`asResponse()`, after its status checks) with the same SSE parser and event mapping as
 *   OpenAI-compatible servers, and ends for the same, reported reasons (server cut, error event, malformed events);
 * - it reads GROQ_BASE_URL / GROQ_API_KEY / GROQ_LOG from the environment in Node only when not given: we always
 *   pass the base URL, key and log level.
 * Groq reports stream usage in the last chunk's `x_groq.usage` (the SDK has no `stream_options`), and prefers
 * `max_completion_tokens` to the deprecated `max_tokens`.
 */
import Groq from 'groq-sdk';
import type {
  ChatCompletionCreateParamsNonStreaming,
  ChatCompletionCreateParamsStreaming,
} from 'groq-sdk/resources/chat/completions';
import {
  abortedError,
  badResponseError,
  configError,
  errorFromNetwork,
  errorFromStatus,
  isProviderError,
  ProviderError,
  providerMessageFromBody,
  timeoutError,
  type ErrorContext,
} from './errors.ts';
import {
  checkMessages,
  DEFAULT_TIMEOUT_MS,
  normalizeBaseUrl,
  resolveModel,
  runCall,
  runStream,
  streamOf,
  type CallPolicy,
  type HttpProviderOptions,
} from './http-transport.ts';
import { applyOpenAIEvent, buildOpenAIBody, parseOpenAICompletion } from './openai-mapping.ts';
import { parseRetryAfter, type Deadline, type RetryOptions } from './retry.ts';
import type { SseEvent } from './sse.ts';
import type { ChatProvider, ChatRequest, ChatResult, ChatStreamEvent } from './types.ts';

export const GROQ_DEFAULT_BASE_URL = 'https://api.groq.com';
export const GROQ_KEY_PREFIX = 'gsk_';

export type GroqProviderOptions = HttpProviderOptions;

/** Groq's base URL as the SDK wants it: without the `/openai/v1` it appends itself. */
export function groqSdkBaseUrl(baseUrl: string): string {
  return baseUrl.replace(/\/openai\/v1$/i, '').replace(/\/openai$/i, '');
}

export class GroqProvider implements ChatProvider {
  readonly id = 'groq' as const;
  readonly label = 'Groq';
  readonly baseUrl: string;
  readonly model: string | undefined;
  readonly #apiKey: string;
  readonly #client: Groq;
  readonly #timeoutMs: number;
  readonly #retry: RetryOptions;

  constructor(opts: GroqProviderOptions = {}) {
    const key = opts.apiKey?.trim();
    if (!key) throw configError('groq', `Groq needs an API key (it starts with "${GROQ_KEY_PREFIX}"; create one at https://console.groq.com/keys).`);
    this.#apiKey = key;
    this.baseUrl = groqSdkBaseUrl(normalizeBaseUrl('groq', 'Groq', opts.baseUrl ?? GROQ_DEFAULT_BASE_URL, [key]));
    this.model = opts.model?.trim() || undefined;
    this.#timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.#retry = opts.retry ?? {};
    const fetchFn = opts.fetch;
    this.#client = new Groq({
      apiKey: key,
      baseURL: this.baseUrl,
      dangerouslyAllowBrowser: true,
      maxRetries: 0,
      // The SDK requires a positive integer; 0 (= no timeout) becomes a day. Ours fires first anyway.
      timeout: this.#timeoutMs > 0 ? Math.ceil(this.#timeoutMs) + 1_000 : 86_400_000,
      logLevel: 'off',
      ...(opts.headers ? { defaultHeaders: opts.headers } : {}),
      ...(fetchFn ? { fetch: (input: string | URL | Request, init?: RequestInit) => fetchFn(String(input instanceof Request ? input.url : input), init ?? {}) } : {}),
    });
  }

  get url(): string {
    return `${this.baseUrl}/openai/v1/chat/completions`;
  }

  #ctx(model: string | undefined): ErrorContext {
    return {
      provider: 'groq',
      label: 'Groq',
      keys: [this.#apiKey],
      url: this.url,
      model,
      keyPrefix: GROQ_KEY_PREFIX,
      timeoutMs: this.#timeoutMs,
    };
  }

  #policy(ctx: ErrorContext, req: ChatRequest): CallPolicy {
    return { ctx, signal: req.signal, timeoutMs: this.#timeoutMs, retry: this.#retry, mapError: mapGroqError(ctx) };
  }

  async chat(req: ChatRequest): Promise<ChatResult> {
    checkMessages('groq', req.messages);
    const model = resolveModel(this.#ctx(undefined), req, this.model);
    const ctx = this.#ctx(model);
    const body = buildOpenAIBody(req, model, { stream: false, includeUsage: false, maxTokensField: 'max_completion_tokens' });
    return runCall(this.#policy(ctx, req), async (dl) => {
      const completion: unknown = await this.#client.chat.completions.create(
        body as unknown as ChatCompletionCreateParamsNonStreaming,
        { signal: dl.signal },
      );
      return parseOpenAICompletion(ctx, completion, model);
    });
  }

  async stream(req: ChatRequest, onDelta: (e: ChatStreamEvent) => void): Promise<ChatResult> {
    checkMessages('groq', req.messages);
    const model = resolveModel(this.#ctx(undefined), req, this.model);
    const ctx = this.#ctx(model);
    const body = buildOpenAIBody(req, model, { stream: true, includeUsage: false, maxTokensField: 'max_completion_tokens' });
    return runStream<SseEvent>(
      this.#policy(ctx, req),
      async (dl) => {
        const res = await this.#client.chat.completions
          .create(body as unknown as ChatCompletionCreateParamsStreaming, { signal: dl.signal })
          .asResponse();
        return streamOf(ctx, res, dl, (json) => parseOpenAICompletion(ctx, json, model));
      },
      (ev, st) => applyOpenAIEvent(ctx, ev, st),
      onDelta,
    );
  }

  /** What may be shown or saved: never the key. */
  toJSON(): Record<string, unknown> {
    return { id: this.id, label: this.label, baseUrl: this.baseUrl, model: this.model, hasApiKey: true };
  }
}

/** Maps what groq-sdk throws to a ProviderError. */
export function mapGroqError(ctx: ErrorContext): (e: unknown, dl: Deadline) => ProviderError {
  return (e, dl) => {
    if (isProviderError(e)) return e;
    if (dl.callerAborted) return abortedError(ctx);
    if (dl.timedOut || e instanceof Groq.APIConnectionTimeoutError) return timeoutError(ctx);
    if (e instanceof Groq.APIUserAbortError) return abortedError(ctx);
    if (e instanceof Groq.APIConnectionError) return errorFromNetwork(ctx, e.cause ?? e);
    if (e instanceof Groq.APIError) {
      if (typeof e.status === 'number') {
        return errorFromStatus(ctx, e.status, e.error, parseRetryAfter(e.headers ?? null));
      }
      // An error event inside a stream: no status.
      const pm = providerMessageFromBody({ error: e.error }) ?? 'unknown error';
      return new ProviderError(`Groq reported an error in the middle of the answer: ${pm}`, {
        kind: 'server',
        provider: 'groq',
        providerMessage: pm,
      }, ctx.keys);
    }
    if (e instanceof Groq.GroqError) return badResponseError(ctx, e.message);
    if (e instanceof SyntaxError) return badResponseError(ctx, 'a reply or stream event is not JSON');
    return errorFromNetwork(ctx, e);
  };
}
