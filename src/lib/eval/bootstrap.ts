/**
 * How far to trust a validate run's figures: percentile-bootstrap intervals of the hallucination AUROC and the three
 * RMSEs (rows resampled with replacement, seeded, so a figure and its interval are reproducible), and plain warnings
 * when too few rows stand behind a figure (a 20-row sample with one hallucinated row gives an AUROC of 1 or 0 by
 * luck: that is no evidence about the evaluator).
 */
import type { RagbenchRow } from '../data/ragbench.ts';
import type { ReportRow } from '../reports/format.ts';
import { figuresWithIntervals } from '../reports/summary-stats.ts';
import { maskedPairs } from './stats.ts';
import type { TraceScores } from './trace.ts';

/** Below this many rows in a class (AUROC) or in all (RMSE), a figure is flagged as not meaningful. */
export const MIN_ROWS = 10;
/** Default resamples. */
export const BOOTSTRAP_ITERATIONS = 1000;

export const UNCERTAIN_METRICS = ['auroc', 'rmse_relevance', 'rmse_utilization', 'rmse_completeness'] as const;
export type UncertainMetric = (typeof UNCERTAIN_METRICS)[number];

/** 95% interval per metric; null where no resample gave a number (e.g. one class only). */
export type MetricIntervals = Record<UncertainMetric, [number, number] | null>;

const GOLD: Record<Exclude<UncertainMetric, 'auroc'>, { pred: keyof TraceScores; gold: 'relevance_score' | 'utilization_score' | 'completeness_score' }> = {
  rmse_relevance: { pred: 'relevance', gold: 'relevance_score' },
  rmse_utilization: { pred: 'utilization', gold: 'utilization_score' },
  rmse_completeness: { pred: 'completeness', gold: 'completeness_score' },
};

export interface IntervalOptions {
  iterations?: number;
  seed?: number;
  level?: number;
}

/**
 * Percentile bootstrap of each metric: resample the n rows with replacement `iterations` times (mulberry32 seeded
 * by `seed`), compute the metric on each resample, and take the (1 − level)/2 and (1 + level)/2 percentiles of the
 * values that are numbers. Every metric sees the same resamples (same seed). Computed by the reports' kernels
 * (reports/summary-stats.ts), so these are the intervals a report of the same rows carries.
 */
export function metricIntervals(rows: readonly RagbenchRow[], preds: readonly TraceScores[], opts: IntervalOptions = {}): MetricIntervals {
  if (rows.length !== preds.length) throw new Error(`length mismatch: ${rows.length} rows, ${preds.length} predictions`);
  const fin = (x: number | null | undefined) => (typeof x === 'number' && Number.isFinite(x) ? x : null);
  const asRows: ReportRow[] = rows.map((r, i) => ({
    key: String(i), group: '', question: '', answer: '',
    scores: { relevance: fin(preds[i]!.relevance), utilization: fin(preds[i]!.utilization), adherence: fin(preds[i]!.adherence), completeness: fin(preds[i]!.completeness) },
    gold: { relevance: fin(r.relevance_score), utilization: fin(r.utilization_score), completeness: fin(r.completeness_score), adherence: typeof r.adherence_score === 'boolean' ? r.adherence_score : null },
  }));
  const figures = figuresWithIntervals('ragbench-validate', asRows, { iterations: opts.iterations ?? BOOTSTRAP_ITERATIONS, seed: opts.seed ?? 0, level: opts.level ?? 0.95 });
  const out = {} as MetricIntervals;
  for (const m of UNCERTAIN_METRICS) out[m] = figures.find((f) => f.id === m)?.ci ?? null;
  return out;
}

const rowsWord = (n: number, what: string) => `${n} ${what} row${n === 1 ? '' : 's'}`;

/**
 * Warnings for figures resting on too few rows: the AUROC when either class (hallucinated / supported, among the rows
 * with a gold label and a prediction) has fewer than MIN_ROWS rows, an RMSE when fewer than MIN_ROWS rows have both
 * a prediction and a gold value.
 */
export function smallSampleWarnings(rows: readonly RagbenchRow[], preds: readonly TraceScores[]): string[] {
  const out: string[] = [];
  let halluc = 0;
  let supported = 0;
  rows.forEach((r, i) => {
    if (r.adherence_score === null || !Number.isFinite(preds[i]?.adherence)) return;
    if (r.adherence_score) supported++; else halluc++;
  });
  if (halluc === 0 || supported === 0) out.push(`AUROC not defined: no ${halluc === 0 ? 'hallucinated' : 'supported'} row among the ${halluc + supported} labelled rows`);
  else if (halluc < MIN_ROWS || supported < MIN_ROWS) {
    const [n, what] = halluc <= supported ? [halluc, 'hallucinated'] : [supported, 'supported'];
    out.push(`AUROC from ${rowsWord(n, what)}: not meaningful (fewer than ${MIN_ROWS}; score more rows)`);
  }
  for (const [m, g] of Object.entries(GOLD)) {
    const n = maskedPairs(preds.map((p) => p[g.pred]), rows.map((r) => r[g.gold])).pred.length;
    if (n > 0 && n < MIN_ROWS) out.push(`${m.replace('rmse_', 'RMSE ')} from ${rowsWord(n, 'scored')}: not meaningful (fewer than ${MIN_ROWS})`);
  }
  return out;
}

/** "[0.61, 0.83]" (or "" without an interval), shown next to a figure. */
export function formatInterval(ci: readonly [number, number] | null | undefined, digits = 2): string {
  return ci ? `[${ci[0].toFixed(digits)}, ${ci[1].toFixed(digits)}]` : '';
}
