/**
 * Seed B's analysis of a retrieval report (multi-mode, rows `${mode}:${queryId}`, group = mode, per-query IR
 * metrics and the `qpp.*` predictor fields of qpp.ts):
 *   H1: every predictor vs per-query NDCG@10 of the retriever it reads (sparse → mode sparse, dense → mode dense,
 *       α → hybrid_calibrated): Pearson r and p, Spearman, Kendall τ-b, each with a bootstrap interval;
 *   H2: every pair of modes on per-query NDCG@10 with the Compare statistics (src/lib/reports/paired-stats.ts:
 *       paired bootstrap, 10,000 resamples, seeded; randomization test; win/tie/loss).
 * Queries are paired by query id across modes; queries a mode lacks are left out of that pair, and said.
 *
 * CONTRACT STUB (issue 13): signatures fixed; the analysis helper implements the bodies.
 */
import type { Report } from '../reports/format.ts';

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

export interface RetrievalAnalysis {
  ok: true;
  /** Distinct judged queries in the report. */
  queries: number;
  modes: string[];
  metric: string;
  h1: H1Row[];
  h2: H2Row[];
  /** Small query sets, reports without predictors, modes missing… in words. */
  warnings: string[];
  settings: { iterations: number; permutations: number; seed: number };
}

export type AnalysisOutcome = RetrievalAnalysis | { ok: false; message: string };

/** The analysis of a retrieval report; ok: false (a message) for another kind or a report with no rows. */
export function analyzeRetrievalReport(report: Report, opts: Partial<AnalysisOptions> = {}): AnalysisOutcome {
  void report; void opts;
  throw new Error('not implemented');
}

/** The points of one H1 row (x = predictor, y = metric, key = query id) for the scatter plot and its fit. */
export function h1Points(report: Report, row: Pick<H1Row, 'predictor' | 'retriever' | 'calibration'>, metric = 'ndcg@10'): { x: number[]; y: number[]; keys: string[] } {
  void report; void row; void metric;
  throw new Error('not implemented');
}

/** The JSON object `rag-lab analyze --json` prints on its last line (issue 13's shape, exactly those keys). */
export function analysisJson(a: RetrievalAnalysis): {
  queries: number;
  h1: Array<{ predictor: string; retriever: string; calibration: string | null; pearson_r: number | null; p_value: number | null; spearman: number | null; kendall: number | null; ci95: [number, number] | null }>;
  h2: Array<{ a: string; b: string; metric: string; delta: number | null; ci95: [number, number] | null; p_value: number | null; wins: number; ties: number; losses: number }>;
} {
  void a;
  throw new Error('not implemented');
}
