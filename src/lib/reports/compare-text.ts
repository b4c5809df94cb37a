/** The Compare table of reports (compare.ts) as text lines, as `rag-lab compare` prints it. */
import { own } from '../dict.ts';
import { fmtCi, fmtP, fmtSigned, fmtValue, fmtWtl, significanceLegend, significanceMark } from './compare-format.ts';
import type { CompareResult } from './compare-types.ts';

/** Columns padded to their widest cell (the last column unpadded). */
export function table(rows: string[][]): string[] {
  const widths: number[] = [];
  for (const r of rows) r.forEach((c, i) => { widths[i] = Math.max(widths[i] ?? 0, [...c].length); });
  return rows.map((r) => r.map((c, i) => (i === r.length - 1 ? c : c + ' '.repeat(widths[i]! - [...c].length))).join('  ').trimEnd());
}

/** The Compare table as text lines. */
export function compareText(r: Extract<CompareResult, { ok: true }>): string[] {
  const title = new Map(r.reports.map((x) => [x.id, x.title || x.id]));
  const out = [
    `Compare: ${r.kind} on ${r.dataset}, ${r.sharedRows} shared rows; baseline "${title.get(r.baselineId)}"`,
    `${r.settings.iterations} bootstrap resamples, ${r.settings.permutations} permutations, seed ${r.settings.seed}`,
    '',
  ];
  // Figures per retrieval mode get a mode column (compare.ts pairs rows within a mode; nothing pools modes).
  const byMode = r.metrics.some((m) => m.pipeline !== null);
  const rows: string[][] = [[...(byMode ? ['mode'] : []), 'metric', 'report', 'value [95% CI]', 'Δ vs baseline [95% CI]', 'p boot', 'p rand', 'p Holm', 'W/T/L']];
  r.metrics.forEach((m, k) => {
    m.cells.forEach((c, i) => {
      const base = c.reportId === r.baselineId;
      const newMode = i === 0 && (k === 0 || r.metrics[k - 1]!.pipeline !== m.pipeline);
      rows.push([
        ...(byMode ? [newMode ? m.pipeline ?? '' : ''] : []),
        i === 0 ? `${m.label}${m.higherIsBetter ? '' : ' (lower is better)'}` : '',
        `${title.get(c.reportId)}${base ? ' (baseline)' : ''}`,
        `${fmtValue(c.value, m.digits)} ${fmtCi(c.ci, m.digits)}`.trim(),
        base ? '' : `${fmtSigned(c.delta, m.digits)} ${fmtCi(c.deltaCi, m.digits, true)}`.trim(),
        base ? '' : fmtP(c.pBootstrap),
        base ? '' : fmtP(c.pRandomization),
        base ? '' : `${fmtP(c.pHolm)} ${significanceMark(c.significance)}`.trim(),
        base ? '' : fmtWtl(c.wtl),
      ]);
    });
  });
  out.push(...table(rows), '', significanceLegend(r.settings.alpha, r.settings.permutations), 'W/T/L: rows where the report is better / equal / worse than the baseline.');
  if (r.warnings.length) out.push('', 'Warnings:', ...r.warnings.map((w) => `  ${w}`));
  const diff = r.configDiff.filter((d) => d.differs);
  out.push('', diff.length ? 'Config differences:' : 'Config differences: none');
  if (diff.length) out.push(...table([['path', ...r.reports.map((x) => title.get(x.id)!)], ...diff.map((d) => [d.path, ...r.reports.map((x) => own(d.values, x.id) ?? '—')])]).map((l) => `  ${l}`));
  return out;
}
