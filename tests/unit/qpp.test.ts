import { describe, expect, it } from 'vitest';
import type { SourceDocument } from '../../src/lib/retrieval/document.ts';
import {
  candidateEntropy, clarity, entropyUnder, nqc, parsePredictorField, predictorField, QPP_DEFAULTS, queryPredictors, wig,
} from '../../src/lib/eval/analysis/qpp.ts';
import { seededRandom } from '../../src/lib/random.ts';
import { buildCdf, CALIBRATIONS } from '../../src/lib/retrieval/calibrate.ts';
import { ExactDenseIndex } from '../../src/lib/retrieval/dense.ts';
import { entropyAlpha } from '../../src/lib/retrieval/entropy.ts';
import { KnowledgeBase } from '../../src/lib/retrieval/knowledge-base.ts';
import { search } from '../../src/lib/retrieval/search.ts';
import type { Scored } from '../../src/lib/retrieval/topk.ts';

const TOL = 12; // toBeCloseTo digits: |a − b| < 0.5e-12

/*
 * Toy collection (whole documents, titles not indexed), tokens as the BM25 analyzer makes them:
 *   a "cat cat dog"          cat 2, dog 1            |a| = 3
 *   b "cat fish"             cat 1, fish 1           |b| = 2
 *   c "frog dog fish frog"   frog 2, dog 1, fish 1   |c| = 4
 * 9 tokens; cf: cat 3, dog 2, fish 2, frog 2 → p_coll: cat 1/3, dog 2/9, fish 2/9, frog 2/9.
 */
const DOCS: SourceDocument[] = [
  { id: 'a', title: '', text: 'cat cat dog' },
  { id: 'b', title: '', text: 'cat fish' },
  { id: 'c', title: '', text: 'frog dog fish frog' },
];
const toyKb = () => KnowledgeBase.build(DOCS, { chunking: false, cdfQueries: 0, indexTitle: false });
const list = (...pairs: Array<[number, number]>): Scored[] => pairs.map(([index, score]) => ({ index, score }));

describe('predictor fields', () => {
  it('round-trips predictorField / parsePredictorField and refuses other fields', () => {
    for (const k of [
      { predictor: 'entropy', retriever: 'sparse', calibration: 'cdf' },
      { predictor: 'nqc_nonorm', retriever: 'dense', calibration: null },
      { predictor: 'alpha', retriever: 'fusion', calibration: 'raw' },
    ] as const) expect(parsePredictorField(predictorField(k))).toEqual(k);
    expect(predictorField({ predictor: 'wig', retriever: 'sparse', calibration: null })).toBe('qpp.wig.sparse');
    expect(parsePredictorField('ndcg@10')).toBeNull();
    expect(parsePredictorField('qpp.smv.sparse')).toBeNull();
  });
});

describe('entropyUnder', () => {
  it('calibrates, then takes the log2 entropy (hand values)', () => {
    // raw [1,1,2] → p = ¼, ¼, ½ → H = 1.5 bits
    expect(entropyUnder('raw', [1, 1, 2], null)).toBeCloseTo(1.5, TOL);
    // minmax [1,1,2] → [0,0,1] → H = 0
    expect(entropyUnder('minmax', [1, 1, 2], null)).toBeCloseTo(0, TOL);
    // zscore [1,2,3] → [−a, 0, a], a = √(3/2) (population std) → softmax (a score < 0)
    const a = Math.sqrt(1.5);
    const z = Math.exp(-a) + 1 + Math.exp(a);
    const h = -[Math.exp(-a) / z, 1 / z, Math.exp(a) / z].reduce((s, p) => s + p * Math.log2(p), 0);
    expect(entropyUnder('zscore', [1, 2, 3], null)).toBeCloseTo(h, TOL);
    // cdf over the table [1,2,3,4]: 2 → 2/4, 4 → 4/4 → p = ⅓, ⅔ → H = log2 3 − ⅔
    const table = buildCdf([[1, 2, 3, 4]]);
    expect(entropyUnder('cdf', [2, 4], table)).toBeCloseTo(Math.log2(3) - 2 / 3, TOL);
  });

  it('is null for an empty list and for cdf without a table; candidateEntropy falls back to minmax', () => {
    expect(entropyUnder('raw', [], null)).toBeNull();
    expect(entropyUnder('cdf', [1, 2], null)).toBeNull();
    expect(candidateEntropy('cdf', [1, 2, 4], null)).toBe(entropyUnder('minmax', [1, 2, 4], null));
    expect(candidateEntropy('raw', [], null)).toBeNull();
  });
});

