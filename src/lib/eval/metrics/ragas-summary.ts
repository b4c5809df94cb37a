/**
 * RAGAS figures over a run's rows, for `eval-ragbench` (its text tables and JSON) and the bench sessions: per metric
 * the mean over the rows where it is a number and that count (a row whose metric is absent is left out, never
 * counted as 0), and in validate mode the hallucination AUROC of RAGAS faithfulness against RAGBench's gold
 * adherence (y = gold adherence false, score = 1 − faithfulness), the figure the dataset's own `ragas` baseline
 * (its `ragas_faithfulness` column) gets.
 */
import type { RagbenchRow } from '../../data/ragbench.ts';
import { hallucinationAurocOf } from '../../stats/hallucination-roc.ts';
import { RAGAS_METRICS, type EvalScores, type RagasMetric, type RagasScores } from './ragas.ts';

export interface RagasMeans {
  /** Per metric: the mean over the rows with a number (NaN when none). */
  means: RagasScores;
  /** Per metric: the rows with a number. */
  n: Record<RagasMetric, number>;
}

export interface RagasValidation extends RagasMeans {
  /** Hallucination AUROC of faithfulness (NaN with one class or no faithfulness). */
  faithfulnessAuroc: number;
}

/** Means and counts over `rows` (rows without RAGAS scores left out); null when no row has any. */
export function ragasMeans(rows: readonly (RagasScores | undefined)[]): RagasMeans | null {
  const have = rows.filter((r): r is RagasScores => r !== undefined);
  if (have.length === 0) return null;
  const means = {} as RagasScores;
  const n = {} as Record<RagasMetric, number>;
  for (const m of RAGAS_METRICS) {
    const xs = have.map((r) => r[m]).filter((x) => Number.isFinite(x));
    n[m] = xs.length;
    means[m] = xs.length === 0 ? NaN : xs.reduce((a, b) => a + b, 0) / xs.length;
  }
  return { means, n };
}

/** A validate subset's RAGAS figures, row for row with `preds`; null when the evaluator gave none. */
export function ragasValidation(rows: readonly RagbenchRow[], preds: readonly EvalScores[]): RagasValidation | null {
  const m = ragasMeans(preds.map((p) => p.ragas));
  if (!m) return null;
  return { ...m, faithfulnessAuroc: hallucinationAurocOf(rows.map((r) => r.adherence_score), preds.map((p) => p.ragas?.faithfulness ?? NaN)) };
}

const num = (x: number): number | null => (Number.isFinite(x) ? x : null);

/** The JSON of RAGAS figures: {faithfulness, answer_relevancy, context_precision, context_recall, n: {…}[, faithfulness_auroc]}. */
export function ragasJson(r: RagasMeans | RagasValidation) {
  return {
    ...Object.fromEntries(RAGAS_METRICS.map((m) => [m, num(r.means[m])])),
    n: { ...r.n },
    ...('faithfulnessAuroc' in r ? { faithfulness_auroc: num(r.faithfulnessAuroc) } : {}),
  };
}

/** A row's RAGAS scores as JSON (absent → null). */
export const ragasRowJson = (s: RagasScores) => Object.fromEntries(RAGAS_METRICS.map((m) => [m, num(s[m])]));

const fmt = (x: number, w: number) => (Number.isFinite(x) ? x.toFixed(3) : 'n/a').padStart(w);

/** The text table of RAGAS figures per subset (with the faithfulness AUROC in validate mode); [] when there are none. */
export function ragasTableLines(subsets: ReadonlyArray<{ subset: string; ragas?: RagasMeans | RagasValidation | null | undefined }>): string[] {
  const have = subsets.filter((s): s is { subset: string; ragas: RagasMeans | RagasValidation } => !!s.ragas);
  if (have.length === 0) return [];
  const auroc = have.some((s) => 'faithfulnessAuroc' in s.ragas);
  const head = ['subset'.padEnd(11), 'faithful'.padStart(9), 'ans.rel'.padStart(8), 'ctx.prec'.padStart(9), 'ctx.rec'.padStart(8),
    ...(auroc ? ['AUROC(faith)'.padStart(13)] : []), '  n (faithful / ans.rel / ctx.prec / ctx.rec)'].join(' ');
  const lines = have.map(({ subset, ragas: r }) => [subset.padEnd(11), fmt(r.means.faithfulness, 9), fmt(r.means.answer_relevancy, 8),
    fmt(r.means.context_precision, 9), fmt(r.means.context_recall, 8), ...(auroc ? [fmt('faithfulnessAuroc' in r ? r.faithfulnessAuroc : NaN, 13)] : []),
    `  ${RAGAS_METRICS.map((m) => r.n[m]).join(' / ')}`].join(' '));
  return ['', 'RAGAS (means over the rows where a metric is defined; n/a: absent)', head, '-'.repeat(head.length), ...lines];
}
