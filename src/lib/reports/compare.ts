/**
 * Compare: 2+ reports of the same kind and dataset, paired by row key. The one implementation behind the compare
 * worker (the Compare tab) and `rag-lab compare`: figures and intervals on the shared rows, Δ against a baseline
 * with the paired bootstrap and the paired randomization test (stats/paired.ts), Holm's correction over the whole
 * table, win/tie/loss, per-question values and verdicts, and the config diff. NaN and ±∞ never reach the result
 * (null).
 */
import { MIN_ROWS } from './summary-stats.ts';
import type { CompareCell, CompareOptions, CompareQuestion, CompareResult, ConfigDiffRow } from './compare-types.ts';
import type { JsonValue, Report, ReportKind, ReportRow } from './format.ts';
import { metricsFor, rowVerdict, type MetricDef } from './metrics.ts';
import { holm, pairedTable, winTieLoss, type Column, type PairedCell } from '../stats/paired.ts';
import { metricColumn } from './summary-stats.ts';
import { reportTitle } from './title.ts';
import { dict } from '../dict.ts';

export const COMPARE_DEFAULTS = { iterations: 10_000, permutations: 10_000, seed: 0, alpha: 0.05, tieEpsilon: 1e-9 } as const;
/** Upper bounds of iterations and permutations (a hand-edited flag or message must not freeze a worker). */
export const COMPARE_MAX_DRAWS = 1_000_000;

const fin = (x: number | null | undefined): number | null => (typeof x === 'number' && Number.isFinite(x) ? x : null);
const finPair = (x: [number, number] | null): [number, number] | null => (x && Number.isFinite(x[0]) && Number.isFinite(x[1]) ? x : null);

/** A config value as short text for the diff table: '—' when the report does not record it, 'none' when it records null. */
function valueText(v: JsonValue | undefined): string {
  if (v === undefined) return '—';
  if (v === null) return 'none';
  const s = typeof v === 'string' ? v : JSON.stringify(v);
  return s.length > 200 ? `${s.slice(0, 199)}…` : s;
}

/** The flattened config (dotted paths; arrays whole) plus the report fields that decide or describe a run. */
export function flatConfig(r: Report): Map<string, string> {
  const out = new Map<string, string>();
  out.set('evaluator', r.evaluator);
  out.set('seed', String(r.seed));
  out.set('n', r.n === null ? 'all' : String(r.n));
  out.set('configHash', r.configHash);
  out.set('data.dataset', r.data.dataset);
  out.set('data.revision', valueText(r.data.revision));
  out.set('data.subsets', r.data.subsets.join(', ') || '—');
  out.set('data.source', r.data.source);
  out.set('data.kb', valueText(r.data.kb));
  out.set('environment.models', r.environment.models.map((m) => `${m.task}: ${m.id}${m.dtype ? ` ${m.dtype}` : ''}${m.device ? ` (${m.device})` : ''}`).join('; ') || '—');
  out.set('environment.llm', r.environment.llm ? `${r.environment.llm.provider} ${r.environment.llm.model}` : '—');
  out.set('environment.judge', r.environment.judge ? `${r.environment.judge.provider} ${r.environment.judge.model}` : '—');
  const walk = (o: { [k: string]: JsonValue }, path: string) => {
    for (const [k, v] of Object.entries(o)) {
      const p = path ? `${path}.${k}` : k;
      if (v !== null && typeof v === 'object' && !Array.isArray(v) && Object.keys(v).length > 0) walk(v, p);
      else out.set(`config.${p}`, valueText(v));
    }
  };
  walk(r.config, '');
  return out;
}

/**
 * A path one report lacks where another has it: 'none' when the report records an enclosing setting as null (e.g.
 * `chunking: null` against `chunking.chunkSize`), 'set' when it has the path's fields below it, '—' otherwise.
 */
function missingText(flat: Map<string, string>, path: string): string {
  for (let i = path.lastIndexOf('.'); i > 0; i = path.lastIndexOf('.', i - 1)) if (flat.get(path.slice(0, i)) === 'none') return 'none';
  for (const k of flat.keys()) if (k.startsWith(`${path}.`)) return 'set';
  return '—';
}

/** One row per path any report has: each report's value ('—' where absent) and whether they differ. */
export function configDiff(reports: readonly Report[]): ConfigDiffRow[] {
  const flats = reports.map(flatConfig);
  const paths: string[] = [];
  const seen = new Set<string>();
  for (const f of flats) for (const p of f.keys()) if (!seen.has(p)) { seen.add(p); paths.push(p); }
  const fixed = paths.filter((p) => !p.startsWith('config.'));
  const config = paths.filter((p) => p.startsWith('config.')).sort();
  return [...fixed, ...config].map((path) => {
    const values = dict<string>();
    reports.forEach((r, i) => { values[r.id] = flats[i]!.get(path) ?? missingText(flats[i]!, path); });
    const texts = reports.map((r) => values[r.id]);
    return { path, values, differs: texts.some((t) => t !== texts[0]) };
  });
}