describe('NQC', () => {
  const s = [4, 3, 2, 1, 0];
  it('is the population std of the top k over |mean of the whole list|', () => {
    // top 3 = 4,3,2: μ = 3, population variance (1+0+1)/3 = ⅔ (the sample std would be 1); whole-list mean 2 (top-k mean 3)
    expect(nqc(s, 3, true)).toBeCloseTo(Math.sqrt(2 / 3) / 2, TOL);
    expect(nqc(s, 3, false)).toBeCloseTo(Math.sqrt(2 / 3), TOL);
    // k = 1: one score, std 0
    expect(nqc(s, 1, true)).toBe(0);
  });
  it('divides by the absolute mean (negative scores keep a positive NQC)', () => {
    // top 2 of [−1,−2,−3]: std 0.5; mean −2 → 0.5 / 2
    expect(nqc([-1, -2, -3], 2, true)).toBeCloseTo(0.25, TOL);
  });
  it('uses the whole list when it is shorter than k', () => {
    // [4,2]: std 1, mean 3
    expect(nqc([4, 2], 100, true)).toBeCloseTo(1 / 3, TOL);
    expect(nqc([4, 2], 100, false)).toBeCloseTo(1, TOL);
  });
  it('is null for an empty list and, normalised, for a zero divisor', () => {
    expect(nqc([], 100, true)).toBeNull();
    expect(nqc([], 100, false)).toBeNull();
    expect(nqc([1, -1], 2, true)).toBeNull();
    expect(nqc([1, -1], 2, false)).toBeCloseTo(1, TOL);
  });
});

describe('WIG', () => {
  it('is (mean(top k) − mean(all)) / sqrt(|q|)', () => {
    // top 2 mean 3.5, all 2, |q| = 4 → 0.75
    expect(wig([4, 3, 2, 1, 0], 2, 4)).toBeCloseTo(0.75, TOL);
    // k = 5 (default) on a 6-long list: (mean(6,5,4,3,2) − mean(6..1)) / √1 = 4 − 3.5
    expect(wig([6, 5, 4, 3, 2, 1], QPP_DEFAULTS.wigK, 1)).toBeCloseTo(0.5, TOL);
    // shorter than k: top k = all → 0
    expect(wig([4, 2], 5, 2)).toBeCloseTo(0, TOL);
  });
  it('is null for an empty list or a query without terms', () => {
    expect(wig([], 5, 3)).toBeNull();
    expect(wig([1, 2], 5, 0)).toBeNull();
  });
});

