/**
 * How a pipeline run's scores track RAGBench's gold labels (seed A's benchmark path: "summary means + RMSE / AUROC
 * vs gold"): per subset, the evaluator's TRACe scores of our answers against the gold labels of the same RAGBench
 * question (the row the question was sampled as, the first of its id), with validate mode's formulas
 * (validate-mode.ts `traceMetrics`: hallucination AUROC of predicted adherence, RMSE of relevance, utilization
 * and completeness), its bootstrap intervals and small-sample warnings (bootstrap.ts). Questions without scores
 * (refused, failed) and labels that are null are left out, as NaN is in validate mode.
 *
 * RAGBench's labels judge RAGBench's own answer to the question, not ours: the figures say how the evaluator's scores
 * of our answers track the dataset's labels for the question, not how right the evaluator or the pipeline is.
 */
import type { RagbenchRow } from '../../data/ragbench.ts';
import { metricIntervals, smallSampleWarnings, UNCERTAIN_METRICS, type MetricIntervals } from './bootstrap.ts';
import { jsonNumber, traceMetrics } from './validate-mode.ts';
import type { TraceScores } from '../metrics/trace.ts';
import { mean } from '../../stats/summary.ts';

/** RAGBench's gold labels of one question's row (null where the dataset has none). */
export interface GoldLabels {
  relevance: number | null;
  utilization: number | null;
  completeness: number | null;
  adherence: boolean | null;
}

const fin = (x: number | null | undefined): number | null => (typeof x === 'number' && Number.isFinite(x) ? x : null);

export const goldLabels = (row: RagbenchRow): GoldLabels => ({
  relevance: fin(row.relevance_score), utilization: fin(row.utilization_score), completeness: fin(row.completeness_score), adherence: row.adherence_score ?? null,
});

/** One subset's figures against gold: validate mode's, over the questions with a score and a label. */
export interface GoldComparison {
  /** Questions with at least one predicted TRACe score and its gold label. */
  n: number;
  /** Of the questions the AUROC rests on (predicted adherence and a gold label), those labelled hallucinated. */
  hallucinations: number;
  auroc: number;
  rmse_relevance: number;
  rmse_utilization: number;
  rmse_completeness: number;
  /** 95% percentile-bootstrap intervals (null when the run asked for none). */
  intervals: MetricIntervals | null;
  /** Figures resting on too few questions. */
  warnings: string[];
}

/**
 * The comparison of `preds` (one per question, NaN where unscored) with the gold labels of `rows` (the questions'
 * rows, in the same order). Intervals resample all the questions, as the report's per-subset figures do, so the two
 * are the same numbers.
 */
export function goldComparison(rows: readonly RagbenchRow[], preds: readonly TraceScores[], opts: { iterations: number; seed: number }): GoldComparison {
  if (rows.length !== preds.length) throw new Error(`length mismatch: ${rows.length} rows, ${preds.length} predictions`);
  const has = (x: number) => !Number.isNaN(x);
  const pairs = (m: 'relevance' | 'utilization' | 'completeness', i: number) => has(preds[i]![m]) && fin(rows[i]![`${m}_score`]) !== null;
  const inAuroc = (i: number) => has(preds[i]!.adherence) && typeof rows[i]!.adherence_score === 'boolean';
  const used = rows.map((_, i) => inAuroc(i) || pairs('relevance', i) || pairs('utilization', i) || pairs('completeness', i));
  return {
    n: used.filter(Boolean).length,
    hallucinations: rows.filter((r, i) => inAuroc(i) && r.adherence_score === false).length,
    ...traceMetrics(rows, preds),
    intervals: opts.iterations > 0 ? metricIntervals(rows, preds, { iterations: opts.iterations, seed: opts.seed }) : null,
    warnings: smallSampleWarnings(rows, preds),
  };
}

/** A comparison as `eval-ragbench --json` prints it (validate's field names; NaN → null). */
export function goldComparisonJson(g: GoldComparison) {
  return {
    n: g.n, hallucinations: g.hallucinations, auroc: jsonNumber(g.auroc), rmse_relevance: jsonNumber(g.rmse_relevance),
    rmse_utilization: jsonNumber(g.rmse_utilization), rmse_completeness: jsonNumber(g.rmse_completeness),
    intervals: g.intervals ? Object.fromEntries(UNCERTAIN_METRICS.map((m) => [m, g.intervals![m] ? g.intervals![m]!.map(jsonNumber) : null])) : null,
    warnings: [...g.warnings],
  };
}

/** Per figure: the mean over subsets of their figures (subsets without one left out), as validate's `mean_auroc`. */
export function meanGoldJson(all: readonly GoldComparison[]) {
  const of = (m: (typeof UNCERTAIN_METRICS)[number]) => jsonNumber(mean(all.map((g) => g[m]).filter((x) => !Number.isNaN(x))));
  return Object.fromEntries(UNCERTAIN_METRICS.map((m) => [m, of(m)])) as Record<(typeof UNCERTAIN_METRICS)[number], number | null>;
}

/** What the comparison means, in one sentence, for the tab, the text output and the docs. */
export const GOLD_COMPARISON_NOTE =
  "AUROC and RMSE vs gold: RAGBench's gold labels judge RAGBench's own answer to each question, not ours, so these figures measure how the evaluator's scores of our answers track the dataset's labels for the same question (seed A's protocol), not the evaluator's accuracy.";
