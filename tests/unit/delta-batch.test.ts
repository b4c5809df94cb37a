import { describe, expect, it } from 'vitest';
import { batchDeltas } from '../../src/lib/rag/delta-batch.ts';
import type { RagEvent } from '../../src/lib/rag/trace.ts';

/** A scheduler the test runs by hand: `tick()` runs the flushes asked for so far. */
function manual() {
  const queue: Array<() => void> = [];
  return { schedule: (f: () => void) => void queue.push(f), tick: () => queue.splice(0).forEach((f) => f()), get waiting() { return queue.length; } };
}

const delta = (d: string, round = 0): RagEvent => ({ type: 'delta', delta: d, round });

describe('batchDeltas', () => {
  it('merges the deltas between two flushes into one event, asking for one flush', () => {
    const out: RagEvent[] = [];
    const clock = manual();
    const emit = batchDeltas((e) => out.push(e), clock.schedule);
    for (const d of ['a', 'b', 'c']) emit(delta(d));
    expect(out).toEqual([]);
    expect(clock.waiting).toBe(1);
    clock.tick();
    expect(out).toEqual([delta('abc')]);
    emit(delta('d'));
    clock.tick();
    expect(out).toEqual([delta('abc'), delta('d')]);
    clock.tick();
    expect(out).toHaveLength(2);
  });

  it('flushes before any other event and between rounds, so the order of events is kept', () => {
    const out: RagEvent[] = [];
    const clock = manual();
    const emit = batchDeltas((e) => out.push(e), clock.schedule);
    emit({ type: 'generation-start', round: 0 });
    emit(delta('x'));
    emit(delta('y'));
    emit({ type: 'step-start', step: 'cite', round: 0 });
    emit(delta('p', 1));
    emit(delta('q', 2));
    clock.tick();
    expect(out).toEqual([
      { type: 'generation-start', round: 0 }, delta('xy'), { type: 'step-start', step: 'cite', round: 0 }, delta('p', 1), delta('q', 2),
    ]);
  });

  it('turns 100,000 one-character deltas into one event per flush, losing none', () => {
    const out: RagEvent[] = [];
    const clock = manual();
    const emit = batchDeltas((e) => out.push(e), clock.schedule);
    for (let i = 0; i < 100_000; i++) {
      emit(delta(String(i % 10)));
      if (i % 25_000 === 24_999) clock.tick();
    }
    expect(out).toHaveLength(4);
    expect(out.map((e) => (e.type === 'delta' ? e.delta : '')).join('')).toBe(Array.from({ length: 100_000 }, (_, i) => String(i % 10)).join(''));
  });
});