describe('clarity', () => {
  const kb = toyKb();
  const data = kb.bm25.toData();
  const [A, B, C] = [0, 1, 2];

  it('matches the hand-computed RM1 value (natural log, raw scores as weights, ML tf/|d|)', () => {
    // weights a 2, b 1: cat 2·2/3 + 1·1/2 = 11/6, dog 2·1/3 = 2/3, fish 1·1/2 = 1/2; Σ = 3
    // p: cat 11/18, dog 2/9, fish 1/6 → 11/18·ln((11/18)/(1/3)) + 2/9·ln(1) + 1/6·ln((1/6)/(2/9))
    const want = (11 / 18) * Math.log(11 / 6) + (1 / 6) * Math.log(3 / 4);
    expect(clarity(data, list([A, 2], [B, 1]), 100, 100)).toBeCloseTo(want, TOL);
    // log2 would be this over ln 2: pin the natural log
    expect(Math.abs(want / Math.LN2 - want)).toBeGreaterThan(1e-3);
  });

  it('keeps the top clarityTerms terms and renormalises', () => {
    // terms = 2: cat 11/6, dog 2/3 kept (fish 1/2 dropped); Σ = 5/2 → p cat 11/15, dog 4/15
    const want = (11 / 15) * Math.log((11 / 15) / (1 / 3)) + (4 / 15) * Math.log((4 / 15) / (2 / 9));
    expect(clarity(data, list([A, 2], [B, 1]), 100, 2)).toBeCloseTo(want, TOL);
  });

  it('breaks ties at the term cut by index order (term ids: cat 0, dog 1, fish 2, frog 3)', () => {
    // b alone: cat ½, fish ½ tie; terms = 1 keeps cat → p(cat) = 1 → ln(1 / (1/3)) = ln 3
    expect(clarity(data, list([B, 1]), 100, 1)).toBeCloseTo(Math.log(3), TOL);
    // c alone: frog ½, dog ¼, fish ¼; terms = 2 keeps frog and dog → ⅔·ln((2/3)/(2/9)) + ⅓·ln((1/3)/(2/9))
    expect(clarity(data, list([C, 1]), 100, 2)).toBeCloseTo((2 / 3) * Math.log(3) + (1 / 3) * Math.log(1.5), TOL);
    expect(clarity(data, list([C, 1]), 100, 0)).toBeNull();
  });

  it('reads only the top clarityK items; negative weights count 0; all-zero weights give null', () => {
    // k = 1: doc a alone → cat ⅔, dog ⅓ → ⅔·ln 2 + ⅓·ln((1/3)/(2/9))
    const aOnly = (2 / 3) * Math.log(2) + (1 / 3) * Math.log(3 / 2);
    expect(clarity(data, list([A, 2], [B, 1]), 1, 100)).toBeCloseTo(aOnly, TOL);
    expect(clarity(data, list([A, 2], [B, -1]), 100, 100)).toBeCloseTo(aOnly, TOL);
    expect(clarity(data, list([A, 0], [B, -0.5]), 100, 100)).toBeNull();
    expect(clarity(data, [], 100, 100)).toBeNull();
  });

  it('is 0 when the top documents\' model is the collection model', () => {
    // weights ∝ |d| over every document: Σ |d|·tf/|d| = cf → p(w|q) = p_coll(w)
    expect(clarity(data, list([C, 4], [A, 3], [B, 2]), 100, 100)).toBeCloseTo(0, TOL);
  });

  it('rises as the top documents get more peaked', () => {
    // weights (1 − t)·(3, 2, 4) + t·(1, 0, 0): from the collection model to doc a's model
    let last = -Infinity;
    for (let t = 0; t <= 1.0001; t += 0.1) {
      const c = clarity(data, list([A, (1 - t) * 3 + t], [B, (1 - t) * 2], [C, (1 - t) * 4]), 100, 100)!;
      expect(c).toBeGreaterThan(last);
      last = c;
    }
  });

  it('is never negative (random weights, lists and truncations)', () => {
    const rand = seededRandom(7);
    for (let i = 0; i < 200; i++) {
      const items = [A, B, C].filter(() => rand() < 0.8).map((index) => ({ index, score: rand() * 3 - 0.5 }));
      const c = clarity(data, items, 1 + Math.floor(rand() * 3), 1 + Math.floor(rand() * 4));
      if (c !== null) expect(c).toBeGreaterThanOrEqual(-1e-15);
    }
  });

  it('counts tokens as the BM25 analyzer makes them (stop words out, stems)', () => {
    // "The cats are running dogs" → cat, run, dog (|d| = 3); "a fish" → fish; 4 tokens, each cf 1
    const kb2 = KnowledgeBase.build([
      { id: 'x', title: '', text: 'The cats are running dogs' },
      { id: 'y', title: '', text: 'a fish' },
    ], { chunking: false, cdfQueries: 0, indexTitle: false });
    // p(w|q) = ⅓ each for cat, run, dog; p_coll = ¼ → ln(4/3)
    expect(clarity(kb2.bm25.toData(), list([0, 1.7]), 100, 100)).toBeCloseTo(Math.log(4 / 3), TOL);
  });
});

/*
 * A toy knowledge base with both sides: 8 documents, hand-made 3-d vectors (cosine), query vector [1, 0, 0].
 */
const ANIMALS: SourceDocument[] = [
  { id: 'd1', title: '', text: 'cat dog cat' },
  { id: 'd2', title: '', text: 'cat fish bird' },
  { id: 'd3', title: '', text: 'dog dog frog' },
  { id: 'd4', title: '', text: 'owl bird lion' },
  { id: 'd5', title: '', text: 'cat lion tiger wolf' },
  { id: 'd6', title: '', text: 'fish fish frog' },
  { id: 'd7', title: '', text: 'bear wolf owl dog' },
  { id: 'd8', title: '', text: 'tiger bear cat fish dog' },
];
const VECTORS = [
  [1, 0.1, 0], [0.9, 0.4, 0.1], [0.2, 1, 0], [0.5, 0.5, 0.5], [0.7, 0, 0.7], [0, 0, 1], [0.3, 0.9, 0.2], [0.8, 0.3, 0.4],
];
const QVEC = Float32Array.from([1, 0, 0]);
function animalKb(cdfQueries: number): KnowledgeBase {
  const kb = KnowledgeBase.build(ANIMALS, { chunking: false, cdfQueries, indexTitle: false });
  kb.dense = new ExactDenseIndex(Float32Array.from(VECTORS.flat()), 3);
  return kb;
}

