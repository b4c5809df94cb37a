/**
 * Module Web Worker of `npm run bench:models` (bundled by models-browser.ts): configures the project's model layer
 * for onnxruntime-web with the requested thread count, runs models-measure.ts and posts the result with what the
 * runtime actually did (crossOriginIsolated, ORT's numThreads after start-up, Web Workers ORT spawned).
 *
 * One worker per configuration: ONNX Runtime Web starts its WASM (and its thread pool) once per JS context.
 */
import { env } from '@huggingface/transformers';
import { configureModels } from '../../src/lib/models/env.ts';
import { measure, type MeasurePlan, type MeasureResult, type Phase } from './models-measure.ts';

export interface WorkerRequest {
  plan: MeasurePlan;
  hubUrl: string;
  wasmPaths: { mjs: string; wasm: string };
  numThreads: number;
}

export interface WorkerReport {
  result: MeasureResult;
  crossOriginIsolated: boolean;
  hardwareConcurrency: number;
  /** env.wasm.numThreads after ONNX Runtime started: it drops to 1 when threads are not available. */
  ortNumThreads: number | null;
  /** Web Workers created in this worker (ORT's pthreads: numThreads − 1 when threads work). */
  workersSpawned: number;
}

export type WorkerMessage = { type: 'log'; message: string } | { type: 'mark'; phase: Phase } | { type: 'done'; report: WorkerReport } | { type: 'error'; message: string };

interface WorkerScope {
  postMessage(m: WorkerMessage): void;
  addEventListener(type: 'message', f: (e: { data: WorkerRequest }) => void): void;
  crossOriginIsolated: boolean;
  navigator: { hardwareConcurrency: number };
  Worker: new (...args: unknown[]) => object;
}

const scope = globalThis as unknown as WorkerScope;

// Counts the workers ONNX Runtime's thread pool creates (it calls the global Worker constructor at start-up).
let workersSpawned = 0;
const NativeWorker = scope.Worker;
scope.Worker = class extends NativeWorker {
  constructor(...args: unknown[]) {
    super(...args);
    workersSpawned++;
  }
};

scope.addEventListener('message', (e) => {
  void (async () => {
    const { plan, hubUrl, wasmPaths, numThreads } = e.data;
    try {
      configureModels({ remoteHost: hubUrl, allowRemote: true, wasmPaths, numThreads, useBrowserCache: false });
      const result = await measure(
        plan,
        (message) => scope.postMessage({ type: 'log', message }),
        (phase) => scope.postMessage({ type: 'mark', phase }),
      );
      const wasm = env.backends.onnx.wasm as { numThreads?: number } | undefined;
      scope.postMessage({
        type: 'done',
        report: {
          result,
          crossOriginIsolated: scope.crossOriginIsolated,
          hardwareConcurrency: scope.navigator.hardwareConcurrency,
          ortNumThreads: wasm?.numThreads ?? null,
          workersSpawned,
        },
      });
    } catch (err) {
      scope.postMessage({ type: 'error', message: err instanceof Error ? `${err.message}\n${err.stack ?? ''}` : String(err) });
    }
  })();
});
