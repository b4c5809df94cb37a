/**
 * The α simulator (seed B's page, and beyond it a real query): α from H_dense and H_sparse, and the calibrated
 * fusion of one query's candidates re-ranked at any α, with the gold documents' positions and NDCG@10.
 *   α = H_dense / (H_dense + H_sparse + ε) (entropy.ts);  score = α·sparse_cal + (1 − α)·dense_cal (fusion.ts)
 *
 * The candidates are what search.ts's hybrid fuse sees in one retrieval round: the union of BM25's and the dense
 * index's top candidateK items among those the search's filters keep (and, on the dense side, with a usable vector), each with both scores computed exactly, calibrated over the union (cdf falls back to
 * minmax without a corpus table); the entropies are each retriever's own top-candidateK list, calibrated (seed B).
 * Re-fusing them at the hybrid_calibrated mode's α (`modeAlpha`) gives that mode's
 * ranking (search.ts's pool doubling aside: with dedup it can widen the pool when the top candidates are chunks of
 * few documents, which whole-document BEIR knowledge bases never need).
 */
import { calibrate, CALIBRATIONS, type Calibration } from './calibrate.ts';
import { dedupByDocument } from './dedup.ts';
import { candidateEntropy, DEFAULT_ENTROPY_BASIS, effectiveCalibration, entropyAlpha, entropyCalibration, type EntropyBasis } from './entropy.ts';
import { compileFilters, type MetaFilter } from './filter.ts';
import { linearFusion } from './fusion.ts';
import type { KnowledgeBase } from './knowledge-base.ts';
import { DEFAULT_SEARCH } from './search-types.ts';
import { ndcgAt } from '../stats/ir-metrics.ts';

/** α and the two weights for the sliders: BM25 weight = α, dense weight = 1 − α. */
export function sliderWeights(hDense: number, hSparse: number): { alpha: number; sparse: number; dense: number } {
  if (!(hDense >= 0 && hSparse >= 0 && Number.isFinite(hDense) && Number.isFinite(hSparse))) {
    throw new RangeError(`sliderWeights: entropies must be finite and ≥ 0 (H_dense=${hDense}, H_sparse=${hSparse})`);
  }
  // α = H_dense / (H_dense + H_sparse + ε): both 0 gives α = 0 (all weight on dense)
  const alpha = entropyAlpha(hDense, hSparse);
  return { alpha, sparse: alpha, dense: 1 - alpha };
}

export interface FusionCandidate {
  /** Item id and its document id (what qrels judge). */
  id: string;
  docId: string;
  title: string;
  sparse: number;
  dense: number;
  /** The item's calibrated scores under each calibration (cdf falls back to minmax without a table, as search does). */
  cal: Record<Calibration, { sparse: number; dense: number }>;
}

export interface FusionCandidates {
  queryId: string;
  query: string;
  /** The union of both retrievers' top candidateK items. */
  candidates: FusionCandidate[];
  /** Graded relevance of the query's judged documents. */
  gold: Record<string, number>;
  /**
   * H_sparse, H_dense and α per calibration: the entropy of each retriever's own top-candidateK scores under that
   * calibration (cdf → minmax without a table), the same numbers as the report's `qpp.entropy.*` / `qpp.alpha.fusion.*`
   * fields of a run with entropyK = candidateK. An empty list counts H = 0, as in search.ts.
   */
  entropy: Record<Calibration, { sparse: number; dense: number; alpha: number }>;
  /**
   * The α the hybrid_calibrated mode fused with in the run: `entropy[calibration].alpha` with entropy basis
   * 'calibrated' (seed B: H of the calibrated scores), `entropy.raw.alpha` with basis 'raw'. Re-fusing at it under
   * `calibration` gives that mode's ranking.
   */
  modeAlpha: number;
  /** The run's calibration and entropy basis (what `modeAlpha` is for). */
  calibration: Calibration;
  basis: EntropyBasis;
  /** The larger of the two lists' depths (`k`); one number when both retrievers give candidateK. */
  candidateK: number;
  /** Each retriever's depth: BM25's (bm25_k) and the dense index's (dense_k). */
  k: { sparse: number; dense: number };
}

