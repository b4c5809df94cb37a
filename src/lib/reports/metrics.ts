/**
 * The figures of each report kind, computed from a report's rows: the one definition the summary (when a report
 * is made), the Reports view and Compare (intervals, paired tests) all use, so a figure cannot differ between them.
 *
 *   ragbench-validate: hallucination AUROC (y = gold adherence false, score = 1 − predicted adherence) and the RMSE
 *     of predicted relevance / utilization / completeness against gold (validate-mode.ts);
 *   ragbench-pipeline: means of the evaluator's TRACe scores over answered questions, gold-document recall@k,
 *     relevant-document recall@k, share answered; and, for reports whose rows carry the gold labels of their question
 *     (`onlyWithGold`), validate's AUROC and RMSEs of our scores against them (eval/ragbench/pipeline-gold.ts says what they mean);
 *   retrieval: means of per-query nDCG@10, MRR@10, R@5, R@100, P@3, P@5 (ir-metrics.ts);
 *   tune: a row is a trial (a setting the tuner tried): the mean over trials of their objective (the one IR figure
 *     the rows carry, `onlyWith`) and of their p95 latency; the summary's own figures are the held-out ones and
 *     their Δ against the current settings (reports/tune-extra.ts), which no row carries;
 *   both RAGBench kinds, when the RAGAS evaluator ran (eval/metrics/ragas.ts): means of `ragas_faithfulness`,
 *     `ragas_answer_relevancy`, `ragas_context_precision`, `ragas_context_recall`, and in validate the hallucination
 *     AUROC of faithfulness (as the dataset's own `ragas` baseline). These are listed only for reports whose rows
 *     carry the field (`onlyWith`, `metricsFor`), so every other report keeps exactly its figures.
 *
 * `perRow` is a row's own value of the figure (null when the row has none), in the figure's direction; AUROC has
 * no per-row form and uses the row's adherence error for per-question deltas. `verdict` names a row's outcome
 * (supported / hallucinated, answered / refused, hit / miss) for "flipped" filters.
 */
import { hallucinationAurocOf } from '../stats/hallucination-roc.ts';
import { mean, rmse } from '../stats/summary.ts';
import type { ReportKind, ReportRow } from './format.ts';

export interface MetricDef {
  id: string;
  label: string;
  higherIsBetter: boolean;
  /** The figure over `rows` (NaN when undefined, e.g. one class only for AUROC). */
  compute(rows: readonly ReportRow[]): number;
  /** A row's own value for per-question Δ and win/tie/loss, null when the row has none. */
  perRow(row: ReportRow): number | null;
  /** Decimals to show. */
  digits: number;
  /** Hallucination AUROC of this adherence-like score field (y = gold adherence false, score = 1 − the field). */
  auroc?: string;
  /** Listed only for reports whose rows carry this score field (`metricsFor`). */
  onlyWith?: string;
  /** Listed only for reports whose rows carry this gold field (`metricsFor`). */
  onlyWithGold?: string;
}

const num = (x: unknown): number | null => (typeof x === 'number' && Number.isFinite(x) ? x : null);
const goldNum = (row: ReportRow, k: string): number | null => {
  const g = row.gold[k];
  return typeof g === 'boolean' ? (g ? 1 : 0) : num(g);
};

function rmseMetric(id: string, label: string, pred: string, gold: string): MetricDef {
  return {
    id, label, higherIsBetter: false, digits: 3,
    // RMSE = sqrt(mean over rows with both values of (pred − gold)²)
    compute: (rows) => rmse(rows.map((r) => num(r.scores[pred])), rows.map((r) => goldNum(r, gold))),
    perRow: (r) => { const p = num(r.scores[pred]); const g = goldNum(r, gold); return p === null || g === null ? null : Math.abs(p - g); },
  };
}

function meanMetric(id: string, label: string, key: string, digits = 3, onlyWith?: string): MetricDef {
  return {
    id, label, higherIsBetter: true, digits, ...(onlyWith !== undefined ? { onlyWith } : {}),
    compute: (rows) => mean(rows.map((r) => num(r.scores[key])).filter((x): x is number => x !== null)),
    perRow: (r) => num(r.scores[key]),
  };
}

/** Hallucination AUROC of score field `key`: y_true = 1 − gold adherence, y_score = 1 − the field (Mann–Whitney U). */
function aurocMetric(id: string, label: string, key: string, onlyWith?: string): MetricDef {
  return {
    id, label, higherIsBetter: true, digits: 3, auroc: key, ...(onlyWith !== undefined ? { onlyWith } : {}),
    compute: (rows) => hallucinationAurocOf(rows.map((r) => r.gold['adherence']), rows.map((r) => r.scores[key])),
    // Per row: 1 − |predicted − gold adherence| (higher is better, as AUROC).
    perRow: (r) => { const p = num(r.scores[key]); const g = goldNum(r, 'adherence'); return p === null || g === null ? null : 1 - Math.abs(p - g); },
  };
}

const AUROC = aurocMetric('auroc', 'hallucination AUROC', 'adherence');
const RMSES = (suffix = ''): MetricDef[] => (['relevance', 'utilization', 'completeness'] as const)
  .map((k) => rmseMetric(`rmse_${k}`, `RMSE ${k}${suffix}`, k, k));

/** Pipeline mode's figures against the gold labels of each question (validate's formulas), listed only with them. */
const VS_GOLD: MetricDef[] = [{ ...aurocMetric('auroc', 'hallucination AUROC vs gold', 'adherence'), onlyWithGold: 'adherence' },
  ...RMSES(' vs gold').map((m) => ({ ...m, onlyWithGold: m.id.slice('rmse_'.length) }))];

