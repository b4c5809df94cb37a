/**
 * Gives a knowledge base opened from an artifact its dense side from the shipped vectors: no embedding, no index
 * build when the artifact ships the index kind asked for. The vector indexes are the ones `attachDense` builds
 * (vector-index.ts), so the same vectors and kind give the same scores.
 */
import { HnswIndex } from '../retrieval/hnsw.ts';
import type { KnowledgeBase } from '../retrieval/knowledge-base.ts';
import { buildVectorIndex, restoreVectorIndex, type VectorIndexKind } from '../retrieval/vector-index.ts';
import type { DenseRetriever } from '../retrieval/dense.ts';
import { FILES, INT8_FILES } from './format.ts';
import { ArtifactError, type ArtifactDense } from './types.ts';

export interface AttachArtifactOptions {
  /**
   * 'auto': the shipped HNSW graph when it was read, else the int8 codes when read, else the exact float32 scan
   * (an HNSW build in the tab costs tens of seconds; ask for 'hnsw' to build one from float32 vectors).
   */
  index?: VectorIndexKind | 'auto';
}

/** Why an embedder cannot search an artifact's vectors: another model or another dimension. */
export function embedderMismatch(dense: ArtifactDense, embedder: { spec: { id: string }; dim: number }): string | null {
  const e = dense.embedder;
  if (embedder.spec.id === e.id && embedder.dim === e.dim) return null;
  return `the artifact's vectors were made by ${e.id} (${e.dim}-d), the loaded embedder is ${embedder.spec.id} (${embedder.dim}-d); load ${e.id} under Settings → Models, or search it with BM25`;
}

export async function attachArtifactDense(
  kb: KnowledgeBase,
  dense: ArtifactDense,
  embedder: { spec: { id: string; dtype: string }; dim: number },
  opts: AttachArtifactOptions = {},
): Promise<{ index: VectorIndexKind; dim: number; indexMs: number }> {
  const why = embedderMismatch(dense, embedder);
  if (why) throw new Error(why.charAt(0).toUpperCase() + why.slice(1));
  const { dim } = dense.embedder;
  const choice = opts.index ?? 'auto';
  const kind: VectorIndexKind = choice !== 'auto' ? choice : dense.hnsw ? 'hnsw' : dense.int8 ? 'int8' : 'exact';
  const t0 = performance.now();
  let index: DenseRetriever;
  const needVectors = (what: string): Float32Array => {
    if (!dense.vectors) throw new ArtifactError(FILES.embeddings, `was not read, and the ${what} index needs it: open the artifact with dense "float32"`);
    return dense.vectors;
  };
  switch (kind) {
    case 'exact':
      index = await buildVectorIndex('exact', needVectors('exact'), dim, undefined, { metric: 'cosine' });
      break;
    case 'int8':
      index = dense.int8 ? await restore(() => restoreVectorIndex(dense.int8!, dim), INT8_FILES.codes)
        : await buildVectorIndex('int8', needVectors('int8'), dim, undefined, { metric: 'cosine' });
      break;
    case 'hnsw':
      index = dense.hnsw ? await restore(() => restoreVectorIndex(dense.hnsw!, dim), FILES.hnsw)
        : await buildVectorIndex('hnsw', needVectors('hnsw'), dim, undefined, { metric: 'cosine' });
      break;
    default:
      throw new Error(`Unknown vector index kind: ${String(kind)}`);
  }
  if (index.size !== kb.size) {
    throw new ArtifactError(FILES.embeddings, `holds ${index.size} vectors for ${kb.size} chunks: the files do not belong together; rebuild the index`);
  }
  const indexMs = performance.now() - t0;
  const previous = kb.dense;
  kb.dense = index;
  kb.denseCdf = dense.cdf;
  kb.denseSkip = dense.skip ?? null;
  if (previous && previous !== index && previous instanceof HnswIndex) previous.dispose();
  return { index: kind, dim, indexMs };
}

async function restore(f: () => Promise<DenseRetriever>, file: string): Promise<DenseRetriever> {
  try {
    return await f();
  } catch (e) {
    throw new ArtifactError(file, `could not be restored (${(e as Error).message}): re-download it or rebuild the index`);
  }
}
