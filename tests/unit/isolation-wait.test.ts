import { describe, expect, it, vi } from 'vitest';
import { isolationSettled, type IsolationWindow } from '../../src/ui/app/isolation-wait.ts';

/** A window whose service worker registration answers with `register`; timers are vitest's. */
const win = (reloadPending: boolean, register: () => Promise<unknown>, withSw = true): IsolationWindow & { registered: string[] } => {
  const registered: string[] = [];
  return {
    registered,
    coi: { reloadPending, script: 'https://example.test/coi-serviceworker.js' },
    navigator: withSw ? { serviceWorker: { register: (url: string) => { registered.push(url); return register(); } } } : {},
    setTimeout: (fn, ms) => setTimeout(fn, ms),
  };
};
const settledWithin = async (p: Promise<void>, ms: number) => {
  let done = false;
  void p.then(() => { done = true; });
  await vi.advanceTimersByTimeAsync(ms);
  return done;
};

describe('isolationSettled (the app waits for coi-serviceworker\'s first-visit reload)', () => {
  it('starts at once when no reload is pending, or there are no service workers', async () => {
    vi.useFakeTimers();
    try {
      const w = win(false, () => new Promise(() => {}));
      expect(await settledWithin(isolationSettled(w), 0)).toBe(true);
      expect(w.registered).toEqual([]);
      expect(await settledWithin(isolationSettled(win(true, () => new Promise(() => {}), false)), 0)).toBe(true);
    } finally { vi.useRealTimers(); }
  });

  it('waits while the registration goes through (the reload replaces the page), and starts after maxWaitMs if it never comes', async () => {
    vi.useFakeTimers();
    try {
      const w = win(true, async () => ({}));
      const p = isolationSettled(w, 10_000);
      expect(await settledWithin(p, 9_999)).toBe(false);
      expect(w.registered).toEqual(['https://example.test/coi-serviceworker.js']);
      expect(await settledWithin(p, 1)).toBe(true);
    } finally { vi.useRealTimers(); }
  });

  it('starts at once when the registration is refused or gives none (service workers blocked, the script missing)', async () => {
    vi.useFakeTimers();
    try {
      expect(await settledWithin(isolationSettled(win(true, async () => { throw new Error('blocked'); }), 10_000), 0)).toBe(true);
      // Playwright's `serviceWorkers: 'block'` answers with no registration.
      expect(await settledWithin(isolationSettled(win(true, async () => undefined), 10_000), 0)).toBe(true);
    } finally { vi.useRealTimers(); }
  });
});
