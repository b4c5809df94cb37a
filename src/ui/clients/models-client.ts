/** Starts the models worker and wraps it with Comlink. */
import * as Comlink from 'comlink';
import type { ModelsWorkerApi } from '../../../workers/models-api.ts';

export interface ModelsClient {
  api: Comlink.Remote<ModelsWorkerApi>;
  /** A new port connected to the models worker, for another worker to call it directly. */
  port(): MessagePort;
  terminate(): void;
}

export function startModelsWorker(): ModelsClient {
  const worker = new Worker(new URL('../../../workers/models.worker.ts', import.meta.url), { type: 'module', name: 'models' });
  const api = Comlink.wrap<ModelsWorkerApi>(worker);
  return {
    api,
    port() {
      const { port1, port2 } = new MessageChannel();
      api.connect(Comlink.transfer(port1, [port1]));
      return port2;
    },
    terminate: () => worker.terminate(),
  };
}
