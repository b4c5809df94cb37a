/**
 * Compare: 2+ reports of the same kind and dataset, paired by pipeline and question (pipelines.ts `pairKey`). The
 * one implementation behind the compare worker (the Compare tab) and `rag-lab compare`: figures and intervals on the
 * shared rows of each pipeline (a retrieval mode; a RAGBench report is one), Δ against a baseline with the paired
 * bootstrap and the paired randomization test (stats/paired.ts), Holm's correction over the whole table,
 * win/tie/loss, per-question values and verdicts (a row per question and mode), and the config diff. No figure pools
 * modes. NaN and ±∞ never reach the result (null). Tune reports pair their trials by settings (`trial:<mode>:<config
 * hash>`): the figures are the shared settings' objective and p95 latency in each tune, the verdict a trial's status.
 */
import { MIN_ROWS } from './summary-stats.ts';
import type { CompareCell, CompareOptions, CompareQuestion, CompareResult, ConfigDiffRow } from './compare-types.ts';
import type { JsonValue, Report, ReportKind, ReportRow } from './format.ts';
import { metricsFor, rowVerdict } from './metrics.ts';
import { pairKey, rowPipeline } from './pipelines.ts';
import { holm, pairedTable, winTieLoss, type Column, type PairedCell } from '../stats/paired.ts';
import { metricColumn } from './summary-stats.ts';
import { reportTitle } from './title.ts';
import { settingOfPath } from './config-settings.ts';
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
    const describe = settingOfPath(path)?.describe;
    return { path, values, differs: texts.some((t) => t !== texts[0]), ...(describe ? { describe } : {}) };
  });
}

const rowsWord = (n: number) => `${n} row${n === 1 ? '' : 's'}`;
const nameOf = (r: Report) => `"${reportTitle(r)}"`;

function clampDraws(x: number | undefined, fallback: number): number {
  if (x === undefined || !Number.isFinite(x)) return fallback;
  return Math.max(0, Math.min(COMPARE_MAX_DRAWS, Math.floor(x)));
}

/** A comparison ready for its statistics: one kernel table per pipeline, then `finish` with their paired tables. */
export interface PreparedCompare {
  ok: true;
  /** One table per pipeline (a retrieval mode; one table for RAGBench): columns[r][j] is metric j of report r over its rows. */
  parts: Array<{ pipeline: string | null; columns: Column[][] }>;
  baseline: number;
  settings: { iterations: number; permutations: number; seed: number; alpha: number };
  finish(tables: PairedCell[][][]): CompareResult;
}

/**
 * Compare 2+ reports (see the module comment). The same as `prepareCompare` and `finish` with `pairedTable` on one
 * thread; the compare worker splits each table over two threads instead (`mergeTables`).
 */
export function compareReports(reports: readonly Report[], opts: CompareOptions = {}): CompareResult {
  const p = prepareCompare(reports, opts);
  return p.ok ? p.finish(p.parts.map((part) => pairedTable(part.columns, p.baseline, p.settings))) : p;
}

/**
 * The bootstrap half (permutations 0) and the randomization half (iterations 0) of one table as the whole table:
 * resamples draw from mulberry32(seed) and masks from mulberry32(seed + 1), so the halves are the whole's numbers.
 */
export function mergeTables(boot: PairedCell[][], perm: PairedCell[][]): PairedCell[][] {
  return boot.map((row, r) => row.map((c, j) => ({ ...c, pRandomization: perm[r]?.[j]?.pRandomization ?? null })));
}

