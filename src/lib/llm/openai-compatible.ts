/**
 * Any OpenAI-compatible chat-completions endpoint (OpenAI, Ollama, LM Studio, vLLM, Together, llama.cpp server,
 * the Hugging Face router…) by base URL + optional key, over plain `fetch`.
 *
 * Why fetch and not the `openai` package: the wire format is one POST and an SSE stream; the package would add
 * ~100 kB to the worker bundle, its own retry/timeout policy (which would have to be switched off to keep one
 * policy for every provider), and `x-stainless-*` headers that some local servers' CORS rules reject. With fetch we
 * control exactly what is sent, keep partial text when a stream is cut, and share the code with Hugging Face.
 *
 * This module also holds the transport shared by every adapter (`runCall`, `runStream`: retries, timeouts, abort,
 * partial streams) and the OpenAI request/response mapping that the Groq adapter reuses.
 *
 * Wire details:
 * - POST `{baseUrl}/chat/completions`, `Authorization: Bearer <key>` only when a key is set (never in the URL).
 * - JSON mode: `response_format: {type: 'json_object'}`. OpenAI rejects that unless a message mentions "JSON", so a
 *   one-line system instruction is added when none does (it also helps servers that ignore response_format).
 * - Streaming: `stream: true` and (unless `includeUsage: false`) `stream_options: {include_usage: true}`, so usage
 *   arrives in a last chunk with empty `choices`. A server that ignores `stream` and answers JSON is handled too.
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
  providerMessageFromBody,
  streamCutMessage,
  timeoutError,
  type ErrorContext,
} from './errors.ts';
import { redactSecrets, redactUrlForDisplay } from './redact.ts';
import { Deadline, parseRetryAfter, withRetry, type RetryOptions } from './retry.ts';
import { readSse, type SseEvent } from './sse.ts';
import type {
  ChatMessage,
  ChatProvider,
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

// ---------------------------------------------------------------------------------------------------------------
// OpenAI chat-completions mapping (also used by groq.ts)
// ---------------------------------------------------------------------------------------------------------------

export const JSON_INSTRUCTION = 'Respond with a single valid JSON object and nothing else.';

/** The messages, plus a JSON instruction when JSON mode is on and no message mentions JSON. */
export function withJsonInstruction(messages: readonly ChatMessage[], json: boolean | undefined): ChatMessage[] {
  const out = messages.map((m) => ({ role: m.role, content: m.content }));
  if (json && !out.some((m) => /json/i.test(m.content))) out.unshift({ role: 'system', content: JSON_INSTRUCTION });
  return out;
}

export interface OpenAIBodyOptions {
  stream: boolean;
  includeUsage: boolean;
  maxTokensField: 'max_tokens' | 'max_completion_tokens';
}

