/**
 * The embedder record an artifact built by RAG Lab carries (meta.json `embedder`, ArtifactDense['embedder']): the
 * model id and dtype, the vectors' dimension, mean pooling, L2-normalised rows, and the model's query/passage
 * prefixes from the registry. Every builder (the CLI's build-index, the Build tab, the SOTU script) makes it here.
 */
import { prefixesFor } from '../models/registry.ts';
import type { ArtifactDense } from './types.ts';

export type EmbedderRecord = ArtifactDense['embedder'];

/** The record of vectors `dim` wide that embedder `spec` made (as models/embedder.ts embeds: mean-pooled, normalised). */
export function embedderRecord(spec: { id: string; dtype: string }, dim: number): EmbedderRecord {
  const p = prefixesFor(spec.id);
  return { id: spec.id, dtype: spec.dtype, dim, pooling: 'mean', normalized: true, prefixes: { query: p.query, passage: p.passage } };
}
