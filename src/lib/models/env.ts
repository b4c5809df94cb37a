/**
 * The one place that configures transformers.js (`env`) and answers what this runtime can do.
 *
 * Runs unchanged in Node (onnxruntime-node: device 'cpu'; 'wasm' is rejected there) and in browsers and Web Workers
 * (onnxruntime-web: 'wasm' or 'webgpu'). No DOM APIs: only globals that exist in workers too.
 */
import { HUB_HOST } from '../hub/endpoint.ts';
import { env } from '@huggingface/transformers';
import { DEFAULT_MODELS, defaultDtype } from './registry.ts';
import { trainedModelCache, type ModelFileCache, type TrainedFileSource } from './trained-cache.ts';
import type { Device, Dtype, ModelSpec, ModelTask } from './types.ts';

export interface ModelsConfig {
  /** Model host in Hub layout (`<host><owner>/<name>/resolve/<revision>/<file>`). Default 'https://huggingface.co/'. */
  remoteHost?: string;
  /**
   * Folder (Node) or URL path (browser) holding models as `<path>/<owner>/<name>/<file>`; looked at before the
   * remote host. When absent, local loading is switched off.
   */
  localModelPath?: string;
  /** Allow downloads from `remoteHost`. Default true. */
  allowRemote?: boolean;
  /** URLs of the ONNX Runtime Web glue module and binary served by the app (transformers.js would use a CDN). */
  wasmPaths?: { mjs: string; wasm: string };
  /** CPU threads: ORT Web `numThreads` (needs cross-origin isolation) and ORT Node `intraOpNumThreads`. */
  numThreads?: number;
  /** Cache downloads in the browser Cache API ('transformers-cache'). Default: true where the Cache API exists. */
  useBrowserCache?: boolean;
  /** Node only: the folder downloaded files are cached in. Default: transformers.js's own `.cache` folder. */
  cacheDir?: string;
  /**
   * Where corpus-trained models (`corpus/…` ids) are read from: transformers.js then reads every file through
   * `trainedModelCache` (trained ids from here, the rest from the browser cache when it is on). Default: none.
   */
  trainedModels?: TrainedFileSource | null;
  /** The fetch model files are downloaded with (e.g. one that gives up on a stalled host). Default: the global fetch. */
  fetch?: typeof fetch;
}

const GLOBAL_FETCH = typeof globalThis.fetch === 'function' ? globalThis.fetch.bind(globalThis) : undefined;

export const DEFAULT_REMOTE_HOST = HUB_HOST;

type NodeLikeProcess = { release?: { name?: string }; versions?: { node?: string } };
const proc = (globalThis as { process?: NodeLikeProcess }).process;

/** True under Node (and Node-compatible runtimes), where transformers.js uses onnxruntime-node. */
export const IS_NODE: boolean = proc?.release?.name === 'node' && typeof proc.versions?.node === 'string';

/** True in a browser page or a Web Worker (onnxruntime-web). */
export const IS_WEB: boolean = !IS_NODE;

let nodeThreads: number | undefined;
let configured = false;

/** Applies the defaults once if `configureModels` was never called (loaders call this). */
export function ensureConfigured(): void {
  if (!configured) configureModels();
}

export const withSlash = (s: string) => (s.endsWith('/') ? s : `${s}/`);

/**
 * Applies a configuration. Every call sets all fields: the ones left out get their defaults (remote host, remote
 * allowed, local loading off, browser cache where available), except `wasmPaths`, `numThreads` and `cacheDir`,
 * which keep their previous value when left out.
 */