/** The candidates of one query (needs the knowledge base's dense side and the query vector). */
export function fusionCandidates(
  kb: KnowledgeBase, query: { id: string; text: string }, qvec: Float32Array, judgements: ReadonlyMap<string, number>,
  candidateK: number | { sparse: number; dense: number },
  run: { calibration?: Calibration; basis?: EntropyBasis; filters?: readonly MetaFilter[] } = {},
): FusionCandidates {
  const k = typeof candidateK === 'number' ? { sparse: candidateK, dense: candidateK } : candidateK;
  const calibration = run.calibration ?? DEFAULT_SEARCH.calibration;
  const basis = run.basis ?? DEFAULT_ENTROPY_BASIS;
  if (!kb.dense) throw new Error('The α simulator needs the knowledge base\'s dense vectors; this one has only BM25.');
  for (const n of [k.sparse, k.dense]) if (!Number.isInteger(n) || n < 1) throw new RangeError(`fusionCandidates: candidateK must be a whole number ≥ 1, got ${n}`);
  // As search.ts: the filters' document mask on both sides; items with an unusable vector left out of dense search.
  const mask = compileFilters(kb.docs, run.filters ?? []);
  const accept = mask ? (i: number) => mask[kb.docIndexOf(i)] === 1 : undefined;
  const skip = kb.denseSkip;
  const denseAccept = skip ? (i: number) => skip[i] !== 1 && (!accept || accept(i)) : accept;
  const terms = kb.bm25.queryTerms(query.text);
  const sparseHits = terms.length > 0 ? kb.bm25.search(terms, k.sparse, kb.itemId, accept) : [];
  const denseHits = kb.dense.search(qvec, k.dense, kb.itemId, denseAccept).filter((h) => Number.isFinite(h.score));
  // As search.ts fuse: the union in list order, both scores for every candidate.
  const union = [...new Set([...sparseHits.map((h) => h.index), ...denseHits.map((h) => h.index)])];
  const sparse = terms.length > 0 ? kb.bm25.scoreItems(terms, union) : union.map(() => 0);
  const dense = kb.dense.scoreItems(qvec, union);
  const cal = {} as Record<Calibration, { sparse: number[]; dense: number[] }>;
  const entropy = {} as FusionCandidates['entropy'];
  for (const c of CALIBRATIONS) {
    cal[c] = {
      sparse: calibrate(effectiveCalibration(c, kb.sparseCdf), sparse, kb.sparseCdf ?? undefined),
      dense: calibrate(effectiveCalibration(c, kb.denseCdf), dense, kb.denseCdf ?? undefined),
    };
    const hs = candidateEntropy(c, sparseHits.map((h) => h.score), kb.sparseCdf) ?? 0;
    const hd = candidateEntropy(c, denseHits.map((h) => h.score), kb.denseCdf) ?? 0;
    entropy[c] = { sparse: hs, dense: hd, alpha: entropyAlpha(hd, hs) };
  }
  const candidates = union.map((item, i): FusionCandidate => {
    const doc = kb.docOf(item);
    const perCal = {} as FusionCandidate['cal'];
    for (const c of CALIBRATIONS) perCal[c] = { sparse: cal[c].sparse[i]!, dense: cal[c].dense[i]! };
    return { id: kb.itemId(item), docId: doc.id, title: doc.title, sparse: sparse[i]!, dense: dense[i]!, cal: perCal };
  });
  return {
    queryId: query.id, query: query.text, candidates, gold: Object.fromEntries(judgements), entropy,
    modeAlpha: entropy[entropyCalibration(basis, calibration)].alpha, calibration, basis, candidateK: Math.max(k.sparse, k.dense), k,
  };
}

export interface SimulatedFusion {
  /** Documents best first (one per document: its best item), top 10 with a gold grade where judged. */
  top: Array<{ rank: number; docId: string; title: string; score: number; gold: number | null }>;
  ndcg10: number;
  /** Every judged document's rank in the fused list (null: not among the candidates). */
  goldRanks: Array<{ docId: string; grade: number; rank: number | null }>;
}

/** Re-fuses the candidates at `alpha` under `calibration` (pure and fast: runs on every slider move). */
export function simulateFusion(c: FusionCandidates, alpha: number, calibration: Calibration): SimulatedFusion {
  if (!(alpha >= 0 && alpha <= 1)) throw new RangeError(`simulateFusion: α must be in [0, 1], got ${alpha}`);
  const cs = c.candidates;
  const fused = linearFusion(cs.map((x) => x.cal[calibration].sparse), cs.map((x) => x.cal[calibration].dense), alpha);
  // search.ts byScoreThenId: score descending, then item id ascending; then the best item of each document
  const order = cs.map((x, i) => ({ x, score: fused[i]! }))
    .sort((a, b) => (a.score !== b.score ? b.score - a.score : a.x.id < b.x.id ? -1 : a.x.id > b.x.id ? 1 : 0));
  const docs = dedupByDocument(order, (h) => h.x.docId);
  const ranking = docs.map((h) => h.x.docId);
  const gold = new Map(Object.entries(c.gold));
  const rankOf = new Map(ranking.map((d, i) => [d, i + 1]));
  return {
    top: docs.slice(0, 10).map((h, i) => ({ rank: i + 1, docId: h.x.docId, title: h.x.title, score: h.score, gold: gold.get(h.x.docId) ?? null })),
    ndcg10: ndcgAt(ranking, gold, 10),
    goldRanks: [...gold].sort(([da, ga], [db, gb]) => gb - ga || (da < db ? -1 : da > db ? 1 : 0))
      .map(([docId, grade]) => ({ docId, grade, rank: rankOf.get(docId) ?? null })),
  };
}
