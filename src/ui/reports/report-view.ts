/**
 * What the read-only report view (ReportView.svelte and its parts) shows, computed from a Report v1 alone: the
 * header facts, the summary table (per group and pooled, every figure with its 95% interval and n, the baseline
 * evaluators' figures next to ours), the per-question columns of the report's kind, sorting and paging. Driven by
 * the report's kind and REPORT_METRICS: no dataset-specific code, so any valid report renders the same way in the
 * Benchmark tab, the Reports tab and a shared link.
 */
import { metricsFor, REPORT_METRICS, rowVerdict } from '../../lib/reports/metrics.ts';
import { reportTitle } from '../../lib/reports/title.ts';
import { groupsArePipelines, pipelineWarnings, reportFigures } from '../../lib/reports/pipelines.ts';
import { dict, own } from '../../lib/dict.ts';
import type { Report, ReportKind, ReportRow, SummaryMetric } from '../../lib/reports/format.ts';
import { tuneCellDigits, tuneSampleText } from './tune-report-view.ts';

/** A number as the view shows it: fixed decimals, "N/A" for null, undefined, NaN or ±∞. */
export function fmt(x: number | null | undefined, digits = 3): string {
  return typeof x === 'number' && Number.isFinite(x) ? x.toFixed(digits) : 'N/A';
}

/** A 95% interval as `[lo, hi]` (one decimal fewer than the figure, at least two), "N/A" when there is none. */
export function fmtCI(ci: readonly [number, number] | null | undefined, digits = 3): string {
  const d = Math.max(2, digits - 1);
  return ci && Number.isFinite(ci[0]) && Number.isFinite(ci[1]) ? `[${ci[0].toFixed(d)}, ${ci[1].toFixed(d)}]` : 'N/A';
}

export const KIND_LABELS: Record<ReportKind, string> = {
  'ragbench-validate': 'RAGBench validate (an evaluator against gold labels)',
  'ragbench-pipeline': 'RAGBench pipeline (answers by the RAG pipeline)',
  retrieval: 'retrieval run',
  tune: 'tune (retrieval settings searched on a test set, measured on its held-out queries)',
};

/** Baseline evaluators as people know them; other names are shown as written. */
const EVALUATOR_LABELS: Record<string, string> = { ragas: 'RAGAS', trulens: 'TruLens', gpt3: 'GPT-3.5', gpt35: 'GPT-3.5' };
export const evaluatorLabel = (e: string): string => EVALUATOR_LABELS[e] ?? e;

export interface ReportHeader {
  title: string;
  kind: string;
  dataset: string;
  evaluator: string;
  created: string;
  /** Rows requested per group ("all" when null), rows in the report. */
  n: string;
  rows: number;
  /** What the rows are, in words (`sampleText`): "all 300 queries × 5 modes = 1500 rows", "20 rows per subset · 40 rows". */
  sample: string;
  seed: number;
  configHash: string;
  /** "N of M rows included" when the report is a summary of a larger one. */
  truncated: string | null;
  environment: string[];
}

export function reportHeader(r: Report): ReportHeader {
  const env = r.environment;
  const lines = [`${env.app ? `RAG Lab ${env.app}` : 'RAG Lab'} · ${env.runtime}${env.agent ? ` (${env.agent})` : ''}`];
  for (const m of env.models) lines.push(`${m.task}: ${m.id}${m.dtype || m.device ? ` (${[m.dtype, m.device].filter(Boolean).join(', ')})` : ''}`);
  if (env.llm) lines.push(`answers: ${env.llm.provider}/${env.llm.model}`);
  if (env.judge) lines.push(`judge: ${env.judge.provider}/${env.judge.model}`);
  const d = r.data;
  const dataset = `${d.dataset}${d.revision ? `@${d.revision.slice(0, 12)}` : ''}${d.subsets.length ? ` · ${d.subsets.join(', ')}` : ''} · ${d.source}${d.kb ? ` · knowledge base ${d.kb}` : ''}`;
  return {
    title: reportTitle(r),
    kind: KIND_LABELS[r.kind],
    dataset,
    evaluator: r.evaluator,
    created: r.createdAt,
    n: r.n === null ? 'all' : String(r.n),
    rows: r.rows.length,
    sample: sampleText(r),
    seed: r.seed,
    configHash: r.configHash,
    truncated: r.truncated ? `${r.rows.length} of ${r.truncated.rows} rows included` : null,
    environment: lines,
  };
}

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** Queries each mode ran of a multi-mode retrieval report (summary.extra.queries), null when it does not say. */
function judgedQueries(r: Report): number | null {
  const q = r.summary.extra['queries'];
  return typeof q === 'number' && Number.isInteger(q) && q >= 0 ? q : null;
}

