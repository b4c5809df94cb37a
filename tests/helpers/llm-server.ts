/**
 * A scripted LLM HTTP server on 127.0.0.1 for tests: it answers each request with the next scripted reply (status,
 * headers such as Retry-After, a JSON or raw body, or an SSE stream that can be cut or stalled mid-way) and records
 * every request (method, path, headers, JSON body). It speaks whatever wire format the script produces; builders
 * below make OpenAI chat-completions (also Groq, Hugging Face, Ollama…) and Anthropic Messages answers.
 * CORS is open (preflight OPTIONS → 204 with Access-Control-Allow-Origin/Headers '*'), so a page can call it too.
 */
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import { listenLocal } from './listen.ts';

export interface RecordedRequest {
  method: string;
  /** Path without the query string. */
  path: string;
  /** Path with the query string, as sent. */
  url: string;
  headers: IncomingHttpHeaders;
  rawBody: string;
  /** The body parsed as JSON (undefined when empty or not JSON). */
  body: unknown;
  /** Milliseconds since the server started. */
  at: number;
}

/** One SSE event: a raw string is written as-is; otherwise `event:` (optional) and `data:` (objects as JSON). */
export type SseItem = string | { event?: string; data: unknown };

export interface ScriptedReply {
  /** Default 200. */
  status?: number;
  headers?: Record<string, string>;
  /** A JSON body. */
  json?: unknown;
  /** A raw body. */
  body?: string;
  /** An event-stream body (Content-Type text/event-stream, chunked). */
  sse?: SseItem[];
  /** Wait before answering (ms). */
  delayMs?: number;
  /** Wait between SSE events (ms). */
  chunkDelayMs?: number;
  /** After this many SSE events, cut the connection (socket destroyed, no end of the chunked body). */
  cutAfter?: number;
  /** With cutAfter: cut only once this settles (e.g. when the test has seen the client show the part sent), not 20 ms later. */
  cutWhen?: Promise<unknown>;
  /** After this many SSE events, stop writing but keep the connection open (a stalled stream). */
  hangAfter?: number;
  /** Never answer (the connection stays open until the client gives up or the server closes). */
  hang?: boolean;
  /** Close the connection without any answer. */
  destroy?: boolean;
}

export type Script = ScriptedReply | ((req: RecordedRequest, index: number) => ScriptedReply);

export interface LlmServer {
  /** `http://127.0.0.1:<port>` (no trailing slash). */
  url: string;
  server: Server;
  /** Every non-OPTIONS request, in order. */
  requests: RecordedRequest[];
  /** CORS preflights (OPTIONS), in order. */
  preflights: RecordedRequest[];
  /** Appends scripted replies, used in order by the next requests. */
  reply(...replies: Script[]): void;
  /** Used when no scripted reply is left (default: 500 "no scripted reply"). */
  fallback: Script;
  /** Forgets recorded requests and pending replies. */
  reset(): void;
  close(): Promise<void>;
}

const CORS: Record<string, string> = {
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Allow-Headers': '*',
  'Access-Control-Allow-Methods': 'GET, POST, OPTIONS',
  'Access-Control-Expose-Headers': '*',
  'Access-Control-Max-Age': '600',
};

const wait = (ms: number) => new Promise<void>((ok) => setTimeout(ok, ms));

export function sseText(item: SseItem): string {
  if (typeof item === 'string') return item;
  const data = typeof item.data === 'string' ? item.data : JSON.stringify(item.data);
  const lines = data.split('\n').map((l) => `data: ${l}`).join('\n');
  return `${item.event ? `event: ${item.event}\n` : ''}${lines}\n\n`;
}

