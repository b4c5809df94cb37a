/** Embedding speed measured from progress events, and the time the whole corpus takes at that speed. */

export interface EmbedRate {
  /** Passages embedded per second so far. */
  perSecond: number;
  /** Seconds the whole corpus takes at this rate. */
  totalS: number;
  /** Seconds left at this rate. */
  leftS: number;
  /** Passages the rate was measured on. */
  measuredOn: number;
  total: number;
}

/**
 * rate = done / elapsed seconds since embedding started; total time = total / rate; time left = (total − done) / rate.
 * null before anything was embedded (no measurement yet).
 */
export function embedRate(startMs: number, nowMs: number, done: number, total: number): EmbedRate | null {
  if (!(done > 0) || !(nowMs > startMs) || !(total >= done)) return null;
  const perSecond = done / ((nowMs - startMs) / 1000);
  return { perSecond, totalS: total / perSecond, leftS: (total - done) / perSecond, measuredOn: done, total };
}
