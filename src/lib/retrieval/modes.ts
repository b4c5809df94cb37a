/** The seven retrieval modes (seed B) and what each one needs. */

export type RetrievalMode =
  | 'dense'
  | 'sparse'
  | 'rrf'
  | 'hybrid_fixed'
  | 'hybrid_calibrated'
  | 'hybrid_fixed_rerank'
  | 'hybrid_calibrated_rerank';

export interface ModeMeta {
  label: string;
  description: string;
  needsSparse: boolean;
  needsDense: boolean;
  needsReranker: boolean;
}

export const MODES: Readonly<Record<RetrievalMode, ModeMeta>> = Object.freeze({
  sparse: { label: 'BM25', description: 'BM25 over the chunks', needsSparse: true, needsDense: false, needsReranker: false },
  dense: { label: 'Dense', description: 'Embedding similarity', needsSparse: false, needsDense: true, needsReranker: false },
  rrf: { label: 'Hybrid RRF', description: 'Reciprocal rank fusion of BM25 and dense (k = 60)', needsSparse: true, needsDense: true, needsReranker: false },
  hybrid_fixed: { label: 'Hybrid fixed α', description: 'α·minmax(BM25) + (1 − α)·minmax(dense), α = 0.5 unless set', needsSparse: true, needsDense: true, needsReranker: false },
  hybrid_calibrated: { label: 'Hybrid calibrated', description: 'Calibrated scores, entropy-weighted α', needsSparse: true, needsDense: true, needsReranker: false },
  hybrid_fixed_rerank: { label: 'Hybrid fixed + rerank', description: 'Fixed-α fusion, then cross-encoder rerank', needsSparse: true, needsDense: true, needsReranker: true },
  hybrid_calibrated_rerank: { label: 'Hybrid calibrated + rerank', description: 'Calibrated fusion, then cross-encoder rerank', needsSparse: true, needsDense: true, needsReranker: true },
});

export const MODE_IDS = Object.keys(MODES) as RetrievalMode[];

export function isMode(x: unknown): x is RetrievalMode {
  return typeof x === 'string' && Object.hasOwn(MODES, x);
}

/** What is loaded right now. */
export interface Capabilities {
  dense: boolean;
  reranker: boolean;
  /** Why dense is missing, when it is (shown to the user). */
  denseReason?: string;
  rerankerReason?: string;
}

export const NO_EMBEDDER = 'No embedding model is loaded for this knowledge base, so dense search is unavailable.';
export const NO_RERANKER = 'No cross-encoder is loaded, so reranking is unavailable.';

export type Availability = { available: true } | { available: false; reason: string };

/** Whether a mode can run with these capabilities, and if not, a user-readable reason. */
export function modeAvailability(mode: RetrievalMode, caps: Capabilities): Availability {
  const m = MODES[mode];
  if (m.needsDense && !caps.dense) return { available: false, reason: caps.denseReason ?? NO_EMBEDDER };
  if (m.needsReranker && !caps.reranker) return { available: false, reason: caps.rerankerReason ?? NO_RERANKER };
  return { available: true };
}
