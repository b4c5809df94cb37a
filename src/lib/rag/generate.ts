/** The generate stage: streams the answer, keeping what arrived when the stream is cut off. */
import type { ChatProvider, ChatRequest, TokenUsage } from '../llm/types.ts';

/**
 * The most of an answer that is kept (and streamed on): a model looping for megabytes would otherwise freeze the
 * tab that renders it. Reaching it stops the model.
 */
export const MAX_ANSWER_CHARS = 200_000;

export interface Generation {
  /** At most `MAX_ANSWER_CHARS` characters. */
  text: string;
  /** Cut off before the model finished: aborted, stopped at the token limit, or cut at `MAX_ANSWER_CHARS`. */
  partial: boolean;
  /** Stopped by the caller's signal (not by the length cut). */
  aborted: boolean;
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
 * Streams `req` through `provider.stream`, passing each delta to `onDelta`. An abort (the provider resolving with
 * finishReason 'aborted', or rejecting with an AbortError) keeps the text received so far, marked partial. At
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
  const cutResult = (usage: TokenUsage | null): Generation =>
    ({ text: received, partial: true, aborted: false, finishReason: 'cut', usage, cutAt: received.length });
  try {
    const res = await provider.stream({ ...req, signal }, (e) => {
      if (!e.delta || cut.signal.aborted) return;
      const room = max - received.length;
      const delta = e.delta.slice(0, room);
      received += delta;
      if (delta) opts.onDelta?.(delta);
      if (e.delta.length > room) cut.abort();
    });
    const callerAborted = !!opts.signal?.aborted;
    if (!callerAborted && (cut.signal.aborted || res.text.length > max)) {
      received ||= res.text.slice(0, max);
      return cutResult(res.usage);
    }
    const aborted = res.finishReason === 'aborted' || callerAborted;
    return {
      text: res.text || received,
      partial: aborted || res.finishReason === 'length',
      aborted,
      finishReason: aborted ? 'aborted' : res.finishReason,
      usage: res.usage,
    };
  } catch (err) {
    if (cut.signal.aborted && !opts.signal?.aborted) return cutResult(null);
    if (!isAbort(err, opts.signal)) throw err;
    return { text: received, partial: true, aborted: true, finishReason: 'aborted', usage: null };
  }
}