/**
 * The header's N in words: what was sampled and what a row is. Retrieval: queries × modes = rows (a multi-mode
 * report: one row per query and mode); RAGBench: rows per subset. A summary (share link) says how many it holds.
 */
export function sampleText(r: Report): string {
  const total = r.truncated?.rows ?? r.rows.length;
  const held = r.truncated ? ` (${r.rows.length} in this summary)` : '';
  if (r.kind === 'tune') return `${tuneSampleText(r, total)}${held}`;
  if (r.kind === 'retrieval') {
    if (groupsArePipelines(r)) {
      const modes = reportFigures(r).length || new Set(r.rows.map((x) => x.group)).size;
      const perMode = r.n ?? judgedQueries(r) ?? (modes > 0 && !r.truncated ? Math.round(total / modes) : null);
      const queries = perMode === null ? 'all judged queries' : r.n === null ? `all ${plural(perMode, 'judged query', 'judged queries')}` : `a sample of ${plural(perMode, 'query', 'queries')}`;
      return `${queries} × ${plural(modes, 'mode')} = ${plural(total, 'row')}${held}`;
    }
    return `${r.n === null ? 'all judged queries' : `a sample of ${plural(r.n, 'query', 'queries')}`} · ${plural(total, 'row')}${held}`;
  }
  const subsets = r.data.subsets.length;
  const of = subsets > 1 ? ` (${subsets} subsets)` : '';
  return `${r.n === null ? 'all rows of each subset' : `${plural(r.n, 'row')} per subset`}${of} · ${plural(total, 'row')}${held}`;
}

// ---- summary table ----

export interface SummaryColumn {
  id: string;
  label: string;
  digits: number;
  higherIsBetter: boolean;
  /** Baseline evaluators with a figure of this metric (validate), in first-seen order. */
  baselines: string[];
}

export interface SummaryCell { value: number | null; ci: [number, number] | null; n: number }

export interface SummaryRowView {
  /** null: pooled over all rows. */
  group: string | null;
  label: string;
  /** Rows of the group in the report (or, for a truncated report, the most rows any figure rests on). */
  rows: number;
  /** Kind-specific counts (hallucinated rows, answered questions); absent for a truncated report. */
  counts: Array<number | null>;
  cells: Record<string, SummaryCell | undefined>;
  /** `${evaluator}:${metric}` → the baseline's figure. */
  baselines: Record<string, number | null | undefined>;
  /** Mean and p95 latency (ms) of the row's mode, in `SummaryTable.latency` order (multi-mode retrieval reports). */
  latency?: Array<number | null>;
  /** The mode's mean ms per stage as one line (`stagesText`), when the table has a stages column. */
  stages?: string;
}

/** Counts a kind's summary shows next to N, from the rows of a group. */
const KIND_COUNTS: Record<ReportKind, ReadonlyArray<{ label: string; title: string; count: (rows: readonly ReportRow[]) => number }>> = {
  'ragbench-validate': [{ label: 'halluc.', title: 'rows whose gold label is "not supported"', count: (rs) => rs.filter((r) => r.gold['adherence'] === false).length }],
  'ragbench-pipeline': [{ label: 'answered', title: 'questions the pipeline answered (not refused, no error)', count: (rs) => rs.filter((r) => r.status === 'answered').length }],
  retrieval: [],
  tune: [],
};

