/** The contract of one search: options and their defaults, the models it may use, hits, telemetry and outcomes. */
import type { Calibration } from './calibrate.ts';
import { DEFAULT_ENTROPY_BASIS, type EntropyBasis } from './entropy.ts';
import type { MetaFilter } from './filter.ts';
import { FIXED_ALPHA, RRF_K } from './fusion.ts';
import type { RetrievalMode } from './modes.ts';
import type { RerankCache, RerankModelKey } from './rerank-cache.ts';

export interface SearchOptions {
  /** Default 'sparse'. */
  mode: RetrievalMode;
  /** Results returned. Default 5. */
  topK: number;
  /** Candidates taken from each retriever before fusion (both of seed A's dense_k and bm25_k). Default 20. */
  candidateK: number;
  /** BM25's candidates, seed A's bm25_k. Default null: candidateK. */
  bm25K: number | null;
  /** The dense index's candidates, seed A's dense_k. Default null: candidateK. */
  denseK: number | null;
  /**
   * Fused candidates passed on, seed A's fusion_top_k: the cross-encoder's pool in rerank modes, else the list dedup
   * and top_k read. Default null: candidateK in rerank modes, the whole fused list otherwise.
   */
  fusionTopK: number | null;
  /** Calibration for the calibrated modes (and the shown sparse calibration). Default 'cdf'. */
  calibration: Calibration;
  /**
   * What hybrid_calibrated's entropies are taken over: each retriever's top candidateK scores after `calibration`
   * ('calibrated', seed B step 4, the default) or the raw scores ('raw', an analysis variant).
   */
  entropyBasis: EntropyBasis;
  /**
   * Whether the candidate pool may grow: with dedup, when fewer than topK documents survive, the pool doubles (at
   * most 4 times). false keeps exactly candidateK candidates per retriever (seed B's protocol). Default true.
   */
  growPool: boolean;
  /** Reject when the best result's confidence is below this (0 disables). Default null: the mode's default (`DEFAULT_REJECT_THRESHOLDS`). */
  rejectThreshold: number | null;
  /** Keep only the best chunk of each document. Default true. */
  dedup: boolean;
  /** RRF constant. Default 60. */
  rrfK: number;
  /** Sparse weight in fixed linear fusion. Default 0.5. */
  alpha: number;
  /** BM25's k1 and b for this search (the postings re-weighted: bm25-variant.ts). Default null: the knowledge base's own. */
  k1: number | null;
  b: number | null;
  /** Metadata filters. Default none. */
  filters: readonly MetaFilter[];
  /**
   * Text to embed for the dense side instead of the query (HyDE: a hypothetical answer passage). BM25 always
   * uses the query. Default: the query.
   */
  denseQuery?: string;
}

export const DEFAULT_SEARCH: Readonly<SearchOptions> = Object.freeze({
  mode: 'sparse',
  topK: 5,
  candidateK: 20,
  bm25K: null,
  denseK: null,
  fusionTopK: null,
  calibration: 'cdf',
  entropyBasis: DEFAULT_ENTROPY_BASIS,
  growPool: true,
  rejectThreshold: null,
  dedup: true,
  rrfK: RRF_K,
  alpha: FIXED_ALPHA,
  k1: null,
  b: null,
  filters: [],
});

/** Embeds a query (models issue). */
export interface QueryEncoder {
  embedQuery(query: string): Promise<Float32Array>;
}

/** Scores (query, passage) pairs; higher = more relevant (raw logits). */
export interface Reranker {
  rerank(query: string, passages: readonly string[]): Promise<number[]>;
  /** The model behind the scores; without it, scores are not cached. */
  model?: RerankModelKey;
}

export interface SearchModels {
  encoder?: QueryEncoder | null;
  reranker?: Reranker | null;
  /** Scores already computed, reused for the same (model, query, chunk). */
  rerankCache?: RerankCache | null;
}

export interface SearchHit {
  rank: number;
  item: number;
  id: string;
  docId: string;
  /** The score the ranking is by. */
  score: number;
  sparse: number | null;
  dense: number | null;
  sparseCal: number | null;
  denseCal: number | null;
  rerank: number | null;
}

export type StageName = 'analyze' | 'sparse' | 'embed' | 'dense' | 'fuse' | 'rerank' | 'dedup' | 'reject';

export interface StageTiming {
  stage: StageName;
  ms: number;
  /** Model inference (excluded from query latency). */
  model?: boolean;
}

/** A model behind a model stage, with its start-up times (ms; null: not measured or not yet). */
export interface ModelStageInfo {
  stage: 'embed' | 'rerank';
  id: string;
  device: string;
  dtype: string;
  fallback: string | null;
  /** Loading (files + ONNX session start), as the models session timed it. */
  loadMs?: number | null;
  /** The warm-up batch run after loading, before the model was reported ready. */
  warmupMs?: number | null;
  /** This stage's time in the first search that ran this model here (the first query after enabling it). */
  firstQueryMs?: number | null;
}

export interface SearchTelemetry {
  mode: RetrievalMode;
  queryTerms: string[];
  stages: StageTiming[];
  /** Wall time of all non-model stages (ms). */
  queryMs: number;
  /** Wall time of model stages (ms). */
  modelMs: number;
  /**
   * Stages still to run after this outcome: empty in a final outcome; ['rerank', 'dedup', 'reject'] in the first
   * outcome of a rerank mode (fused order, deduplicated, not yet judged for rejection).
   */
  pending: StageName[];
  /** From the start of the search to the first outcome (ms). */
  timeToFirstMs: number;
  /** From the start of the search to the reranked outcome (ms); null until then and in modes without rerank. */
  timeToRerankedMs: number | null;
  /** Pairs the cross-encoder scored for this search and pairs whose score came from the cache (rerank modes). */
  rerankPairs: { scored: number; cached: number } | null;
  candidates: { sparse: number; dense: number; fused: number; afterDedup: number; returned: number };
  /** Documents passing the metadata filters, when filters are set. */
  filteredDocs: number | null;
  alpha: number | null;
  hSparse: number | null;
  hDense: number | null;
  calibration: { requested: Calibration; sparse: Calibration | null; dense: Calibration | null; note?: string };
  /**
   * hybrid_calibrated's entropy: the basis and the calibration H_sparse / H_dense were taken under (after the cdf →
   * minmax fallback), over each retriever's top `k` candidates; null in other modes.
   */
  entropy: { basis: EntropyBasis; sparse: Calibration; dense: Calibration; k: number; kDense?: number } | null;
  confidence: number | null;
  rejectionNote?: string;
  /**
   * The models behind the model stages, as their runtime reports them (set by the caller that owns the models:
   * the search worker), with the reason when one runs elsewhere than asked (e.g. WebGPU lost, now WASM).
   */
  models?: ModelStageInfo[];
}

export type SearchOutcome =
  | { status: 'ok'; hits: SearchHit[]; telemetry: SearchTelemetry }
  | { status: 'rejected'; reason: string; hits: SearchHit[]; telemetry: SearchTelemetry }
  | { status: 'empty'; reason: string; hits: []; telemetry: SearchTelemetry | null }
  | { status: 'unavailable'; reason: string; hits: []; telemetry: null };
