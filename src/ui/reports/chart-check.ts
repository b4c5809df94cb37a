/**
 * Whether a report's charts (report-charts.ts) agree with its summary table (report-view.ts): every bar of the
 * means chart is a figure of the table, every "… (AUROC x)" curve name is the table's AUROC of that evaluator,
 * and no chart is drawn from the rows of a summary of a report (`truncated`: the worst rows only, so any figure
 * drawn from them differs from the table's). Pure: the list of disagreements, empty when the charts agree.
 */
import type { Report } from '../../lib/reports/format.ts';
import { meansChart, rocChart, scatterChart, type ChartSpec } from './report-charts.ts';
import { evaluatorLabel, fmt, summaryTable } from './report-view.ts';

export interface ReportChartSpecs { means: ChartSpec | null; roc: ChartSpec | null; scatter: ChartSpec | null }

export const reportChartSpecs = (r: Report): ReportChartSpecs => ({ means: meansChart(r), roc: rocChart(r), scatter: scatterChart(r) });

const near = (a: number, b: number) => Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(a), Math.abs(b));

export function chartTableMismatches(r: Report, specs: ReportChartSpecs = reportChartSpecs(r)): string[] {
  const out: string[] = [];
  const t = summaryTable(r);
  const pooled = t.rows[t.rows.length - 1];
  const byLabel = new Map(t.rows.map((row) => [t.rows.length > 1 ? row.label : 'ours', row]));
  const evaluators = [...new Set(t.columns.flatMap((c) => c.baselines))];
  const evaluatorOf = (label: string) => evaluators.find((e) => evaluatorLabel(e) === label);

  for (const trace of specs.means?.traces ?? []) {
    const row = byLabel.get(trace.name);
    const e = row ? undefined : evaluatorOf(trace.name);
    if (!row && !e) { out.push(`means: the series "${trace.name}" is no row or baseline of the table`); continue; }
    trace.y.forEach((y, i) => {
      const col = t.columns.find((c) => c.label === trace.x[i]);
      if (!col) { out.push(`means: "${String(trace.x[i])}" is no column of the table`); return; }
      const want = row ? row.cells[col.id]?.value ?? null : pooled?.baselines[`${e}:${col.id}`] ?? null;
      if (y === null ? want !== null : want === null || !near(y, want)) out.push(`means: ${trace.name} ${col.label} is ${y} in the chart, ${want} in the table`);
    });
  }

  const auroc = t.columns.find((c) => c.id === 'auroc');
  for (const trace of specs.roc?.traces ?? []) {
    const m = /^(.*) \(AUROC ([^)]*)\)$/.exec(trace.name);
    if (!m) continue;
    const [, who, shown] = m as unknown as [string, string, string];
    const e = who === 'RAG Lab' ? null : evaluatorOf(who);
    if (e === undefined) { out.push(`roc: "${who}" has no AUROC in the table`); continue; }
    const want = fmt(e === null ? pooled?.cells['auroc']?.value : pooled?.baselines[`${e}:auroc`], auroc?.digits ?? 3);
    if (shown !== want) out.push(`roc: ${who}'s AUROC is ${shown} in the chart, ${want} in the table`);
  }

  if (r.truncated) {
    for (const k of ['roc', 'scatter'] as const) {
      if (specs[k]) out.push(`${k}: drawn from ${r.rows.length} of ${r.truncated.rows} rows`);
    }
  }
  return out;
}
