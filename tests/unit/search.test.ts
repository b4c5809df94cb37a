import { describe, expect, it } from 'vitest';
import type { SourceDocument } from '../../src/lib/retrieval/document.ts';
import { buildCdf, cdfRank } from '../../src/lib/retrieval/calibrate.ts';
import { DEFAULT_CHUNKING } from '../../src/lib/retrieval/chunk.ts';
import { ExactDenseIndex } from '../../src/lib/retrieval/dense.ts';
import { KnowledgeBase } from '../../src/lib/retrieval/knowledge-base.ts';
import { MODE_IDS, NO_EMBEDDER, type RetrievalMode } from '../../src/lib/retrieval/modes.ts';
import { DEFAULT_REJECT_THRESHOLDS } from '../../src/lib/retrieval/rejection.ts';
import {
  EMPTY_QUERY, NO_DOCS_IN_FILTER, NO_MATCH, NO_TERMS, search,
  type SearchHit, type SearchModels, type SearchOutcome,
} from '../../src/lib/retrieval/search.ts';

/*
 * Tiny corpus (whole documents, titles not indexed), default BM25 k1 = 0.9, b = 0.4:
 *   a "cat dog"   b "cat fish"   c "frog lion"     every |d| = 2 = avgdl → K(d) = k1, and a tf-1 term scores exactly idf
 *   idf(cat, df 2)  = ln(1 + 1.5/2.5) = ln 1.6   = 0.47000363
 *   idf(fish, df 1) = ln(1 + 2.5/1.5) = ln(8/3)  = 0.98082925
 * "cat fish": BM25 a = 0.47000363, b = 0.47000363 + 0.98082925 = 1.45083288, c = 0
 * Dense (cosine, dim 2): a = [1,0], b = [0,1], c = [1,1]; the fake encoder always returns q = [1,0]
 *   cos: a = 1, b = 0, c = 1/√2 = 0.70710678
 */
const S_A = 0.47000363;
const S_B = 1.45083288;
const COS_C = 0.70710678;

const DOCS: SourceDocument[] = [
  { id: 'a', title: '', text: 'cat dog', meta: { year: 1990, party: 'Green' } },
  { id: 'b', title: '', text: 'cat fish', meta: { year: 2005, party: 'Blue' } },
  { id: 'c', title: '', text: 'frog lion', meta: { year: 2010, party: 'Blue' } },
];

function makeKb(cdfQueries = 0): KnowledgeBase {
  return KnowledgeBase.build(DOCS, { chunking: false, cdfQueries, indexTitle: false });
}

function withDense(kb: KnowledgeBase): { kb: KnowledgeBase; models: SearchModels } {
  kb.dense = new ExactDenseIndex(Float32Array.from([1, 0, 0, 1, 1, 1]), 2);
  return { kb, models: { encoder: { embedQuery: async () => Float32Array.from([1, 0]) } } };
}

type Found = Extract<SearchOutcome, { status: 'ok' | 'rejected' }>;
function found(r: SearchOutcome): Found {
  if (r.status !== 'ok' && r.status !== 'rejected') throw new Error(`expected hits, got ${r.status}: ${r.reason}`);
  return r;
}
const byId = (hits: readonly SearchHit[], id: string): SearchHit => {
  const h = hits.find((x) => x.id === id);
  if (!h) throw new Error(`no hit ${id}`);
  return h;
};