export interface SummaryTable {
  columns: SummaryColumn[];
  counts: Array<{ label: string; title: string }>;
  rows: SummaryRowView[];
  /** What a group is: subset, dataset, or (a multi-mode retrieval report) mode. */
  groupLabel: string;
  /** Latency columns (a multi-mode retrieval report: mean and p95 ms per mode from summary.extra.modes), else empty. */
  latency: Array<{ label: string; title: string }>;
  /** The "stages (mean ms)" column of an end-to-end report's latency, else null. */
  stages: { label: string; title: string } | null;
}

/** The stages of an end-to-end latency, in the order the view lists them. */
export const LATENCY_STAGES = ['embed', 'sparse', 'dense', 'fuse', 'rerank', 'other'] as const;
export interface ModeLatency {
  mean_ms: number | null;
  p95_ms: number | null;
  /** True when the report says its latency is end to end (`latency: 'end-to-end'`); old reports: the non-model stages. */
  endToEnd: boolean;
  /** Mean ms of each stage (end-to-end reports), null otherwise. */
  stages: Partial<Record<(typeof LATENCY_STAGES)[number], number | null>> | null;
}

/** Per-mode latency of a multi-mode retrieval report (summary.extra.modes), by mode; null for any other report. */
export function modeLatency(r: Report): Map<string, ModeLatency> | null {
  const modes = r.kind === 'retrieval' ? r.summary.extra['modes'] : undefined;
  if (!Array.isArray(modes)) return null;
  const out = new Map<string, ModeLatency>();
  for (const m of modes) {
    if (!m || typeof m !== 'object' || Array.isArray(m) || typeof m['mode'] !== 'string') continue;
    const st = m['stages'];
    const stages = st && typeof st === 'object' && !Array.isArray(st) ? Object.fromEntries(LATENCY_STAGES.map((k) => [k, numOrNull(st[k])])) : null;
    out.set(m['mode'], { mean_ms: numOrNull(m['mean_ms']), p95_ms: numOrNull(m['p95_ms']), endToEnd: m['latency'] === 'end-to-end', stages });
  }
  return out;
}

/** A stage's ms, compactly: whole ms from 10, one decimal from 1 (and from 0.1), else one significant digit. */
const stageMs = (x: number): string => (x >= 10 ? x.toFixed(0) : x >= 0.1 ? x.toFixed(1) : String(Number(x.toPrecision(1))));

/** The stage breakdown as one line, zero and missing stages left out: "embed 12 · sparse 1.1 · dense 0.9 · rerank 310". */
export function stagesText(stages: ModeLatency['stages']): string {
  if (!stages) return 'N/A';
  const parts = LATENCY_STAGES.flatMap((k) => { const v = stages[k]; return typeof v === 'number' && v > 0 ? [`${k} ${stageMs(v)}`] : []; });
  return parts.length ? parts.join(' · ') : 'N/A';
}

/** The groups' name: "mode" in a multi-mode retrieval report, "dataset" in an old one, "setting" in a tune report, "subset" otherwise. */
export const groupLabelOf = (r: Report): string => (r.kind === 'tune' ? 'setting' : r.kind !== 'retrieval' ? 'subset' : groupsArePipelines(r) ? 'mode' : 'dataset');

/**
 * The summary as a table: one row per group (in the report's order), then the pooled row when there are 2+ groups
 * of one pipeline (subsets); a multi-mode retrieval report's groups are its modes (pipelines.ts) and have no
 * pooled row, even where an older report carries the figures.
 */
