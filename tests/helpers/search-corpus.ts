/** The tiny corpus of the search() tests (tests/unit/search*.test.ts), with its hand-computed scores. */
import type { SourceDocument } from '../../src/lib/retrieval/document.ts';
import { ExactDenseIndex } from '../../src/lib/retrieval/dense.ts';
import { KnowledgeBase } from '../../src/lib/retrieval/knowledge-base.ts';
import type { SearchHit, SearchModels, SearchOutcome } from '../../src/lib/retrieval/search.ts';

/*
 * Tiny corpus (whole documents, titles not indexed), default BM25 k1 = 0.9, b = 0.4:
 *   a "cat dog"   b "cat fish"   c "frog lion"     every |d| = 2 = avgdl → K(d) = k1, and a tf-1 term scores exactly idf
 *   idf(cat, df 2)  = ln(1 + 1.5/2.5) = ln 1.6   = 0.47000363
 *   idf(fish, df 1) = ln(1 + 2.5/1.5) = ln(8/3)  = 0.98082925
 * "cat fish": BM25 a = 0.47000363, b = 0.47000363 + 0.98082925 = 1.45083288, c = 0
 * Dense (cosine, dim 2): a = [1,0], b = [0,1], c = [1,1]; the fake encoder always returns q = [1,0]
 *   cos: a = 1, b = 0, c = 1/√2 = 0.70710678
 */
export const S_A = 0.47000363;
export const S_B = 1.45083288;
export const COS_C = 0.70710678;

export const DOCS: SourceDocument[] = [
  { id: 'a', title: '', text: 'cat dog', meta: { year: 1990, party: 'Green' } },
  { id: 'b', title: '', text: 'cat fish', meta: { year: 2005, party: 'Blue' } },
  { id: 'c', title: '', text: 'frog lion', meta: { year: 2010, party: 'Blue' } },
];

export function makeKb(cdfQueries = 0): KnowledgeBase {
  return KnowledgeBase.build(DOCS, { chunking: false, cdfQueries, indexTitle: false });
}

export function withDense(kb: KnowledgeBase): { kb: KnowledgeBase; models: SearchModels } {
  kb.dense = new ExactDenseIndex(Float32Array.from([1, 0, 0, 1, 1, 1]), 2);
  return { kb, models: { encoder: { embedQuery: async () => Float32Array.from([1, 0]) } } };
}

export type Found = Extract<SearchOutcome, { status: 'ok' | 'rejected' }>;
export function found(r: SearchOutcome): Found {
  if (r.status !== 'ok' && r.status !== 'rejected') throw new Error(`expected hits, got ${r.status}: ${r.reason}`);
  return r;
}
export const byId = (hits: readonly SearchHit[], id: string): SearchHit => {
  const h = hits.find((x) => x.id === id);
  if (!h) throw new Error(`no hit ${id}`);
  return h;
};
