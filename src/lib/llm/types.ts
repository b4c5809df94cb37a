/** The one interface every LLM provider implements (chat messages, JSON mode, streaming, abort, token usage). */

export type Role = 'system' | 'user' | 'assistant';

export interface ChatMessage {
  role: Role;
  content: string;
}

export interface ChatRequest {
  messages: ChatMessage[];
  /** Provider's model name. */
  model: string;
  temperature?: number;
  maxTokens?: number;
  /** Ask for a JSON object reply (OpenAI `response_format: json_object`; emulated by instruction elsewhere). */
  json?: boolean;
  signal?: AbortSignal;
}

export interface TokenUsage {
  inputTokens: number;
  outputTokens: number;
}

export interface ChatResult {
  text: string;
  usage: TokenUsage | null;
  /** 'stop' | 'length' | … as the provider reports it; 'aborted' when cut off by the signal or the connection. */
  finishReason: string | null;
  model: string;
  /**
   * True when the reply was cut short (abort signal, connection lost or stalled mid-stream, error event mid-stream);
   * `text` then holds everything that arrived and `finishReason` is 'aborted'. Absent or false for a complete reply.
   */
  partial?: boolean;
  /** Why a partial reply stopped (only with `partial: true`). */
  interruption?: StreamInterruption;
  /** What went wrong, in words, for a partial reply (never contains an API key). */
  interruptionMessage?: string;
  /** Stream events that could not be read (not JSON, not an object): skipped, counted here. Absent when none. */
  malformedEvents?: number;
}

/**
 * 'signal': the caller's AbortSignal fired (the user stopped); 'connection': the server closed or broke the
 * connection before the end marker ([DONE], message_stop);
 * 'timeout': no data for longer than the timeout; 'error': the provider sent an error event mid-stream.
 */
export type StreamInterruption = 'signal' | 'connection' | 'timeout' | 'error';

/** How a streamed reply ended: 'complete' (the end marker or a finish reason arrived) or how it was interrupted. */
export type StreamEnd = 'complete' | StreamInterruption;

export interface ChatStreamEvent {
  /** Text added since the previous event. */
  delta: string;
}

export type ProviderId = 'groq' | 'openai' | 'anthropic' | 'hf' | 'browser';

/** Providers reached over HTTP with a base URL and (usually) an API key; see `registry.ts`. */
export type RemoteProviderId = Exclude<ProviderId, 'browser'>;

export interface ChatProvider {
  readonly id: ProviderId;
  chat(req: ChatRequest): Promise<ChatResult>;
  /** Streams the reply; resolves with the whole result (partial text and finishReason 'aborted' when cut off). */
  stream(req: ChatRequest, onDelta: (e: ChatStreamEvent) => void): Promise<ChatResult>;
}
