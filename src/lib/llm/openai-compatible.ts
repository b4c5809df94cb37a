/**
 * Any OpenAI-compatible chat-completions endpoint (OpenAI, Ollama, LM Studio, vLLM, Together, llama.cpp server,
 * the Hugging Face router…) by base URL + optional key, over plain `fetch`.
 *
 * Why fetch and not the `openai` package: the wire format is one POST and an SSE stream; the package would add
 * ~100 kB to the worker bundle, its own retry/timeout policy (which would have to be switched off to keep one
 * policy for every provider), and `x-stainless-*` headers that some local servers' CORS rules reject. With fetch we
 * control exactly what is sent, keep partial text when a stream is cut, and share the code with Hugging Face.
 *
 * The transport shared by every adapter (`runCall`, `runStream`: retries, timeouts, abort, partial streams) is in
 * http-transport.ts; the OpenAI request/response mapping that the Groq adapter reuses is in openai-mapping.ts.
 *
 * Wire details:
 * - POST `{baseUrl}/chat/completions`, `Authorization: Bearer <key>` only when a key is set (never in the URL).
 * - JSON mode: `response_format: {type: 'json_object'}`. OpenAI rejects that unless a message mentions "JSON", so a
 *   one-line system instruction is added when none does (it also helps servers that ignore response_format).
 * - Streaming: `stream: true` and (unless `includeUsage: false`) `stream_options: {include_usage: true}`, so usage
 *   arrives in a last chunk with empty `choices`. A server that ignores `stream` and answers JSON is handled too.
 */
import type { ErrorContext } from './errors.ts';
import type { RetryOptions } from './retry.ts';
import type { SseEvent } from './sse.ts';
import type { ChatProvider, ChatRequest, ChatResult, ChatStreamEvent } from './types.ts';
import {
  checkMessages,
  DEFAULT_TIMEOUT_MS,
  mapFetchError,
  normalizeBaseUrl,
  postForStream,
  postJson,
  resolveModel,
  runCall,
  runStream,
  type CallPolicy,
  type FetchLike,
  type HttpProviderOptions,
} from './http-transport.ts';
import { applyOpenAIEvent, buildOpenAIBody, parseOpenAICompletion } from './openai-mapping.ts';

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
