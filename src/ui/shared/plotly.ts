/**
 * Plotly, loaded on first use (a separate chunk: only pages that draw a chart download it), and `plot`, the one way
 * every chart is drawn: series colours that do not repeat within a chart and the app theme's colours
 * (chart-style.ts), read from the page's CSS when drawn, and again for every chart on the page when the theme
 * changes (the root's `data-theme`, or the system's colour scheme while the theme follows it).
 */
import { assignColors, themedLayout, themedTraces, themeUpdate, type ChartColors } from './chart-style.ts';
import type { ChartSpec } from '../reports/report-charts.ts';

type Plotly = typeof import('plotly.js-dist-min');

let loading: Promise<Plotly> | null = null;

export function loadPlotly(): Promise<Plotly> {
  loading ??= import('plotly.js-dist-min').then((mod) => (mod as unknown as { default: Plotly }).default ?? mod);
  loading.catch(() => { loading = null; });
  return loading;
}

/**
 * The layout every chart shares: its title, small margins that grow to fit the tick labels (rotated category labels
 * such as "RMSE completeness" were cut at the bottom), 320 px high. A chart's own axis settings are merged in.
 */
export const chartLayout = (title: string, extra: { xaxis?: object; yaxis?: object } & Record<string, unknown> = {}) => ({
  title: { text: title }, margin: { t: 40, r: 10, b: 40, l: 50 }, height: 320, ...extra,
  xaxis: { automargin: true, ...extra.xaxis }, yaxis: { automargin: true, ...extra.yaxis },
});
export const CHART_CONFIG = { displayModeBar: false, responsive: true } as const;

/** The theme's chart colours as the page resolves them now (the CSS variables use light-dark(), so a probe element reads them). */
export function pageChartColors(doc: Document = document): ChartColors {
  const probe = doc.createElement('div');
  probe.style.cssText = 'position:absolute;visibility:hidden;color:var(--text);background-color:var(--surface);border:1px solid var(--rule);outline:1px solid var(--muted)';
  doc.body.append(probe);
  const cs = getComputedStyle(probe);
  const colors = { text: cs.color, paper: cs.backgroundColor, grid: cs.borderTopColor, muted: cs.outlineColor };
  probe.remove();
  return colors;
}

/** Charts drawn on the page, re-themed when the theme changes (dropped once out of the document). */
const drawn = new Set<HTMLElement>();
let watching = false;

function retheme(): void {
  if (drawn.size === 0) return;
  const colors = pageChartColors();
  const update = themeUpdate(colors);
  void loadPlotly().then((Plotly) => {
    for (const el of drawn) {
      if (!el.isConnected) { drawn.delete(el); continue; }
      void Plotly.relayout(el, update as never);
      const data = (el as unknown as { data?: Array<{ error_y?: object }> }).data ?? [];
      const whiskers = data.flatMap((t, i) => (t.error_y ? [i] : []));
      if (whiskers.length) void Plotly.restyle(el, { 'error_y.color': colors.muted } as never, whiskers);
    }
  });
}

function watchTheme(): void {
  if (watching || typeof MutationObserver === 'undefined') return;
  watching = true;
  new MutationObserver(retheme).observe(document.documentElement, { attributes: true, attributeFilter: ['data-theme'] });
  matchMedia('(prefers-color-scheme: dark)').addEventListener('change', retheme);
}

/** Draws `traces` with `layout` into `el`, coloured and themed; the chart follows later theme changes. */
export function plot(Plotly: Plotly, el: HTMLElement, traces: readonly object[], layout: Record<string, unknown>): Promise<unknown> {
  watchTheme();
  for (const d of drawn) if (!d.isConnected) drawn.delete(d);
  drawn.add(el);
  const colors = pageChartColors();
  return Plotly.newPlot(el, themedTraces(assignColors(traces), colors) as never, themedLayout(layout, colors) as never, CHART_CONFIG);
}

/** Draws a chart spec (report-charts.ts) into `el`. */
export function drawChart(Plotly: Plotly, el: HTMLElement, spec: ChartSpec): Promise<unknown> {
  return plot(Plotly, el, spec.traces, chartLayout(spec.title, spec.layout));
}
