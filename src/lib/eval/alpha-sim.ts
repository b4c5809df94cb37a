/**
 * The α simulator (seed B's page, and beyond it a real query): α from H_dense and H_sparse, and the calibrated
 * fusion of one query's candidates re-ranked at any α, with the gold documents' positions and NDCG@10.
 *   α = H_dense / (H_dense + H_sparse + ε) (entropy.ts);  score = α·sparse_cal + (1 − α)·dense_cal (fusion.ts)
 *
 * CONTRACT STUB (issue 13): signatures fixed; the simulator helper implements the bodies.
 */
import type { Calibration } from '../retrieval/calibrate.ts';
import type { KnowledgeBase } from '../retrieval/knowledge-base.ts';

/** α and the two weights for the sliders: BM25 weight = α, dense weight = 1 − α. */
export function sliderWeights(hDense: number, hSparse: number): { alpha: number; sparse: number; dense: number } {
  void hDense; void hSparse;
  throw new Error('not implemented');
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
  /** H_sparse, H_dense and α per calibration, as the hybrid_calibrated mode computes them. */
  entropy: Record<Calibration, { sparse: number; dense: number; alpha: number }>;
  candidateK: number;
}

/** The candidates of one query (needs the knowledge base's dense side and the query vector). */
export function fusionCandidates(
  kb: KnowledgeBase, query: { id: string; text: string }, qvec: Float32Array, judgements: ReadonlyMap<string, number>, candidateK: number,
): FusionCandidates {
  void kb; void query; void qvec; void judgements; void candidateK;
  throw new Error('not implemented');
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
  void c; void alpha; void calibration;
  throw new Error('not implemented');
}
