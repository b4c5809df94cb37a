/**
 * Starts the compare worker and wraps it with Comlink. A second compare worker, joined to the first by a message
 * channel, runs the randomization half of each table while the first runs the bootstrap half (two cores at once).
 */
import * as Comlink from 'comlink';
import type { CompareWorkerApi } from '../../../workers/compare-api.ts';

const start = () => new Worker(new URL('../../../workers/compare.worker.ts', import.meta.url), { type: 'module', name: 'compare' });

export function startCompareWorker(): { api: Comlink.Remote<CompareWorkerApi>; terminate(): void } {
  const worker = start();
  const api = Comlink.wrap<CompareWorkerApi>(worker);
  const second = start();
  const channel = new MessageChannel();
  void Comlink.wrap<CompareWorkerApi>(second).serveAsHelper(Comlink.transfer(channel.port2, [channel.port2]));
  void api.attachHelper(Comlink.transfer(channel.port1, [channel.port1]));
  return { api, terminate: () => { worker.terminate(); second.terminate(); } };
}

/**
 * One compare worker for seed B's analysis of a report (`analyze`: H1 intervals and H2's 10,000 resamples and
 * permutations run there, never on the main thread). It has no helper: `analyze` runs on one thread.
 */
export function startAnalysisWorker(): { api: Comlink.Remote<CompareWorkerApi>; terminate(): void } {
  const worker = start();
  return { api: Comlink.wrap<CompareWorkerApi>(worker), terminate: () => worker.terminate() };
}
