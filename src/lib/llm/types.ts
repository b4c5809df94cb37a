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
}

export interface ChatStreamEvent {
  /** Text added since the previous event. */
  delta: string;
}

export type ProviderId = 'groq' | 'openai' | 'anthropic' | 'hf' | 'browser';

export interface ChatProvider {
  readonly id: ProviderId;
  chat(req: ChatRequest): Promise<ChatResult>;
  /** Streams the reply; resolves with the whole result (partial text and finishReason 'aborted' when cut off). */
  stream(req: ChatRequest, onDelta: (e: ChatStreamEvent) => void): Promise<ChatResult>;
}