const rowsWord = (n: number) => `${n} row${n === 1 ? '' : 's'}`;
const nameOf = (r: Report) => `"${reportTitle(r)}"`;

function clampDraws(x: number | undefined, fallback: number): number {
  if (x === undefined || !Number.isFinite(x)) return fallback;
  return Math.max(0, Math.min(COMPARE_MAX_DRAWS, Math.floor(x)));
}

/** Compares reports; refuses (ok: false, a message saying why) what cannot be compared. */
/** A comparison ready for its statistics: the kernel columns, then `finish` with their paired table. */
export interface PreparedCompare {
  ok: true;
  columns: Column[][];
  baseline: number;
  settings: { iterations: number; permutations: number; seed: number; alpha: number };
  finish(table: PairedCell[][]): CompareResult;
}

/**
 * Compare 2+ reports (see the module comment). The same as `prepareCompare` and `finish` with `pairedTable` on one
 * thread; the compare worker splits the table over two threads instead (`mergeTables`).
 */
export function compareReports(reports: readonly Report[], opts: CompareOptions = {}): CompareResult {
  const p = prepareCompare(reports, opts);
  return p.ok ? p.finish(pairedTable(p.columns, p.baseline, p.settings)) : p;
}

/**
 * The bootstrap half (permutations 0) and the randomization half (iterations 0) of one table as the whole table:
 * resamples draw from mulberry32(seed) and masks from mulberry32(seed + 1), so the halves are the whole's numbers.
 */
export function mergeTables(boot: PairedCell[][], perm: PairedCell[][]): PairedCell[][] {
  return boot.map((row, r) => row.map((c, j) => ({ ...c, pRandomization: perm[r]?.[j]?.pRandomization ?? null })));
}

