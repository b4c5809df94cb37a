/**
 * How Compare's figures read as text, the same in the Compare tab and `rag-lab compare`: values with the metric's
 * decimals, signed deltas, intervals, p-values, the significance mark and its legend. Null reads "n/a".
 */
import type { CompareCell } from './compare-types.ts';

export const NA = 'n/a';

export function fmtValue(x: number | null, digits: number): string {
  return x === null ? NA : x.toFixed(digits);
}

/** A signed figure: "+0.012", "−0.034" (a true minus sign), "0.000" for zero. */
export function fmtSigned(x: number | null, digits: number): string {
  if (x === null) return NA;
  const s = Math.abs(x).toFixed(digits);
  if (Number(s) === 0) return (0).toFixed(digits);
  return `${x > 0 ? '+' : '−'}${s}`;
}

export function fmtCi(ci: [number, number] | null, digits: number, signed = false): string {
  if (!ci) return '';
  const f = signed ? (x: number) => fmtSigned(x, digits) : (x: number) => x.toFixed(digits);
  return `[${f(ci[0])}, ${f(ci[1])}]`;
}

export function fmtP(p: number | null): string {
  if (p === null) return NA;
  return p < 0.001 ? '<0.001' : p.toFixed(3);
}

/** ▲ significantly better than the baseline, ▼ significantly worse (Holm-corrected), '' otherwise. */
export function significanceMark(s: CompareCell['significance']): string {
  return s === 'better' ? '▲' : s === 'worse' ? '▼' : '';
}

export function significanceLegend(alpha: number, permutations: number): string {
  return `▲ / ▼: significantly better / worse than the baseline: paired randomization test (${permutations.toLocaleString('en-US')} permutations) on the shared rows, `
    + `p after Holm's correction over every metric and report of the table < ${alpha}. Better follows the metric's direction (lower RMSE is better).`;
}

export function fmtWtl(w: CompareCell['wtl']): string {
  return w ? `${w.win}/${w.tie}/${w.loss}` : '';
}
