/**
 * Anthropic Messages API, straight from the browser with fetch.
 *
 * - POST `{baseUrl}/v1/messages` (default base https://api.anthropic.com) with `x-api-key`, `anthropic-version:
 *   2023-06-01` and `anthropic-dangerous-direct-browser-access: true` (Anthropic's opt-in for CORS requests).
 * - System messages become the top-level `system` string; consecutive messages of the same role are merged.
 *   `max_tokens` is required by the API: `maxTokens` or `defaultMaxTokens` (4096). Temperature is clamped to [0, 1].
 * - Stop reasons are mapped to the OpenAI vocabulary: end_turn / stop_sequence → 'stop', max_tokens → 'length'
 *   (others, e.g. 'refusal', pass through).
 * - JSON mode: the API has no response_format. We add an instruction to the system prompt and, unless
 *   `jsonPrefill: false`, prefill the assistant turn with '{' (the documented way to force a JSON object); the
 *   returned text, and the first streamed delta, start with that '{'. Prefill is skipped when the conversation
 *   already ends with an assistant turn. Without prefill, Markdown code fences around the object are removed from
 *   `chat()` results.
 * - Streaming events: message_start (input usage), content_block_delta/text_delta (text), message_delta (stop reason,
 *   output usage), message_stop (end), ping (ignored), error (overloaded_error etc.).
 */
import {
  badResponseError,
  configError,
  ProviderError,
  providerMessageFromBody,
  type ErrorContext,
  type ProviderErrorKind,
} from './errors.ts';
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
  type StreamState,
} from './http-transport.ts';
import { parseEventData } from './openai-mapping.ts';
import type { RetryOptions } from './retry.ts';
import type { SseEvent } from './sse.ts';
import type { ChatMessage, ChatProvider, ChatRequest, ChatResult, ChatStreamEvent, TokenUsage } from './types.ts';

export const ANTHROPIC_DEFAULT_BASE_URL = 'https://api.anthropic.com';
export const ANTHROPIC_VERSION = '2023-06-01';
export const ANTHROPIC_KEY_PREFIX = 'sk-ant-';
export const ANTHROPIC_JSON_INSTRUCTION =
  'Respond with a single valid JSON object and nothing else: no prose before or after it, no Markdown code fences.';

