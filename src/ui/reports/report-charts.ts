/**
 * Chart data of a report (Plotly traces and layouts as plain objects), computed from the report alone so that the
 * Benchmark tab, the Reports tab and a shared link draw the same charts; ReportCharts.svelte only hands them to
 * Plotly. Three charts: the summary figures with their 95% intervals as whiskers (per group, and the baseline
 * evaluators' figures beside ours), the hallucination ROC of ours against the baselines' scores each row carries
 * (`reference`, validate), and predicted against gold for every numeric field with both.
 *
 * A summary of a report (a share link: `truncated`, the worst rows only) draws only the chart its summary figures
 * support (the means); the ROC and the scatter need every row, so they are replaced by a note with the full
 * figures (`withheldChartNote`): a chart drawn from 20 chosen rows would contradict the table beside it.
 */
import { hallucinationRoc } from '../../lib/stats/hallucination-roc.ts';
import type { Report } from '../../lib/reports/format.ts';
import { evaluatorLabel, fmt, fmtCI, summaryTable } from './report-view.ts';

export interface ChartTrace {
  type: 'bar' | 'scatter';
  name: string;
  x: Array<number | string>;
  y: Array<number | null>;
  mode?: 'lines' | 'markers';
  text?: string[];
  error_y?: { type: 'data'; symmetric: false; array: number[]; arrayminus: number[]; visible: boolean };
  line?: { dash: string; color: string };
  marker?: { size: number; opacity: number };
}

export interface ChartSpec {
  title: string;
  traces: ChartTrace[];
  layout: Record<string, unknown>;
}

const finite = (x: unknown): x is number => typeof x === 'number' && Number.isFinite(x);

/** Points drawn per curve / per scatter trace at most: SVG charts of 10,000 points take seconds to lay out. */
export const MAX_POINTS = { roc: 500, scatter: 2000 } as const;

/** Indices 0..n−1 thinned to at most `max`, evenly spaced, the first and last kept. */
export function thinIndices(n: number, max: number): number[] {
  if (n <= max) return Array.from({ length: n }, (_, i) => i);
  // index k of max: round(k · (n − 1) / (max − 1))
  return Array.from({ length: max }, (_, k) => Math.round((k * (n - 1)) / (max - 1)));
}

/**
 * Summary figures per metric: one bar trace per group row of the summary (groups, then "all" when 2+), whiskers
 * from value to the interval's ends (0 where a figure has no interval), then one trace per baseline evaluator
 * (pooled row's figures, or the single group's). Null when the report has no figure, and for a tune report (its
 * figures are the held-out table: tune-report-view.ts).
 */
export function meansChart(r: Report): ChartSpec | null {
  if (r.kind === 'tune') return null;
  const t = summaryTable(r);
  if (!t.rows.some((row) => Object.values(row.cells).some((c) => c && finite(c.value)))) return null;
  const x = t.columns.map((c) => c.label);
  const traces: ChartTrace[] = t.rows.map((row) => {
    const cells = t.columns.map((c) => row.cells[c.id]);
    const y = cells.map((c) => (c && finite(c.value) ? c.value : null));
    // whisker lengths: hi − value above, value − lo below
    const array = cells.map((c, i) => (c?.ci && y[i] !== null ? Math.max(0, c.ci[1] - y[i]!) : 0));
    const arrayminus = cells.map((c, i) => (c?.ci && y[i] !== null ? Math.max(0, y[i]! - c.ci[0]) : 0));
    return { type: 'bar', name: t.rows.length > 1 ? row.label : 'ours', x, y, error_y: { type: 'data', symmetric: false, array, arrayminus, visible: true } };
  });
  const pooled = t.rows[t.rows.length - 1]!;
  const evaluators = [...new Set(t.columns.flatMap((c) => c.baselines))];
  for (const e of evaluators) {
    const y = t.columns.map((c) => { const v = pooled.baselines[`${e}:${c.id}`]; return finite(v) ? v : null; });
    if (y.some((v) => v !== null)) traces.push({ type: 'bar', name: evaluatorLabel(e), x, y });
  }
  return {
    title: 'Summary figures with 95% intervals',
    traces,
    layout: { barmode: 'group', yaxis: { rangemode: 'tozero' } },
  };
}

/** Baseline scores rows carry (`reference`) that are adherence-like: higher means "supported". */
export const ROC_REFERENCES: ReadonlyArray<{ key: string; label: string }> = [
  { key: 'ragas_faithfulness', label: 'RAGAS' },
  { key: 'trulens_groundedness', label: 'TruLens' },
  { key: 'gpt3_adherence', label: 'GPT-3.5' },
];

/**
 * Hallucination ROC (validate): over rows with a gold adherence label, y = hallucinated, score = 1 − predicted
 * adherence (ours, then each baseline's adherence-like reference score), each curve over the rows that have that
 * score and named with its AUROC (computed on every row; the drawn curve keeps MAX_POINTS.roc of its vertices).
 * Null for other kinds, when no row is labelled, and for a summary of a report (`truncated`: withheldChartNote).
 */
