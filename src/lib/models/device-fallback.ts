/**
 * What runs after WebGPU fails mid-run (device lost: driver reset, GPU process crash; out of GPU memory; a kernel
 * the adapter cannot run). In a browser transformers.js chains every inference on one promise, so after any failed
 * run every later run in that JS context fails too: the models worker is replaced, and this plans what the new one
 * loads. WebGPU models move to WASM, keeping fp32 and uint8 as they are (same weights: cached document embeddings
 * stay valid, no re-embedding) and taking q8 for fp16 and q4, which run no faster than fp32 on WASM
 * (docs/internals/models.md, "Dtype variants"); the rest load as they were.
 */
import type { Dtype, ModelSpec, ModelTask } from './types.ts';

export interface PlannedLoad {
  task: ModelTask;
  spec: ModelSpec;
  /** Why the model runs elsewhere than asked (null: as asked). */
  fallback: string | null;
}

/** WASM dtype replacing a WebGPU dtype: fp32 → fp32, uint8 → uint8, fp16 and q4 → q8 (model_quantized.onnx). */
export function wasmDtypeFor(dtype: Dtype): Dtype {
  return dtype === 'fp32' || dtype === 'uint8' ? dtype : 'q8';
}

const short = (m: string) => (m.length > 200 ? `${m.slice(0, 197)}…` : m);

/**
 * The readable part of an ONNX Runtime run error: the browser's own message when ORT quotes one ("… message: The
 * Device was lost …"), else the text after ORT's code, source path and function (kept whole if neither is there),
 * without the leading `Model "id": ` / `Model "id" could not be loaded: ` (the UI shows the model next to it).
 */
export function runtimeReason(message: string): string {
  const quoted = /^.*[^_]message: (.+)$/s.exec(message);
  if (quoted) return quoted[1]!.trim();
  const ort = /ERROR_MESSAGE: (?:\S+\.(?:cc|cpp|h):\d+ )?(.+)$/s.exec(message);
  return (ort ? ort[1]! : message).replace(/^Model "[^"]*"(?::| could not be loaded:) /, '').trim();
}

/** The loads for a fresh models worker after a failed run; `reason` is the failure's message. */
export function planRecovery(loaded: readonly { task: ModelTask; spec: ModelSpec; fallback: string | null }[], reason: string): PlannedLoad[] {
  return loaded.map(({ task, spec, fallback }) => {
    if (spec.device !== 'webgpu') return { task, spec, fallback };
    const dtype = wasmDtypeFor(spec.dtype);
    return { task, spec: { ...spec, device: 'wasm', dtype }, fallback: `WebGPU failed mid-run (${short(runtimeReason(reason))}); now on WASM ${dtype}.` };
  });
}
