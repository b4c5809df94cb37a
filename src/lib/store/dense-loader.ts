/**
 * Gives a knowledge base its dense side: item embeddings from the IndexedDB cache when valid, otherwise computed
 * with progress and cached; then the vector index and the dense corpus-CDF table.
 */
import type { TextEmbedder } from '../models/types.ts';
import { denseCdfTable, embedItems } from '../retrieval/dense-build.ts';
import type { KnowledgeBase } from '../retrieval/knowledge-base.ts';
import { buildVectorIndex, chooseVectorIndex, type VectorIndexKind } from '../retrieval/vector-index.ts';
import { indexedDbVectorStore, vectorKey, type VectorStore } from './vector-cache.ts';

export type DenseStage = 'embed-cache' | 'embed' | 'vector-index' | 'dense-calibrate' | 'embed-save';

export interface DenseSetup {
  source: 'cache' | 'computed';
  /** Why the cache was not used or written (null when all went well). */
  cacheNote: string | null;
  dim: number;
  index: VectorIndexKind;
  /** Wall time of embedding the items (0 when read from the cache). */
  embedMs: number;
}

export interface AttachDenseOptions {
  /** The knowledge base's cache key (from openKnowledgeBase). */
  kbKey: string;
  /** Pseudo-queries for the dense CDF table. Default 100. */
  cdfQueries?: number;
  seed?: number;
  /** Vector index choice; default 'auto' (by corpus size). */
  index?: VectorIndexKind | 'auto';
  batchSize?: number;
  onProgress?: (stage: DenseStage, done: number, total: number) => void;
  signal?: AbortSignal;
  /** Embedding cache. Default IndexedDB. */
  store?: VectorStore;
}

export async function attachDense(kb: KnowledgeBase, embedder: TextEmbedder, opts: AttachDenseOptions): Promise<DenseSetup> {
  const progress = opts.onProgress ?? (() => {});
  const key = vectorKey(opts.kbKey, embedder.spec.id, embedder.spec.dtype);
  progress('embed-cache', 0, 1);
  const store = opts.store ?? indexedDbVectorStore;
  const cached = await store.load(key, kb.size);
  let cacheNote = cached.status === 'invalid' ? `The cached embeddings were not usable: ${cached.reason}. They were recomputed.` : null;
  let vectors: Float32Array, dim: number, source: DenseSetup['source'], embedMs = 0;
  if (cached.status === 'hit') {
    ({ vectors, dim } = cached);
    source = 'cache';
  } else {
    const t0 = performance.now();
    ({ vectors, dim } = await embedItems(kb, embedder, {
      ...(opts.batchSize ? { batchSize: opts.batchSize } : {}),
      onProgress: (d, t) => progress('embed', d, t),
      ...(opts.signal ? { signal: opts.signal } : {}),
    }));
    embedMs = performance.now() - t0;
    source = 'computed';
  }
  const kind = chooseVectorIndex(kb.size, dim, opts.index ?? 'auto');
  progress('vector-index', 0, kb.size);
  const index = await buildVectorIndex(kind, vectors, dim, (d, t) => progress('vector-index', d, t));
  progress('vector-index', kb.size, kb.size);
  let cdf = cached.status === 'hit' ? cached.cdf : null;
  if (!cdf && (opts.cdfQueries ?? 100) > 0) {
    progress('dense-calibrate', 0, 1);
    cdf = await denseCdfTable(kb, index, embedder, opts.cdfQueries ?? 100, opts.seed ?? kb.options.seed);
    progress('dense-calibrate', 1, 1);
  }
  if (source === 'computed' || (cached.status === 'hit' && !cached.cdf && cdf)) {
    progress('embed-save', 0, 1);
    const saved = await store.save(key, vectors, dim, cdf);
    if (!saved.ok) cacheNote = `${cacheNote ? cacheNote + ' ' : ''}Caching the embeddings failed: ${saved.reason}.`;
    progress('embed-save', 1, 1);
  }
  kb.dense = index;
  kb.denseCdf = cdf;
  return { source, cacheNote, dim, index: kind, embedMs };
}