describe('queryPredictors', () => {
  it('gives every field of both lists and α per calibration', () => {
    const kb = animalKb(0);
    const terms = kb.bm25.queryTerms('cat dog');
    const sparse = kb.bm25.search(terms, 1000, kb.itemId);
    const dense = kb.dense!.search(QVEC, 1000, kb.itemId);
    const opts = { entropyK: 4, nqcK: 3, wigK: 2, clarityK: 3, clarityTerms: 5 };
    const f = queryPredictors(kb, terms, { sparse, dense }, opts);
    const data = kb.bm25.toData();
    for (const [side, items] of [['sparse', sparse], ['dense', dense]] as const) {
      const scores = items.map((s) => s.score);
      for (const c of CALIBRATIONS) {
        // no corpus tables here: cdf is minmax, as search.ts calibrates
        const want = entropyUnder(c === 'cdf' ? 'minmax' : c, scores.slice(0, 4), null);
        expect(f[`qpp.entropy.${side}.${c}`]).toBe(want);
      }
      expect(f[`qpp.clarity.${side}`]).toBe(clarity(data, items, 3, 5));
      expect(f[`qpp.nqc.${side}`]).toBe(nqc(scores, 3, true));
      expect(f[`qpp.nqc_nonorm.${side}`]).toBe(nqc(scores, 3, false));
      expect(f[`qpp.wig.${side}`]).toBe(wig(scores, 2, 2));
    }
    for (const c of CALIBRATIONS) {
      expect(f[`qpp.alpha.fusion.${c}`]).toBe(entropyAlpha(f[`qpp.entropy.dense.${c}`]!, f[`qpp.entropy.sparse.${c}`]!));
    }
    expect(Object.keys(f)).toHaveLength(2 * (4 + 4) + 4);
    expect(Object.values(f).every((v) => v === null || Number.isFinite(v))).toBe(true);
  });

  it('defaults to QPP4CS\'s depths: list 1000, NQC k 100, WIG k 5, clarity 100 items / 100 terms, entropy 100', () => {
    expect(QPP_DEFAULTS).toEqual({ listDepth: 1000, entropyK: 100, nqcK: 100, wigK: 5, clarityK: 100, clarityTerms: 100 });
    const kb = animalKb(0);
    // a synthetic 1,200-long list over the 8 items (scores falling, items repeating): only depths are under test
    const long: Scored[] = Array.from({ length: 1200 }, (_, i) => ({ index: i % 8, score: 1200 - i + (i % 7) * 0.3 }));
    const scores = long.map((s) => s.score);
    const f = queryPredictors(kb, ['cat'], { sparse: long, dense: null });
    expect(f['qpp.nqc.sparse']).toBe(nqc(scores.slice(0, 1000), 100, true));
    expect(f['qpp.nqc.sparse']).not.toBe(nqc(scores.slice(0, 1000), 150, true));
    expect(f['qpp.wig.sparse']).toBe(wig(scores.slice(0, 1000), 5, 1));
    expect(f['qpp.entropy.sparse.raw']).toBe(entropyUnder('raw', scores.slice(0, 100), null));
    expect(f['qpp.clarity.sparse']).toBe(clarity(kb.bm25.toData(), long, 100, 100));
  });

  it("entropyKDense: the dense list's own entropy depth (dense_k beside bm25_k), α from the two", () => {
    const kb = animalKb(0);
    const terms = kb.bm25.queryTerms('cat dog fish');
    const sparse = kb.bm25.search(terms, 1000, kb.itemId);
    const dense = kb.dense!.search(QVEC, 1000, kb.itemId);
    const f = queryPredictors(kb, terms, { sparse, dense }, { entropyK: 2, entropyKDense: 5 });
    expect(f['qpp.entropy.sparse.minmax']).toBe(entropyUnder('minmax', sparse.map((s) => s.score).slice(0, 2), null));
    expect(f['qpp.entropy.dense.minmax']).toBe(entropyUnder('minmax', dense.map((s) => s.score).slice(0, 5), null));
    expect(f['qpp.entropy.dense.minmax']).not.toBe(entropyUnder('minmax', dense.map((s) => s.score).slice(0, 2), null));
    expect(f['qpp.alpha.fusion.minmax']).toBe(entropyAlpha(f['qpp.entropy.dense.minmax']!, f['qpp.entropy.sparse.minmax']!));
  });

  it('cuts the list at listDepth, reads entropyK for entropy and the whole list for the rest', () => {
    const kb = animalKb(0);
    const terms = kb.bm25.queryTerms('cat dog fish');
    const sparse = kb.bm25.search(terms, 1000, kb.itemId);
    expect(sparse.length).toBeGreaterThan(4);
    const scores = sparse.map((s) => s.score);
    const f = queryPredictors(kb, terms, { sparse, dense: null }, { listDepth: 4, entropyK: 2, nqcK: 100 });
    expect(f['qpp.entropy.sparse.raw']).toBe(entropyUnder('raw', scores.slice(0, 2), null));
    expect(f['qpp.nqc.sparse']).toBe(nqc(scores.slice(0, 4), 100, true));
    expect(f['qpp.nqc.sparse']).not.toBe(nqc(scores, 100, true));
    expect(Object.keys(f).some((k) => k.includes('dense') || k.includes('alpha'))).toBe(false);
  });

  it('uses the knowledge base\'s corpus table for cdf when it has one', () => {
    const kb = animalKb(50);
    expect(kb.sparseCdf).not.toBeNull();
    const terms = kb.bm25.queryTerms('cat dog');
    const sparse = kb.bm25.search(terms, 1000, kb.itemId);
    const f = queryPredictors(kb, terms, { sparse, dense: null }, { entropyK: 5 });
    const top = sparse.slice(0, 5).map((s) => s.score);
    expect(f['qpp.entropy.sparse.cdf']).toBe(entropyUnder('cdf', top, kb.sparseCdf));
    expect(f['qpp.entropy.sparse.cdf']).not.toBe(entropyUnder('minmax', top, null));
  });

  it('gives nulls, not NaN, for empty lists (α then reads H = 0 as search does)', () => {
    const kb = animalKb(0);
    const f = queryPredictors(kb, [], { sparse: [], dense: kb.dense!.search(QVEC, 5, kb.itemId) });
    expect(f['qpp.entropy.sparse.raw']).toBeNull();
    expect(f['qpp.clarity.sparse']).toBeNull();
    expect(f['qpp.nqc.sparse']).toBeNull();
    expect(f['qpp.wig.sparse']).toBeNull();
    expect(f['qpp.wig.dense']).toBeNull(); // no query terms
    expect(f['qpp.alpha.fusion.raw']).toBeCloseTo(1, 6);
  });

  it('α.<c> is the α of the hybrid_calibrated mode under calibration c (α.raw: entropy basis raw) on the same candidate lists', async () => {
    const K = 5;
    for (const q of ['cat dog', 'fish frog', 'tiger bear owl', 'lion']) {
      for (const cdfQueries of [0, 50]) {
        const kb = animalKb(cdfQueries);
        const terms = kb.bm25.queryTerms(q);
        const lists = { sparse: kb.bm25.search(terms, K, kb.itemId), dense: kb.dense!.search(QVEC, K, kb.itemId) };
        const f = queryPredictors(kb, terms, lists, { entropyK: K });
        for (const calibration of CALIBRATIONS) {
          for (const entropyBasis of ['calibrated', 'raw'] as const) {
            const r = await search(kb, q, { mode: 'hybrid_calibrated', calibration, entropyBasis, candidateK: K, topK: 5 }, { encoder: { embedQuery: async () => QVEC } });
            if (r.status !== 'ok' && r.status !== 'rejected') throw new Error(`search: ${r.status}`);
            expect(r.telemetry.candidates.sparse).toBe(lists.sparse.length); // no pool doubling: the same lists
            expect(f[`qpp.alpha.fusion.${entropyBasis === 'raw' ? 'raw' : calibration}`]).toBe(r.telemetry.alpha);
          }
        }
      }
    }
  });
});
