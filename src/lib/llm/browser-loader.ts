/**
 * Loading the in-browser model (browser.ts): the tokenizer and the ONNX session through the models layer
 * (`modelLoad`: per-file progress, a `ModelLoadError` when it cannot be loaded), once per model, device and dtype in
 * this JS context, shared by every provider object; a failed load is forgotten; `disposeBrowserModels()` frees them.
 */
import { AutoModelForCausalLM, AutoTokenizer, type PreTrainedModel, type PreTrainedTokenizer } from '@huggingface/transformers';
import { loadConfig, modelLoad } from '../models/loading.ts';
import type { Device, Dtype, FileProgress, ModelSpec } from '../models/types.ts';
import { hasChatTemplate } from './browser-prompt.ts';
import type { GeneratorDtype } from './browser-spec.ts';

/** What `load()` reports about a loaded model. */
export interface BrowserModelInfo {
  id: string;
  device: Device;
  dtype: GeneratorDtype;
  /** Tokens the model takes (prompt + reply); Infinity when neither config nor tokenizer says. */
  contextLength: number;
  /** Whether the tokenizer has a chat template (otherwise the plain transcript format is used). */
  chatTemplate: boolean;
}

export interface Generator {
  readonly info: BrowserModelInfo;
  readonly tokenizer: PreTrainedTokenizer;
  readonly model: PreTrainedModel;
  readonly eos: ReadonlySet<number>;
  /** The tail of the request queue: requests on one model run one at a time. */
  queue: Promise<unknown>;
}

interface Entry {
  promise: Promise<Generator>;
  /** Progress callbacks of every provider waiting for this load (emptied once it settles). */
  listeners: Set<(p: FileProgress) => void>;
  settled: boolean;
}

export const loaded = new Map<string, Entry>();

export const keyOf = (s: { id: string; device: Device; dtype: GeneratorDtype }) => `${s.id}\n${s.device}\n${s.dtype}`;

const finiteLimit = (x: unknown): number => (typeof x === 'number' && Number.isFinite(x) && x > 0 && x < 1e9 ? x : Infinity);

function eosIds(...sources: unknown[]): Set<number> {
  const out = new Set<number>();
  for (const s of sources) {
    for (const v of Array.isArray(s) ? s : [s]) if (typeof v === 'number' && Number.isInteger(v)) out.add(v);
  }
  return out;
}

/** Loads (once per model, device and dtype in this JS context) the tokenizer and the ONNX session. */
export function loadGenerator(spec: { id: string; device: Device; dtype: GeneratorDtype }, onProgress?: (p: FileProgress) => void): Promise<Generator> {
  const key = keyOf(spec);
  const existing = loaded.get(key);
  if (existing) {
    if (onProgress && !existing.settled) existing.listeners.add(onProgress);
    return existing.promise;
  }
  const listeners = new Set<(p: FileProgress) => void>();
  if (onProgress) listeners.add(onProgress);
  // modelLoad takes the models layer's ModelSpec; 'q4f16' is not one of its dtypes but is only handed on to
  // transformers.js, which accepts it.
  const modelSpec: ModelSpec = { id: spec.id, device: spec.device, dtype: spec.dtype as Dtype };
  const promise = modelLoad(modelSpec, { onProgress: (p) => listeners.forEach((l) => l(p)) }, async (o) => {
    const config = await loadConfig(modelSpec, o);
    const [tokenizer, model] = await Promise.all([
      AutoTokenizer.from_pretrained(spec.id, { progress_callback: o.progress_callback as never }),
      AutoModelForCausalLM.from_pretrained(spec.id, {
        config,
        progress_callback: o.progress_callback as never,
        device: o.device,
        dtype: spec.dtype,
        session_options: o.session_options as never,
      }),
    ]);
    const cfg = config as unknown as { max_position_embeddings?: unknown; eos_token_id?: unknown };
    const gen = (model as unknown as { generation_config?: { eos_token_id?: unknown } | null }).generation_config;
    return {
      info: {
        id: spec.id,
        device: spec.device,
        dtype: spec.dtype,
        contextLength: Math.min(finiteLimit(cfg.max_position_embeddings), finiteLimit(tokenizer.model_max_length)),
        chatTemplate: hasChatTemplate(tokenizer),
      },
      tokenizer,
      model,
      eos: eosIds(gen?.eos_token_id, cfg.eos_token_id, tokenizer.eos_token_id),
      queue: Promise.resolve(),
    } satisfies Generator;
  });
  const entry: Entry = { promise, listeners, settled: false };
  loaded.set(key, entry);
  // A failed load is forgotten, so the next request tries again (after the user fixed the host, the cache…).
  promise.then(
    () => {
      entry.settled = true;
      listeners.clear();
    },
    () => {
      entry.settled = true;
      listeners.clear();
      if (loaded.get(key) === entry) loaded.delete(key);
    },
  );
  return promise;
}

/** Frees every loaded in-browser model (ONNX sessions, WebGPU/WASM memory). */
export async function disposeBrowserModels(): Promise<void> {
  const all = [...loaded.values()];
  loaded.clear();
  await Promise.all(all.map((e) => e.promise.then((g) => g.model.dispose(), () => undefined)));
}