describe('search: sparse mode', () => {
  it('returns BM25-ranked hits with hand-computed scores', async () => {
    const r = found(await search(makeKb(), 'cat fish', { mode: 'sparse' }));
    expect(r.status).toBe('ok');
    expect(r.hits.map((h) => h.id)).toEqual(['b', 'a']);
    expect(r.hits.map((h) => h.rank)).toEqual([1, 2]);
    expect(r.hits[0]!.score).toBeCloseTo(S_B, 6);
    expect(r.hits[0]!.sparse).toBeCloseTo(S_B, 6);
    expect(r.hits[1]!.score).toBeCloseTo(S_A, 6);
    expect(r.hits[0]!.docId).toBe('b');
    expect(r.hits[0]!.dense).toBeNull();
    expect(r.telemetry.queryTerms).toEqual(['cat', 'fish']);
    expect(r.telemetry.stages.map((s) => s.stage)).toEqual(['analyze', 'sparse', 'fuse', 'dedup', 'reject']);
    expect(r.telemetry.candidates).toEqual({ sparse: 2, dense: 0, fused: 2, afterDedup: 2, returned: 2 });
    expect(r.telemetry.queryMs).toBeGreaterThanOrEqual(0);
    expect(r.telemetry.modelMs).toBe(0);
  });

  it('without a CDF table: min-max calibration with a note', async () => {
    const r = found(await search(makeKb(0), 'cat fish', { mode: 'sparse' }));
    // min-max of [1.45083288, 0.47000363] → [1, 0]
    expect(r.hits.map((h) => h.sparseCal)).toEqual([1, 0]);
    expect(r.telemetry.calibration.sparse).toBe('minmax');
    expect(r.telemetry.calibration.note).toMatch(/No corpus-CDF table for BM25/);
  });

  it('with a CDF table (cdfQueries > 0): sparseCal = CDF rank of each BM25 score', async () => {
    const kb = makeKb(30);
    const table = kb.sparseCdf!;
    expect(table).not.toBeNull();
    const r = found(await search(kb, 'cat fish', { mode: 'sparse', rejectThreshold: 0 }));
    expect(r.hits.map((h) => h.id)).toEqual(['b', 'a']);
    expect(r.telemetry.calibration.sparse).toBe('cdf');
    expect(r.telemetry.calibration.note).toBeUndefined();
    for (const h of r.hits) expect(h.sparseCal).toBe(cdfRank(table, h.sparse!));
  });

  it('with a hand-made CDF table: calibrated values', async () => {
    const kb = makeKb(0);
    kb.data.sparseCdf = buildCdf([[0.2, 0.5, 1.0, 2.0]]);
    // N = 4, on the N + 1 = 5 grid, linear between table scores (calibrate.ts cdfRank):
    // b 1.45083288 → r = #{0.2, 0.5, 1.0} = 3, (3 + 0.45083288 / 1.0) / 5 = 0.69016658
    // a 0.47000363 → r = #{0.2} = 1, (1 + 0.27000363 / 0.3) / 5 = 0.38000242
    const r = found(await search(kb, 'cat fish', { mode: 'sparse' }));
    const cal = r.hits.map((h) => h.sparseCal!);
    expect(cal[0]).toBeCloseTo(0.69016658, 7);
    expect(cal[1]).toBeCloseTo(0.38000242, 7);
    expect(cal).toHaveLength(2);
  });

  it('confidence = share of the query idf the top item holds', async () => {
    // "cat fish": b holds cat and fish → 1
    const full = found(await search(makeKb(), 'cat fish', { mode: 'sparse' }));
    expect(full.telemetry.confidence).toBeCloseTo(1, 9);
    // "cat dog fish": top (a and b tie at 0.47000363 + 0.98082925 = 1.45083288; a first by id); a holds cat, dog
    // → (0.47000363 + 0.98082925)/(0.47000363 + 0.98082925 + 0.98082925) = 1.45083288/2.43166213 = 0.59664246
    const two = found(await search(makeKb(), 'cat dog fish', { mode: 'sparse' }));
    expect(two.hits.map((h) => h.id)).toEqual(['a', 'b']);
    expect(two.telemetry.confidence).toBeCloseTo(0.59664246, 7);
  });

  it('a weak match is rejected at threshold 0.99 and the best hits still come back', async () => {
    // "cat zebra": zebra is in no document, so it counts with n = 0: idf = ln(1 + 3.5/0.5) = ln 8 = 2.07944154
    // a holds cat only → 0.47000363/(0.47000363 + 2.07944154) = 0.47000363/2.54944517 = 0.18435526
    const r = await search(makeKb(), 'cat zebra', { mode: 'sparse', rejectThreshold: 0.99 });
    expect(r.status).toBe('rejected');
    if (r.status !== 'rejected') throw new Error('unreachable');
    expect(r.telemetry.confidence).toBeCloseTo(0.18435526, 7);
    expect(r.reason).toContain('0.184');
    expect(r.reason).toContain('0.99');
    expect(r.hits.map((h) => h.id)).toEqual(['a', 'b']); // tie at 0.47000363, by id
    expect(r.hits[0]!.sparse).toBeCloseTo(S_A, 6);
    // the same query fails the default threshold, passes 0.15, fails 0.2, and is never rejected with 0
    expect(DEFAULT_REJECT_THRESHOLDS.sparse).toBeGreaterThan(0.18435526);
    expect((await search(makeKb(), 'cat zebra', { mode: 'sparse' })).status).toBe('rejected');
    expect((await search(makeKb(), 'cat zebra', { mode: 'sparse', rejectThreshold: 0.15 })).status).toBe('ok');
    expect((await search(makeKb(), 'cat zebra', { mode: 'sparse', rejectThreshold: 0.2 })).status).toBe('rejected');
    expect((await search(makeKb(), 'cat zebra', { mode: 'sparse', rejectThreshold: 0 })).status).toBe('ok');
  });

  it('respects topK and candidateK', async () => {
    const r = found(await search(makeKb(), 'cat fish', { mode: 'sparse', topK: 1 }));
    expect(r.hits.map((h) => h.id)).toEqual(['b']);
    expect(r.telemetry.candidates.returned).toBe(1);
  });
});

