import { expect, test } from 'vitest';
import { WorkerSlot } from '../../src/ui/clients/worker-slot.ts';

test('a worker starts on first use, stop ends it, the next use starts a fresh one', () => {
  const started: Array<{ id: number; ended: boolean; terminate(): void }> = [];
  const slot = new WorkerSlot(() => {
    const w = { id: started.length, ended: false, terminate() { w.ended = true; } };
    started.push(w);
    return w;
  });
  expect(started).toHaveLength(0);
  const a = slot.get();
  expect(slot.get()).toBe(a);
  expect(started).toHaveLength(1);
  slot.stop();
  expect(a.ended).toBe(true);
  slot.stop();
  const b = slot.get();
  expect(b).not.toBe(a);
  expect(b.ended).toBe(false);
  expect(started.map((w) => w.id)).toEqual([0, 1]);
});
