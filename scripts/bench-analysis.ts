/**
 * `npm run bench:analysis`: how long analyzeRetrievalReport (src/lib/eval/analysis/analysis.ts) takes on a synthetic
 * retrieval report of --queries queries (default 300) × the 7 modes with every predictor field (entropy of both
 * retrievers under the 4 calibrations, clarity, NQC, NQC without normaliser, WIG of both, α under the 4
 * calibrations: 20 H1 rows, 21 H2 pairs), at --iterations resamples and --permutations permutations (default
 * 10,000 each). Prints the median of --reps runs (default 3) of the whole analysis and of H2 alone (the same report
 * without predictor fields; H1 is the difference), in ms. Figures only: nothing here asserts a time.
 */
import { cpus, loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { analyzeRetrievalReport } from '../src/lib/eval/analysis/analysis.ts';
import { MODE_IDS } from '../src/lib/retrieval/modes.ts';
import { multiModeReport, spread } from '../tests/helpers/retrieval-reports.ts';

const { values } = parseArgs({ options: { queries: { type: 'string', default: '300' }, iterations: { type: 'string', default: '10000' }, permutations: { type: 'string', default: '10000' }, reps: { type: 'string', default: '3' }, json: { type: 'boolean', default: false } } });
const int = (k: 'queries' | 'iterations' | 'permutations' | 'reps') => {
  const n = Number(values[k]);
  if (!Number.isInteger(n) || n < 1) throw new Error(`--${k} must be a positive integer, got ${values[k]}`);
  return n;
};
const queries = int('queries'), iterations = int('iterations'), permutations = int('permutations'), reps = int('reps');

const CALIBRATIONS = ['raw', 'minmax', 'zscore', 'cdf'];
const FIELDS = [
  ...['sparse', 'dense'].flatMap((r) => CALIBRATIONS.map((c) => `qpp.entropy.${r}.${c}`)),
  ...['clarity', 'nqc', 'nqc_nonorm', 'wig'].flatMap((p) => [`qpp.${p}.sparse`, `qpp.${p}.dense`]),
  ...CALIBRATIONS.map((c) => `qpp.alpha.fusion.${c}`),
];
const ndcg = Object.fromEntries(MODE_IDS.map((m, i) => [m, spread(queries, i + 1)]));
const predictorValues = FIELDS.map((_, j) => spread(queries, 100 + j));
const predictors = (i: number) => Object.fromEntries(FIELDS.map((f, j) => [f, predictorValues[j]![i]!]));
const full = multiModeReport(ndcg, predictors);
const noPredictors = multiModeReport(ndcg);

function median(f: () => void): number {
  const ms: number[] = [];
  for (let r = 0; r < reps; r++) { const t = performance.now(); f(); ms.push(performance.now() - t); }
  ms.sort((a, b) => a - b);
  return ms[Math.floor(ms.length / 2)]!;
}
const opts = { iterations, permutations };
const run = (report: typeof full) => () => { const a = analyzeRetrievalReport(report, opts); if (!a.ok) throw new Error(a.message); };
const whole = median(run(full));
const h2 = median(run(noPredictors));
const rows = [
  { what: `analyzeRetrievalReport: ${queries} queries × ${MODE_IDS.length} modes, ${FIELDS.length} predictor fields (H1 + H2)`, ms: whole },
  { what: `  the same without predictor fields (H2 only: ${(MODE_IDS.length * (MODE_IDS.length - 1)) / 2} pairs)`, ms: h2 },
  { what: '  H1 (the difference)', ms: whole - h2 },
];
const env = `${cpus().length} CPUs (${cpus()[0]?.model ?? '?'}), load ${loadavg()[0]!.toFixed(2)}, node ${process.version}; B = ${iterations}, R = ${permutations}, median of ${reps}`;
if (values.json) console.log(JSON.stringify({ env, rows }));
else {
  console.log(env);
  for (const r of rows) console.log(`${r.what.padEnd(90)} ${r.ms.toFixed(0).padStart(7)} ms`);
}