export async function startLlmServer(opts: { replies?: Script[]; fallback?: Script } = {}): Promise<LlmServer> {
  const started = Date.now();
  const queue: Script[] = [...(opts.replies ?? [])];
  const requests: RecordedRequest[] = [];
  const preflights: RecordedRequest[] = [];
  const state = { fallback: opts.fallback ?? ({ status: 500, json: { error: { message: 'no scripted reply' } } } as Script) };

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const rawBody = Buffer.concat(chunks).toString('utf8');
      let body: unknown;
      try {
        body = rawBody ? JSON.parse(rawBody) : undefined;
      } catch {
        body = undefined;
      }
      const url = req.url ?? '/';
      const rec: RecordedRequest = {
        method: req.method ?? 'GET',
        path: url.split('?')[0]!,
        url,
        headers: req.headers,
        rawBody,
        body,
        at: Date.now() - started,
      };
      if (rec.method === 'OPTIONS') {
        preflights.push(rec);
        res.writeHead(204, CORS).end();
        return;
      }
      requests.push(rec);
      const script = queue.length > 0 ? queue.shift()! : state.fallback;
      const reply = typeof script === 'function' ? script(rec, requests.length - 1) : script;
      void answer(res, reply).catch(() => res.destroy());
    });
  });

  async function answer(res: ServerResponse, r: ScriptedReply): Promise<void> {
    if (r.delayMs) await wait(r.delayMs);
    if (r.destroy) {
      res.socket?.destroy();
      return;
    }
    if (r.hang) return;
    const status = r.status ?? 200;
    if (r.sse) {
      res.writeHead(status, { ...CORS, 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache', ...r.headers });
      res.flushHeaders();
      for (let i = 0; i < r.sse.length; i++) {
        if (r.cutAfter !== undefined && i >= r.cutAfter) {
          await (r.cutWhen ?? wait(20)); // let the client read what was sent before the cut
          res.socket?.destroy();
          return;
        }
        if (r.hangAfter !== undefined && i >= r.hangAfter) return;
        if (i > 0 && r.chunkDelayMs) await wait(r.chunkDelayMs);
        if (res.destroyed) return;
        await new Promise<void>((ok) => res.write(sseText(r.sse![i]!), () => ok()));
      }
      if (r.cutAfter !== undefined && r.cutAfter >= r.sse.length) {
        await wait(20);
        res.socket?.destroy();
        return;
      }
      if (r.hangAfter !== undefined && r.hangAfter >= r.sse.length) return;
      res.end();
      return;
    }
    if (r.json !== undefined) {
      res.writeHead(status, { ...CORS, 'Content-Type': 'application/json', ...r.headers });
      res.end(JSON.stringify(r.json));
      return;
    }
    res.writeHead(status, { ...CORS, 'Content-Type': 'text/plain', ...r.headers });
    res.end(r.body ?? '');
  }

  const { origin, close } = await listenLocal(server);
  const api: LlmServer = {
    url: origin,
    server,
    requests,
    preflights,
    reply: (...replies) => void queue.push(...replies),
    get fallback() {
      return state.fallback;
    },
    set fallback(s: Script) {
      state.fallback = s;
    },
    reset: () => {
      requests.length = 0;
      preflights.length = 0;
      queue.length = 0;
    },
    close,
  };
  return api;
}

// --------------------------------------------------------------------------------------------------------------
// Builders for the two wire formats
// --------------------------------------------------------------------------------------------------------------

export interface OpenAIUsage {
  prompt_tokens: number;
  completion_tokens: number;
}

/** A non-streamed OpenAI chat completion. */
export function openaiCompletion(
  text: string,
  o: { model?: string; finishReason?: string; usage?: OpenAIUsage | null } = {},
): ScriptedReply {
  const usage = o.usage === undefined ? { prompt_tokens: 12, completion_tokens: 5 } : o.usage;
  return {
    json: {
      id: 'chatcmpl-test',
      object: 'chat.completion',
      created: 1,
      model: o.model ?? 'test-model',
      choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: o.finishReason ?? 'stop' }],
      ...(usage ? { usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens } } : {}),
    },
  };
}

/**
 * OpenAI-style stream events: a role chunk, one chunk per part, a finish chunk, then (with `usage`) a usage-only
 * chunk with empty choices (stream_options.include_usage) or (with `groqUsage`) usage in the finish chunk's
 * `x_groq`, then `data: [DONE]` unless `done: false`.
 */
export function openaiStream(
  parts: string[],
  o: { model?: string; finishReason?: string | null; usage?: OpenAIUsage; groqUsage?: OpenAIUsage; done?: boolean } = {},
): SseItem[] {
  const model = o.model ?? 'test-model';
  const chunk = (delta: Record<string, unknown>, finish: string | null, extra: Record<string, unknown> = {}) => ({
    data: { id: 'chatcmpl-test', object: 'chat.completion.chunk', created: 1, model, choices: [{ index: 0, delta, finish_reason: finish }], ...extra },
  });
  const items: SseItem[] = [chunk({ role: 'assistant', content: '' }, null)];
  for (const p of parts) items.push(chunk({ content: p }, null));
  if (o.finishReason !== null) {
    items.push(chunk({}, o.finishReason ?? 'stop', o.groqUsage ? { x_groq: { id: 'req_test', usage: o.groqUsage } } : {}));
  }
  if (o.usage) {
    items.push({ data: { id: 'chatcmpl-test', object: 'chat.completion.chunk', created: 1, model, choices: [], usage: o.usage } });
  }
  if (o.done !== false) items.push({ data: '[DONE]' });
  return items;
}

/** An OpenAI-style error answer: `{"error": {"message", "type", "code"}}`. */
export function openaiError(status: number, message: string, headers: Record<string, string> = {}, type = 'error'): ScriptedReply {
  return { status, headers, json: { error: { message, type, code: null } } };
}

