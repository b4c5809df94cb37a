/** Starts the benchmark worker and wraps it with Comlink. */
import * as Comlink from 'comlink';
import type { BenchWorkerApi } from '../../../workers/bench-api.ts';

export function startBenchWorker(): { api: Comlink.Remote<BenchWorkerApi>; terminate(): void } {
  const worker = new Worker(new URL('../../../workers/bench.worker.ts', import.meta.url), { type: 'module', name: 'bench' });
  return { api: Comlink.wrap<BenchWorkerApi>(worker), terminate: () => worker.terminate() };
}