export function summaryTable(r: Report): SummaryTable {
  // A figure listed only with a field (RAGAS) shows when the rows carry it or the summary has it (a share link's few rows).
  const inSummary = new Set(r.summary.metrics.map((m) => m.id));
  const listed = new Set(metricsFor(r.kind, r.rows).map((m) => m.id));
  const defs = REPORT_METRICS[r.kind].filter((m) => listed.has(m.id) || inSummary.has(m.id));
  const known = new Set(defs.map((m) => m.id));
  const columns: SummaryColumn[] = defs.map((m) => ({ id: m.id, label: m.label, digits: m.digits, higherIsBetter: m.higherIsBetter, baselines: [] }));
  // Figures a newer app wrote that this one has no definition for are shown as written.
  for (const m of r.summary.metrics) {
    if (!known.has(m.id)) { known.add(m.id); columns.push({ id: m.id, label: m.id, digits: 3, higherIsBetter: true, baselines: [] }); }
  }
  const byId = new Map(columns.map((c) => [c.id, c]));
  for (const b of r.summary.baselines) {
    const c = byId.get(b.metric);
    if (c && !c.baselines.includes(b.evaluator)) c.baselines.push(b.evaluator);
  }
  const groups: Array<string | null> = [];
  for (const m of r.summary.metrics) if (!groups.includes(m.group)) groups.push(m.group);
  const named = groups.filter((g): g is string => g !== null);
  const latency = modeLatency(r);
  // End to end when every mode says so (a report written before that measured the non-model stages only).
  const endToEnd = !!latency && latency.size > 0 && [...latency.values()].every((m) => m.endToEnd);
  // A multi-mode retrieval report's groups are modes: a figure pooled over modes means nothing, so there is no "all" row.
  const order: Array<string | null> = groupsArePipelines(r) ? named : named.length === 0 ? [null] : named.length === 1 ? named : [...named, null];
  const counts = r.truncated ? [] : KIND_COUNTS[r.kind];
  const rows = order.map((group): SummaryRowView => {
    const figures = r.summary.metrics.filter((m) => m.group === group);
    const groupRows = group === null ? r.rows : r.rows.filter((x) => x.group === group);
    const cells = dict<SummaryCell>();
    for (const m of figures) cells[m.id] = { value: m.value, ci: m.ci, n: m.n };
    const baselines = dict<number | null>();
    for (const b of r.summary.baselines) if (b.group === group) baselines[`${b.evaluator}:${b.metric}`] = b.value;
    return {
      group,
      label: group ?? (named.length > 1 ? 'all' : 'all rows'),
      rows: r.truncated ? Math.max(0, ...figures.map((m: SummaryMetric) => m.n)) : groupRows.length,
      counts: counts.map((c) => c.count(groupRows)),
      cells, baselines,
      ...(latency ? { latency: [latency.get(group ?? '')?.mean_ms ?? null, latency.get(group ?? '')?.p95_ms ?? null] } : {}),
      ...(endToEnd ? { stages: stagesText(latency!.get(group ?? '')?.stages ?? null) } : {}),
    };
  });
  const what = endToEnd ? 'end to end (query embedding, both searches, fusion, rerank)' : 'non-model stages';
  return {
    columns, counts: counts.map(({ label, title }) => ({ label, title })), rows, groupLabel: groupLabelOf(r),
    latency: latency ? [{ label: 'mean ms', title: `mean query latency, ${what}, ms` }, { label: 'p95 ms', title: `95th percentile of the query latency, ${what}, ms` }] : [],
    stages: endToEnd ? { label: 'stages (mean ms)', title: 'mean ms of each stage of the end-to-end latency (stages at 0 left out)' } : null,
  };
}

/** Warnings as lines: "group: message" (a group's), or the message alone (pooled). */
export function warningLines(r: Report): string[] {
  return pipelineWarnings(r).map((w) => (w.group === null ? w.message : `${w.group}: ${w.message}`));
}

// ---- per-question rows ----

export type RowColumn =
  | { kind: 'group'; id: 'group'; label: string }
  | { kind: 'question'; id: 'question'; label: string }
  | { kind: 'status'; id: 'status'; label: string }
  | { kind: 'score'; id: string; key: string; label: string }
  | { kind: 'gold'; id: string; key: string; label: string }
  /** |score − gold| of one field with both. */
  | { kind: 'gap'; id: string; key: string; label: string }
  | { kind: 'verdict'; id: 'verdict'; label: string };

