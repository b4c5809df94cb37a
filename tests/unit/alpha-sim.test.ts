import { describe, expect, it } from 'vitest';
import type { SourceDocument } from '../../src/lib/retrieval/document.ts';
import { fusionCandidates, simulateFusion, sliderWeights, type FusionCandidates } from '../../src/lib/retrieval/alpha-sim.ts';
import { ndcgAt } from '../../src/lib/stats/ir-metrics.ts';
import { queryPredictors } from '../../src/lib/eval/analysis/qpp.ts';
import { seededRandom } from '../../src/lib/random.ts';
import { CALIBRATIONS } from '../../src/lib/retrieval/calibrate.ts';
import { ExactDenseIndex } from '../../src/lib/retrieval/dense.ts';
import { KnowledgeBase } from '../../src/lib/retrieval/knowledge-base.ts';
import { search, type SearchOutcome } from '../../src/lib/retrieval/search.ts';

describe('sliderWeights', () => {
  it('gives α = H_dense / (H_dense + H_sparse + ε) and the weights α, 1 − α', () => {
    const w = sliderWeights(1, 3);
    expect(w.alpha).toBeCloseTo(0.25, 9);
    expect(w.sparse).toBe(w.alpha);
    expect(w.dense).toBeCloseTo(0.75, 9);
    // a flat dense list (high H_dense) moves weight to BM25
    expect(sliderWeights(4, 1).sparse).toBeGreaterThan(sliderWeights(1, 4).sparse);
    expect(sliderWeights(0, 0)).toEqual({ alpha: 0, sparse: 0, dense: 1 });
    expect(sliderWeights(2, 0).alpha).toBeCloseTo(1, 8);
  });
  it('refuses negative or non-finite entropies', () => {
    expect(() => sliderWeights(-1, 2)).toThrow(/finite and ≥ 0/);
    expect(() => sliderWeights(1, NaN)).toThrow(/finite and ≥ 0/);
  });
});

/** Hand-made candidates: doc x has two items; raw scores double as every calibration's for simplicity. */
function handCandidates(): FusionCandidates {
  const item = (id: string, docId: string, sparse: number, dense: number) => ({
    id, docId, title: `T ${docId}`, sparse, dense,
    cal: Object.fromEntries(CALIBRATIONS.map((c) => [c, { sparse, dense }])) as FusionCandidates['candidates'][number]['cal'],
  });
  return {
    queryId: 'q', query: 'q', candidateK: 2, k: { sparse: 2, dense: 2 },
    candidates: [item('x#0', 'x', 1, 0), item('x#1', 'x', 0.2, 0.9), item('y', 'y', 0.6, 0.6), item('z', 'z', 0, 1)],
    gold: { y: 2, z: 1, w: 1 },
    entropy: Object.fromEntries(CALIBRATIONS.map((c) => [c, { sparse: 1, dense: 1, alpha: 0.5 }])) as FusionCandidates['entropy'],
    modeAlpha: 0.5, calibration: 'cdf', basis: 'calibrated',
  };
}

describe('simulateFusion (hand-made candidates)', () => {
  it('fuses, sorts score desc then id asc, keeps each document\'s best item, and scores NDCG@10', () => {
    // α = 0.5: x#0 0.5, x#1 0.55, y 0.6, z 0.5 → y 0.6, x (x#1 0.55), then x#0 and z tie at 0.5: x#0 < z by id, x#0 dropped (x seen)
    const s = simulateFusion(handCandidates(), 0.5, 'raw');
    expect(s.top.map((t) => [t.rank, t.docId, t.title, t.gold])).toEqual([[1, 'y', 'T y', 2], [2, 'x', 'T x', null], [3, 'z', 'T z', 1]]);
    expect(s.top[0]!.score).toBeCloseTo(0.6, 12);
    expect(s.top[1]!.score).toBeCloseTo(0.55, 12);
    // DCG = 2/log2 2 + 1/log2 4 = 2.5; IDCG (grades 2, 1, 1) = 2 + 1/log2 3 + 1/log2 4
    expect(s.ndcg10).toBeCloseTo(2.5 / (2 + 1 / Math.log2(3) + 0.5), 12);
    expect(s.goldRanks).toEqual([{ docId: 'y', grade: 2, rank: 1 }, { docId: 'w', grade: 1, rank: null }, { docId: 'z', grade: 1, rank: 3 }]);
  });
  it('α = 1 ranks by the sparse side, α = 0 by the dense side', () => {
    expect(simulateFusion(handCandidates(), 1, 'raw').top.map((t) => t.docId)).toEqual(['x', 'y', 'z']);
    expect(simulateFusion(handCandidates(), 0, 'raw').top.map((t) => t.docId)).toEqual(['z', 'x', 'y']);
    // dense first: z 1, x#1 0.9, y 0.6 → DCG = 1 + 2/log2 4 = 2
    expect(simulateFusion(handCandidates(), 0, 'raw').ndcg10).toBeCloseTo(2 / (2 + 1 / Math.log2(3) + 0.5), 12);
  });
  it('refuses α outside [0, 1]', () => {
    expect(() => simulateFusion(handCandidates(), 1.2, 'raw')).toThrow(/α must be in \[0, 1\]/);
    expect(() => simulateFusion(handCandidates(), NaN, 'raw')).toThrow(/α must be in \[0, 1\]/);
  });
});