describe('search: empty and unavailable outcomes', () => {
  it('empty or blank query → status empty', async () => {
    for (const q of ['', '   ', '\n\t']) {
      const r = await search(makeKb(), q);
      expect(r.status).toBe('empty');
      if (r.status !== 'empty') throw new Error('unreachable');
      expect(r.reason).toBe(EMPTY_QUERY);
      expect(r.hits).toEqual([]);
    }
  });

  it('stop-words-only or symbols-only query → empty with NO_TERMS', async () => {
    for (const q of ['the and of', '!!! ???', '😀']) {
      const r = await search(makeKb(), q, { mode: 'sparse' });
      expect(r.status).toBe('empty');
      if (r.status !== 'empty') throw new Error('unreachable');
      expect(r.reason).toBe(NO_TERMS);
      expect(r.telemetry?.queryTerms).toEqual([]);
    }
  });

  it('a query whose words occur nowhere → empty with NO_MATCH', async () => {
    const r = await search(makeKb(), 'zebra giraffe');
    expect(r.status).toBe('empty');
    if (r.status !== 'empty') throw new Error('unreachable');
    expect(r.reason).toBe(NO_MATCH);
  });

  it('dense-needing modes are unavailable, with a reason, when the KB has no dense index', async () => {
    const kb = makeKb();
    for (const mode of MODE_IDS.filter((m) => m !== 'sparse')) {
      const r = await search(kb, 'cat', { mode }, { encoder: { embedQuery: async () => Float32Array.from([1, 0]) } });
      expect(r.status, mode).toBe('unavailable');
      if (r.status !== 'unavailable') throw new Error('unreachable');
      expect(r.reason).toBe(NO_EMBEDDER);
      expect(r.telemetry).toBeNull();
      expect(r.hits).toEqual([]);
    }
  });

  it('a dense index without an encoder is also unavailable; rerank modes need a reranker', async () => {
    const { kb, models } = withDense(makeKb());
    expect((await search(kb, 'cat', { mode: 'rrf' }, {})).status).toBe('unavailable');
    const r = await search(kb, 'cat', { mode: 'hybrid_fixed_rerank' }, models);
    expect(r.status).toBe('unavailable');
    if (r.status !== 'unavailable') throw new Error('unreachable');
    expect(r.reason).toMatch(/cross-encoder/);
  });

  it('an unknown mode is unavailable', async () => {
    const r = await search(makeKb(), 'cat', { mode: 'bogus' as RetrievalMode });
    expect(r.status).toBe('unavailable');
    if (r.status !== 'unavailable') throw new Error('unreachable');
    expect(r.reason).toMatch(/Unknown retrieval mode/);
  });
});

