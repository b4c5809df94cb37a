/**
 * Pure helpers of the Compare tab (compare.svelte.ts renders through them): which saved reports can be picked
 * together, and the per-question diff rows (Δ of a chosen metric against the baseline, sorted, "flipped only"; a
 * row is one question in one retrieval mode, and a mode picker keeps one mode's rows).
 */
import type { CompareQuestion, CompareResult, ConfigDiffRow } from '../../lib/reports/compare-types.ts';
import { dict, own } from '../../lib/dict.ts';
import type { ReportMeta } from '../../lib/reports/store-types.ts';

/** Why `meta` cannot join the picked reports (null: it can). Compare needs one kind and one dataset. */
export function whyNotPickable(meta: ReportMeta, picked: readonly ReportMeta[]): string | null {
  const first = picked.find((p) => p.id !== meta.id);
  if (!first) return null;
  if (first.kind !== meta.kind) return `a ${meta.kind} report: the picked ones are ${first.kind}`;
  if (first.dataset !== meta.dataset) return `on ${meta.dataset}: the picked ones are on ${first.dataset}`;
  return null;
}

export interface QuestionRow {
  q: CompareQuestion;
  /** perRow(report) − perRow(baseline) of the sort metric, per non-baseline report id (null where either lacks it). */
  deltas: Record<string, number | null>;
  /** The Δ the table sorts by (against the chosen report). */
  sortDelta: number | null;
}

export interface QuestionQuery {
  metric: string;
  /** The non-baseline report whose Δ sorts the table. */
  against: string;
  /** 'desc': largest Δ first; 'asc': smallest first. Rows without a Δ go last either way. */
  order: 'asc' | 'desc';
  flippedOnly: boolean;
  /** Only the rows of this retrieval mode ('' or absent: every mode; each row is one question in one mode). */
  mode?: string;
}

type Ok = Extract<CompareResult, { ok: true }>;

/** Δ of `metric` for question `q`: perRow(report) − perRow(baseline), null where either has no value. */
export function questionDelta(q: CompareQuestion, metric: string, reportId: string, baselineId: string): number | null {
  const a = own(own(q.byReport, baselineId)?.perRow, metric) ?? null;
  const b = own(own(q.byReport, reportId)?.perRow, metric) ?? null;
  return a === null || b === null ? null : b - a;
}

/** Report `reportId`'s verdict on question `q` (null: none). Ids are data: `own`, so `__proto__` is an id like any other. */
export const verdictOf = (q: CompareQuestion, reportId: string): string | null => own(q.byReport, reportId)?.verdict ?? null;

/** Report `reportId`'s own key of question `q`'s row (its rows pair by mode and question, not always by key). */
export const rowKeyOf = (q: CompareQuestion, reportId: string): string | undefined => own(q.byReport, reportId)?.key;

/** Report `reportId`'s value in a config-diff row ('—' when absent). */
export const diffValue = (d: ConfigDiffRow, reportId: string): string => own(d.values, reportId) ?? '—';

/** A question row's Δ against report `reportId` (null: none). */
export const rowDelta = (row: QuestionRow, reportId: string): number | null => own(row.deltas, reportId) ?? null;

export function questionRows(r: Ok, query: QuestionQuery): QuestionRow[] {
  const others = r.reports.map((x) => x.id).filter((id) => id !== r.baselineId);
  const rows = r.questions
    .filter((q) => (!query.flippedOnly || q.flipped) && (!query.mode || q.pipeline === query.mode))
    .map((q) => {
      const deltas = dict<number | null>();
      for (const id of others) deltas[id] = questionDelta(q, query.metric, id, r.baselineId);
      return { q, deltas, sortDelta: own(deltas, query.against) ?? null };
    });
  const sign = query.order === 'desc' ? -1 : 1;
  return rows.sort((x, y) => {
    if (x.sortDelta === null || y.sortDelta === null) return (x.sortDelta === null ? 1 : 0) - (y.sortDelta === null ? 1 : 0);
    return sign * (x.sortDelta - y.sortDelta) || x.q.key.localeCompare(y.q.key);
  });
}

/** The retrieval modes of a comparison's rows, in order (empty for RAGBench: one pipeline per report). */
export function compareModes(r: Ok): string[] {
  const out: string[] = [];
  for (const q of r.questions) if (q.pipeline !== null && !out.includes(q.pipeline)) out.push(q.pipeline);
  return out;
}

/** The metrics the per-question Δ can be of: each metric once (its rows are per mode already). */
export function questionMetrics(r: Ok): Array<{ id: string; label: string; digits: number }> {
  const out: Array<{ id: string; label: string; digits: number }> = [];
  for (const m of r.metrics) if (!out.some((x) => x.id === m.id)) out.push({ id: m.id, label: m.label, digits: m.digits });
  return out;
}

/** A metric row's name in the Compare table: "sparse · nDCG@10" for a retrieval mode's figure, else the label. */
export const metricRowLabel = (m: Ok['metrics'][number]): string => `${m.pipeline !== null ? `${m.pipeline} · ` : ''}${m.label}${m.higherIsBetter ? '' : ' (lower is better)'}`;

/** What a compared row is called: a question, or a trial (a setting both tunes tried) in tune reports. */
export const rowNoun = (r: Pick<Ok, 'kind'>): { one: string; many: string } => (r.kind === 'tune' ? { one: 'trial', many: 'trials' } : { one: 'question', many: 'questions' });