export function buildOpenAIBody(req: ChatRequest, model: string, o: OpenAIBodyOptions): Record<string, unknown> {
  const body: Record<string, unknown> = { model, messages: withJsonInstruction(req.messages, req.json) };
  if (req.temperature !== undefined) body['temperature'] = req.temperature;
  if (req.maxTokens !== undefined) body[o.maxTokensField] = req.maxTokens;
  if (req.json) body['response_format'] = { type: 'json_object' };
  if (o.stream) {
    body['stream'] = true;
    if (o.includeUsage) body['stream_options'] = { include_usage: true };
  }
  return body;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** OpenAI `usage` ({prompt_tokens, completion_tokens}) → TokenUsage; null when absent. */
export function openAIUsage(u: unknown): TokenUsage | null {
  if (!isObj(u)) return null;
  const i = u['prompt_tokens'];
  const o = u['completion_tokens'];
  if (typeof i !== 'number' && typeof o !== 'number') return null;
  return { inputTokens: typeof i === 'number' ? i : 0, outputTokens: typeof o === 'number' ? o : 0 };
}

function contentText(c: unknown): string {
  if (typeof c === 'string') return c;
  if (Array.isArray(c)) return c.map((p) => (isObj(p) && typeof p['text'] === 'string' ? p['text'] : '')).join('');
  return '';
}

/** A 200 body that carries `{error: …}` instead of a completion (some proxies and servers do this). */
function inBodyError(ctx: ErrorContext, body: Obj): ProviderError {
  const pm = providerMessageFromBody(body) ?? 'unknown error';
  return new ProviderError(`${ctx.label} reported an error: ${pm}`, { kind: 'server', provider: ctx.provider, providerMessage: pm }, ctx.keys);
}

/** A non-streamed chat completion → ChatResult. */
export function parseOpenAICompletion(ctx: ErrorContext, json: unknown, model: string): ChatResult {
  if (!isObj(json)) throw badResponseError(ctx, 'the body is not a JSON object');
  if (json['error'] !== undefined && json['error'] !== null) throw inBodyError(ctx, json);
  const choices = json['choices'];
  const first = Array.isArray(choices) ? choices[0] : undefined;
  if (!isObj(first) || !isObj(first['message'])) throw badResponseError(ctx, 'no choices[0].message');
  const usage = openAIUsage(json['usage']) ?? (isObj(json['x_groq']) ? openAIUsage(json['x_groq']['usage']) : null);
  return {
    text: contentText(first['message']['content']),
    usage,
    finishReason: typeof first['finish_reason'] === 'string' ? first['finish_reason'] : null,
    model: typeof json['model'] === 'string' && json['model'] ? json['model'] : model,
  };
}

/** Applies one parsed stream chunk to the state; returns its text. A chunk that is not an object is counted and skipped. */
export function applyOpenAIChunk(ctx: ErrorContext, chunk: unknown, st: StreamState): string {
  if (!isObj(chunk)) {
    st.malformed++;
    return '';
  }
  if (chunk['error'] !== undefined && chunk['error'] !== null) {
    const pm = providerMessageFromBody(chunk) ?? 'unknown error';
    throw new ProviderError(`${ctx.label} reported an error in the middle of the answer: ${pm}`, {
      kind: 'server',
      provider: ctx.provider,
      providerMessage: pm,
    }, ctx.keys);
  }
  if (typeof chunk['model'] === 'string' && chunk['model']) st.model = chunk['model'];
  const usage = openAIUsage(chunk['usage']) ?? (isObj(chunk['x_groq']) ? openAIUsage(chunk['x_groq']['usage']) : null);
  if (usage) st.usage = usage;
  const choices = chunk['choices'];
  const first = Array.isArray(choices) ? choices[0] : undefined;
  if (!isObj(first)) return '';
  if (typeof first['finish_reason'] === 'string' && first['finish_reason']) st.finishReason = first['finish_reason'];
  const delta = first['delta'];
  return isObj(delta) ? contentText(delta['content']) : '';
}

/** Handles one SSE event of an OpenAI-style stream. */
export function applyOpenAIEvent(ctx: ErrorContext, ev: SseEvent, st: StreamState): string {
  const data = ev.data.trim();
  if (!data) return '';
  if (data === '[DONE]') {
    st.done = true;
    return '';
  }
  const chunk = parseEventData(ev, st);
  if (chunk === undefined) return '';
  return applyOpenAIChunk(ctx, ev.event === 'error' && isObj(chunk) && chunk['error'] === undefined ? { error: chunk } : chunk, st);
}

/** The JSON of an event's data; undefined (and counted in `st.malformed`) when it is not JSON. */
export function parseEventData(ev: SseEvent, st: StreamState): unknown {
  try {
    return JSON.parse(ev.data);
  } catch {
    st.malformed++;
    return undefined;
  }
}

// ---------------------------------------------------------------------------------------------------------------
// The adapter
// ---------------------------------------------------------------------------------------------------------------

export interface OpenAICompatibleOptions extends HttpProviderOptions {
  /** 'openai' (default) or 'hf' when used for the Hugging Face router. */
  id?: 'openai' | 'hf' | undefined;
  /** Name used in messages (default 'OpenAI-compatible server'). */
  label?: string | undefined;
  /** Ask for usage in the last stream chunk (default true; turn off for a server that rejects `stream_options`). */
  includeUsage?: boolean | undefined;
  /** Field for the output limit: 'max_tokens' (default; widest support) or 'max_completion_tokens' (OpenAI o-series, GPT-5). */
  maxTokensField?: 'max_tokens' | 'max_completion_tokens' | undefined;
  /** Shown when a key is rejected, e.g. 'hf_'. */
  keyPrefix?: string | undefined;
  /** Extra advice when a key is rejected (401/403). */
  authHint?: string | undefined;
}

export const OPENAI_DEFAULT_BASE_URL = 'https://api.openai.com/v1';

export class OpenAICompatibleProvider implements ChatProvider {
  readonly id: 'openai' | 'hf';
  readonly label: string;
  readonly baseUrl: string;
  readonly model: string | undefined;
  readonly #apiKey: string | undefined;
  readonly #fetch: FetchLike;
  readonly #timeoutMs: number;
  readonly #retry: RetryOptions;
  readonly #headers: Record<string, string>;
  readonly #includeUsage: boolean;
  readonly #maxTokensField: 'max_tokens' | 'max_completion_tokens';
  readonly #keyPrefix: string | undefined;
  readonly #authHint: string | undefined;

  constructor(opts: OpenAICompatibleOptions = {}) {
    this.id = opts.id ?? 'openai';
    this.label = opts.label ?? 'OpenAI-compatible server';
    this.#apiKey = opts.apiKey?.trim() || undefined;
    this.baseUrl = normalizeBaseUrl(this.id, this.label, opts.baseUrl ?? OPENAI_DEFAULT_BASE_URL, [this.#apiKey]);
    this.model = opts.model?.trim() || undefined;
    this.#fetch = opts.fetch ?? ((input, init) => globalThis.fetch(input, init));
    this.#timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.#retry = opts.retry ?? {};
    this.#headers = { ...(opts.headers ?? {}) };
    this.#includeUsage = opts.includeUsage ?? true;
    this.#maxTokensField = opts.maxTokensField ?? 'max_tokens';
    this.#keyPrefix = opts.keyPrefix;
    this.#authHint = opts.authHint;
  }

  get url(): string {
    return `${this.baseUrl}/chat/completions`;
  }

  #ctx(model: string | undefined): ErrorContext {
    return {
      provider: this.id,
      label: this.label,
      keys: [this.#apiKey],
      url: this.url,
      model,
      keyPrefix: this.#keyPrefix,
      authHint: this.#authHint,
      timeoutMs: this.#timeoutMs,
    };
  }

  #requestHeaders(): Record<string, string> {
    const h: Record<string, string> = { 'Content-Type': 'application/json', ...this.#headers };
    if (this.#apiKey) h['Authorization'] = `Bearer ${this.#apiKey}`;
    return h;
  }

  async chat(req: ChatRequest): Promise<ChatResult> {
    checkMessages(this.id, req.messages);
    const model = resolveModel(this.#ctx(undefined), req, this.model);
    const ctx = this.#ctx(model);
    const body = buildOpenAIBody(req, model, { stream: false, includeUsage: false, maxTokensField: this.#maxTokensField });
    const policy: CallPolicy = { ctx, signal: req.signal, timeoutMs: this.#timeoutMs, retry: this.#retry, mapError: mapFetchError(ctx) };
    return runCall(policy, async (dl) => {
      const json = await postJson(ctx, this.#fetch, this.url, this.#requestHeaders(), body, dl);
      return parseOpenAICompletion(ctx, json, model);
    });
  }

  async stream(req: ChatRequest, onDelta: (e: ChatStreamEvent) => void): Promise<ChatResult> {
    checkMessages(this.id, req.messages);
    const model = resolveModel(this.#ctx(undefined), req, this.model);
    const ctx = this.#ctx(model);
    const body = buildOpenAIBody(req, model, { stream: true, includeUsage: this.#includeUsage, maxTokensField: this.#maxTokensField });
    const policy: CallPolicy = { ctx, signal: req.signal, timeoutMs: this.#timeoutMs, retry: this.#retry, mapError: mapFetchError(ctx) };
    return runStream<SseEvent>(
      policy,
      (dl) => postForStream(ctx, this.#fetch, this.url, this.#requestHeaders(), body, dl, (json) => parseOpenAICompletion(ctx, json, model)),
      (ev, st) => applyOpenAIEvent(ctx, ev, st),
      onDelta,
    );
  }

  /** What may be shown or saved: never the key. */
  toJSON(): Record<string, unknown> {
    return { id: this.id, label: this.label, baseUrl: this.baseUrl, model: this.model, hasApiKey: this.#apiKey !== undefined };
  }
}
