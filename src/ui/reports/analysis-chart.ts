/**
 * The H1 scatter of the analysis view: one predictor (x) against the per-query metric (y), one point per query
 * (analysis.ts `h1Points`), and the least-squares line through them, r in the title. Pure: a ChartSpec that
 * RetrievalAnalysis.svelte hands to Plotly through plotly.ts `drawChart`, as the report charts do.
 */
import type { H1Row } from '../../lib/eval/analysis/analysis.ts';
import { fmtValue } from '../../lib/reports/compare-format.ts';
import { MAX_POINTS, thinIndices, type ChartSpec, type ChartTrace } from './report-charts.ts';

/**
 * Ordinary least squares y = a + b·x: b = Σ(x − x̄)(y − ȳ) / Σ(x − x̄)², a = ȳ − b·x̄.
 * Null with fewer than 2 points or when every x is the same (no line to fit).
 */
export function leastSquares(x: readonly number[], y: readonly number[]): { a: number; b: number } | null {
  const n = Math.min(x.length, y.length);
  if (n < 2) return null;
  let mx = 0, my = 0;
  for (let i = 0; i < n; i++) { mx += x[i]!; my += y[i]!; }
  mx /= n; my /= n;
  let sxy = 0, sxx = 0;
  for (let i = 0; i < n; i++) { const dx = x[i]! - mx; sxy += dx * (y[i]! - my); sxx += dx * dx; }
  if (!(sxx > 0)) return null;
  const b = sxy / sxx;
  return { a: my - b * mx, b };
}

/** How a predictor reads in a title: "entropy (sparse, cdf)", "nqc (dense)". */
export const predictorLabel = (row: Pick<H1Row, 'predictor' | 'retriever' | 'calibration'>): string =>
  `${row.predictor} (${row.retriever}${row.calibration ? `, ${row.calibration}` : ''})`;

/**
 * The part of the line y = a + b·x over x in [lo, hi] where y stays in [yMin, yMax], as its two end points; null
 * when the line is outside the range everywhere there.
 */
export function clipLine(fit: { a: number; b: number }, lo: number, hi: number, yMin: number, yMax: number): { x: [number, number]; y: [number, number] } | null {
  let x0 = lo, x1 = hi;
  if (fit.b === 0) {
    if (fit.a < yMin || fit.a > yMax) return null;
  } else {
    // x where the line crosses yMin and yMax, in increasing order
    const xa = (yMin - fit.a) / fit.b, xb = (yMax - fit.a) / fit.b;
    x0 = Math.max(lo, Math.min(xa, xb));
    x1 = Math.min(hi, Math.max(xa, xb));
    if (x0 > x1) return null;
  }
  const at = (x: number) => Math.min(yMax, Math.max(yMin, fit.a + fit.b * x));
  return { x: [x0, x1], y: [at(x0), at(x1)] };
}

/**
 * The scatter of one H1 row's points with its fit line, drawn from the smallest x to the largest and clipped to
 * the metric's range (`yRange`, [0, 1] for NDCG and the other per-query metrics; null: not clipped), so the line
 * never runs above NDCG 1.
 */
export function h1ScatterChart(
  points: { x: number[]; y: number[]; keys: string[] },
  row: Pick<H1Row, 'predictor' | 'retriever' | 'calibration' | 'pearson_r' | 'n'>,
  metric: string,
  yRange: readonly [number, number] | null = [0, 1],
): ChartSpec {
  const keep = thinIndices(points.x.length, MAX_POINTS.scatter);
  const traces: ChartTrace[] = [{
    type: 'scatter', mode: 'markers', name: 'queries',
    x: keep.map((i) => points.x[i]!), y: keep.map((i) => points.y[i]!), text: keep.map((i) => points.keys[i]!),
    marker: { size: 6, opacity: 0.6 },
  }];
  const fit = leastSquares(points.x, points.y);
  if (fit) {
    let lo = Infinity, hi = -Infinity;
    for (const v of points.x) { if (v < lo) lo = v; if (v > hi) hi = v; }
    const seg = yRange ? clipLine(fit, lo, hi, yRange[0], yRange[1]) : { x: [lo, hi], y: [fit.a + fit.b * lo, fit.a + fit.b * hi] };
    if (seg) {
      traces.push({
        type: 'scatter', mode: 'lines', name: `fit: ${metric} = ${fmtValue(fit.a, 3)} ${fit.b < 0 ? '−' : '+'} ${fmtValue(Math.abs(fit.b), 3)}·x`,
        x: seg.x, y: seg.y, line: { dash: 'solid', color: '#d62728' },
      });
    }
  }
  const label = predictorLabel(row);
  return {
    title: `${label} vs ${metric}: r = ${fmtValue(row.pearson_r, 3)}, n = ${row.n}`,
    traces,
    // The legend under the x axis's title (Plotly's default place for a horizontal legend overlaps it), room made for it.
    layout: { xaxis: { title: { text: label } }, yaxis: { title: { text: metric } }, legend: { orientation: 'h', yanchor: 'top', y: -0.3 }, margin: { t: 40, r: 10, b: 100, l: 50 }, height: 360 },
  };
}
