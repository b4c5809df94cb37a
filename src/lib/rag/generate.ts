/** The generate stage: streams the answer, keeping what arrived when the stream is cut off, and why it ended. */
import type { ChatProvider, ChatRequest, ChatResult, StreamEnd, TokenUsage } from '../llm/types.ts';

export interface Generation {
  text: string;
  /** Cut off before the model finished: stopped, cut by the server, an error event, a stall, or the token limit. */
  partial: boolean;
  /** Stopped by the caller's signal (the user), and only then. */
  aborted: boolean;
  /** How the stream ended: 'complete', the user's stop ('signal'), a server cut ('connection'), 'timeout' or 'error'. */
  end: StreamEnd;
  /** The provider's words for an end other than 'complete' (never a key); null when it gave none. */
  endMessage: string | null;
  /** Stream events that could not be read and were skipped. */
  malformedEvents: number;
  finishReason: string | null;
  usage: TokenUsage | null;
}

/** Whether `err` is (or follows) an abort. */
export function isAbort(err: unknown, signal?: AbortSignal): boolean {
  return !!signal?.aborted || (err instanceof Error && (err.name === 'AbortError' || err.name === 'TimeoutError')) ||
    (typeof DOMException !== 'undefined' && err instanceof DOMException && err.name === 'AbortError');
}

/**
 * How `res` ended. A provider that marks a reply 'aborted' without saying why was stopped by the caller when the
 * signal fired, else cut off by the server.
 */
export function streamEndOf(res: ChatResult, signal?: AbortSignal): StreamEnd {
  if (signal?.aborted) return 'signal';
  if (res.partial && res.interruption) return res.interruption;
  return res.partial || res.finishReason === 'aborted' ? 'connection' : 'complete';
}

/**
 * Streams `req` through `provider.stream`, passing each delta to `onDelta`. Any interruption keeps the text
 * received so far, marked partial, with how the stream ended (`end`); only the signal counts as `aborted`.
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
    const end = streamEndOf(res, opts.signal);
    return {
      text: res.text || received,
      partial: end !== 'complete' || res.finishReason === 'length',
      aborted: end === 'signal',
      end,
      endMessage: end === 'complete' ? null : res.interruptionMessage ?? null,
      malformedEvents: res.malformedEvents ?? 0,
      finishReason: end === 'complete' ? res.finishReason : 'aborted',
      usage: res.usage,
    };
  } catch (err) {
    if (!isAbort(err, opts.signal)) throw err;
    return { text: received, partial: true, aborted: true, end: 'signal', endMessage: null, malformedEvents: 0, finishReason: 'aborted', usage: null };
  }
}
