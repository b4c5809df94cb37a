/** Starts the build worker and wraps it with Comlink (one per build: cancelling terminates it). */
import * as Comlink from 'comlink';
import type { BuildWorkerApi } from '../../../workers/build-api.ts';

export function startBuildWorker(): { api: Comlink.Remote<BuildWorkerApi>; terminate(): void } {
  const worker = new Worker(new URL('../../../workers/build.worker.ts', import.meta.url), { type: 'module', name: 'build' });
  return { api: Comlink.wrap<BuildWorkerApi>(worker), terminate: () => worker.terminate() };
}
