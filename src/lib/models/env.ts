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

import { IS_NODE, IS_WEB, defaultDevice } from './runtime.ts';

export { autoThreads, defaultDevice, hasHardwareWebGPU, hasWebGPU, hasWebGPUFp16, IS_NODE, IS_WEB } from './runtime.ts';
import type { Device, ModelSpec, ModelTask } from './types.ts';

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
