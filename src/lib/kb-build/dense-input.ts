/**
 * The vectors part of an index artifact, one owner for both builds (the tab's `buildLocalKb`, the CLI's
 * `buildArtifact`): the dense corpus-CDF table over the exact vectors, and the embedder record saying which
 * embedder, dtype and dimension the vectors came from.
 */
import type { ArtifactDense } from '../artifact/types.ts';
import type { ArtifactInput } from '../artifact/write.ts';
import { prefixesFor } from '../models/registry.ts';
import type { TextEmbedder } from '../models/types.ts';
import { denseCdfTable } from '../retrieval/dense-build.ts';
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