export interface AnthropicProviderOptions extends HttpProviderOptions {
  /** `max_tokens` when a request sets none (default 4096). */
  defaultMaxTokens?: number | undefined;
  /** Prefill the reply with '{' in JSON mode (default true). */
  jsonPrefill?: boolean | undefined;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

export function mapStopReason(r: unknown): string | null {
  if (typeof r !== 'string' || !r) return null;
  if (r === 'end_turn' || r === 'stop_sequence') return 'stop';
  if (r === 'max_tokens') return 'length';
  return r;
}

function usageOf(u: unknown, prev: TokenUsage | null): TokenUsage | null {
  if (!isObj(u)) return prev;
  const i = u['input_tokens'];
  const o = u['output_tokens'];
  if (typeof i !== 'number' && typeof o !== 'number') return prev;
  return {
    inputTokens: typeof i === 'number' ? i : (prev?.inputTokens ?? 0),
    outputTokens: typeof o === 'number' ? o : (prev?.outputTokens ?? 0),
  };
}

export interface AnthropicBody {
  model: string;
  max_tokens: number;
  messages: { role: 'user' | 'assistant'; content: string }[];
  system?: string;
  temperature?: number;
  stream?: boolean;
}

/** The Messages API body for a request, and the prefill the reply continues (or ''). */
export function buildAnthropicBody(
  req: ChatRequest,
  model: string,
  o: { stream: boolean; defaultMaxTokens: number; jsonPrefill: boolean },
): { body: AnthropicBody; prefill: string } {
  const system = req.messages.filter((m) => m.role === 'system').map((m) => m.content);
  if (req.json) system.push(ANTHROPIC_JSON_INSTRUCTION);
  const messages: AnthropicBody['messages'] = [];
  for (const m of req.messages as ChatMessage[]) {
    if (m.role === 'system') continue;
    const last = messages[messages.length - 1];
    if (last && last.role === m.role) last.content += `\n\n${m.content}`;
    else messages.push({ role: m.role, content: m.content });
  }
  let prefill = '';
  if (req.json && o.jsonPrefill && messages.length > 0 && messages[messages.length - 1]!.role === 'user') {
    prefill = '{';
    messages.push({ role: 'assistant', content: prefill });
  }
  const body: AnthropicBody = { model, max_tokens: req.maxTokens ?? o.defaultMaxTokens, messages };
  if (system.length > 0) body.system = system.join('\n\n');
  if (req.temperature !== undefined) body.temperature = Math.min(1, Math.max(0, req.temperature));
  if (o.stream) body.stream = true;
  return { body, prefill };
}

/** Removes a Markdown code fence around a whole reply (```json … ```). */
export function stripCodeFence(text: string): string {
  const m = /^\s*```[a-zA-Z]*\s*\n([\s\S]*?)\n?```\s*$/.exec(text);
  return m ? m[1]! : text;
}

export function parseAnthropicMessage(ctx: ErrorContext, json: unknown, model: string, prefill: string): ChatResult {
  if (!isObj(json)) throw badResponseError(ctx, 'the body is not a JSON object');
  if (json['type'] === 'error' || isObj(json['error'])) throw anthropicEventError(ctx, json);
  const content = json['content'];
  if (!Array.isArray(content)) throw badResponseError(ctx, 'no content array');
  const text = content.map((b) => (isObj(b) && b['type'] === 'text' && typeof b['text'] === 'string' ? b['text'] : '')).join('');
  return {
    text: prefill + text,
    usage: usageOf(json['usage'], null),
    finishReason: mapStopReason(json['stop_reason']),
    model: typeof json['model'] === 'string' && json['model'] ? json['model'] : model,
  };
}

/** An `error` event (or 200 body) → ProviderError; overloaded and api errors are retryable. */
function anthropicEventError(ctx: ErrorContext, data: unknown): ProviderError {
  const err = isObj(data) && isObj(data['error']) ? data['error'] : isObj(data) ? data : {};
  const type = typeof err['type'] === 'string' ? err['type'] : 'error';
  const pm = providerMessageFromBody({ error: err }) ?? type;
  const kinds: Record<string, ProviderErrorKind> = {
    overloaded_error: 'server',
    api_error: 'server',
    rate_limit_error: 'rate-limit',
    authentication_error: 'auth',
    permission_error: 'auth',
    not_found_error: 'not-found',
    request_too_large: 'bad-request',
    invalid_request_error: 'bad-request',
  };
  const kind = kinds[type] ?? 'server';
  const what = type === 'overloaded_error' ? 'is overloaded' : 'reported an error';
  return new ProviderError(`Anthropic ${what} (${type}: ${pm}). Try again in a moment, or choose another model.`, {
    kind,
    provider: 'anthropic',
    providerMessage: pm,
    retryable: kind === 'server' || kind === 'rate-limit',
  }, ctx.keys);
}

/** Applies one Messages-API stream event; returns its text. An event that is not a JSON object is counted and skipped. */
export function applyAnthropicEvent(ctx: ErrorContext, ev: SseEvent, st: StreamState): string {
  const data = ev.data.trim();
  if (!data) return '';
  const obj = parseEventData(ev, st);
  if (obj === undefined) return '';
  if (!isObj(obj)) {
    st.malformed++;
    return '';
  }
  const type = ev.event ?? (typeof obj['type'] === 'string' ? obj['type'] : '');
  switch (type) {
    case 'message_start': {
      const msg = obj['message'];
      if (isObj(msg)) {
        if (typeof msg['model'] === 'string' && msg['model']) st.model = msg['model'];
        st.usage = usageOf(msg['usage'], st.usage);
      }
      return '';
    }
    case 'content_block_delta': {
      const d = obj['delta'];
      return isObj(d) && d['type'] === 'text_delta' && typeof d['text'] === 'string' ? d['text'] : '';
    }
    case 'message_delta': {
      const d = obj['delta'];
      if (isObj(d)) st.finishReason = mapStopReason(d['stop_reason']) ?? st.finishReason;
      st.usage = usageOf(obj['usage'], st.usage);
      return '';
    }
    case 'message_stop':
      st.done = true;
      return '';
    case 'error':
      throw anthropicEventError(ctx, obj);
    default:
      return ''; // ping, content_block_start/stop, future events
  }
}

export class AnthropicProvider implements ChatProvider {
  readonly id = 'anthropic' as const;
  readonly label = 'Anthropic';
  readonly baseUrl: string;
  readonly model: string | undefined;
  readonly #apiKey: string;
  readonly #fetch: FetchLike;
  readonly #timeoutMs: number;
  readonly #retry: RetryOptions;
  readonly #headers: Record<string, string>;
  readonly #defaultMaxTokens: number;
  readonly #jsonPrefill: boolean;