/** The RAGAS evaluator's figures: the mean of each of its fields, listed only when the rows carry it. */
const ragasMeanMetrics = (): MetricDef[] => ([
  ['ragas_faithfulness', 'RAGAS faithfulness'], ['ragas_answer_relevancy', 'RAGAS answer relevancy'],
  ['ragas_context_precision', 'RAGAS context precision'], ['ragas_context_recall', 'RAGAS context recall'],
] as const).map(([key, label]) => meanMetric(key, label, key, 3, key));

/** A tune's objective: the IR figure its trials' rows carry (one of them; `onlyWith` lists it alone). */
const tuneObjectives = (): MetricDef[] => ([
  ['ndcg@10', 'nDCG@10'], ['mrr@10', 'MRR@10'], ['r@5', 'R@5'], ['r@100', 'R@100'], ['p@3', 'P@3'], ['p@5', 'P@5'],
] as const).map(([key, label]) => meanMetric(key, label, key, 4, key));

const ANSWERED: MetricDef = {
  id: 'answered', label: 'answered', higherIsBetter: true, digits: 3,
  compute: (rows) => (rows.length === 0 ? NaN : rows.filter((r) => r.status === 'answered').length / rows.length),
  perRow: (r) => (r.status === undefined ? null : r.status === 'answered' ? 1 : 0),
};

export const REPORT_METRICS: Record<ReportKind, readonly MetricDef[]> = {
  'ragbench-validate': [
    AUROC,
    ...RMSES(),
    aurocMetric('ragas_faithfulness_auroc', 'hallucination AUROC of RAGAS faithfulness', 'ragas_faithfulness', 'ragas_faithfulness'),
    ...ragasMeanMetrics(),
  ],
  'ragbench-pipeline': [
    meanMetric('relevance', 'relevance', 'relevance'),
    meanMetric('utilization', 'utilization', 'utilization'),
    meanMetric('adherence', 'adherence', 'adherence'),
    meanMetric('completeness', 'completeness', 'completeness'),
    meanMetric('recall_at_k', 'gold-document recall@k', 'recall'),
    meanMetric('relevant_recall_at_k', 'relevant-document recall@k', 'relevant_recall'),
    ANSWERED,
    ...VS_GOLD,
    ...ragasMeanMetrics(),
  ],
  retrieval: [
    meanMetric('ndcg@10', 'nDCG@10', 'ndcg@10', 4),
    meanMetric('mrr@10', 'MRR@10', 'mrr@10', 4),
    meanMetric('r@5', 'R@5', 'r@5', 4),
    meanMetric('r@100', 'R@100', 'r@100', 4),
    meanMetric('p@3', 'P@3', 'p@3', 4),
    meanMetric('p@5', 'P@5', 'p@5', 4),
  ],
  tune: [
    ...tuneObjectives(),
    { ...meanMetric('p95_ms', 'p95 ms', 'p95_ms', 1, 'p95_ms'), higherIsBetter: false },
    // A summary figure only (held-out Δ against the current settings, tune-extra.ts): listed when the summary has it.
    meanMetric('delta', 'Δ vs current', 'delta', 4, 'delta'),
  ],
};

/**
 * The figures of `kind` for these rows: every metric of the kind, except those listed only with a score field
 * (`onlyWith`) or a gold field (`onlyWithGold`) that no row carries (null counts as carried: the evaluator ran and
 * the field is absent for the row; the dataset has no label for the row).
 */
export function metricsFor(kind: ReportKind, rows: Iterable<ReportRow>): readonly MetricDef[] {
  const defs = REPORT_METRICS[kind];
  const wanted = new Set(defs.flatMap((m) => (m.onlyWith !== undefined ? [m.onlyWith] : [])));
  const wantedGold = new Set(defs.flatMap((m) => (m.onlyWithGold !== undefined ? [m.onlyWithGold] : [])));
  if (wanted.size === 0 && wantedGold.size === 0) return defs;
  const seen = new Set<string>();
  const seenGold = new Set<string>();
  for (const r of rows) {
    for (const k of wanted) if (!seen.has(k) && Object.hasOwn(r.scores, k)) seen.add(k);
    for (const k of wantedGold) if (!seenGold.has(k) && Object.hasOwn(r.gold, k)) seenGold.add(k);
  }
  return defs.filter((m) => (m.onlyWith === undefined || seen.has(m.onlyWith)) && (m.onlyWithGold === undefined || seenGold.has(m.onlyWithGold)));
}

/** The definition of metric `id` of `kind`, or undefined (a report from a newer app may name others). */
export function metricDef(kind: ReportKind, id: string): MetricDef | undefined {
  return REPORT_METRICS[kind].find((m) => m.id === id);
}

/**
 * A row's outcome in words, for "flipped verdict" filters: validate: predicted adherence ≥ 0.5 → "supported",
 * else "hallucinated"; pipeline: its status, and for answered rows also the adherence verdict; retrieval: "hit"
 * when nDCG@10 > 0, else "miss"; tune: the trial's status (winner, front, finalist, dropped). Null when the row has
 * no outcome (no score).
 */
export function rowVerdict(kind: ReportKind, row: ReportRow): string | null {
  if (kind === 'tune') return row.status ?? null;
  const adh = num(row.scores['adherence']);
  if (kind === 'ragbench-validate') return adh === null ? null : adh >= 0.5 ? 'supported' : 'hallucinated';
  if (kind === 'ragbench-pipeline') {
    if (row.status === undefined) return null;
    if (row.status !== 'answered' || adh === null) return row.status;
    return `answered, ${adh >= 0.5 ? 'supported' : 'hallucinated'}`;
  }
  const ndcg = num(row.scores['ndcg@10']);
  return ndcg === null ? null : ndcg > 0 ? 'hit' : 'miss';
}
