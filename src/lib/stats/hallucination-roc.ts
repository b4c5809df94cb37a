/**
 * Hallucination ROC and AUROC of adherence-like scores against gold adherence labels, in one place: the report
 * summary's AUROC (reports/metrics.ts) and the ROC charts (the Reports and Benchmark tabs) compute them here, so
 * a chart names the figure its table shows.
 */
import { rocCurve } from './roc.ts';
import { auroc } from './summary.ts';

const finite = (x: unknown): x is number => typeof x === 'number' && Number.isFinite(x);

/** y = 1 (hallucinated) where gold adherence is false, score = 1 − adherence; pairs without a boolean label or a finite score are left out. */
export function hallucinationPairs(gold: readonly unknown[], adherence: readonly unknown[]): { y: Array<0 | 1>; score: number[] } {
  const y: Array<0 | 1> = [];
  const score: number[] = [];
  gold.forEach((g, i) => {
    const a = adherence[i];
    if (typeof g !== 'boolean' || !finite(a)) return;
    y.push(g ? 0 : 1);
    score.push(1 - a);
  });
  return { y, score };
}

/** Hallucination AUROC: y_true = 1 − gold adherence, y_score = 1 − adherence (Mann–Whitney U, stats.ts); NaN with one class. */
export function hallucinationAurocOf(gold: readonly unknown[], adherence: readonly unknown[]): number {
  const p = hallucinationPairs(gold, adherence);
  return auroc(p.y, p.score);
}

/** The ROC curve's points (roc.ts) and the AUROC of the same pairs. */
export function hallucinationRoc(gold: readonly unknown[], adherence: readonly unknown[]): { fpr: number[]; tpr: number[]; auroc: number } {
  const p = hallucinationPairs(gold, adherence);
  return { ...rocCurve(p.y, p.score), auroc: auroc(p.y, p.score) };
}
