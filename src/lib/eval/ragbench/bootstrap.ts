/**
 * How far to trust a validate run's figures: percentile-bootstrap intervals of the hallucination AUROC and the three
 * RMSEs (rows resampled with replacement, seeded, so a figure and its interval are reproducible), and plain warnings
 * when too few rows stand behind a figure (a 20-row sample with one hallucinated row gives an AUROC of 1 or 0 by
 * luck: that is no evidence about the evaluator).
 */
import type { RagbenchRow } from '../../data/ragbench.ts';
import type { ReportRow } from '../../reports/format.ts';
import { figuresWithIntervals, smallSampleNotes } from '../../reports/summary-stats.ts';
import type { TraceScores } from '../metrics/trace.ts';

export { MIN_ROWS } from '../../reports/summary-stats.ts';
/** Default resamples. */
export const BOOTSTRAP_ITERATIONS = 1000;

export const UNCERTAIN_METRICS = ['auroc', 'rmse_relevance', 'rmse_utilization', 'rmse_completeness'] as const;
export type UncertainMetric = (typeof UNCERTAIN_METRICS)[number];

/** 95% interval per metric; null where no resample gave a number (e.g. one class only). */
export type MetricIntervals = Record<UncertainMetric, [number, number] | null>;


export interface IntervalOptions {
  iterations?: number;
  seed?: number;
  level?: number;
}

/** Validate rows and their predictions as report rows (NaN → null), for the reports' figure code. */
function asReportRows(rows: readonly RagbenchRow[], preds: readonly TraceScores[]): ReportRow[] {
  const fin = (x: number | null | undefined) => (typeof x === 'number' && Number.isFinite(x) ? x : null);
  return rows.map((r, i) => ({
    key: String(i), group: '', question: '', answer: '',
    scores: { relevance: fin(preds[i]!.relevance), utilization: fin(preds[i]!.utilization), adherence: fin(preds[i]!.adherence), completeness: fin(preds[i]!.completeness) },
    gold: { relevance: fin(r.relevance_score), utilization: fin(r.utilization_score), completeness: fin(r.completeness_score), adherence: typeof r.adherence_score === 'boolean' ? r.adherence_score : null },
  }));
}

/**
 * Percentile bootstrap of each metric: resample the n rows with replacement `iterations` times (mulberry32 seeded
 * by `seed`), compute the metric on each resample, and take the (1 − level)/2 and (1 + level)/2 percentiles of the
 * values that are numbers. Every metric sees the same resamples (same seed). Computed by the reports' kernels
 * (reports/summary-stats.ts), so these are the intervals a report of the same rows carries.
 */
export function metricIntervals(rows: readonly RagbenchRow[], preds: readonly TraceScores[], opts: IntervalOptions = {}): MetricIntervals {
  if (rows.length !== preds.length) throw new Error(`length mismatch: ${rows.length} rows, ${preds.length} predictions`);
  const asRows = asReportRows(rows, preds);
  const figures = figuresWithIntervals('ragbench-validate', asRows, { iterations: opts.iterations ?? BOOTSTRAP_ITERATIONS, seed: opts.seed ?? 0, level: opts.level ?? 0.95 });
  const out = {} as MetricIntervals;
  for (const m of UNCERTAIN_METRICS) out[m] = figures.find((f) => f.id === m)?.ci ?? null;
  return out;
}

/**
 * Warnings for figures resting on too few rows: the AUROC when either class (hallucinated / supported, among the rows
 * with a gold label and a prediction) has fewer than MIN_ROWS rows, an RMSE when fewer than MIN_ROWS rows have both
 * a prediction and a gold value. The reports' rule (summary-stats.ts `smallSampleNotes`), so both say the same.
 */
export function smallSampleWarnings(rows: readonly RagbenchRow[], preds: readonly TraceScores[]): string[] {
  if (rows.length !== preds.length) throw new Error(`length mismatch: ${rows.length} rows, ${preds.length} predictions`);
  return smallSampleNotes('ragbench-validate', asReportRows(rows, preds)).map((w) => w.message);
}

/** "[0.61, 0.83]" (or "" without an interval), shown next to a figure. */
export function formatInterval(ci: readonly [number, number] | null | undefined, digits = 2): string {
  return ci ? `[${ci[0].toFixed(digits)}, ${ci[1].toFixed(digits)}]` : '';
}