/** Score fields in the order each kind shows them first; fields not listed follow in the order the rows have them. */
const FIELD_ORDER: Record<ReportKind, readonly string[]> = {
  'ragbench-validate': ['relevance', 'adherence', 'utilization', 'completeness'],
  'ragbench-pipeline': ['recall', 'relevant_recall', 'relevance', 'utilization', 'adherence', 'completeness'],
  retrieval: ['ndcg@10', 'mrr@10', 'r@5', 'r@100', 'p@3', 'p@5', 'total_ms', 'query_ms'],
  tune: ['ndcg@10', 'mrr@10', 'r@5', 'r@100', 'p@3', 'p@5', 'p95_ms', 'queries', 'rung'],
};
/** Score fields the rows table leaves out: the retrieval report's per-query predictors (the analysis shows them) and latency stages (`ms.*`: the summary's stages column); a trial's mean ms (its detail has it). */
const hiddenField = (kind: ReportKind, k: string) => (kind === 'retrieval' && (k.startsWith('qpp.') || k.startsWith('ms.'))) || (kind === 'tune' && k === 'mean_ms');
/** The field whose |score − gold| gets its own column (validate: how far the adherence verdict is off). */
const GAP_FIELD: Partial<Record<ReportKind, string>> = { 'ragbench-validate': 'adherence' };

/** The rows table's columns for a report: group, question, status (when rows have one), each score beside its gold, verdict (a tune's trials: no group, the flags, status, figures). */
export function rowColumns(r: Report): RowColumn[] {
  const scoreKeys: string[] = [];
  const goldKeys: string[] = [];
  let status = false;
  for (const row of r.rows) {
    for (const k of Object.keys(row.scores)) if (!scoreKeys.includes(k) && !hiddenField(r.kind, k)) scoreKeys.push(k);
    for (const k of Object.keys(row.gold)) if (!goldKeys.includes(k)) goldKeys.push(k);
    if (row.status !== undefined) status = true;
  }
  const pref = FIELD_ORDER[r.kind];
  const fields = [...pref.filter((k) => scoreKeys.includes(k)), ...scoreKeys.filter((k) => !pref.includes(k))];
  const tune = r.kind === 'tune';
  const cols: RowColumn[] = tune ? [{ kind: 'question', id: 'question', label: 'trial (flags)' }] : [{ kind: 'group', id: 'group', label: groupLabelOf(r) }, { kind: 'question', id: 'question', label: 'question' }];
  if (status) cols.push({ kind: 'status', id: 'status', label: 'status' });
  for (const k of fields) {
    cols.push({ kind: 'score', id: `score:${k}`, key: k, label: k });
    if (goldKeys.includes(k)) cols.push({ kind: 'gold', id: `gold:${k}`, key: k, label: 'gold' });
  }
  for (const k of goldKeys) if (!fields.includes(k)) cols.push({ kind: 'gold', id: `gold:${k}`, key: k, label: `gold ${k}` });
  const gap = GAP_FIELD[r.kind];
  if (gap && fields.includes(gap) && goldKeys.includes(gap)) cols.push({ kind: 'gap', id: `gap:${gap}`, key: gap, label: `|${gap} error|` });
  if (!tune) cols.push({ kind: 'verdict', id: 'verdict', label: 'verdict' });
  return cols;
}

const numOrNull = (x: unknown): number | null => (typeof x === 'number' && Number.isFinite(x) ? x : null);
const goldNum = (g: number | boolean | null | undefined): number | null => (typeof g === 'boolean' ? (g ? 1 : 0) : numOrNull(g));

/** A row's value in a column, for sorting: a number, a string, or null (sorted last either way). */
export function cellValue(kind: ReportKind, row: ReportRow, c: RowColumn): number | string | null {
  switch (c.kind) {
    case 'group': return row.group;
    case 'question': return row.question;
    case 'status': return row.status ?? null;
    case 'score': return numOrNull(own(row.scores, c.key));
    case 'gold': return goldNum(own(row.gold, c.key));
    case 'gap': {
      const p = numOrNull(own(row.scores, c.key));
      const g = goldNum(own(row.gold, c.key));
      // |predicted − gold|, gold adherence as 1 (supported) or 0 (hallucinated)
      return p === null || g === null ? null : Math.abs(p - g);
    }
    case 'verdict': return rowVerdict(kind, row);
  }
}