export function configureModels(cfg: ModelsConfig = {}): void {
  const remoteHost = cfg.remoteHost ?? DEFAULT_REMOTE_HOST;
  // Validate early: a bad host would otherwise surface as a confusing fetch error per file.
  const url = new URL(remoteHost);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error(`Model host must be an http(s) URL, got "${remoteHost}".`);
  env.remoteHost = withSlash(remoteHost);
  env.allowRemoteModels = cfg.allowRemote ?? true;
  if (cfg.localModelPath !== undefined) {
    env.allowLocalModels = true;
    env.localModelPath = withSlash(cfg.localModelPath);
  } else {
    env.allowLocalModels = false;
  }
  const cacheApi = typeof (globalThis as { caches?: unknown }).caches !== 'undefined';
  env.useBrowserCache = IS_WEB && cacheApi && (cfg.useBrowserCache ?? true);
  const browserCache = env.useBrowserCache ? () => caches.open(env.cacheKey) as Promise<ModelFileCache> : null;
  env.useCustomCache = Boolean(cfg.trainedModels);
  env.customCache = cfg.trainedModels ? trainedModelCache(cfg.trainedModels, browserCache) : null;
  if (IS_NODE && cfg.cacheDir !== undefined) {
    env.useFSCache = true;
    env.cacheDir = withSlash(cfg.cacheDir);
  }
  const wasm = env.backends.onnx.wasm as { wasmPaths?: unknown; numThreads?: number } | undefined;
  if (wasm) {
    if (cfg.wasmPaths) wasm.wasmPaths = { ...cfg.wasmPaths };
    if (cfg.numThreads !== undefined) wasm.numThreads = cfg.numThreads;
  }
  if (cfg.numThreads !== undefined) nodeThreads = cfg.numThreads;
  (env as { fetch?: typeof fetch }).fetch = cfg.fetch ?? GLOBAL_FETCH;
  configured = true;
}

/** The effective settings (for diagnostics and tests). */
export function modelsEnvironment(): {
  remoteHost: string;
  allowRemote: boolean;
  localModelPath: string | null;
  useBrowserCache: boolean;
  cacheDir: string | null;
} {
  return {
    remoteHost: env.remoteHost,
    allowRemote: env.allowRemoteModels,
    localModelPath: env.allowLocalModels ? env.localModelPath : null,
    useBrowserCache: env.useBrowserCache,
    cacheDir: IS_NODE && env.useFSCache ? env.cacheDir : null,
  };
}

/**
 * CPU threads for the 'auto' setting: threads = isolated ? min(4, logical cores) : 1. ONNX Runtime Web's own default,
 * min(4, ⌈cores / 2⌉), leaves a 2-core machine single-threaded, where 2 threads rerank 20 pairs ~1.7× faster
 * (scripts/bench-models.ts). Without cross-origin isolation WebAssembly threads do not exist.
 */
export function autoThreads(logicalCores: number, isolated: boolean): number {
  if (!isolated) return 1;
  return Math.min(4, Math.max(1, Math.floor(Number.isFinite(logicalCores) ? logicalCores : 1)));
}

/**
 * Threads the CPU backend runs with: in a browser ONNX Runtime Web's `numThreads` (what was asked for until it
 * starts, then what it got: 1 when threads are unavailable); under Node the configured `intraOpNumThreads`.
 * null when nothing was set (the runtime's default).
 */
export function runtimeThreads(): number | null {
  if (IS_NODE) return nodeThreads ?? null;
  const n = (env.backends.onnx.wasm as { numThreads?: number } | undefined)?.numThreads;
  return typeof n === 'number' && n > 0 ? n : null;
}

/** ONNX Runtime session options implied by the configuration (thread count under Node). */
export function sessionOptions(): Record<string, unknown> {
  return IS_NODE && nodeThreads !== undefined ? { intraOpNumThreads: nodeThreads } : {};
}

type AdapterLike = { features?: { has(f: string): boolean }; info?: { isFallbackAdapter?: boolean }; isFallbackAdapter?: boolean };
type GpuLike = { requestAdapter(): Promise<AdapterLike | null> };
interface WebGPUProbe { available: boolean; shaderF16: boolean; hardware: boolean }
const NO_WEBGPU: WebGPUProbe = { available: false, shaderF16: false, hardware: false };
let webgpuProbe: Promise<WebGPUProbe> | undefined;

