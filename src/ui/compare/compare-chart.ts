/**
 * The Compare tab's grouped bar chart (Plotly): one group per metric (per mode and metric for retrieval reports), one bar per report at its value on the shared
 * rows, with the 95% bootstrap interval as an asymmetric whisker. Pure: the component only hands it to Plotly.
 */
import type { CompareResult } from '../../lib/reports/compare-types.ts';

export interface BarTrace {
  type: 'bar';
  name: string;
  x: string[];
  y: Array<number | null>;
  error_y: { type: 'data'; symmetric: false; array: Array<number | null>; arrayminus: Array<number | null>; visible: true };
  hovertext: string[];
  hoverinfo: 'text';
}

export function compareChart(r: Extract<CompareResult, { ok: true }>): { traces: BarTrace[]; layout: Record<string, unknown> } {
  // One group per (mode, metric) when the reports hold retrieval modes: a bar never pools modes.
  const x = r.metrics.map((m) => `${m.pipeline !== null ? `${m.pipeline} · ` : ''}${m.label}${m.higherIsBetter ? '' : ' ↓'}`);
  const traces = r.reports.map((rep): BarTrace => {
    const cells = r.metrics.map((m) => m.cells.find((c) => c.reportId === rep.id)!);
    return {
      type: 'bar',
      name: `${rep.title || rep.id}${rep.id === r.baselineId ? ' (baseline)' : ''}`,
      x,
      y: cells.map((c) => c.value),
      // Whiskers: upper = hi − value, lower = value − lo (none where there is no interval).
      error_y: {
        type: 'data', symmetric: false, visible: true,
        array: cells.map((c) => (c.value !== null && c.ci ? Math.max(0, c.ci[1] - c.value) : null)),
        arrayminus: cells.map((c) => (c.value !== null && c.ci ? Math.max(0, c.value - c.ci[0]) : null)),
      },
      hovertext: cells.map((c, j) => (c.value === null ? 'n/a' : `${c.value.toFixed(r.metrics[j]!.digits)}${c.ci ? ` [${c.ci[0].toFixed(r.metrics[j]!.digits)}, ${c.ci[1].toFixed(r.metrics[j]!.digits)}]` : ''}`)),
      hoverinfo: 'text',
    };
  });
  const layout = {
    barmode: 'group', height: 340, margin: { t: 40, r: 10, b: 60, l: 50 },
    title: { text: `Metrics on the ${r.sharedRows} shared rows, 95% bootstrap intervals (↓: lower is better)` },
    yaxis: { rangemode: 'tozero' }, legend: { orientation: 'h' },
  };
  return { traces, layout };
}
