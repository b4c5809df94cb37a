/**
 * What this runtime is and can do (Node or a browser, WebGPU, the 'auto' thread count), apart from the place that
 * configures transformers.js (env.ts re-exports it), so the page's settings can ask without loading transformers.js
 * into the main thread's bundle. No DOM APIs: only globals that exist in workers too.
 */
import type { Device } from './types.ts';

type NodeLikeProcess = { release?: { name?: string }; versions?: { node?: string } };
const proc = (globalThis as { process?: NodeLikeProcess }).process;

/** True under Node (and Node-compatible runtimes), where transformers.js uses onnxruntime-node. */
export const IS_NODE: boolean = proc?.release?.name === 'node' && typeof proc.versions?.node === 'string';

/** True in a browser page or a Web Worker (onnxruntime-web). */
export const IS_WEB: boolean = !IS_NODE;

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

/**
 * CPU threads for the 'auto' setting: threads = isolated ? min(4, logical cores) : 1. ONNX Runtime Web's own default,
 * min(4, ⌈cores / 2⌉), leaves a 2-core machine single-threaded, where 2 threads rerank 20 pairs ~1.7× faster
 * (scripts/bench-models.ts). Without cross-origin isolation WebAssembly threads do not exist.
 */
export function autoThreads(logicalCores: number, isolated: boolean): number {
  if (!isolated) return 1;
  return Math.min(4, Math.max(1, Math.floor(Number.isFinite(logicalCores) ? logicalCores : 1)));
}
