/** Starts the search worker and wraps it with Comlink. Cancelling long work = terminating the worker. */
import * as Comlink from 'comlink';
import type { SearchWorkerApi } from '../../../workers/search-api.ts';

export interface SearchClient {
  api: Comlink.Remote<SearchWorkerApi>;
  terminate(): void;
}

export function startSearchWorker(): SearchClient {
  const worker = new Worker(new URL('../../../workers/search.worker.ts', import.meta.url), { type: 'module', name: 'search' });
  return { api: Comlink.wrap<SearchWorkerApi>(worker), terminate: () => worker.terminate() };
}
