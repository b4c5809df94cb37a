/** The typed surface of workers/models.worker.ts. */
import type { ModelDownload } from '../src/lib/models/download-size.ts';
import type { Device, Dtype, FileProgress, ModelSpec, ModelTask, NliProbabilities } from '../src/lib/models/types.ts';

export interface ModelSettings {
  /** Where models are downloaded from (Hub layout). Default https://huggingface.co/. */
  remoteHost: string;
  /** Absolute URLs of the ORT wasm files the app serves. */
  wasmPaths: { mjs: string; wasm: string };
  /** ONNX Runtime Web threads (fixed when the runtime starts in a worker; 1 unless cross-origin isolated). */
  numThreads: number;
}

export interface LoadedModel {
  task: ModelTask;
  spec: ModelSpec;
  /** Embedding size (embedders). */
  dim: number | null;
  loadMs: number;
  /** Set when the requested device failed and another was used. */
  fallback: string | null;
  /** CPU threads the runtime runs with (null: the runtime's default). */
  threads: number | null;
}

export interface CachedFile {
  model: string;
  file: string;
  bytes: number;
}

export interface ParityReport {
  task: ModelTask;
  spec: ModelSpec;
  reference: { dtype: Dtype; device: Device };
  /** Largest |output − reference| over the fixed inputs. */
  maxAbsDiff: number;
  /** Smallest cosine similarity between output rows and reference rows (embedders). */
  minCosine: number | null;
  inputs: number;
}

/** A download plan of the in-browser LLM, with the device and dtype it was sized for. */
export interface GeneratorDownload extends ModelDownload {
  device: Device;
  dtype: string;
}

export interface ModelsWorkerApi {
  configure(settings: ModelSettings): void;
  /** Tells `callback` once when a failed run leaves this worker unable to run models (the page replaces it). */
  onBroken(callback: (reason: string) => void): void;
  /** Loads a task's model; `fallback` records why `spec` differs from what the user chose (shown in the UI). */
  load(task: ModelTask, spec: ModelSpec, onProgress: (p: FileProgress) => void, fallback?: string | null): Promise<LoadedModel>;
  loaded(): LoadedModel[];
  /** True after a failure that leaves transformers.js unable to load more models in this worker. */
  needsRestart(): boolean;
  embed(texts: string[], kind: 'query' | 'passage'): Promise<Float32Array>;
  rerank(query: string, passages: string[]): Promise<number[]>;
  nli(premise: string, hypothesis: string): Promise<NliProbabilities>;
  cachedFiles(): Promise<CachedFile[]>;
  /** What loading `spec` downloads from the configured host (its tree API), minus files in the browser cache. */
  downloadPlan(spec: ModelSpec): Promise<ModelDownload>;
  /** What the in-browser LLM `model` downloads on this device (the device and dtype it would load), before it starts. */
  generatorDownloadPlan(model: string): Promise<GeneratorDownload>;
  deleteCachedModel(modelId: string): Promise<number>;
  parity(task: ModelTask): Promise<ParityReport>;
  /** Serves the same API on a port (the search worker calls embed/rerank directly, not through the page). */
  connect(port: MessagePort): void;
}
