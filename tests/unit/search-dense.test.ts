// search() in the dense and hybrid modes with a fake dense retriever (the corpus and its scores: tests/helpers/search-corpus.ts).
import { describe, expect, it } from 'vitest';
import { buildCdf } from '../../src/lib/retrieval/calibrate.ts';
import { search } from '../../src/lib/retrieval/search.ts';
import { byId, COS_C, found, makeKb, S_A, withDense } from '../helpers/search-corpus.ts';

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
