/**
 * The shapes of Seed B's analysis of a retrieval report (analysis.ts computes it, verdicts.ts judges it): the options,
 * the H1 rows (predictor vs metric correlations), the H2 rows (paired mode comparisons) and the outcome.
 */
export interface AnalysisOptions {
  /** Bootstrap resamples (H1 intervals and H2). Default 10,000. */
  iterations: number;
  /** Randomization-test permutations (H2). Default 10,000. */
  permutations: number;
  /** Default: the report's seed. */
  seed: number;
  /** The per-query metric H1 correlates with and H2 compares. Default 'ndcg@10'. */
  metric: string;
}

export interface H1Row {
  predictor: string;
  retriever: string;
  calibration: string | null;
  /** Queries with both the predictor and the metric. */
  n: number;
  pearson_r: number | null;
  p_value: number | null;
  spearman: number | null;
  kendall: number | null;
  /** Bootstrap 95% interval of Pearson r. */
  ci95: [number, number] | null;
  spearman_ci95: [number, number] | null;
  kendall_ci95: [number, number] | null;
  /** The sign expected if the predictor works: entropy and α negative, the others positive. */
  expected: 'negative' | 'positive';
  /** Why a figure is missing or weak (constant predictor, too few queries), or null. */
  note: string | null;
}

export interface H2Row {
  a: string;
  b: string;
  metric: string;
  n: number;
  /** mean(a) − mean(b) over the paired queries. */
  delta: number | null;
  ci95: [number, number] | null;
  /** Paired bootstrap, two-sided (null-centred). */
  p_value: number | null;
  /** Paired randomization (sign-flip) test, two-sided. */
  p_randomization: number | null;
  wins: number;
  ties: number;
  losses: number;
}

/** Where a number of draws came from: the caller's option, the report's `config.resamples`, or the default. */
export type DrawSource = 'option' | 'report' | 'default';

export interface RetrievalAnalysis {
  ok: true;
  /** Distinct judged queries in the report. */
  queries: number;
  modes: string[];
  metric: string;
  /** Each mode's mean metric over its queries with a number (null: none), in mode order. */
  means: Array<{ mode: string; n: number; mean: number | null }>;
  h1: H1Row[];
  h2: H2Row[];
  /** Small query sets, reports without predictors, modes missing… in words. */
  warnings: string[];
  settings: { iterations: number; permutations: number; seed: number; source: { iterations: DrawSource; permutations: DrawSource } };
}

export type AnalysisOutcome = RetrievalAnalysis | { ok: false; message: string };