function probeWebGPU(): Promise<WebGPUProbe> {
  webgpuProbe ??= (async () => {
    if (IS_NODE) return NO_WEBGPU;
    const gpu = (globalThis as { navigator?: { gpu?: GpuLike } }).navigator?.gpu;
    if (!gpu || typeof gpu.requestAdapter !== 'function') return NO_WEBGPU;
    try {
      const adapter = await gpu.requestAdapter();
      if (!adapter) return NO_WEBGPU;
      // A fallback adapter is a CPU implementation (SwiftShader): slower than WASM for these models.
      const fallback = adapter.info?.isFallbackAdapter ?? adapter.isFallbackAdapter ?? false;
      return { available: true, shaderF16: adapter.features?.has('shader-f16') ?? false, hardware: !fallback };
    } catch {
      return NO_WEBGPU;
    }
  })();
  return webgpuProbe;
}

/** Whether WebGPU can be used: a browser/worker whose `navigator.gpu.requestAdapter()` returns an adapter. */
export async function hasWebGPU(): Promise<boolean> {
  return (await probeWebGPU()).available;
}

/** Whether the WebGPU adapter supports 16-bit floats in shaders (needed for fp16 models on WebGPU). */
export async function hasWebGPUFp16(): Promise<boolean> {
  return (await probeWebGPU()).shaderF16;
}

/** Whether the WebGPU adapter is a GPU (not a CPU fallback adapter such as SwiftShader). */
export async function hasHardwareWebGPU(): Promise<boolean> {
  return (await probeWebGPU()).hardware;
}

/** 'webgpu' where a browser has a GPU adapter (not a CPU fallback one), else 'wasm' in a browser, 'cpu' in Node. */
export async function defaultDevice(): Promise<Device> {
  if (IS_NODE) return 'cpu';
  return (await hasHardwareWebGPU()) ? 'webgpu' : 'wasm';
}

/** The device transformers.js accepts here: 'wasm' and 'cpu' both mean "run on the CPU" and are swapped as needed. */
export function runtimeDevice(device: Device): Device {
  if (IS_NODE && device === 'wasm') return 'cpu';
  if (IS_WEB && device === 'cpu') return 'wasm';
  return device;
}

/** A full spec for a task: the registry's default model with the default device and dtype, then `overrides`. */
export async function defaultSpec(task: ModelTask, overrides: Partial<ModelSpec> = {}): Promise<ModelSpec> {
  const device = overrides.device ?? (await defaultDevice());
  return { id: overrides.id ?? DEFAULT_MODELS[task], device, dtype: overrides.dtype ?? defaultDtype(device) };
}

/**
 * Deletes every cached file of a model (all dtypes): entries of the browser Cache API, or the model's folder in the
 * Node file cache. Use it after a `corrupt` ModelLoadError, then load again. Returns the number of files deleted.
 */
export async function clearCachedModel(modelId: string): Promise<number> {
  let n = 0;
  const cachesApi = (globalThis as { caches?: CacheStorage }).caches;
  if (IS_WEB && cachesApi) {
    const cache = await cachesApi.open(env.cacheKey);
    for (const req of await cache.keys()) {
      if (new URL(req.url).pathname.includes(`/${modelId}/resolve/`) && (await cache.delete(req))) n++;
    }
  }
  if (IS_NODE && env.useFSCache && env.cacheDir && !modelId.split('/').includes('..')) {
    // Kept out of bundlers' sight: this module also runs in browsers, where node:fs does not exist.
    const spec = 'node:fs/promises';
    const fs = (await import(/* @vite-ignore */ spec)) as {
      readdir(p: string, o: { recursive: boolean; withFileTypes: true }): Promise<{ isFile(): boolean }[]>;
      rm(p: string, o: { recursive: boolean; force: boolean }): Promise<void>;
    };
    const dir = `${withSlash(env.cacheDir)}${modelId}`;
    try {
      n += (await fs.readdir(dir, { recursive: true, withFileTypes: true })).filter((d) => d.isFile()).length;
    } catch {
      return n;
    }
    await fs.rm(dir, { recursive: true, force: true });
  }
  return n;
}