/** A row's cell as text: scores with two decimals, gold adherence in words, "N/A" where the row has none. */
export function cellText(kind: ReportKind, row: ReportRow, c: RowColumn): string {
  if (c.kind === 'gold') {
    const g = own(row.gold, c.key);
    if (typeof g === 'boolean') return g ? 'supported' : 'hallucinated';
    return fmt(g, 2);
  }
  const v = cellValue(kind, row, c);
  if (c.kind === 'question') return row.question.length > 90 ? `${row.question.slice(0, 90)}…` : row.question;
  const digits = c.kind !== 'score' ? 2 : kind === 'tune' ? tuneCellDigits(c.key) : kind === 'retrieval' ? (c.key === 'query_ms' || c.key === 'total_ms' ? 1 : 3) : 2;
  return typeof v === 'number' ? fmt(v, digits) : v ?? 'N/A';
}

export interface RowSort { column: string; desc: boolean }

/** The sort a kind's rows open with: the worst rows first (validate: largest adherence error; otherwise the lowest first score); a tune's trials as written, the furthest rung first. */
export function defaultSort(r: Report, cols: readonly RowColumn[] = rowColumns(r)): RowSort {
  if (r.kind === 'tune' && cols.some((c) => c.id === 'score:rung')) return { column: 'score:rung', desc: true };
  const gap = cols.find((c) => c.kind === 'gap');
  if (gap) return { column: gap.id, desc: true };
  const score = cols.find((c) => c.kind === 'score');
  return score ? { column: score.id, desc: false } : { column: 'group', desc: false };
}

/**
 * Indices of `rows` sorted by one column: numbers numerically, strings by locale; rows without a value (null)
 * last in either direction; ties keep the report's order (stable).
 */
export function sortRows(kind: ReportKind, rows: readonly ReportRow[], col: RowColumn, desc: boolean): number[] {
  const keys = rows.map((row) => cellValue(kind, row, col));
  const idx = rows.map((_, i) => i);
  idx.sort((a, b) => {
    const va = keys[a]!, vb = keys[b]!;
    if (va === null || vb === null) return va === null ? (vb === null ? a - b : 1) : -1;
    const c = typeof va === 'number' && typeof vb === 'number' ? va - vb : String(va).localeCompare(String(vb));
    return c === 0 ? a - b : desc ? -c : c;
  });
  return idx;
}

/** Clicking a column: the same one flips its direction; another one starts descending for numbers, ascending for text. */
export function nextSort(cur: RowSort, col: RowColumn): RowSort {
  if (cur.column === col.id) return { column: col.id, desc: !cur.desc };
  const text = col.kind === 'group' || col.kind === 'question' || col.kind === 'status' || col.kind === 'verdict';
  return { column: col.id, desc: !text };
}

/** Rows rendered at first and added by each "show more": a 3,000-row report never builds 3,000 table rows on open. */
export const ROWS_PAGE = 200;

/** One row's scores against its gold labels (and the dataset's baseline scores), for the row detail. */
export function rowDetail(row: ReportRow): { fields: string[]; predicted: string[]; gold: string[]; reference: Array<[string, string]> } {
  const fields = [...new Set([...Object.keys(row.scores), ...Object.keys(row.gold)])];
  return {
    fields,
    predicted: fields.map((k) => fmt(row.scores[k], 3)),
    gold: fields.map((k) => {
      const g = row.gold[k];
      return typeof g === 'boolean' ? (g ? '1 (supported)' : '0 (hallucinated)') : fmt(g, 3);
    }),
    reference: Object.entries(row.reference ?? {}).map(([k, x]) => [k, fmt(x, 3)]),
  };
}

/** data-testids of a summary figure: generic ones, and the names the Benchmark tab's tests have always used. */
const LEGACY_VALUE_IDS: Record<string, string> = { auroc: 'auroc', recall_at_k: 'pipeline-recall' };
const LEGACY_CI_IDS: Record<string, string> = { auroc: 'auroc-ci', rmse_relevance: 'rmse-rel-ci' };
export const figureTestIds = (id: string): { value: string; ci: string } => ({ value: LEGACY_VALUE_IDS[id] ?? 'figure-value', ci: LEGACY_CI_IDS[id] ?? 'figure-ci' });
/** The summary section's and its rows' data-testids for a kind (pipeline runs kept theirs). */
export const summaryTestIds = (kind: ReportKind): { section: string; row: string } =>
  kind === 'ragbench-pipeline' ? { section: 'pipeline-summary', row: 'pipeline-row' } : { section: 'bench-summary', row: 'summary-row' };