/**
 * Checks the reports, pairs their rows and builds the kernel tables; the statistics come in `finish`. Rows pair by
 * pipeline and question (pipelines.ts `pairKey`): a retrieval report's rows of one mode only with the same mode's
 * rows of the others, and every figure, Δ, test and win/tie/loss is per mode; a RAGBench report is one pipeline.
 */
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
  // Reports of one pipeline each (single-mode retrieval runs, RAGBench) pair by question: their Δ is one pipeline
  // against another. Reports holding several modes pair by mode and question.
  const modesOf = (r: Report) => new Set(r.rows.map((row) => rowPipeline(r, row).pipeline));
  const onePipelineEach = reports.every((r) => modesOf(r).size <= 1);
  const keyOf = (r: Report, row: ReportRow) => (onePipelineEach ? rowPipeline(r, row).item : pairKey(r, row));
  // Rows by pipeline and question (the first of a repeated one; the schema asks for unique keys).
  const byKey = reports.map((r) => {
    const m = new Map<string, ReportRow>();
    let repeated = 0;
    for (const row of r.rows) { const k = keyOf(r, row); if (m.has(k)) repeated++; else m.set(k, row); }
    if (repeated) warnings.push(`Report ${nameOf(r)} repeats ${rowsWord(repeated)} by key: only the first of each is used.`);
    return m;
  });
  const shared = [...byKey[b]!.keys()].filter((k) => byKey.every((m) => m.has(k)));
  if (shared.length === 0) {
    if (kind === 'tune') return { ok: false, message: 'These tune reports share no trial (no setting, by mode and config hash, that both tunes tried): nothing to compare. Tunes of the same knowledge base and models over the same space share their trials.' };
    const modes = kind === 'retrieval' ? ' and, for retrieval reports, the same modes' : '';
    return { ok: false, message: `These reports share no rows (no question key in common${modes}): nothing to compare. Compare runs over the same questions (same dataset, subsets, seed and N).` };
  }
  reports.forEach((r, i) => {
    const extra = byKey[i]!.size - shared.length;
    if (extra > 0) warnings.push(`Report ${nameOf(r)} has ${rowsWord(extra)} the others lack: left out.`);
    if (r.truncated) warnings.push(`Report ${nameOf(r)} holds only ${r.rows.length} of its ${r.truncated.rows} rows (a summary, e.g. from a share link): the comparison uses those.`);
  });
  // The shared rows by pipeline, in the baseline's order; reports of one pipeline each: one part, named by the
  // mode when they all ran the same one.
  const common = onePipelineEach ? [...new Set(reports.flatMap((r) => [...modesOf(r)]))] : [];
  const pipelineOf = (k: string) => (onePipelineEach ? (common.length === 1 ? common[0]! : null) : rowPipeline(baseline, byKey[b]!.get(k)!).pipeline);
  const pipelines: Array<string | null> = [];
  for (const k of shared) { const p = pipelineOf(k); if (!pipelines.includes(p)) pipelines.push(p); }
  const keysOf = pipelines.map((p) => shared.filter((k) => pipelineOf(k) === p));
  if (pipelines.length > 1) warnings.push(`These retrieval reports hold ${pipelines.length} modes (${pipelines.join(', ')}): every figure, Δ and test is per mode, pairing only rows of the same mode and query.`);
  const fewest = Math.min(...keysOf.map((ks) => ks.length));
  if (fewest < MIN_ROWS) {
    warnings.push(pipelines.length > 1
      ? `N = ${fewest} shared rows in a mode: intervals are wide and tests have little power (fewer than ${MIN_ROWS}).`
      : `N = ${shared.length} shared rows: intervals are wide and tests have little power (fewer than ${MIN_ROWS}).`);
  }
  if (kind === 'tune') {
    warnings.push('Tune reports: a row is a setting both tunes tried (same mode and config hash), its figure the mean on the tuning queries of the last rung it reached in each tune, so a pair may rest on different queries; each tune\'s held-out figures are in its report.');
    const objectives = [...new Set(reports.map((r) => r.evaluator))];
    if (objectives.length > 1) warnings.push(`These tunes optimised different objectives (${objectives.join(', ')}): each objective is compared only where a tune scored it (the others: n/a).`);
  }
  if (settings.iterations === 0) warnings.push('Bootstrap iterations are 0: no intervals and no bootstrap p.');
  if (settings.permutations === 0) warnings.push('Permutations are 0: no randomization p and no significance marks.');

  // partRows[p][r]: report r's rows of pipeline p, in the same order for every report (paired).
  const partRows = keysOf.map((ks) => byKey.map((m) => ks.map((k) => m.get(k)!)));
  // A figure listed only with a field (RAGAS) is compared when any report's shared rows carry it (the others: n/a).
  const defs = metricsFor(kind, partRows.flat(2));
  const parts = pipelines.map((pipeline, p) => ({ pipeline, columns: partRows[p]!.map((rows) => defs.map((m) => metricColumn(m, rows))) }));
  const finish = (tables: PairedCell[][][]): CompareResult => {
    // perRowOf[p][r][j]: report r's per-row values of metric j on pipeline p's rows.
    const perRowOf = partRows.map((byReport) => byReport.map((rows) => defs.map((m) => rows.map((r) => m.perRow(r)))));

    // Holm over every (pipeline, metric, non-baseline report) cell with a randomization p.
    const flatP: Array<number | null> = [];
    tables.forEach((table) => defs.forEach((_, j) => reports.forEach((_, r) => { if (r !== b) flatP.push(table[r]![j]!.pRandomization); })));
    const adjusted = holm(flatP);
    let next = 0;
    const metrics = pipelines.flatMap((pipeline, p) => defs.map((m, j) => ({
      pipeline, id: m.id, label: m.label, higherIsBetter: m.higherIsBetter, digits: m.digits,
      cells: reports.map((rep, r): CompareCell => {
        const t = tables[p]![r]![j]!;
        const rows = partRows[p]![r]!;
        const value = fin(m.compute(rows));
        const n = perRowOf[p]![r]![j]!.filter((x) => x !== null).length;
        if (r === b) return { reportId: rep.id, value, ci: value === null ? null : finPair(t.ci), n, delta: null, deltaCi: null, pBootstrap: null, pRandomization: null, pHolm: null, significance: null, wtl: null };
        const pHolm = fin(adjusted[next++]);
        const base = fin(m.compute(partRows[p]![b]!));
        const delta = value === null || base === null ? null : fin(value - base);
        const significance = pHolm === null || delta === null ? 'none' : pHolm < settings.alpha && delta !== 0 ? ((delta > 0) === m.higherIsBetter ? 'better' : 'worse') : 'none';
        return {
          reportId: rep.id, value, ci: value === null ? null : finPair(t.ci), n, delta,
          deltaCi: delta === null ? null : finPair(t.deltaCi), pBootstrap: delta === null ? null : fin(t.pBootstrap), pRandomization: delta === null ? null : fin(t.pRandomization),
          pHolm: delta === null ? null : pHolm, significance, wtl: winTieLoss(perRowOf[p]![b]![j]!, perRowOf[p]![r]![j]!, m.higherIsBetter, eps),
        };
      }),
    })));

    // One question per shared row: a question of a multi-mode report once per mode, each paired within its mode.
    const questions: CompareQuestion[] = shared.map((key) => {
      const byReport: CompareQuestion['byReport'] = dict();
      reports.forEach((rep, r) => {
        const row = byKey[r]!.get(key)!;
        const perRow = dict<number | null>();
        for (const m of defs) perRow[m.id] = fin(m.perRow(row));
        byReport[rep.id] = { key: row.key, perRow, verdict: rowVerdict(kind, row) };
      });
      const bv = byReport[baseline.id]!.verdict;
      const flipped = bv !== null && reports.some((rep) => { const v = byReport[rep.id]!.verdict; return v !== null && v !== bv; });
      const row = byKey[b]!.get(key)!;
      return { key, pipeline: pipelineOf(key), group: row.group, question: row.question, byReport, flipped };
    });

    return {
      ok: true, kind, dataset, baselineId, reports: reports.map((r) => ({ id: r.id, title: reportTitle(r), rows: r.rows.length })),
      sharedRows: shared.length, metrics, questions, configDiff: configDiff(reports), warnings, settings,
    };
  };
  return { ok: true, parts, baseline: b, settings, finish };
}