describe('search: dense and hybrid modes with a fake dense retriever', () => {
  it('dense: cosine ranking, confidence = min(share of query idf in the best BM25 item, clamped top cosine)', async () => {
    const { kb, models } = withDense(makeKb());
    const r = found(await search(kb, 'anything at all', { mode: 'dense' }, models));
    expect(r.hits.map((h) => h.id)).toEqual(['a', 'c', 'b']);
    expect(r.hits[1]!.dense).toBeCloseTo(COS_C, 6);
    // top a = [1, 0] has cosine 1, but no item holds any of the query's words → min(0, 1) = 0
    expect(r.telemetry.confidence).toBe(0);
    expect(r.status).toBe('rejected');
    // "cat": a holds it → min(1, 1) = 1; "fish": only b holds it, the dense top is still a → min(1, cos a = 1) = 1
    expect(found(await search(kb, 'cat', { mode: 'dense' }, models)).telemetry.confidence).toBeCloseTo(1, 6);
    const fish = found(await search(kb, 'fish', { mode: 'dense' }, models));
    expect(fish.hits[0]!.id).toBe('a');
    expect(fish.telemetry.confidence).toBeCloseTo(1, 6);
    // "cat zebra": the best BM25 item (a) holds cat only → 0.47000363/(0.47000363 + 2.07944154) = 0.18435526
    expect(found(await search(kb, 'cat zebra', { mode: 'dense' }, models)).telemetry.confidence).toBeCloseTo(0.18435526, 7);
    // a stop-word-only query has only the cosine → 1
    expect(found(await search(kb, 'the of and', { mode: 'dense' }, models)).telemetry.confidence).toBeCloseTo(1, 6);
    const stages = r.telemetry.stages;
    expect(stages.map((s) => s.stage)).toEqual(['analyze', 'embed', 'dense', 'fuse', 'dedup', 'reject']);
    expect(stages.find((s) => s.stage === 'embed')!.model).toBe(true);
  });

  it('rrf: Σ 1/(60 + rank) over the BM25 and dense lists', async () => {
    const { kb, models } = withDense(makeKb());
    const r = found(await search(kb, 'cat fish', { mode: 'rrf' }, models));
    // BM25 list [b, a]; dense list [a, c, b]
    // a = 1/62 + 1/61 = 0.03252247; b = 1/61 + 1/63 = 0.03226646; c = 1/62 = 0.01612903
    expect(r.hits.map((h) => h.id)).toEqual(['a', 'b', 'c']);
    expect(r.hits[0]!.score).toBeCloseTo(0.03252247, 8);
    expect(r.hits[1]!.score).toBeCloseTo(0.03226646, 8);
    expect(r.hits[2]!.score).toBeCloseTo(0.01612903, 8);
    // every candidate carries both raw scores
    expect(byId(r.hits, 'c').sparse).toBe(0);
    expect(byId(r.hits, 'c').dense).toBeCloseTo(COS_C, 6);
    expect(byId(r.hits, 'a').sparse).toBeCloseTo(S_A, 6);
    // confidence: the best BM25 item b holds all of "cat fish" → 1; the top a has cosine 1 → min = 1
    expect(r.telemetry.confidence).toBeCloseTo(1, 6);
    expect(r.telemetry.candidates).toEqual({ sparse: 2, dense: 3, fused: 3, afterDedup: 3, returned: 3 });
    expect(r.telemetry.modelMs).toBeGreaterThanOrEqual(0);
  });

  it('rrf with a stop-word-only query uses the dense list alone', async () => {
    const { kb, models } = withDense(makeKb());
    const r = found(await search(kb, 'the of and', { mode: 'rrf' }, models));
    expect(r.telemetry.queryTerms).toEqual([]);
    expect(r.telemetry.candidates.sparse).toBe(0);
    // dense [a, c, b] → 1/61, 1/62, 1/63
    expect(r.hits.map((h) => h.id)).toEqual(['a', 'c', 'b']);
    expect(r.hits[2]!.score).toBeCloseTo(1 / 63, 10);
    expect(r.hits.every((h) => h.sparse === 0)).toBe(true);
  });

  it('hybrid_fixed: α·minmax(BM25) + (1 − α)·minmax(dense), α = 0.5', async () => {
    const { kb, models } = withDense(makeKb());
    const r = found(await search(kb, 'cat fish', { mode: 'hybrid_fixed' }, models));
    // minmax BM25: b 1, a 0.47000363/1.45083288 = 0.32395435, c 0; minmax dense: a 1, c 0.70710678, b 0
    // a = 0.5·(0.32395435 + 1) = 0.66197718; b = 0.5·1 = 0.5; c = 0.5·0.70710678 = 0.35355339
    expect(r.hits.map((h) => h.id)).toEqual(['a', 'b', 'c']);
    expect(r.hits[0]!.score).toBeCloseTo(0.66197718, 6);
    expect(r.hits[1]!.score).toBeCloseTo(0.5, 6);
    expect(r.hits[2]!.score).toBeCloseTo(0.35355339, 6);
    expect(byId(r.hits, 'a').sparseCal).toBeCloseTo(0.32395435, 6);
    expect(byId(r.hits, 'c').denseCal).toBeCloseTo(COS_C, 6);
    expect(r.telemetry.alpha).toBe(0.5);
    expect(r.telemetry.calibration.sparse).toBe('minmax');
    expect(r.telemetry.calibration.dense).toBe('minmax');
    expect(r.telemetry.hSparse).toBeNull();
    // min(idf share of the best BM25 item b = 1, cosine of the top a = 1), not the (relative) fused score
    expect(r.telemetry.confidence).toBeCloseTo(1, 6);
    // "cat zebra": BM25 best a holds cat only → 0.18435526; the top's cosine is 1 → min = 0.18435526
    expect(found(await search(kb, 'cat zebra', { mode: 'hybrid_fixed' }, models)).telemetry.confidence).toBeCloseTo(0.18435526, 7);
  });

  it('hybrid_fixed honours a custom α', async () => {
    const { kb, models } = withDense(makeKb());
    const r = found(await search(kb, 'cat fish', { mode: 'hybrid_fixed', alpha: 0.2 }, models));
    // a = 0.2·0.32395435 + 0.8·1 = 0.86479087; c = 0.8·0.70710678 = 0.56568542; b = 0.2·1 = 0.2
    expect(r.hits.map((h) => h.id)).toEqual(['a', 'c', 'b']);
    expect(r.hits[0]!.score).toBeCloseTo(0.86479087, 6);
    expect(r.hits[1]!.score).toBeCloseTo(0.56568542, 6);
    expect(r.hits[2]!.score).toBeCloseTo(0.2, 6);
    expect(r.telemetry.alpha).toBe(0.2);
  });

  it('hybrid_calibrated (seed B): H over each retriever\'s own min-max-calibrated candidates when there are no CDF tables', async () => {
    const { kb, models } = withDense(makeKb(0));
    const r = found(await search(kb, 'cat fish', { mode: 'hybrid_calibrated' }, models));
    // BM25's own list [b 1.45083288, a 0.47000363] → minmax [1, 0] → p = [1, 0] → H_sparse = 0
    // dense's own list [a 1, c 0.70710678, b 0] → minmax [1, 0.70710678, 0] → p = [0.58578644, 0.41421356, 0]
    //   → H_dense = 0.58578644·0.77155307 + 0.41421356·1.27155307 = 0.97866008
    // α = 0.97866008 / (0.97866008 + 0 + 1e-9) = 0.999999999
    expect(r.telemetry.hSparse).toBe(0);
    expect(r.telemetry.hDense).toBeCloseTo(0.97866008, 6);
    expect(r.telemetry.alpha).toBeCloseTo(0.999999999, 9);
    expect(r.telemetry.entropy).toEqual({ basis: 'calibrated', sparse: 'minmax', dense: 'minmax', k: 20 });
    expect(r.telemetry.calibration).toMatchObject({ requested: 'cdf', sparse: 'minmax', dense: 'minmax' });
    expect(r.telemetry.calibration.note).toMatch(/BM25.*dense/s);
    // fused over the union's minmax scores: b = α·1 ≈ 1; a = α·0.32395435 + (1 − α)·1 ≈ 0.32395435; c = (1 − α)·0.707 ≈ 0
    expect(r.hits.map((h) => h.id)).toEqual(['b', 'a', 'c']);
    expect(r.hits[0]!.score).toBeCloseTo(1, 6);
    expect(r.hits[1]!.score).toBeCloseTo(0.32395435, 6);
    expect(r.hits[2]!.score).toBeCloseTo(0, 6);
  });

  it('hybrid_calibrated with entropy basis raw: H of the raw candidate scores (the analysis variant)', async () => {
    const { kb, models } = withDense(makeKb(0));
    const r = found(await search(kb, 'cat fish', { mode: 'hybrid_calibrated', entropyBasis: 'raw' }, models));
    // H_sparse of raw BM25 [1.45083288, 0.47000363]: p = [0.75531305, 0.24468695]
    //   = 0.75531305·0.40484667 + 0.24468695·2.03099267 = 0.30578... + 0.49696... = 0.80274802
    // H_dense of raw cosine [1, 0.70710678, 0]: p = [0.58578644, 0.41421356, 0]
    //   = 0.58578644·0.77155307 + 0.41421356·1.27155307 = 0.45196... + 0.52669... = 0.97866008
    // α = 0.97866008/(0.97866008 + 0.80274802) = 0.54937444
    const ALPHA = 0.54937444;
    expect(r.telemetry.hSparse).toBeCloseTo(0.80274802, 6);
    expect(r.telemetry.hDense).toBeCloseTo(0.97866008, 6);
    expect(r.telemetry.alpha).toBeCloseTo(ALPHA, 6);
    expect(r.telemetry.entropy).toEqual({ basis: 'raw', sparse: 'raw', dense: 'raw', k: 20 });
    // a = α·0.32395435 + (1 − α)·1 = 0.62859780; b = α·1 = 0.54937444; c = (1 − α)·0.70710678 = 0.31864039
    expect(r.hits.map((h) => h.id)).toEqual(['a', 'b', 'c']);
    expect(r.hits[0]!.score).toBeCloseTo(0.6285978, 6);
    expect(r.hits[1]!.score).toBeCloseTo(0.54937444, 6);
    expect(r.hits[2]!.score).toBeCloseTo(0.31864039, 6);
    // min(idf share of the best BM25 item b = 1, cosine of the top a = 1)
    expect(r.telemetry.confidence).toBeCloseTo(1, 6);
  });

  it('hybrid_calibrated with CDF tables on both sides: H of the CDF-calibrated candidates', async () => {
    const { kb, models } = withDense(makeKb(0));
    kb.data.sparseCdf = buildCdf([[0.2, 0.5, 1.0, 2.0]]);
    kb.denseCdf = buildCdf([[0, 0.5, 1]]);
    const r = found(await search(kb, 'cat fish', { mode: 'hybrid_calibrated' }, models));
    // sparse CDF (N = 4, w = 1.8): a 0.47000363 → (1 + 0.27000363 / 0.3) / 5 = 0.38000242,
    //   b 1.45083288 → (3 + 0.45083288) / 5 = 0.69016658, c 0 (below 0.2) → (1.8 / (1.8 + 0.2)) / 5 = 0.18;
    // dense CDF (N = 3, w = 1): a 1 → r = N: (4 − 1 / 1) / 4 = 0.75, b 0 → 1/4, c 0.70710678 → (2 + 0.20710678 / 0.5) / 4 = 0.60355339
    // H_sparse = H([0.69016658, 0.38000242]) = 0.93852876 (BM25's own list b, a)
    // H_dense = H([0.75, 0.60355339, 0.25]) = 1.46137401 (dense's own list a, c, b)
    // α = 1.46137401 / (1.46137401 + 0.93852876) = 0.60893051
    // a = α·0.38000242 + (1 − α)·0.75 = 0.52469719; b = α·0.69016658 + (1 − α)·0.25 = 0.51803086; c = α·0.18 + (1 − α)·0.60355339 = 0.34563881
    expect(r.telemetry.hSparse).toBeCloseTo(0.93852876, 7);
    expect(r.telemetry.hDense).toBeCloseTo(1.46137401, 7);
    expect(r.telemetry.alpha).toBeCloseTo(0.60893051, 7);
    expect(r.telemetry.calibration).toEqual({ requested: 'cdf', sparse: 'cdf', dense: 'cdf' });
    expect(r.telemetry.entropy).toEqual({ basis: 'calibrated', sparse: 'cdf', dense: 'cdf', k: 20 });
    expect(byId(r.hits, 'a').sparseCal).toBeCloseTo(0.38000242, 7);
    expect(byId(r.hits, 'b').denseCal).toBeCloseTo(0.25, 12);
    expect(byId(r.hits, 'c').denseCal).toBeCloseTo(0.60355339, 7);
    expect(r.hits.map((h) => h.id)).toEqual(['a', 'b', 'c']);
    expect(r.hits[0]!.score).toBeCloseTo(0.52469719, 6);
    expect(r.hits[1]!.score).toBeCloseTo(0.51803086, 6);
    expect(r.hits[2]!.score).toBeCloseTo(0.34563881, 6);
  });

  it('hybrid_calibrated takes H over the top candidateK only; growPool false keeps exactly candidateK candidates', async () => {
    const { kb, models } = withDense(makeKb(0));
    const r = found(await search(kb, 'cat fish', { mode: 'hybrid_calibrated', candidateK: 1, topK: 3, growPool: false }, models));
    // one candidate per retriever: BM25 b, dense a → each H of one item = 0 → α = 0 / (0 + 0 + ε) = 0
    expect(r.telemetry.candidates).toMatchObject({ sparse: 1, dense: 1, fused: 2 });
    expect(r.telemetry.hSparse).toBe(0);
    expect(r.telemetry.hDense).toBe(0);
    expect(r.telemetry.alpha).toBe(0);
    const grown = found(await search(kb, 'cat fish', { mode: 'hybrid_calibrated', candidateK: 1, topK: 3 }, models));
    expect(grown.telemetry.candidates.fused).toBe(3);
  });

  it('hybrid_calibrated with z-scores: the confidence comes from the top item, not the unbounded fused score', async () => {
    const { kb, models } = withDense(makeKb());
    const r = found(await search(kb, 'cat fish', { mode: 'hybrid_calibrated', calibration: 'zscore', rejectThreshold: 0.99 }, models));
    // H of the z-scored own lists (softmax: negative values): BM25 [b, a] → z [1, −1] → H_sparse 0.52706534;
    //   dense [a, c, b] → z [1.027, 0.329, −1.356] → H_dense 1.18374379; α = 0.69192043
    // union z(BM25) a −0.282, b 1.341, c −1.059; z(cos) a 1.027, b −1.356, c 0.329 → a 0.121, b 0.510, c −0.632
    expect(r.telemetry.alpha).toBeCloseTo(0.69192043, 7);
    expect(r.hits.map((h) => h.id)).toEqual(['b', 'a', 'c']);
    expect(r.hits[0]!.score).toBeCloseTo(0.51026618, 6);
    // min(idf share of the best BM25 item b = 1, cosine of the top b = 0) = 0: rejected although its fused score is 0.51
    expect(r.telemetry.confidence).toBeCloseTo(0, 6);
    expect(r.status).toBe('rejected');
  });

  it('hybrid_fixed_rerank: reorders by reranker logits; confidence = sigmoid(top logit)', async () => {
    const { kb, models } = withDense(makeKb());
    const logit: Record<string, number> = { 'frog lion': 5, 'cat dog': 1, 'cat fish': -1 };
    const r = found(await search(kb, 'cat fish', { mode: 'hybrid_fixed_rerank' }, {
      ...models,
      reranker: { rerank: async (_q, passages) => passages.map((p) => logit[p] ?? 0) },
    }));
    expect(r.hits.map((h) => h.id)).toEqual(['c', 'a', 'b']);
    expect(r.hits.map((h) => h.rerank)).toEqual([5, 1, -1]);
    // the best BM25 item b holds all of "cat fish" → 1; top c: sigmoid(5) = 1/(1 + e^−5) = 0.99330715 → min = 0.99330715
    expect(r.telemetry.confidence).toBeCloseTo(0.99330715, 7);
    // with b on top: min(1, sigmoid(2) = 1/(1 + e^−2) = 0.88079708)
    const toB: Record<string, number> = { 'frog lion': -3, 'cat dog': 1, 'cat fish': 2 };
    const rb = found(await search(kb, 'cat fish', { mode: 'hybrid_fixed_rerank' }, {
      ...models,
      reranker: { rerank: async (_q, passages) => passages.map((p) => toB[p] ?? 0) },
    }));
    expect(rb.hits[0]!.id).toBe('b');
    expect(rb.telemetry.confidence).toBeCloseTo(0.88079708, 7);
    expect(r.telemetry.stages.filter((s) => s.model).map((s) => s.stage)).toEqual(['embed', 'rerank']);
  });
});

