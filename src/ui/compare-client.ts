/** Starts the compare worker and wraps it with Comlink. */
import * as Comlink from 'comlink';
import type { CompareWorkerApi } from '../../workers/compare-api.ts';

export function startCompareWorker(): { api: Comlink.Remote<CompareWorkerApi>; terminate(): void } {
  const worker = new Worker(new URL('../../workers/compare.worker.ts', import.meta.url), { type: 'module', name: 'compare' });
  return { api: Comlink.wrap<CompareWorkerApi>(worker), terminate: () => worker.terminate() };
}