/*
 * A toy knowledge base of 24 whole documents with seeded words and 4-d vectors; candidateK 10 < 24, so the union
 * of the two top-10 lists is a real union, and search's first round (pool = max(candidateK, topK) = 10) is final.
 */
const WORDS = ['cat', 'dog', 'fish', 'frog', 'owl', 'bird', 'lion', 'tiger', 'wolf', 'bear', 'deer', 'mouse'];
function toyKb(cdfQueries: number, withDenseCdf: boolean, withYear = false): KnowledgeBase {
  const rand = seededRandom(21);
  const docs: SourceDocument[] = Array.from({ length: 24 }, (_, i) => ({
    id: `d${String(i).padStart(2, '0')}`, title: `Doc ${i}`, ...(withYear ? { meta: { year: 1900 + i } } : {}),
    text: Array.from({ length: 3 + Math.floor(rand() * 6) }, () => WORDS[Math.floor(rand() * WORDS.length)]).join(' '),
  }));
  const kb = KnowledgeBase.build(docs, { chunking: false, cdfQueries, indexTitle: false });
  kb.dense = new ExactDenseIndex(Float32Array.from({ length: 24 * 4 }, () => rand() * 2 - 1), 4);
  if (withDenseCdf) {
    const sample = Array.from({ length: 20 }, () => Float32Array.from({ length: 4 }, () => rand() * 2 - 1));
    kb.denseCdf = { sorted: Float64Array.from(sample.flatMap((q) => kb.dense!.search(q, 24, kb.itemId).map((h) => h.score))).sort(), count: 480, queries: 20 };
  }
  return kb;
}
const QVEC = Float32Array.from([0.9, -0.2, 0.4, 0.1]);
const QRELS = new Map([['d03', 2], ['d07', 1], ['d11', 1], ['d20', 0]]);
const models = { encoder: { embedQuery: async () => QVEC } };
const K = 10;
const docIds = (r: SearchOutcome) => {
  if (r.status !== 'ok' && r.status !== 'rejected') throw new Error(`search: ${r.status}`);
  return r.hits.map((h) => h.docId);
};

