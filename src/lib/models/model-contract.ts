/** The models session's contract (model-session.ts), shared by its worker, the UI and the search session. */
import type { ModelDownload } from './download-size.ts';
import type { Device, Dtype, ModelSpec, ModelTask } from './types.ts';

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
  /** Wall time of loading: files (from the cache or the host) and the ONNX session start (ms). */
  loadMs: number;
  /** Wall time of the warm-up batch run before the model was reported ready (warmup.ts; ms); null: none was run. */
  warmupMs: number | null;
  /** Wall time of the first call after loading and warm-up (embed, rerank or NLI; ms); null until it ran. */
  firstCallMs: number | null;
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
