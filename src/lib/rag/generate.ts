/** The generate stage: streams the answer, keeping what arrived when the stream is cut off. */
import type { ChatProvider, ChatRequest, TokenUsage } from '../llm/types.ts';

export interface Generation {
  text: string;
  /** Cut off before the model finished: aborted, or stopped at the token limit. */
  partial: boolean;
  aborted: boolean;
  finishReason: string | null;
  usage: TokenUsage | null;
}

/** Whether `err` is (or follows) an abort. */
export function isAbort(err: unknown, signal?: AbortSignal): boolean {
  return !!signal?.aborted || (err instanceof Error && (err.name === 'AbortError' || err.name === 'TimeoutError')) ||
    (typeof DOMException !== 'undefined' && err instanceof DOMException && err.name === 'AbortError');
}

/**
 * Streams `req` through `provider.stream`, passing each delta to `onDelta`. An abort (the provider resolving with
 * finishReason 'aborted', or rejecting with an AbortError) keeps the text received so far, marked partial.
 */
export async function generateAnswer(
  provider: ChatProvider,
  req: ChatRequest,
  opts: { signal?: AbortSignal; onDelta?: (delta: string) => void } = {},
): Promise<Generation> {
  let received = '';
  try {
    const res = await provider.stream(opts.signal ? { ...req, signal: opts.signal } : req, (e) => {
      if (!e.delta) return;
      received += e.delta;
      opts.onDelta?.(e.delta);
    });
    const aborted = res.finishReason === 'aborted' || !!opts.signal?.aborted;
    return {
      text: res.text || received,
      partial: aborted || res.finishReason === 'length',
      aborted,
      finishReason: aborted ? 'aborted' : res.finishReason,
      usage: res.usage,
    };
  } catch (err) {
    if (!isAbort(err, opts.signal)) throw err;
    return { text: received, partial: true, aborted: true, finishReason: 'aborted', usage: null };
  }
}
