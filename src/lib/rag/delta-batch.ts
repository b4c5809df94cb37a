/**
 * Batches a streamed answer's deltas: consecutive deltas of one round become one event per flush, so a model
 * sending thousands of tiny deltas costs one message (worker → page) or one render (page) per flush, not one per
 * delta. Any other event flushes first, so the order of events is kept. `schedule` decides when a flush happens
 * (the worker: the next task; the page: the next animation frame).
 */
import type { RagEvent } from './trace.ts';

export function batchDeltas(onEvent: (e: RagEvent) => void, schedule: (flush: () => void) => void): (e: RagEvent) => void {
  let pending: { delta: string; round: number } | null = null;
  let scheduled = false;
  const flush = () => {
    scheduled = false;
    if (!pending) return;
    const { delta, round } = pending;
    pending = null;
    onEvent({ type: 'delta', delta, round });
  };
  return (e) => {
    if (e.type !== 'delta') {
      flush();
      onEvent(e);
      return;
    }
    if (pending && pending.round !== e.round) flush();
    pending = pending ? { delta: pending.delta + e.delta, round: e.round } : { delta: e.delta, round: e.round };
    if (!scheduled) {
      scheduled = true;
      schedule(flush);
    }
  };
}