describe('search: filters and dedup', () => {
  it('filters restrict sparse results and report the number of passing documents', async () => {
    const r = found(await search(makeKb(), 'cat', { mode: 'sparse', filters: [{ field: 'year', min: 2000 }] }));
    expect(r.hits.map((h) => h.id)).toEqual(['b']);
    expect(r.telemetry.filteredDocs).toBe(2); // b 2005, c 2010
    const party = found(await search(makeKb(), 'cat', { mode: 'sparse', filters: [{ field: 'party', values: ['Green'] }] }));
    expect(party.hits.map((h) => h.id)).toEqual(['a']);
  });

  it('filters restrict both lists before fusion', async () => {
    const { kb, models } = withDense(makeKb());
    const r = found(await search(kb, 'cat', { mode: 'rrf', filters: [{ field: 'year', min: 2000 }] }, models));
    // BM25 list [b]; dense list over {b, c}: [c (0.707), b (0)]
    // b = 1/61 + 1/62 = 0.03252247; c = 1/61 = 0.01639344
    expect(r.hits.map((h) => h.id)).toEqual(['b', 'c']);
    expect(r.hits[0]!.score).toBeCloseTo(0.03252247, 8);
    expect(r.hits[1]!.score).toBeCloseTo(0.01639344, 8);
  });

  it('a filter no document passes → empty with NO_DOCS_IN_FILTER', async () => {
    const r = await search(makeKb(), 'cat', { filters: [{ field: 'year', min: 3000 }] });
    expect(r.status).toBe('empty');
    if (r.status !== 'empty') throw new Error('unreachable');
    expect(r.reason).toBe(NO_DOCS_IN_FILTER);
    expect(r.telemetry?.filteredDocs).toBe(0);
  });

  it('dedup keeps one chunk (the best) per document', async () => {
    const long = Array.from({ length: 8 }, (_, i) => `Cat item${i} alpha beta gamma.`).join(' ');
    const docs: SourceDocument[] = [
      { id: 'long', title: '', text: long },
      { id: 'short', title: '', text: 'A cat here.' },
    ];
    const kb = KnowledgeBase.build(docs, { chunking: { ...DEFAULT_CHUNKING, chunkSize: 40, overlap: 0 }, cdfQueries: 0, indexTitle: false });
    expect(kb.size).toBeGreaterThan(3);
    const all = found(await search(kb, 'cat', { mode: 'sparse', dedup: false, topK: 50 }));
    expect(all.hits.length).toBe(kb.size);
    expect(all.hits.filter((h) => h.docId === 'long').length).toBeGreaterThan(1);
    const one = found(await search(kb, 'cat', { mode: 'sparse', dedup: true, topK: 50 }));
    expect(one.hits.map((h) => h.docId).sort()).toEqual(['long', 'short']);
    expect(one.telemetry.candidates.afterDedup).toBe(2);
    // each kept chunk is the best-ranked chunk of its document in the undeduplicated ranking
    for (const h of one.hits) expect(h.id).toBe(all.hits.find((x) => x.docId === h.docId)!.id);
    expect(one.hits.map((h) => h.rank)).toEqual([1, 2]);
  });
});

