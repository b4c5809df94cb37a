/** Plotly, loaded on first use (a separate chunk: only pages that draw a chart download it). */
import type { ChartSpec } from './report-charts.ts';

type Plotly = typeof import('plotly.js-dist-min');

let loading: Promise<Plotly> | null = null;

export function loadPlotly(): Promise<Plotly> {
  loading ??= import('plotly.js-dist-min').then((mod) => (mod as unknown as { default: Plotly }).default ?? mod);
  loading.catch(() => { loading = null; });
  return loading;
}

/** The layout every chart shares: its title, small margins, 320 px high. */
export const chartLayout = (title: string, extra: object = {}) => ({ title: { text: title }, margin: { t: 40, r: 10, b: 40, l: 50 }, height: 320, ...extra });
export const CHART_CONFIG = { displayModeBar: false, responsive: true } as const;

/** Draws a chart spec (report-charts.ts) into `el`. */
export function drawChart(Plotly: Plotly, el: HTMLElement, spec: ChartSpec): Promise<unknown> {
  return Plotly.newPlot(el, spec.traces as never, chartLayout(spec.title, spec.layout) as never, CHART_CONFIG);
}