/** Checks the reports, pairs their rows and builds the kernel columns; the statistics come in `finish`. */
export function prepareCompare(reports: readonly Report[], opts: CompareOptions = {}): PreparedCompare | { ok: false; message: string } {
  const settings = {
    iterations: clampDraws(opts.iterations, COMPARE_DEFAULTS.iterations),
    permutations: clampDraws(opts.permutations, COMPARE_DEFAULTS.permutations),
    seed: Number.isFinite(opts.seed) ? Math.trunc(opts.seed!) : COMPARE_DEFAULTS.seed,
    alpha: opts.alpha !== undefined && opts.alpha > 0 && opts.alpha < 1 ? opts.alpha : COMPARE_DEFAULTS.alpha,
  };
  const eps = opts.tieEpsilon !== undefined && opts.tieEpsilon >= 0 && Number.isFinite(opts.tieEpsilon) ? opts.tieEpsilon : COMPARE_DEFAULTS.tieEpsilon;
  if (reports.length < 2) return { ok: false, message: 'Pick at least 2 reports to compare.' };
  const ids = new Set<string>();
  for (const r of reports) {
    if (ids.has(r.id)) return { ok: false, message: `Report ${nameOf(r)} (${r.id}) is picked twice: pick each report once.` };
    ids.add(r.id);
  }
  const kind: ReportKind = reports[0]!.kind;
  const otherKind = reports.find((r) => r.kind !== kind);
  if (otherKind) return { ok: false, message: `Reports of different kinds cannot be compared: ${nameOf(reports[0]!)} is ${kind}, ${nameOf(otherKind)} is ${otherKind.kind}.` };
  const dataset = reports[0]!.data.dataset;
  const otherData = reports.find((r) => r.data.dataset !== dataset);
  if (otherData) return { ok: false, message: `Reports of different datasets cannot be compared: ${nameOf(reports[0]!)} is on ${dataset}, ${nameOf(otherData)} on ${otherData.data.dataset}.` };
  const baselineId = opts.baselineId ?? reports[0]!.id;
  const b = reports.findIndex((r) => r.id === baselineId);
  if (b < 0) return { ok: false, message: `The baseline ${baselineId} is not among the reports compared.` };
  const baseline = reports[b]!;

  const warnings: string[] = [];
  // Rows by key (the first of a repeated key; the schema asks for unique keys).
  const byKey = reports.map((r) => {
    const m = new Map<string, ReportRow>();
    let repeated = 0;
    for (const row of r.rows) { if (m.has(row.key)) repeated++; else m.set(row.key, row); }
    if (repeated) warnings.push(`Report ${nameOf(r)} repeats ${rowsWord(repeated)} by key: only the first of each is used.`);
    return m;
  });
  const shared = [...byKey[b]!.keys()].filter((k) => byKey.every((m) => m.has(k)));
  if (shared.length === 0) return { ok: false, message: `These reports share no rows (no question key in common): nothing to compare. Compare runs over the same questions (same dataset, subsets, seed and N).` };
  reports.forEach((r, i) => {
    const extra = byKey[i]!.size - shared.length;
    if (extra > 0) warnings.push(`Report ${nameOf(r)} has ${rowsWord(extra)} the others lack: left out.`);
    if (r.truncated) warnings.push(`Report ${nameOf(r)} holds only ${r.rows.length} of its ${r.truncated.rows} rows (a summary, e.g. from a share link): the comparison uses those.`);
  });
  if (kind === 'retrieval') {
    // Multi-mode retrieval reports (rows `${mode}:${query}`, group = mode): the figures below pool every mode's rows.
    const modes = [...new Set(shared.map((k) => byKey[b]!.get(k)!.group))];
    if (modes.length > 1 && shared.every((k) => k.startsWith(`${byKey[b]!.get(k)!.group}:`))) {
      warnings.push(`These retrieval reports hold ${modes.length} modes (${modes.join(', ')}): each figure pools the rows of every mode. Per-mode Δ is in the questions table (by mode); seed B's per-mode tests are the report's H2 (rag-lab analyze).`);
    }
  }
  if (shared.length < MIN_ROWS) warnings.push(`N = ${shared.length} shared rows: intervals are wide and tests have little power (fewer than ${MIN_ROWS}).`);
  if (settings.iterations === 0) warnings.push('Bootstrap iterations are 0: no intervals and no bootstrap p.');
  if (settings.permutations === 0) warnings.push('Permutations are 0: no randomization p and no significance marks.');

  const rowsOf = byKey.map((m) => shared.map((k) => m.get(k)!));
  // A figure listed only with a field (RAGAS) is compared when any report's shared rows carry it (the others: n/a).
  const defs = metricsFor(kind, rowsOf.flat());
  const columns = rowsOf.map((rows) => defs.map((m) => metricColumn(m, rows)));
  const finish = (table: PairedCell[][]): CompareResult => {
    const perRowOf = rowsOf.map((rows) => defs.map((m) => rows.map((r) => m.perRow(r))));

    // Holm over every (metric, non-baseline report) cell with a randomization p.
    const flatP: Array<number | null> = [];
    defs.forEach((_, j) => reports.forEach((_, r) => { if (r !== b) flatP.push(table[r]![j]!.pRandomization); }));
    const adjusted = holm(flatP);
    let next = 0;
    const metrics = defs.map((m, j) => ({
      id: m.id, label: m.label, higherIsBetter: m.higherIsBetter, digits: m.digits,
      cells: reports.map((rep, r): CompareCell => {
        const t = table[r]![j]!;
        const value = fin(m.compute(rowsOf[r]!));
        const n = perRowOf[r]![j]!.filter((x) => x !== null).length;
        if (r === b) return { reportId: rep.id, value, ci: value === null ? null : finPair(t.ci), n, delta: null, deltaCi: null, pBootstrap: null, pRandomization: null, pHolm: null, significance: null, wtl: null };
        const pHolm = fin(adjusted[next++]);
        const base = fin(m.compute(rowsOf[b]!));
        const delta = value === null || base === null ? null : fin(value - base);
        const significance = pHolm === null || delta === null ? 'none' : pHolm < settings.alpha && delta !== 0 ? ((delta > 0) === m.higherIsBetter ? 'better' : 'worse') : 'none';
        return {
          reportId: rep.id, value, ci: value === null ? null : finPair(t.ci), n, delta,
          deltaCi: delta === null ? null : finPair(t.deltaCi), pBootstrap: delta === null ? null : fin(t.pBootstrap), pRandomization: delta === null ? null : fin(t.pRandomization),
          pHolm: delta === null ? null : pHolm, significance, wtl: winTieLoss(perRowOf[b]![j]!, perRowOf[r]![j]!, m.higherIsBetter, eps),
        };
      }),
    }));

    const questions: CompareQuestion[] = shared.map((key, i) => {
      const byReport: CompareQuestion['byReport'] = dict();
      reports.forEach((rep, r) => {
        const perRow = dict<number | null>();
        defs.forEach((m, j) => { perRow[m.id] = fin(perRowOf[r]![j]![i]); });
        byReport[rep.id] = { perRow, verdict: rowVerdict(kind, rowsOf[r]![i]!) };
      });
      const bv = byReport[baseline.id]!.verdict;
      const flipped = bv !== null && reports.some((rep) => { const v = byReport[rep.id]!.verdict; return v !== null && v !== bv; });
      const row = rowsOf[b]![i]!;
      return { key, group: row.group, question: row.question, byReport, flipped };
    });

    return {
      ok: true, kind, dataset, baselineId, reports: reports.map((r) => ({ id: r.id, title: reportTitle(r), rows: r.rows.length })),
      sharedRows: shared.length, metrics, questions, configDiff: configDiff(reports), warnings, settings,
    };
  };
  return { ok: true, columns, baseline: b, settings, finish };
}
