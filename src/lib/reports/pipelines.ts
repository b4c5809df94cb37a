/**
 * The pipelines a report holds and the figures of each: the one owner of "a report's figures, per pipeline". The
 * Reports list (meta.ts), the Hub index (hub-layout.ts), the Markdown and CSV exports, the share summary, the report
 * view and Compare all derive from here, so no figure anywhere averages rows of different pipelines.
 *
 * A pipeline is what produced a row:
 *   retrieval: the mode. A multi-mode report (eval/retrieval/retrieval-bench.ts) has rows keyed `${mode}:${queryId}` with
 *     group = mode, and its summary groups are its modes; a report written before that holds one mode (the
 *     evaluator), rows keyed by query id with group = the dataset.
 *   RAGBench (validate, pipeline): one evaluator over one pipeline; its groups are subsets of that one run, so the
 *     pooled figure (group null) describes the pipeline (pipeline null: the report's evaluator names it).
 *   tune: its summary groups are the settings measured on the held-out queries (current, winner, each member of the
 *     front: reports/tune-extra.ts), each a pipeline of its own; its rows (the trials) are one list (pipeline null).
 * Rows of different reports pair (Compare) only when pipeline and question match: `pairKey`.
 */
import type { Report, ReportRow, SummaryMetric } from './format.ts';

/** What identifies a report's pipelines. */
export type PipelineSource = Pick<Report, 'kind' | 'evaluator' | 'rows' | 'summary'>;

/** A row of a multi-mode retrieval report: key `${group}:${queryId}`. */
const modeKeyed = (row: Pick<ReportRow, 'key' | 'group'>) => row.group !== '' && row.key.startsWith(`${row.group}:`);

/** The pipeline a row belongs to (a retrieval mode; null in a RAGBench report) and the row's question key within it. */
export function rowPipeline(r: Pick<Report, 'kind' | 'evaluator'>, row: Pick<ReportRow, 'key' | 'group'>): { pipeline: string | null; item: string } {
  if (r.kind !== 'retrieval') return { pipeline: null, item: row.key };
  if (modeKeyed(row)) return { pipeline: row.group, item: row.key.slice(row.group.length + 1) };
  return { pipeline: r.evaluator, item: row.key };
}

/** The key two reports' rows pair on: the same pipeline and question (`${mode}:${queryId}` for retrieval rows). */
export function pairKey(r: Pick<Report, 'kind' | 'evaluator'>, row: Pick<ReportRow, 'key' | 'group'>): string {
  const p = rowPipeline(r, row);
  return p.pipeline === null ? p.item : `${p.pipeline}:${p.item}`;
}

/**
 * Whether the report's summary groups are its pipelines (a multi-mode retrieval report: `summary.extra.modes`, or
 * rows keyed by mode; a tune report: the settings measured), so a figure over all its rows (group null) pools
 * pipelines and is never shown.
 */
export function groupsArePipelines(r: PipelineSource): boolean {
  return r.kind === 'tune' || (r.kind === 'retrieval' && (Array.isArray(r.summary.extra['modes']) || rowsByMode(r.kind, r.rows)));
}

/** Rows of a multi-mode retrieval run (keyed `${mode}:${queryId}`, group = mode): their groups are its pipelines. */
export const rowsByMode = (kind: Report['kind'], rows: readonly Pick<ReportRow, 'key' | 'group'>[]): boolean =>
  kind === 'retrieval' && rows.some(modeKeyed);

export interface PipelineFigures {
  /** The retrieval mode these figures describe; null: the report's one pipeline (RAGBench). */
  pipeline: string | null;
  /** The summary group they are (null: over all the report's rows, which are one pipeline's). */
  group: string | null;
  figures: SummaryMetric[];
}

/**
 * The headline figures of a report, one entry per pipeline: a multi-mode retrieval report's per-mode summary
 * figures (never its pooled group-null ones, which older reports carry), else the pooled figures of its one pipeline.
 */
export function reportFigures(r: PipelineSource): PipelineFigures[] {
  const metrics = r.summary.metrics;
  if (groupsArePipelines(r)) {
    const groups: string[] = [];
    for (const m of metrics) if (m.group !== null && !groups.includes(m.group)) groups.push(m.group);
    return groups.map((g) => ({ pipeline: g, group: g, figures: metrics.filter((m) => m.group === g) }));
  }
  const pooled = metrics.filter((m) => m.group === null);
  const pipeline = r.kind === 'retrieval' ? r.evaluator : null;
  if (pooled.length || metrics.length === 0) return [{ pipeline, group: null, figures: pooled }];
  // A summary without a pooled group: its one group is the pipeline's (more groups: none of them is the whole).
  const groups = [...new Set(metrics.map((m) => m.group))];
  return groups.length === 1 ? [{ pipeline, group: groups[0]!, figures: metrics }] : [];
}

/** The summary warnings that speak of one pipeline: a multi-mode report's pooled (group null) ones are left out. */
export function pipelineWarnings(r: PipelineSource): Report['summary']['warnings'] {
  return groupsArePipelines(r) ? r.summary.warnings.filter((w) => w.group !== null) : r.summary.warnings;
}

/** A report's pipelines in words: "mode sparse", or null for a one-pipeline RAGBench report. */
export const pipelineLabel = (p: string | null): string | null => (p === null ? null : `mode ${p}`);
