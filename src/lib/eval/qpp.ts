/**
 * Query performance predictors (post-retrieval) of one query's ranked list, as QPP4CS `post_retrieval.py` defines
 * them (../shared/notes/hub-and-formats.md §8), and the score entropy of seed B under each calibration:
 *
 *   entropy_c  = H(calibrate_c(top entropyK scores))             (entropy.ts: log2; softmax when a score is < 0)
 *   NQC        = std_pop(top nqcK scores) / |mean(all listDepth scores)|   (nqc_nonorm: without the divisor)
 *   WIG        = (mean(top wigK) − mean(all)) / sqrt(|q|)
 *   clarity    = Σ_w p(w|q) · ln(p(w|q) / p_coll(w)), RM1 over the top clarityK items weighted by their scores,
 *                top clarityTerms terms renormalised, p_coll(w) = cf(w) / total terms (tokens of the BM25 index)
 *
 * CONTRACT STUB (issue 13): signatures fixed; the qpp helper implements the bodies.
 */
import type { Calibration, CdfTable } from '../retrieval/calibrate.ts';
import type { KnowledgeBase } from '../retrieval/knowledge-base.ts';
import type { Scored } from '../retrieval/topk.ts';

export interface QppOptions {
  /** Depth of the ranked list the predictors read (QPP4CS: 1000). */
  listDepth: number;
  /** Entries of the list the entropy reads: the candidate list calibrated fusion reads (the run's candidateK). */
  entropyK: number;
  nqcK: number;
  wigK: number;
  clarityK: number;
  clarityTerms: number;
}

export const QPP_DEFAULTS: Readonly<QppOptions> = Object.freeze({ listDepth: 1000, entropyK: 100, nqcK: 100, wigK: 5, clarityK: 100, clarityTerms: 100 });

/** The retriever whose list a predictor reads; `fusion` is α, which reads both. */
export type QppRetriever = 'sparse' | 'dense' | 'fusion';
export const QPP_PREDICTORS = ['entropy', 'clarity', 'nqc', 'nqc_nonorm', 'wig', 'alpha'] as const;
export type QppPredictor = (typeof QPP_PREDICTORS)[number];

export interface PredictorKey { predictor: QppPredictor; retriever: QppRetriever; calibration: Calibration | null }

/**
 * The report score field of a predictor: `qpp.<predictor>.<retriever>[.<calibration>]`, e.g. `qpp.entropy.sparse.cdf`,
 * `qpp.nqc.dense`, `qpp.alpha.fusion.raw`. Entropy and α carry a calibration, the others none.
 */
export function predictorField(k: PredictorKey): string {
  return `qpp.${k.predictor}.${k.retriever}${k.calibration ? `.${k.calibration}` : ''}`;
}

/** The inverse of `predictorField`; null for any other field. */
export function parsePredictorField(field: string): PredictorKey | null {
  const m = /^qpp\.([a-z_]+)\.(sparse|dense|fusion)(?:\.(raw|minmax|zscore|cdf))?$/.exec(field);
  if (!m || !(QPP_PREDICTORS as readonly string[]).includes(m[1]!)) return null;
  return { predictor: m[1] as QppPredictor, retriever: m[2] as QppRetriever, calibration: (m[3] as Calibration | undefined) ?? null };
}

/** H of the calibrated top-k scores; null for an empty list, or cdf without a table. */
export function entropyUnder(calibration: Calibration, scores: readonly number[], table: CdfTable | null): number | null {
  void calibration; void scores; void table;
  throw new Error('not implemented');
}

/** NQC; null when the list is empty or (normalised) the divisor is 0. A list shorter than k uses all of it. */
export function nqc(scores: readonly number[], k: number, normalise: boolean): number | null {
  void scores; void k; void normalise;
  throw new Error('not implemented');
}

/** WIG; null when the list is empty or the query has no terms. */
export function wig(scores: readonly number[], k: number, queryLength: number): number | null {
  void scores; void k; void queryLength;
  throw new Error('not implemented');
}

/** One ranked retriever list of a query: items best first, at most `listDepth` long. */
export interface QueryLists {
  sparse: readonly Scored[] | null;
  dense: readonly Scored[] | null;
}

/**
 * Every predictor of one query as report score fields (`predictorField`): entropy under each calibration, clarity,
 * NQC, NQC without normaliser and WIG of each list given, and α = H_dense / (H_dense + H_sparse + ε) under each
 * calibration when both are given. A predictor without a value (empty list, no table) is null.
 */
export function queryPredictors(kb: KnowledgeBase, queryTerms: readonly string[], lists: QueryLists, opts: Partial<QppOptions> = {}): Record<string, number | null> {
  void kb; void queryTerms; void lists; void opts;
  throw new Error('not implemented');
}
