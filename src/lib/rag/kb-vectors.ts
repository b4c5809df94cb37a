/**
 * A knowledge base's dense side, as the search session and the CLI attach it: the vectors its artifact ships (when
 * the loaded embedder made them), else embeddings computed now or read from the vector cache under the KB's key.
 */
import { attachArtifactDense } from '../artifact/attach.ts';
import { kbVectorKey } from '../cache-keys.ts';
import { sha256Hex } from '../checksum.ts';
import type { ArtifactDense } from '../artifact/types.ts';
import type { DenseOwner } from '../models/readiness.ts';
import type { TextEmbedder } from '../models/types.ts';
import type { KnowledgeBase } from '../retrieval/knowledge-base.ts';
import type { VectorIndexChoice } from '../retrieval/vector-index.ts';
import { attachDense, type DenseSetup, type DenseStage } from '../store/dense-loader.ts';
import type { VectorStore } from '../store/vector-cache.ts';

export interface VectorsAttached {
  setup: DenseSetup;
  /** Who owns the vectors now: an artifact's name only the model id (and dimension). */
  owner: DenseOwner;
}

export interface AttachVectorsOptions {
  /** The key embeddings computed now are cached under (asked only when they are). */
  kbKey: () => Promise<string>;
  /** Embedding cache (default IndexedDB). */
  store?: VectorStore;
  index?: VectorIndexChoice;
  onProgress?: (stage: DenseStage, done: number, total: number) => void;
  /** Stops embedding between batches (and an HNSW build). */
  signal?: AbortSignal;
}

/** Gives `kb` its dense side with `embedder`: `shipped` when given (an ArtifactError or mismatch throws), else embeds. */
export async function attachKbVectors(kb: KnowledgeBase, shipped: ArtifactDense | null, embedder: TextEmbedder, opts: AttachVectorsOptions): Promise<VectorsAttached> {
  const progress = opts.onProgress ?? (() => {});
  if (shipped) {
    progress('vector-index', 0, 1);
    const r = await attachArtifactDense(kb, shipped, embedder, opts.index ? { index: opts.index } : {});
    progress('vector-index', 1, 1);
    const setup: DenseSetup = { source: 'artifact', cacheNote: null, dim: r.dim, index: r.index, indexSource: 'cache', indexMs: r.indexMs, embedMs: 0 };
    return { setup, owner: { id: shipped.embedder.id, dtype: null, device: null, dim: shipped.embedder.dim } };
  }
  const setup = await attachDense(kb, embedder, {
    kbKey: await opts.kbKey(), onProgress: progress,
    ...(opts.store ? { store: opts.store } : {}), ...(opts.index ? { index: opts.index } : {}), ...(opts.signal ? { signal: opts.signal } : {}),
  });
  return { setup, owner: { id: embedder.spec.id, dtype: embedder.spec.dtype, device: embedder.spec.device, dim: embedder.dim } };
}

/** The key vectors computed for a knowledge base are cached under: its id, the hash of its content text and its chunking. */
export async function contentVectorKey(id: string, hashText: string, kb: KnowledgeBase): Promise<string> {
  return kbVectorKey(id, (await sha256Hex(hashText)).slice(0, 16), kb.options.chunking);
}
