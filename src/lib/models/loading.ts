/** Shared plumbing for the loaders: transformers.js options from a ModelSpec, progress, and error wrapping. */
import { AutoConfig, env, type PretrainedConfig } from '@huggingface/transformers';
import { ensureConfigured, hasWebGPU, IS_WEB, runtimeDevice, sessionOptions } from './env.ts';
import { ModelLoadError, toModelLoadError } from './errors.ts';
import { trackProgress, type ProgressTracker } from './progress.ts';
import type { FileProgress, ModelSpec } from './types.ts';

export interface LoadOptions {
  /** Per-file download progress, then one `ready` event when the model can be used. */
  onProgress?: (p: FileProgress) => void;
}

/** Options for transformers.js `from_pretrained` / `pipeline`. */
export interface PretrainedOpts {
  progress_callback: (info: unknown) => void;
  device: 'cpu' | 'wasm' | 'webgpu';
  dtype: ModelSpec['dtype'];
  session_options: Record<string, unknown>;
}

/**
 * Runs a load: applies default configuration if needed, maps progress, converts any failure into a ModelLoadError
 * that names the model and (when known) the file, and emits `ready` after `load` resolves.
 */
/**
 * Errors thrown by finished loads, with the time they were thrown. In browsers transformers.js 4.3 chains ONNX
 * session creation on one promise (backends/onnx.js `webInitChain`); once a link rejects, every later load rejects
 * with that same error object, so seeing it again from a later load means "replay", not a fault of that model.
 */
const pastFailures = new WeakMap<object, number>();
let clock = 0;

export async function modelLoad<T>(spec: ModelSpec, opts: LoadOptions, load: (o: PretrainedOpts, t: ProgressTracker) => Promise<T>): Promise<T> {
  ensureConfigured();
  const startedAt = ++clock;
  // Checked here, before ONNX Runtime sees the device: a WebGPU session failure would block every later load (the
  // WASM fallback included) in this page or worker.
  if (IS_WEB && spec.device === 'webgpu' && !(await hasWebGPU())) {
    throw new ModelLoadError(
      `Model "${spec.id}": WebGPU is not available here (no GPU adapter). Use device 'wasm'.`,
      { modelId: spec.id, kind: 'unsupported' },
    );
  }
  const tracker = trackProgress(spec.id, opts.onProgress);
  const o: PretrainedOpts = {
    progress_callback: (info) => tracker.callback(info as { status: string }),
    device: runtimeDevice(spec.device),
    dtype: spec.dtype,
    session_options: sessionOptions(),
  };
  let result: T;
  try {
    result = await load(o, tracker);
  } catch (e) {
    const key = typeof e === 'object' && e !== null ? e : null;
    const first = key ? pastFailures.get(key) : undefined;
    if (key && first === undefined) pastFailures.set(key, ++clock);
    throw toModelLoadError(e, spec.id, {
      inFlight: tracker.inFlight(),
      done: tracker.done(),
      remoteHost: env.remoteHost,
      web: IS_WEB,
      replayed: first !== undefined && first < startedAt,
    });
  }
  tracker.ready();
  return result;
}

/** config.json, fetched first so that an unknown model id fails on it with a plain 404. */
export function loadConfig(spec: ModelSpec, o: PretrainedOpts): Promise<PretrainedConfig> {
  return AutoConfig.from_pretrained(spec.id, { progress_callback: o.progress_callback as never });
}

const ROBERTA_LIKE = new Set(['roberta', 'xlm-roberta', 'camembert', 'longformer', 'mpnet']);

/**
 * Longest input the model accepts: the tokenizer's model_max_length capped by config.max_position_embeddings
 * (minus RoBERTa's two reserved positions); 512 when neither says.
 */
export function maxInputLength(tokenizerMax: unknown, config: { model_type?: string | null; max_position_embeddings?: unknown }): number {
  const tok = typeof tokenizerMax === 'number' && Number.isFinite(tokenizerMax) && tokenizerMax > 0 && tokenizerMax < 1e9 ? tokenizerMax : Infinity;
  let pos = typeof config.max_position_embeddings === 'number' && config.max_position_embeddings > 0 ? config.max_position_embeddings : Infinity;
  if (pos !== Infinity && ROBERTA_LIKE.has(String(config.model_type ?? ''))) pos -= 2;
  const m = Math.min(tok, pos);
  return Number.isFinite(m) ? m : 512;
}
