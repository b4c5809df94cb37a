/** Model options shared by CLI commands: which models, from where (Hub or a local folder), and the vector cache. */
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { loadCrossEncoder } from '../src/lib/models/cross-encoder.ts';
import { loadEmbedder } from '../src/lib/models/embedder.ts';
import { configureModels } from '../src/lib/models/env.ts';
import { ModelLoadError } from '../src/lib/models/errors.ts';
import { DEFAULT_MODELS } from '../src/lib/models/registry.ts';
import type { TrainedFileSource } from '../src/lib/models/trained-cache.ts';
import { DTYPES, isDtype, type Dtype, type PairScorer, type TextEmbedder } from '../src/lib/models/types.ts';
import type { SearchModels } from '../src/lib/retrieval/search.ts';
import { noVectorStore, type VectorStore } from '../src/lib/store/vector-cache.ts';
import { CliError } from './args.ts';
import { checkInputDir, checkOutputDir } from './fs-errors.ts';
import { ensureIndexedDb, fileVectorStore } from './vector-files.ts';

export const MODEL_ARGS = {
  embedder: { type: 'string' },
  reranker: { type: 'string' },
  dtype: { type: 'string', default: 'fp32' },
  'models-dir': { type: 'string' },
  'model-host': { type: 'string' },
  'cache-dir': { type: 'string' },
  'no-cache': { type: 'boolean', default: false },
} as const;

export const MODEL_HELP = `  --embedder ID       embedding model (default ${DEFAULT_MODELS.embedder})
  --reranker ID       cross-encoder (default ${DEFAULT_MODELS['cross-encoder']})
  --dtype D           ${DTYPES.join(' | ')} (default fp32: onnx/model.onnx)
  --models-dir DIR    load models from DIR/<owner>/<name>/ only (no downloads)
  --model-host URL    download models from this host in Hub layout (default https://huggingface.co/)
  --cache-dir DIR     where item embeddings are cached (default ~/.cache/rag-lab/vectors)
  --no-cache          do not read or write the embedding cache`;

export interface ModelArgs {
  embedder?: string | undefined;
  reranker?: string | undefined;
  dtype: string;
  'models-dir'?: string | undefined;
  'model-host'?: string | undefined;
  'cache-dir'?: string | undefined;
  'no-cache': boolean;
}

export interface CliModels {
  embedder: TextEmbedder | null;
  reranker: PairScorer | null;
  /** With `skipFailed`: the models that could not load, with the reason (their modes are skipped). */
  failed: { dense?: string; reranker?: string };
  store: VectorStore;
  search: SearchModels;
}

/**
 * Checks the model flags and folders before long work: the dtype, that --models-dir is a folder, and that the
 * embedding cache folder can be written when an embedder will fill it.
 */
export function checkModelArgs(args: ModelArgs, need: { dense: boolean; reranker: boolean }): void {
  if (!isDtype(args.dtype)) throw new CliError(`--dtype must be one of ${DTYPES.join(', ')}, got "${args.dtype}"`);
  if (!need.dense && !need.reranker) return;
  if (args['models-dir']) checkInputDir(args['models-dir'], '--models-dir', 'a folder of <owner>/<name>/ models');
  if (need.dense && !args['no-cache']) checkOutputDir(cacheDir(args), '--cache-dir');
}

const cacheDir = (args: ModelArgs) => resolve(args['cache-dir'] ?? join(homedir(), '.cache/rag-lab/vectors'));

/**
 * Loads the models `need` asks for. A model that cannot load is a CliError, or with `skipFailed` a reason in
 * `failed` (for commands that can still run the modes without it).
 */
export async function loadCliModels(args: ModelArgs, need: { dense: boolean; reranker: boolean }, log: (m: string) => void, opts: { skipFailed?: boolean; trained?: TrainedFileSource } = {}): Promise<CliModels> {
  checkModelArgs(args, need);
  const dtype = args.dtype as Dtype;
  try {
    configureModels({
      ...(args['model-host'] ? { remoteHost: args['model-host'] } : {}),
      ...(args['models-dir'] ? { localModelPath: resolve(args['models-dir']), allowRemote: false } : {}), trainedModels: opts.trained ?? null,
    });
  } catch (e) {
    throw new CliError(`--model-host: ${(e as Error).message}`);
  }
  // hnswlib-wasm mounts IDBFS when it starts (an index built for a run, or a tune's index trials): an in-memory IndexedDB first.
  if (need.dense) await ensureIndexedDb();
  const store = args['no-cache'] ? noVectorStore : fileVectorStore(cacheDir(args));
  const failed: CliModels['failed'] = {};
  const load = async <T>(what: string, id: string, slot: keyof CliModels['failed'], fn: () => Promise<T>): Promise<T | null> => {
    const t0 = performance.now();
    try {
      const m = await fn();
      log(`loaded ${what} ${id} (${dtype}) in ${(performance.now() - t0).toFixed(0)} ms`);
      return m;
    } catch (e) {
      const message = e instanceof ModelLoadError ? e.message : `could not load ${what} ${id}: ${(e as Error).message}`;
      if (!opts.skipFailed) throw new CliError(message);
      failed[slot] = message;
      return null;
    }
  };
  const embedderId = args.embedder ?? DEFAULT_MODELS.embedder;
  const rerankerId = args.reranker ?? DEFAULT_MODELS['cross-encoder'];
  const embedder = need.dense ? await load('embedder', embedderId, 'dense', () => loadEmbedder({ id: embedderId, dtype, device: 'cpu' })) : null;
  const reranker = need.reranker ? await load('cross-encoder', rerankerId, 'reranker', () => loadCrossEncoder({ id: rerankerId, dtype, device: 'cpu' })) : null;
  return {
    embedder,
    reranker,
    failed,
    store,
    search: {
      encoder: embedder ? { embedQuery: async (q: string) => embedder.embed([q], 'query') } : null,
      reranker: reranker ? { rerank: (q: string, ps: readonly string[]) => reranker.score(q, ps) } : null,
    },
  };
}
