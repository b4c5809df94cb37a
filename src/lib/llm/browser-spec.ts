/**
 * Which model files the in-browser LLM (`browser.ts`) loads where: its device ('auto': WebGPU where the browser gives
 * an adapter, else WASM; the CPU under Node) and dtype ('auto': q4f16 / q4 on WebGPU with / without shader-f16, q8 on
 * WASM and the CPU). Apart from browser.ts so that the models worker can size the download (Ask tab) without loading
 * the LLM providers.
 */
import { hasWebGPU, hasWebGPUFp16, IS_NODE } from '../models/env.ts';
import type { Device, Dtype } from '../models/types.ts';

/** The dtypes transformers.js accepts for generators here (q4f16: 4-bit weights, fp16 activations; WebGPU). */
export type GeneratorDtype = Dtype | 'q4f16';

/** 'auto' resolved: WebGPU where available, else WASM in browsers; the CPU under Node. */
export async function resolveGeneratorDevice(device: Device | 'auto' = 'auto'): Promise<Device> {
  if (device !== 'auto') return device;
  if (IS_NODE) return 'cpu';
  return (await hasWebGPU()) ? 'webgpu' : 'wasm';
}

/** The default dtype per device: q4f16 (WebGPU with shader-f16), q4 (WebGPU without), q8 (WASM, CPU). */
export function defaultGeneratorDtype(device: Device, shaderF16: boolean): GeneratorDtype {
  if (device === 'webgpu') return shaderF16 ? 'q4f16' : 'q4';
  return 'q8';
}

/** The model, device and dtype a provider with these options loads. */
export async function resolveGeneratorSpec(
  model: string,
  device: Device | 'auto' = 'auto',
  dtype: GeneratorDtype | 'auto' = 'auto',
): Promise<{ id: string; device: Device; dtype: GeneratorDtype }> {
  const dev = await resolveGeneratorDevice(device);
  const dt = dtype !== 'auto' ? dtype : defaultGeneratorDtype(dev, dev === 'webgpu' && (await hasWebGPUFp16()));
  return { id: model, device: dev, dtype: dt };
}