export function rocChart(r: Report): ChartSpec | null {
  if (r.kind !== 'ragbench-validate' || r.truncated) return null;
  const labelled = r.rows.filter((row) => typeof row.gold['adherence'] === 'boolean');
  if (labelled.length === 0) return null;
  const curves: Array<{ name: string; score: (i: number) => unknown }> = [
    { name: 'RAG Lab', score: (i) => labelled[i]!.scores['adherence'] },
    ...ROC_REFERENCES.filter((b) => labelled.some((row) => finite(row.reference?.[b.key]))).map((b) => ({ name: b.label, score: (i: number) => labelled[i]!.reference?.[b.key] })),
  ];
  const gold = labelled.map((row) => row.gold['adherence']);
  const traces: ChartTrace[] = curves.map(({ name, score }) => {
    // The summary's AUROC function (its figure over all rows is the table's), on the rows this curve has a score for.
    const { fpr, tpr, auroc: a } = hallucinationRoc(gold, labelled.map((_, i) => score(i)));
    const keep = thinIndices(fpr.length, MAX_POINTS.roc);
    return { type: 'scatter', mode: 'lines', name: `${name} (AUROC ${Number.isFinite(a) ? a.toFixed(3) : 'N/A'})`, x: keep.map((i) => fpr[i]!), y: keep.map((i) => tpr[i]!) };
  });
  traces.push({ type: 'scatter', mode: 'lines', name: 'chance', x: [0, 1], y: [0, 1], line: { dash: 'dot', color: '#aaa' } });
  return {
    title: `Hallucination ROC (${labelled.length} labelled rows)`,
    traces,
    layout: { xaxis: { title: { text: 'false positive rate' }, range: [0, 1] }, yaxis: { title: { text: 'true positive rate' }, range: [0, 1] } },
  };
}

/**
 * Predicted against gold: one marker trace per field with a numeric score and a numeric gold label on some row
 * (booleans are verdicts, not scores: left out), thinned to MAX_POINTS.scatter rows evenly spread over the report
 * (the trace's name says so). Null when no field has both, and for a summary of a report (`truncated`).
 */
export function scatterChart(r: Report): ChartSpec | null {
  if (r.truncated) return null;
  const fields: string[] = [];
  for (const row of r.rows) for (const k of Object.keys(row.scores)) if (!fields.includes(k)) fields.push(k);
  const traces: ChartTrace[] = [];
  for (const k of fields) {
    const all = r.rows.filter((row) => finite(row.scores[k]) && finite(row.gold[k]));
    if (all.length === 0) continue;
    const pts = thinIndices(all.length, MAX_POINTS.scatter).map((i) => all[i]!);
    traces.push({ type: 'scatter', mode: 'markers', name: pts.length < all.length ? `${k} (${pts.length} of ${all.length} rows)` : k, x: pts.map((row) => row.gold[k] as number), y: pts.map((row) => row.scores[k] as number), text: pts.map((row) => row.question.slice(0, 200)), marker: { size: 6, opacity: 0.6 } });
  }
  if (traces.length === 0) return null;
  return {
    title: 'Predicted vs gold',
    traces,
    layout: { xaxis: { title: { text: 'gold' }, range: [0, 1] }, yaxis: { title: { text: 'predicted' }, range: [0, 1] } },
  };
}

/**
 * Why a chart drawn from the rows is not shown for a summary of a report (`truncated`: its rows are the worst few,
 * not all), with the figures over all rows the summary does carry; null for a full report, or where the rows have
 * nothing the chart would draw.
 */
export function withheldChartNote(r: Report, chart: 'roc' | 'scatter'): string | null {
  if (!r.truncated) return null;
  // No note where the rows have nothing the chart draws (no labelled row, no field with a numeric gold label).
  const rows = { ...r, truncated: undefined };
  if ((chart === 'roc' ? rocChart(rows) : scatterChart(rows)) === null) return null;
  const all = r.truncated.rows;
  const carried = `this summary carries ${r.rows.length} of ${all} rows, the worst ones`;
  if (chart === 'scatter') return `Predicted vs gold needs all rows: open the full report (${carried}). The summary table's figures are over all ${all} rows.`;
  const t = summaryTable(r);
  const pooled = t.rows[t.rows.length - 1];
  const col = t.columns.find((c) => c.id === 'auroc');
  const cell = pooled?.cells['auroc'];
  const figures = [`RAG Lab ${fmt(cell?.value, col?.digits)} ${fmtCI(cell?.ci, col?.digits)}`];
  for (const e of col?.baselines ?? []) figures.push(`${evaluatorLabel(e)} ${fmt(pooled?.baselines[`${e}:auroc`], col?.digits)}`);
  return `ROC needs all rows: open the full report (${carried}). Hallucination AUROC over all ${all} rows: ${figures.join(', ')}.`;
}
