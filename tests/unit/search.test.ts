import { describe, expect, it } from 'vitest';
import type { SourceDocument } from '../../src/lib/retrieval/document.ts';
import { buildCdf, cdfRank } from '../../src/lib/retrieval/calibrate.ts';
import { DEFAULT_CHUNKING } from '../../src/lib/retrieval/chunk.ts';
import { KnowledgeBase } from '../../src/lib/retrieval/knowledge-base.ts';
import { MODE_IDS, NO_EMBEDDER, type RetrievalMode } from '../../src/lib/retrieval/modes.ts';
import { DEFAULT_REJECT_THRESHOLDS } from '../../src/lib/retrieval/rejection.ts';
import { EMPTY_QUERY, NO_DOCS_IN_FILTER, NO_MATCH, NO_TERMS, search } from '../../src/lib/retrieval/search.ts';
import { found, makeKb, S_A, S_B, withDense } from '../helpers/search-corpus.ts';

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
