/**
 * How every chart looks, in one place (plotly.ts applies it to each chart it draws): series colours that never
 * repeat within a chart (`assignColors`: Plotly's own colorway starts over after 10 series, so the 11th — GPT-3.5
 * next to 7 subsets and "all" — took covidqa's colour), and the colours of the app's theme (`themedLayout`: paper,
 * plot area, text, grid; `themedTraces`: whiskers). Pure.
 */

/** Series colours, in order: distinct hues of medium lightness that read on a light and on a dark background. */
export const PALETTE: readonly string[] = [
  '#1f77b4', '#ff7f0e', '#2ca02c', '#d62728', '#9467bd', '#8c564b', '#e377c2', '#bcbd22', '#17becf',
  '#5254a3', '#e7ba52', '#8ca252', '#d6616b', '#6baed6', '#fd8d3c', '#31a354', '#9e9ac8', '#ce6dbd', '#00a087',
];

/** The i-th colour past the palette: hues a golden angle apart (distinct from each other, for any number). */
const extraColor = (i: number) => `hsl(${Math.round((i * 137.508) % 360)}, 55%, 52%)`;

interface Styled { type?: string; line?: { color?: string } & Record<string, unknown>; marker?: { color?: unknown } & Record<string, unknown> }

/** A trace's own colour (a chance line's grey, a fit line's red), or undefined. */
export function traceColor(t: Styled): string | undefined {
  const c = t.line?.color ?? t.marker?.color;
  return typeof c === 'string' ? c : undefined;
}

/**
 * The traces with a colour each: a trace's own colour stays; the others take palette colours in order, skipping
 * those taken, so no two series of one chart share a colour.
 */
export function assignColors<T extends Styled>(traces: readonly T[]): T[] {
  const taken = new Set(traces.map(traceColor).filter((c): c is string => c !== undefined).map((c) => c.toLowerCase()));
  let next = 0;
  let extra = 0;
  const pick = (): string => {
    while (next < PALETTE.length) { const c = PALETTE[next++]!; if (!taken.has(c)) { taken.add(c); return c; } }
    for (;;) { const c = extraColor(extra++); if (!taken.has(c)) { taken.add(c); return c; } }
  };
  return traces.map((t) => {
    if (traceColor(t) !== undefined) return t;
    const color = pick();
    return t.type === 'bar'
      ? { ...t, marker: { ...t.marker, color } }
      : { ...t, marker: { ...t.marker, color }, line: { ...t.line, color } };
  });
}

/** The theme's colours a chart uses, as CSS colours (plotly.ts reads them from the page's CSS variables). */
export interface ChartColors {
  /** Text (title, ticks, legend). */
  text: string;
  /** Background of the whole chart and of its plot area (the card it sits on). */
  paper: string;
  /** Grid lines and the zero line. */
  grid: string;
  /** Interval whiskers (error bars): Plotly's own dark grey is lost on a dark background. */
  muted: string;
}

/** The traces with the theme's whisker colour on those that have whiskers. */
export function themedTraces<T extends { error_y?: object }>(traces: readonly T[], c: ChartColors): T[] {
  return traces.map((t) => (t.error_y ? { ...t, error_y: { ...t.error_y, color: c.muted } } : t));
}

/** The layout keys Plotly.relayout takes to re-theme a chart drawn before (nested keys dotted). */
export function themeUpdate(c: ChartColors): Record<string, string> {
  return {
    paper_bgcolor: c.paper, plot_bgcolor: c.paper, 'font.color': c.text, 'legend.font.color': c.text,
    'xaxis.gridcolor': c.grid, 'yaxis.gridcolor': c.grid, 'xaxis.zerolinecolor': c.grid, 'yaxis.zerolinecolor': c.grid,
    'xaxis.linecolor': c.grid, 'yaxis.linecolor': c.grid,
  };
}

const isObject = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x);

/** `layout` with the theme's colours set (what the layout sets itself, other than these colours, is kept). */
export function themedLayout(layout: Record<string, unknown>, c: ChartColors): Record<string, unknown> {
  const out: Record<string, unknown> = { ...layout };
  for (const [path, value] of Object.entries(themeUpdate(c))) {
    const keys = path.split('.');
    let o = out;
    for (const k of keys.slice(0, -1)) { o[k] = isObject(o[k]) ? { ...o[k] } : {}; o = o[k] as Record<string, unknown>; }
    o[keys[keys.length - 1]!] = value;
  }
  return out;
}