describe("search: seed A's separate k's (bm25_k, dense_k, fusion_top_k)", () => {
  it('each retriever gives its own k; fusion_top_k cuts the fused list; the defaults are candidate_k for both', async () => {
    const { kb, models } = withDense(makeKb());
    // bm25_k 1: BM25 [b]; dense_k 2: dense [a, c] → RRF a = 1/61, b = 1/61, c = 1/62 (a before b on the id)
    const r = found(await search(kb, 'cat fish', { mode: 'rrf', bm25K: 1, denseK: 2, growPool: false }, models));
    expect(r.telemetry.candidates).toMatchObject({ sparse: 1, dense: 2, fused: 3 });
    expect(r.hits.map((h) => h.id)).toEqual(['a', 'b', 'c']);
    expect(r.hits[0]!.score).toBeCloseTo(1 / 61, 10);
    expect(r.hits[2]!.score).toBeCloseTo(1 / 62, 10);
    // fusion_top_k 2: only the two best fused candidates go on to top_k
    const cut = found(await search(kb, 'cat fish', { mode: 'rrf', bm25K: 1, denseK: 2, fusionTopK: 2, growPool: false }, models));
    expect(cut.hits.map((h) => h.id)).toEqual(['a', 'b']);
    expect(cut.telemetry.candidates.fused).toBe(2);
    // bm25_k / dense_k absent: candidate_k for both (today's behaviour)
    const same = found(await search(kb, 'cat fish', { mode: 'rrf', candidateK: 1, growPool: false }, models));
    const both = found(await search(kb, 'cat fish', { mode: 'rrf', bm25K: 1, denseK: 1, candidateK: 50, growPool: false }, models));
    expect(both.hits.map((h) => [h.id, h.score])).toEqual(same.hits.map((h) => [h.id, h.score]));
    expect(same.telemetry.candidates).toMatchObject({ sparse: 1, dense: 1 });
  });

  it("hybrid_calibrated's entropies are each retriever's own top k (seed B's formula over bm25_k and dense_k)", async () => {
    const { kb, models } = withDense(makeKb());
    const split = found(await search(kb, 'cat fish', { mode: 'hybrid_calibrated', calibration: 'minmax', bm25K: 1, denseK: 3, growPool: false }, models));
    const dense3 = found(await search(kb, 'cat fish', { mode: 'hybrid_calibrated', calibration: 'minmax', candidateK: 3, growPool: false }, models));
    // one BM25 score carries no uncertainty: H_sparse = 0, so α = H_dense / (H_dense + 0 + ε) ≈ 1
    expect(split.telemetry.hSparse).toBe(0);
    expect(split.telemetry.hDense).toBeCloseTo(dense3.telemetry.hDense!, 12);
    expect(split.telemetry.alpha).toBeCloseTo(1, 6);
    expect(split.telemetry.entropy).toMatchObject({ k: 1, kDense: 3 });
    expect(dense3.telemetry.entropy).not.toHaveProperty('kDense');
  });

  it('rerank modes: fusion_top_k is the pool the cross-encoder scores', async () => {
    const { kb, models } = withDense(makeKb());
    const seen: number[] = [];
    const reranker = { rerank: async (_q: string, ps: readonly string[]) => { seen.push(ps.length); return ps.map((_, i) => -i); } };
    await search(kb, 'cat fish', { mode: 'hybrid_fixed_rerank', fusionTopK: 2 }, { ...models, reranker });
    await search(kb, 'cat fish', { mode: 'hybrid_fixed_rerank' }, { ...models, reranker });
    expect(seen).toEqual([2, 3]);
  });
});