  constructor(opts: AnthropicProviderOptions = {}) {
    const key = opts.apiKey?.trim();
    if (!key) {
      throw configError('anthropic', `Anthropic needs an API key (it starts with "${ANTHROPIC_KEY_PREFIX}"; create one at https://console.anthropic.com/settings/keys).`);
    }
    this.#apiKey = key;
    this.baseUrl = normalizeBaseUrl('anthropic', 'Anthropic', opts.baseUrl ?? ANTHROPIC_DEFAULT_BASE_URL, [key]).replace(/\/v1$/, '');
    this.model = opts.model?.trim() || undefined;
    this.#fetch = opts.fetch ?? ((input, init) => globalThis.fetch(input, init));
    this.#timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.#retry = opts.retry ?? {};
    this.#headers = { ...(opts.headers ?? {}) };
    this.#defaultMaxTokens = opts.defaultMaxTokens ?? 4096;
    this.#jsonPrefill = opts.jsonPrefill ?? true;
  }

  get url(): string {
    return `${this.baseUrl}/v1/messages`;
  }

  #ctx(model: string | undefined): ErrorContext {
    return {
      provider: 'anthropic',
      label: 'Anthropic',
      keys: [this.#apiKey],
      url: this.url,
      model,
      keyPrefix: ANTHROPIC_KEY_PREFIX,
      timeoutMs: this.#timeoutMs,
    };
  }

  #requestHeaders(): Record<string, string> {
    return {
      'Content-Type': 'application/json',
      ...this.#headers,
      'x-api-key': this.#apiKey,
      'anthropic-version': ANTHROPIC_VERSION,
      'anthropic-dangerous-direct-browser-access': 'true',
    };
  }

  #policy(ctx: ErrorContext, req: ChatRequest): CallPolicy {
    return { ctx, signal: req.signal, timeoutMs: this.#timeoutMs, retry: this.#retry, mapError: mapFetchError(ctx) };
  }

  async chat(req: ChatRequest): Promise<ChatResult> {
    checkMessages('anthropic', req.messages);
    const model = resolveModel(this.#ctx(undefined), req, this.model);
    const ctx = this.#ctx(model);
    const { body, prefill } = buildAnthropicBody(req, model, {
      stream: false,
      defaultMaxTokens: this.#defaultMaxTokens,
      jsonPrefill: this.#jsonPrefill,
    });
    return runCall(this.#policy(ctx, req), async (dl) => {
      const json = await postJson(ctx, this.#fetch, this.url, this.#requestHeaders(), body, dl);
      const result = parseAnthropicMessage(ctx, json, model, prefill);
      return req.json && !prefill ? { ...result, text: stripCodeFence(result.text) } : result;
    });
  }

  async stream(req: ChatRequest, onDelta: (e: ChatStreamEvent) => void): Promise<ChatResult> {
    checkMessages('anthropic', req.messages);
    const model = resolveModel(this.#ctx(undefined), req, this.model);
    const ctx = this.#ctx(model);
    const { body, prefill } = buildAnthropicBody(req, model, {
      stream: true,
      defaultMaxTokens: this.#defaultMaxTokens,
      jsonPrefill: this.#jsonPrefill,
    });
    let pending = prefill;
    return runStream<SseEvent>(
      this.#policy(ctx, req),
      (dl) => {
        pending = prefill; // a retry starts the reply again
        return postForStream(ctx, this.#fetch, this.url, this.#requestHeaders(), body, dl, (json) =>
          parseAnthropicMessage(ctx, json, model, prefill),
        );
      },
      (ev, st) => {
        const text = applyAnthropicEvent(ctx, ev, st);
        if (!text) return '';
        const out = pending + text;
        pending = '';
        return out;
      },
      onDelta,
    );
  }

  /** What may be shown or saved: never the key. */
  toJSON(): Record<string, unknown> {
    return { id: this.id, label: this.label, baseUrl: this.baseUrl, model: this.model, hasApiKey: true };
  }
}
