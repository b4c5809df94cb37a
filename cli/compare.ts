/**
 * `rag-lab compare A.json B.json [C.json…]`: the Compare table of saved reports (report format v1), computed by
 * src/lib/reports/compare.ts, the code behind the Compare tab.
 */
import { resolve } from 'node:path';
import { compareReports, COMPARE_DEFAULTS, COMPARE_MAX_DRAWS } from '../src/lib/reports/compare.ts';
import { fmtCi, fmtP, fmtSigned, fmtValue, fmtWtl, significanceLegend, significanceMark } from '../src/lib/reports/compare-format.ts';
import type { CompareResult } from '../src/lib/reports/compare-types.ts';
import { parseReportText, type Report } from '../src/lib/reports/format.ts';
import { CliError, numberArg, parse } from './args.ts';
import { readText } from './fs-errors.ts';
import { own } from '../src/lib/dict.ts';

const HELP = `Usage: rag-lab compare A.json B.json [C.json…] [options]

Compares saved reports of the same kind and dataset on the rows they share (paired by row key): each metric's value
with its 95% bootstrap interval, Δ against the baseline with its paired-bootstrap interval, the paired randomization
p, Holm's correction over the table (▲ / ▼ marks), per-row win/tie/loss, and the config differences.

  --baseline FILE|ID  the report the others are measured against (default: the first)
  --iterations N      paired-bootstrap resamples (default ${COMPARE_DEFAULTS.iterations})
  --permutations N    randomization-test permutations (default ${COMPARE_DEFAULTS.permutations})
  --seed S            seed of both (default ${COMPARE_DEFAULTS.seed})
  --json              print the comparison as one JSON object
`;

/** A report file, validated; a bad one is a CliError naming the file (exit 2). */
export function readReport(path: string): Report {
  const parsed = parseReportText(readText(path), path);
  if (!parsed.ok) throw new CliError(`${path}: ${parsed.message}`);
  return parsed.report;
}

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
  const rows: string[][] = [['metric', 'report', 'value [95% CI]', 'Δ vs baseline [95% CI]', 'p boot', 'p rand', 'p Holm', 'W/T/L']];
  for (const m of r.metrics) {
    m.cells.forEach((c, i) => {
      const base = c.reportId === r.baselineId;
      rows.push([
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
  }
  out.push(...table(rows), '', significanceLegend(r.settings.alpha, r.settings.permutations), 'W/T/L: rows where the report is better / equal / worse than the baseline.');
  if (r.warnings.length) out.push('', 'Warnings:', ...r.warnings.map((w) => `  ${w}`));
  const diff = r.configDiff.filter((d) => d.differs);
  out.push('', diff.length ? 'Config differences:' : 'Config differences: none');
  if (diff.length) out.push(...table([['path', ...r.reports.map((x) => title.get(x.id)!)], ...diff.map((d) => [d.path, ...r.reports.map((x) => own(d.values, x.id) ?? '—')])]).map((l) => `  ${l}`));
  return out;
}

export async function compareCommand(argv: string[]): Promise<void> {
  const { values, positionals } = parse(argv, {
    baseline: { type: 'string' }, iterations: { type: 'string' }, permutations: { type: 'string' }, seed: { type: 'string' },
    json: { type: 'boolean', default: false }, help: { type: 'boolean', short: 'h' },
  }, true);
  if (values.help) { console.log(HELP); return; }
  if (positionals.length < 2) throw new CliError(`compare needs at least 2 report files, got ${positionals.length}; see --help`);
  const draws = (name: string, v: string | undefined) => numberArg(name, v, (n) => Number.isInteger(n) && n >= 0 && n <= COMPARE_MAX_DRAWS, `an integer from 0 to ${COMPARE_MAX_DRAWS}`);
  const iterations = draws('iterations', values.iterations);
  const permutations = draws('permutations', values.permutations);
  const seed = numberArg('seed', values.seed, Number.isSafeInteger, 'an integer');
  const reports = positionals.map(readReport);
  let baselineId: string | undefined;
  if (values.baseline !== undefined) {
    const byPath = positionals.findIndex((p) => resolve(p) === resolve(values.baseline!));
    const byId = reports.findIndex((r) => r.id === values.baseline);
    const i = byPath >= 0 ? byPath : byId;
    if (i < 0) throw new CliError(`--baseline ${values.baseline} is neither one of the report files nor a report id among them`);
    baselineId = reports[i]!.id;
  }
  const result = compareReports(reports, { baselineId, iterations, permutations, seed });
  if (!result.ok) throw new CliError(result.message);
  if (values.json) console.log(JSON.stringify(result));
  else console.log(compareText(result).join('\n'));
}
