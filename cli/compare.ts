/**
 * `rag-lab compare A.json B.json [C.json…]`: the Compare table of saved reports (report format v1), computed by
 * src/lib/reports/compare.ts, the code behind the Compare tab (and its text, compare-text.ts).
 */
import { resolve } from 'node:path';
import { compareReports, COMPARE_DEFAULTS, COMPARE_MAX_DRAWS } from '../src/lib/reports/compare.ts';
import { compareText } from '../src/lib/reports/compare-text.ts';
import { parseReportText, type Report } from '../src/lib/reports/format.ts';
import { CliError, numberArg, parse } from './args.ts';
import { readText, writeText } from './fs-errors.ts';
import { reportFileText } from '../src/lib/reports/title.ts';

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

/** Writes a report file (when `path` names one) and says so on stderr, with what it holds. */
export function writeReport(path: string | undefined, report: Report | null, holds = `${report?.rows.length} rows`): void {
  if (!path || !report) return;
  writeText(path, reportFileText(report));
  process.stderr.write(`report written to ${path} (${holds})\n`);
}

/** --iterations, --permutations and --seed of compare and analyze. */
export function drawFlags(v: { iterations?: string | undefined; permutations?: string | undefined; seed?: string | undefined }) {
  const draws = (name: string, x: string | undefined) => numberArg(name, x, (n) => Number.isInteger(n) && n >= 0 && n <= COMPARE_MAX_DRAWS, `an integer from 0 to ${COMPARE_MAX_DRAWS}`);
  return { iterations: draws('iterations', v.iterations), permutations: draws('permutations', v.permutations), seed: numberArg('seed', v.seed, Number.isSafeInteger, 'an integer') };
}

export async function compareCommand(argv: string[]): Promise<void> {
  const { values, positionals } = parse(argv, {
    baseline: { type: 'string' }, iterations: { type: 'string' }, permutations: { type: 'string' }, seed: { type: 'string' },
    json: { type: 'boolean', default: false }, help: { type: 'boolean', short: 'h' },
  }, true);
  if (values.help) { console.log(HELP); return; }
  if (positionals.length < 2) throw new CliError(`compare needs at least 2 report files, got ${positionals.length}; see --help`);
  const { iterations, permutations, seed } = drawFlags(values);
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
