/**
 * What the models worker says about a corpus-trained model before transformers.js reads it: whether it can load
 * (stored here, at a dtype it has; a clear message instead of a request to the model host) and what loading it
 * "downloads" (nothing: its files are in this browser, counted as cached).
 */
import { neededFiles, type ModelDownload } from './download-size.ts';
import type { ModelSpec } from './types.ts';

/** What this needs of a trained model's description: its stored files. */
export interface TrainedFiles {
  readonly files: readonly { readonly path: string; readonly bytes: number }[];
}

/** The part of the trained-model store (store/trained-models.ts) this needs. */
export interface TrainedMetaSource<M extends TrainedFiles = TrainedFiles> {
  meta(id: string): Promise<M | null>;
  verify(id: string): Promise<M>;
}

/** The dtypes a trained model has files for (onnx/model.onnx, onnx/model_quantized.onnx). */
export const TRAINED_DTYPES = ['fp32', 'q8'] as const;

/** Throws, in words, when the trained model cannot load at this spec; resolves with its description. */
export async function checkTrainedSpec<M extends TrainedFiles>(spec: ModelSpec, store: TrainedMetaSource<M>): Promise<M> {
  if (!(TRAINED_DTYPES as readonly string[]).includes(spec.dtype)) {
    throw new Error(`${spec.id} is a corpus-trained model with fp32 and q8 files only (asked for ${spec.dtype}): pick q8 or fp32 in Settings.`);
  }
  return store.verify(spec.id);
}

/** The download plan of a trained model: no bytes to fetch; its files cached, or missing when it is not stored. */
export async function trainedDownloadPlan(spec: ModelSpec, store: TrainedMetaSource): Promise<ModelDownload> {
  const meta = await store.meta(spec.id).catch(() => null);
  const stored = new Map((meta?.files ?? []).map((f) => [f.path, f.bytes]));
  const out: ModelDownload = { id: spec.id, bytes: 0, cachedBytes: 0, missing: [] };
  for (const file of neededFiles(spec.dtype, [...stored.keys()])) {
    const size = stored.get(file);
    if (size === undefined) out.missing.push(file);
    else out.cachedBytes += size;
  }
  return out;
}
