/**
 * The vectors part of an index artifact, one owner for every build (the tab's `buildLocalKb`, the CLI's
 * `buildArtifact`, the embedded corpus's build-time vectors): the dense corpus-CDF table over the exact vectors, the
 * embedder record saying which embedder, dtype and dimension the vectors came from, and the dense step itself.
 */
import type { ArtifactDense } from '../artifact/types.ts';
import type { ArtifactInput } from '../artifact/write.ts';
import { prefixesFor } from '../models/registry.ts';
import type { TextEmbedder } from '../models/types.ts';
import { denseCdfTable, embedItems } from '../retrieval/dense-build.ts';
import { HNSW_DEFAULTS, HnswIndex } from '../retrieval/hnsw.ts';
import { buildVectorIndex } from '../retrieval/vector-index.ts';
import { ExactDenseIndex } from '../retrieval/dense.ts';
import type { KnowledgeBase } from '../retrieval/knowledge-base.ts';

/** The artifact's record of the embedder that made its vectors (mean pooling, unit length, the registry's prefixes). */
export function artifactEmbedderRecord(spec: { id: string; dtype: string }, dim: number): ArtifactDense['embedder'] {
  const p = prefixesFor(spec.id);
  return { id: spec.id, dtype: spec.dtype, dim, pooling: 'mean', normalized: true, prefixes: { query: p.query, passage: p.passage } };
}

/** The dense input of `writeArtifact` for these vectors of `kb`'s items: their corpus-CDF table (as attachDense computes it: same pseudo-queries and seed) and the embedder record. */
export async function calibratedDense(kb: KnowledgeBase, embedder: TextEmbedder, vectors: Float32Array, dim: number): Promise<NonNullable<ArtifactInput['dense']>> {
  const exact = new ExactDenseIndex(vectors, dim, 'cosine');
  const cdf = await denseCdfTable(kb, exact, embedder, kb.options.cdfQueries, kb.options.seed);
  return { vectors, dim, cdf, embedder: artifactEmbedderRecord(embedder.spec, dim) };
}

/** Per-stage progress of the dense step (`update` per step, `end` when a stage is over), as a CLI bar shows it. */
export interface DenseStepProgress {
  update(stage: 'embed' | 'dense-calibrate' | 'hnsw', done: number, total: number): void;
  end(): void;
}

export interface DenseStepOptions {
  /** Ship the int8 codes, the float32 embeddings.npy (default true), an HNSW graph. */
  int8: boolean;
  float32?: boolean;
  hnsw: boolean;
}

/**
 * The dense step of an artifact build (`rag-lab build-index`, the embedded corpus's build-time vectors): every item
 * embedded as a passage, the dense corpus CDF, an HNSW graph when asked; the input of `writeArtifact`'s `dense`.
 */
export async function denseStep(kb: KnowledgeBase, embedder: TextEmbedder, opts: DenseStepOptions, bar: DenseStepProgress, log: (line: string) => void): Promise<NonNullable<ArtifactInput['dense']>> {
  const t0 = performance.now();
  const { vectors, dim, unusable } = await embedItems(kb, embedder, { onProgress: (d, t) => bar.update('embed', d, t) });
  bar.end();
  if (unusable > 0) log(`${unusable} of ${kb.size} passages got NaN or all-zero vectors from ${embedder.spec.id}: written as zeros, left out of dense search when read`);
  const seconds = (performance.now() - t0) / 1000;
  log(`embedded ${kb.size} passages with ${embedder.spec.id} (${embedder.spec.dtype}) in ${seconds.toFixed(1)} s: ${(kb.size / Math.max(seconds, 1e-9)).toFixed(1)} passages/s`);
  bar.update('dense-calibrate', 0, 1);
  const calibrated = await calibratedDense(kb, embedder, vectors, dim);
  bar.update('dense-calibrate', 1, 1);
  bar.end();
  let hnsw = null;
  if (opts.hnsw) {
    const index = await buildVectorIndex('hnsw', vectors, dim, (d, t) => bar.update('hnsw', d, t), { metric: 'cosine', hnsw: HNSW_DEFAULTS });
    bar.end();
    hnsw = await (index as HnswIndex).toData();
    (index as HnswIndex).dispose();
  }
  return { ...calibrated, int8: opts.int8, float32: opts.float32 ?? true, hnsw };
}
