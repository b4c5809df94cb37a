/** The generate stage: streams the answer, keeping what arrived when the stream is cut off, and why it ended. */
import type { ChatProvider, ChatRequest, ChatResult, StreamEnd, TokenUsage } from '../llm/types.ts';

/**
 * The most of an answer that is kept (and streamed on): a model looping for megabytes would otherwise freeze the
 * tab that renders it. Reaching it stops the model.
 */
export const MAX_ANSWER_CHARS = 200_000;

export interface Generation {
  /** At most `MAX_ANSWER_CHARS` characters. */
  text: string;
  /**
   * Cut off before the model finished: stopped, cut by the server, an error event, a stall, the token limit, or cut
   * at `MAX_ANSWER_CHARS`.
   */
  partial: boolean;
  /** Stopped by the caller's signal (the user), and only then (not by the length cut). */
  aborted: boolean;
  /**
   * How the stream ended: 'complete', the user's stop ('signal'), a server cut ('connection'), 'timeout' or 'error'.
   * The length cut is ours, not the stream's: it counts as 'complete' with `cutAt` set.
   */
  end: StreamEnd;
  /** The provider's words for an end other than 'complete' (never a key); null when it gave none. */
  endMessage: string | null;
  /** Stream events that could not be read and were skipped. */
  malformedEvents: number;
  /** 'cut' when the answer reached `MAX_ANSWER_CHARS`. */
  finishReason: string | null;
  usage: TokenUsage | null;
  /** Set when the answer was cut: the number of characters kept. */
  cutAt?: number;
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
 * received so far, marked partial, with how the stream ended (`end`); only the signal counts as `aborted`. At
 * `maxChars` (default `MAX_ANSWER_CHARS`) the text is cut, no further delta is passed on and the stream is stopped.
 */
export async function generateAnswer(
  provider: ChatProvider,
  req: ChatRequest,
  opts: { signal?: AbortSignal; onDelta?: (delta: string) => void; maxChars?: number } = {},
): Promise<Generation> {
  const max = opts.maxChars ?? MAX_ANSWER_CHARS;
  const cut = new AbortController();
  const signal = opts.signal ? AbortSignal.any([opts.signal, cut.signal]) : cut.signal;
  let received = '';
  const cutResult = (usage: TokenUsage | null, malformedEvents = 0): Generation =>
    ({ text: received, partial: true, aborted: false, end: 'complete', endMessage: null, malformedEvents, finishReason: 'cut', usage, cutAt: received.length });
  try {
    const res = await provider.stream({ ...req, signal }, (e) => {
      if (!e.delta || cut.signal.aborted) return;
      const room = max - received.length;
      const delta = e.delta.slice(0, room);
      received += delta;
      if (delta) opts.onDelta?.(delta);
      if (e.delta.length > room) cut.abort();
    });
    if (!opts.signal?.aborted && (cut.signal.aborted || res.text.length > max)) {
      received ||= res.text.slice(0, max);
      return cutResult(res.usage, res.malformedEvents ?? 0);
    }
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
    if (cut.signal.aborted && !opts.signal?.aborted) return cutResult(null);
    if (!isAbort(err, opts.signal)) throw err;
    return { text: received, partial: true, aborted: true, end: 'signal', endMessage: null, malformedEvents: 0, finishReason: 'aborted', usage: null };
  }
}
