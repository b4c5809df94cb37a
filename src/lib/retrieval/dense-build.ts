/**
 * The dense side of a knowledge base: item embeddings computed in batches with progress, and the corpus-CDF
 * table of query–item similarities from pseudo-queries (seed B scored 100 sample queries against every chunk).
 */
import { buildCdf, type CdfTable } from './calibrate.ts';
import type { DenseRetriever } from './dense.ts';
import { samplePseudoQueries, type KnowledgeBase } from './knowledge-base.ts';
import { checkVectors, DENSE_OFF_SHARE, zeroRows } from './vector-check.ts';

/** What embedding a knowledge base's items needs of a model (models/ TextEmbedder is one). */
export interface ItemEmbedder {
  embed(texts: readonly string[], kind: 'query' | 'passage'): Promise<Float32Array>;
}

/** Texts per embedder call when embedding a knowledge base's items (EmbedItemsOptions.batchSize's default). */
export const EMBED_CALL_SIZE = 128;

export interface EmbedItemsOptions {
  /**
   * Texts per model call. Default EMBED_CALL_SIZE: the embedder runs them 8 per forward pass, fewest tokens first,
   * so calls larger than a pass let it group similar lengths (padding share: docs/internals/models.md).
   */
  batchSize?: number;
  onProgress?: (done: number, total: number) => void;
  signal?: AbortSignal;
}

/**
 * Embeds every item's indexed text (title line + chunk, as BM25 sees it) as a passage; row-major n × dim. Rows of
 * NaN or all zeros never go on silently (every index and artifact is built from here): above half of the rows the
 * embedder does not fit this corpus (a corpus-trained model of another one, say) and nothing is built; fewer are
 * zeroed and counted in `unusable` (the dense loader leaves them out of search with a note).
 */
export async function embedItems(kb: KnowledgeBase, embedder: ItemEmbedder, opts: EmbedItemsOptions = {}): Promise<{ vectors: Float32Array; dim: number; unusable: number }> {
  const batch = opts.batchSize ?? EMBED_CALL_SIZE;
  const parts: Float32Array[] = [];
  let dim = 0;
  for (let from = 0; from < kb.size; from += batch) {
    opts.signal?.throwIfAborted();
    const texts = [];
    for (let i = from; i < Math.min(kb.size, from + batch); i++) texts.push(kb.indexedText(i));
    const v = await embedder.embed(texts, 'passage');
    dim = v.length / texts.length;
    parts.push(v);
    opts.onProgress?.(Math.min(kb.size, from + batch), kb.size);
  }
  const vectors = new Float32Array(kb.size * dim);
  let at = 0;
  for (const p of parts) { vectors.set(p, at); at += p.length; }
  const health = checkVectors(vectors, dim);
  if (health.rows > 0 && health.badCount > health.rows * DENSE_OFF_SHARE) {
    throw new Error(`the embedder gave NaN or all-zero vectors for ${health.badCount.toLocaleString('en-US')} of ${health.rows.toLocaleString('en-US')} chunks (more than half): it does not fit this corpus (a model trained on another corpus?), so no dense index was built`);
  }
  if (health.bad) zeroRows(vectors, dim, health.bad);
  return { vectors, dim, unusable: health.badCount };
}

/** Corpus-CDF table of dense similarities: `queries` pseudo-queries embedded as queries, scored against every item. */
export async function denseCdfTable(kb: KnowledgeBase, dense: DenseRetriever, embedder: ItemEmbedder, queries: number, seed: number): Promise<CdfTable | null> {
  const sample = samplePseudoQueries(kb.size, (i) => kb.itemText(i), queries, seed + 1);
  if (sample.length === 0) return null;
  const all = Array.from({ length: kb.size }, (_, i) => i);
  const vecs = await embedder.embed(sample, 'query');
  const dim = vecs.length / sample.length;
  const lists = sample.map((_, q) => dense.scoreItems(vecs.subarray(q * dim, (q + 1) * dim), all));
  return buildCdf(lists);
}