/** A non-streamed Anthropic Messages answer. */
export function anthropicMessage(
  text: string,
  o: { model?: string; stopReason?: string; usage?: { input_tokens: number; output_tokens: number } } = {},
): ScriptedReply {
  return {
    json: {
      id: 'msg_test',
      type: 'message',
      role: 'assistant',
      model: o.model ?? 'claude-test',
      content: [{ type: 'text', text }],
      stop_reason: o.stopReason ?? 'end_turn',
      stop_sequence: null,
      usage: o.usage ?? { input_tokens: 20, output_tokens: 7 },
    },
  };
}

/** Anthropic stream events: message_start, ping, a text block with one delta per part, message_delta, message_stop. */
export function anthropicStream(
  parts: string[],
  o: { model?: string; stopReason?: string; inputTokens?: number; outputTokens?: number; stop?: boolean } = {},
): SseItem[] {
  const items: SseItem[] = [
    {
      event: 'message_start',
      data: {
        type: 'message_start',
        message: {
          id: 'msg_test', type: 'message', role: 'assistant', model: o.model ?? 'claude-test', content: [],
          stop_reason: null, stop_sequence: null, usage: { input_tokens: o.inputTokens ?? 20, output_tokens: 1 },
        },
      },
    },
    { event: 'content_block_start', data: { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } } },
    { event: 'ping', data: { type: 'ping' } },
  ];
  for (const p of parts) {
    items.push({ event: 'content_block_delta', data: { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: p } } });
  }
  items.push({ event: 'content_block_stop', data: { type: 'content_block_stop', index: 0 } });
  items.push({
    event: 'message_delta',
    data: { type: 'message_delta', delta: { stop_reason: o.stopReason ?? 'end_turn', stop_sequence: null }, usage: { output_tokens: o.outputTokens ?? 9 } },
  });
  if (o.stop !== false) items.push({ event: 'message_stop', data: { type: 'message_stop' } });
  return items;
}

/** An Anthropic error answer: `{"type": "error", "error": {"type", "message"}}`. */
export function anthropicError(status: number, type: string, message: string, headers: Record<string, string> = {}): ScriptedReply {
  return { status, headers, json: { type: 'error', error: { type, message } } };
}

// --------------------------------------------------------------------------------------------------------------
// Streams that end badly, in either wire format
// --------------------------------------------------------------------------------------------------------------

export type WireFormat = 'openai' | 'anthropic';

/**
 * How a faulty stream goes wrong after its first text part:
 * - 'cut': the connection is destroyed mid-stream (no end of the chunked body);
 * - 'close': the body ends cleanly but without the end marker or a finish reason ([DONE] / message_stop);
 * - 'error-event': the provider's error event (OpenAI-style `data: {"error": …}`, Anthropic `event: error`), then the end;
 * - 'malformed': unreadable events (not JSON, not an object) between the parts of an otherwise complete stream;
 * - 'malformed-only': nothing but unreadable events, then the body ends.
 */
export type StreamFault = 'cut' | 'close' | 'error-event' | 'malformed' | 'malformed-only';

/** The unreadable events 'malformed' inserts (two of them). */
export const MALFORMED_EVENTS: SseItem[] = ['data: {"choices": [ {not json\n\n', 'data: 42\n\n'];

/** The message of the error event 'error-event' sends. */
export const STREAM_ERROR_MESSAGE = 'upstream model crashed';

/** Where the text parts start in a stream of `format` (after OpenAI's role chunk; after Anthropic's three opening events). */
const firstPart = (format: WireFormat) => (format === 'openai' ? 1 : 3);

function errorEvent(format: WireFormat): SseItem {
  return format === 'openai'
    ? { data: { error: { message: STREAM_ERROR_MESSAGE, type: 'server_error', code: null } } }
    : { event: 'error', data: { type: 'error', error: { type: 'api_error', message: STREAM_ERROR_MESSAGE } } };
}

/** A streamed answer of `parts` (at least two) in `format` that goes wrong after the first part as `fault` says. */
export function faultyStream(format: WireFormat, parts: string[], fault: StreamFault): ScriptedReply {
  const full = format === 'openai' ? openaiStream(parts) : anthropicStream(parts);
  const afterFirst = firstPart(format) + 1;
  switch (fault) {
    case 'cut':
      return { sse: full, cutAfter: afterFirst };
    case 'close':
      return { sse: format === 'openai' ? openaiStream(parts, { finishReason: null, done: false }) : full.slice(0, -2) };
    case 'error-event':
      return { sse: [...full.slice(0, afterFirst), errorEvent(format)] };
    case 'malformed':
      return { sse: [...full.slice(0, afterFirst), ...MALFORMED_EVENTS, ...full.slice(afterFirst)] };
    case 'malformed-only':
      return { sse: [...MALFORMED_EVENTS, 'data: also not json\n\n'] };
  }
}
