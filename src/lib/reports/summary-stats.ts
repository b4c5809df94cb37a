/**
 * A report's figures with their 95% percentile-bootstrap intervals, computed by the fast kernels of
 * stats/paired.ts (no resample materialises rows or sorts scores): the summary of every report (build.ts), the
 * Benchmark tab's and the CLI's per-subset intervals (eval/ragbench/bootstrap.ts) and Compare all resample the same way,
 * so one run's interval is the same number wherever it is shown.
 */
import type { ReportKind, ReportRow, ReportSummary } from './format.ts';
import { metricsFor, type MetricDef } from './metrics.ts';
import { rowsByMode } from './pipelines.ts';
import { pairedTable, type Column } from '../stats/paired.ts';

/** Below this many rows in a class (AUROC) or in all (other figures), a figure is flagged as not meaningful. */
export const MIN_ROWS = 10;

const num = (x: unknown): number | null => (typeof x === 'number' && Number.isFinite(x) ? x : null);

/**
 * Metric `m` of `kind` over `rows` as a kernel column (stats/paired.ts), equal to `m.compute(rows)`:
 * AUROC: y = gold adherence false, score = 1 − predicted adherence; RMSE: √mean of perRow² (perRow = |pred − gold|);
 * answered: the share of all rows with status answered; other means: mean of perRow where it is a number.
 */
export function metricColumn(m: MetricDef, rows: readonly ReportRow[]): Column {
  const n = rows.length;
  const defined = new Uint8Array(n);
  if (m.auroc !== undefined) {
    const key = m.auroc;
    const score = new Float64Array(n);
    const positive = new Uint8Array(n);
    rows.forEach((r, i) => {
      const g = r.gold['adherence'];
      const p = num(r.scores[key]);
      if (typeof g !== 'boolean' || p === null) return;
      defined[i] = 1; positive[i] = g ? 0 : 1; score[i] = 1 - p;
    });
    return { kind: 'auroc', score, positive, defined };
  }
  const x = new Float64Array(n);
  const root = m.id.startsWith('rmse_');
  rows.forEach((r, i) => {
    if (m.id === 'answered') { defined[i] = 1; x[i] = r.status === 'answered' ? 1 : 0; return; }
    const v = m.perRow(r);
    if (v === null) return;
    defined[i] = 1; x[i] = root ? v * v : v;
  });
  return { kind: 'mean', x, defined, root };
}


export interface FigureWithInterval { id: string; value: number | null; ci: [number, number] | null }

/**
 * Every figure of `kind` over `rows` and its percentile-bootstrap interval: rows resampled with replacement
 * `iterations` times (counts drawn from mulberry32(seed), the same draws for every figure), the interval the
 * (1 − level)/2 and (1 + level)/2 percentiles of the finite resampled values. `iterations` 0: no intervals.
 * `defs`: the figures to compute (default `metricsFor(kind, rows)`).
 */
export function figuresWithIntervals(
  kind: ReportKind, rows: readonly ReportRow[], opts: { iterations: number; seed: number; level?: number }, defs: readonly MetricDef[] = metricsFor(kind, rows),
): FigureWithInterval[] {
  const cols = defs.map((m) => metricColumn(m, rows));
  const fin = (x: number) => (Number.isFinite(x) ? x : null);
  if (rows.length === 0) return defs.map((m) => ({ id: m.id, value: null, ci: null }));
  const [cells] = pairedTable([cols], 0, { iterations: Math.max(0, opts.iterations), permutations: 0, seed: opts.seed, level: opts.level ?? 0.95 });
  return defs.map((m, j) => {
    const value = fin(cells![j]!.value);
    const ci = opts.iterations > 0 && value !== null ? cells![j]!.ci : null;
    return { id: m.id, value, ci: ci && Number.isFinite(ci[0]) && Number.isFinite(ci[1]) ? ci : null };
  });
}

const rowsWord = (n: number, what: string) => `${n} ${what} row${n === 1 ? '' : 's'}`;

/**
 * Figures resting on too few rows: validate's AUROC when either class has fewer than MIN_ROWS labelled rows, any
 * other figure when fewer than MIN_ROWS rows have a value (per group and overall).
 */
export function smallSampleNotes(kind: ReportKind, rows: readonly ReportRow[]): ReportSummary['warnings'] {
  const out: ReportSummary['warnings'] = [];
  const groups = [...new Set(rows.map((r) => r.group))];
  const perGroup = groups.map((g) => [g, rows.filter((r) => r.group === g)] as [string, ReportRow[]]);
  // A multi-mode retrieval run's groups are its modes: no pooled set (pipelines.ts).
  const sets: Array<[string | null, readonly ReportRow[]]> = rowsByMode(kind, rows) ? perGroup : groups.length > 1 ? [[null, rows], ...perGroup] : [[groups[0] ?? null, rows]];
  for (const [group, rs] of sets) {
    for (const m of metricsFor(kind, rows)) {
      if (m.auroc !== undefined) {
        const key = m.auroc;
        const name = m.id === 'auroc' ? 'AUROC' : m.label;
        let halluc = 0, supported = 0;
        for (const r of rs) {
          const g = r.gold['adherence'];
          if (typeof g !== 'boolean' || typeof r.scores[key] !== 'number') continue;
          if (g) supported++; else halluc++;
        }
        if (halluc === 0 || supported === 0) out.push({ group, message: `${name} not defined: no ${halluc === 0 ? 'hallucinated' : 'supported'} row among the ${halluc + supported} labelled rows` });
        else if (halluc < MIN_ROWS || supported < MIN_ROWS) {
          const [n, what] = halluc <= supported ? [halluc, 'hallucinated'] : [supported, 'supported'];
          out.push({ group, message: `${name} from ${rowsWord(n, what)}: not meaningful (fewer than ${MIN_ROWS}; score more rows)` });
        }
        continue;
      }
      const n = rs.filter((r) => m.perRow(r) !== null).length;
      if (n > 0 && n < MIN_ROWS) out.push({ group, message: `${m.label} from ${rowsWord(n, 'scored')}: not meaningful (fewer than ${MIN_ROWS})` });
    }
  }
  return out;
}