describe('fusionCandidates on a toy knowledge base', () => {
  const cases: Array<[string, number, boolean]> = [['no tables', 0, false], ['corpus tables', 40, true]];
  for (const [label, cdfQueries, denseCdf] of cases) {
    for (const q of ['cat dog', 'owl lion bear', 'mouse']) {
      it(`at modeAlpha ranks as hybrid_calibrated does, for every calibration (${label}, "${q}")`, async () => {
        const kb = toyKb(cdfQueries, denseCdf);
        for (const [cal, basis] of CALIBRATIONS.flatMap((x) => [[x, 'calibrated'], [x, 'raw']] as const)) {
          const c = fusionCandidates(kb, { id: 'q1', text: q }, QVEC, QRELS, K, { calibration: cal, basis });
          expect(c.candidates.length).toBeGreaterThan(K);
          expect(new Set(c.candidates.map((x) => x.id)).size).toBe(c.candidates.length);
          const r = await search(kb, q, { mode: 'hybrid_calibrated', calibration: cal, entropyBasis: basis, candidateK: K, topK: 10, dedup: true, rejectThreshold: 0 }, models);
          if (r.status !== 'ok') throw new Error(`search: ${r.status}`);
          expect(c.modeAlpha).toBe(r.telemetry.alpha);
          expect(c.modeAlpha).toBe(c.entropy[basis === 'raw' ? 'raw' : cal].alpha);
          const sim = simulateFusion(c, c.modeAlpha, cal);
          expect(sim.top.map((t) => t.docId)).toEqual(docIds(r));
          sim.top.forEach((t, i) => expect(t.score).toBeCloseTo(r.hits[i]!.score, 12));
          expect(sim.ndcg10).toBeCloseTo(ndcgAt(docIds(r), QRELS, 10), 12);
        }
      });
    }
  }

  it("honours the search's filters: candidates only from the documents they keep, ranked as the filtered search", async () => {
    const kb = toyKb(40, true, true);
    const filters = [{ field: 'year', max: 1911 }];
    for (const q of ['cat dog', 'owl lion bear']) {
      const c = fusionCandidates(kb, { id: 'q1', text: q }, QVEC, QRELS, K, { calibration: 'cdf', filters });
      expect(c.candidates.length).toBeGreaterThan(0);
      for (const x of c.candidates) expect(Number(x.docId.slice(1)), x.docId).toBeLessThanOrEqual(11);
      const r = await search(kb, q, { mode: 'hybrid_calibrated', calibration: 'cdf', candidateK: K, topK: 10, dedup: true, rejectThreshold: 0, filters }, models);
      expect(c.modeAlpha).toBe(r.status === 'ok' ? r.telemetry.alpha : NaN);
      expect(simulateFusion(c, c.modeAlpha, 'cdf').top.map((t) => t.docId)).toEqual(docIds(r));
      // unfiltered, the same query draws on documents past 1911
      expect(fusionCandidates(kb, { id: 'q1', text: q }, QVEC, QRELS, K, { calibration: 'cdf' }).candidates.some((x) => Number(x.docId.slice(1)) > 11)).toBe(true);
    }
  });

  it("with bm25_k and dense_k apart, each list is its own depth and modeAlpha is still the search's α", async () => {
    const kb = toyKb(40, true);
    for (const q of ['cat dog', 'owl lion bear']) {
      const c = fusionCandidates(kb, { id: 'q1', text: q }, QVEC, QRELS, { sparse: 2, dense: K }, { calibration: 'cdf' });
      expect(c.k).toEqual({ sparse: 2, dense: K });
      expect(c.candidateK).toBe(Math.max(2, K));
      const r = await search(kb, q, { mode: 'hybrid_calibrated', calibration: 'cdf', bm25K: 2, denseK: K, growPool: false, topK: 10, dedup: true, rejectThreshold: 0 }, models);
      if (r.status !== 'ok') throw new Error(`search: ${r.status}`);
      expect(c.modeAlpha).toBe(r.telemetry.alpha);
      expect(simulateFusion(c, c.modeAlpha, 'cdf').top.map((t) => t.docId)).toEqual(docIds(r));
      // the union holds at most 2 + K candidates
      expect(c.candidates.length).toBeLessThanOrEqual(2 + K);
    }
  });

  it('α = 1 gives the BM25 order and α = 0 the dense order', async () => {
    const kb = toyKb(0, false);
    for (const q of ['cat dog fish', 'owl lion bear tiger']) {
      const c = fusionCandidates(kb, { id: 'q', text: q }, QVEC, QRELS, K);
      const sparse = docIds(await search(kb, q, { mode: 'sparse', topK: 10, rejectThreshold: 0 }));
      const dense = docIds(await search(kb, q, { mode: 'dense', topK: 10, rejectThreshold: 0 }, models));
      for (const cal of ['raw', 'minmax'] as const) {
        expect(simulateFusion(c, 1, cal).top.map((t) => t.docId).slice(0, sparse.length)).toEqual(sparse);
        expect(simulateFusion(c, 0, cal).top.map((t) => t.docId)).toEqual(dense);
      }
    }
  });

  it('gives the entropies and α of the report\'s predictor fields, gold, titles and both raw scores', () => {
    const kb = toyKb(40, true);
    const q = 'cat dog';
    const c = fusionCandidates(kb, { id: 'q1', text: q }, QVEC, QRELS, K);
    const terms = kb.bm25.queryTerms(q);
    const f = queryPredictors(kb, terms, { sparse: kb.bm25.search(terms, 1000, kb.itemId), dense: kb.dense!.search(QVEC, 1000, kb.itemId) }, { entropyK: K });
    for (const cal of CALIBRATIONS) {
      expect(c.entropy[cal].sparse).toBe(f[`qpp.entropy.sparse.${cal}`]);
      expect(c.entropy[cal].dense).toBe(f[`qpp.entropy.dense.${cal}`]);
      expect(c.entropy[cal].alpha).toBe(f[`qpp.alpha.fusion.${cal}`]);
    }
    // the default run: cdf calibration, seed B's calibrated entropy
    expect(c).toMatchObject({ calibration: 'cdf', basis: 'calibrated' });
    expect(c.modeAlpha).toBe(c.entropy.cdf.alpha);
    expect(c.entropy.cdf.alpha).not.toBe(c.entropy.raw.alpha);
    expect(fusionCandidates(kb, { id: 'q1', text: q }, QVEC, QRELS, K, { basis: 'raw' }).modeAlpha).toBe(c.entropy.raw.alpha);
    expect(c.gold).toEqual({ d03: 2, d07: 1, d11: 1, d20: 0 });
    expect(c).toMatchObject({ queryId: 'q1', query: q, candidateK: K });
    const scored = kb.bm25.scoreItems(terms, [0, 5]);
    const byId = new Map(c.candidates.map((x) => [x.id, x]));
    for (const [i, item] of [0, 5].entries()) {
      const x = byId.get(kb.itemId(item));
      if (x) { expect(x.sparse).toBe(scored[i]); expect(x.title).toBe(`Doc ${item}`); }
    }
    expect(simulateFusion(c, 0.3, 'zscore').goldRanks.map((g) => g.docId)).toEqual(['d03', 'd07', 'd11', 'd20']);
  });

  it('says so when the knowledge base has no dense side, and refuses a bad candidateK', () => {
    const kb = toyKb(0, false);
    expect(() => fusionCandidates(kb, { id: 'q', text: 'cat' }, QVEC, QRELS, 0)).toThrow(/candidateK/);
    kb.dense = null;
    expect(() => fusionCandidates(kb, { id: 'q', text: 'cat' }, QVEC, QRELS, K)).toThrow(/dense vectors/);
  });
});
