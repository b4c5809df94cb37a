/**
 * The OpenAI chat-completions request/response mapping (openai-compatible.ts; also used by groq.ts): the body with
 * JSON mode, usage, the completion and the stream's chunks read into a ChatResult.
 */
import { badResponseError, ProviderError, providerMessageFromBody, type ErrorContext } from './errors.ts';
import type { SseEvent } from './sse.ts';
import type { ChatMessage, ChatRequest, ChatResult, TokenUsage } from './types.ts';
import type { StreamState } from './http-transport.ts';

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
