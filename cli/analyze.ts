/**
 * `rag-lab analyze --report FILE`: seed B's analysis of a retrieval report (src/lib/eval/analysis.ts, the code the
 * Benchmark tab's analysis runs): H1, every recorded predictor against per-query NDCG@10 of the retriever it reads,
 * and H2, every pair of modes with Compare's paired statistics.
 */
import { ANALYSIS_DEFAULTS, analysisJson, analyzeRetrievalReport, drawsSourceText, type RetrievalAnalysis } from '../src/lib/eval/analysis.ts';
import { hypothesisVerdicts, verdictLabel, type H1Verdict, type H2Verdict } from '../src/lib/eval/verdicts.ts';
import { COMPARE_MAX_DRAWS } from '../src/lib/reports/compare.ts';
import { fmtCi, fmtP, fmtSigned, fmtValue, NA } from '../src/lib/reports/compare-format.ts';
import type { Report } from '../src/lib/reports/format.ts';
import { CliError, numberArg, parse } from './args.ts';
import { reportTitle } from '../src/lib/reports/title.ts';
import { readReport, table } from './compare.ts';

const HELP = `Usage: rag-lab analyze --report FILE [options]

The analysis that seed B (the calibrated entropy-weighted hybrid retrieval study RAG Lab implements; docs/seeds.md)
asks of a retrieval report (rag-lab eval-beir --report-out, or a retrieval run saved by the Benchmark tab):
  H1  every predictor the run recorded (entropy under raw / minmax / zscore / cdf, clarity, NQC, WIG, α) against the
      per-query metric of the retriever it reads (sparse, dense; α: hybrid_calibrated): Pearson r with its 95%
      bootstrap interval and p, Spearman ρ, Kendall τ-b, and the sign expected if the predictor works;
  H2  every pair of modes on the per-query metric: Δ = a − b with its paired-bootstrap interval, the bootstrap and
      randomization p (the statistics of rag-lab compare), and per-query win/tie/loss of a against b.
Each table ends with the study's hypothesis and its verdict (supported, partially, not supported or n/a) with the
figures it rests on (Holm-corrected p; the rules: docs/analysis.md "Verdicts").

  --report FILE     the retrieval report (JSON, report format v1)
  --metric ID       the per-query metric (default ${ANALYSIS_DEFAULTS.metric}; also mrr@10, p@3, p@5, r@5, r@100)
  --iterations N    bootstrap resamples of every interval and of H2 (default: the report's config.resamples
                    when it is an integer from 100 to 100000, else ${ANALYSIS_DEFAULTS.iterations})
  --permutations N  randomization-test permutations of H2 (default: likewise, else ${ANALYSIS_DEFAULTS.permutations})
  --seed S          seed of the resamples and permutations (default: the report's seed)
  --json            print {"queries", "h1": […], "h2": […], "verdicts": {"h1", "h2"}} as one JSON object on the
                    last line of stdout (the tables then go to stderr)
`;

const fmtR = (x: number | null) => (x === null ? NA : fmtSigned(x, 3));

/** The lines under a hypothesis's table: seed B's hypothesis, the verdict with its reason, and H2's extra line. */
function verdictText(v: H1Verdict | H2Verdict): string[] {
  const extra = 'extra' in v && v.extra ? [`  ${v.extra}`] : [];
  return [`  Hypothesis: ${v.hypothesis}`, `  Verdict: ${verdictLabel(v.verdict)}. ${v.reason}.`, ...extra];
}

/** The H1 and H2 tables as text lines. */
export function analysisText(a: RetrievalAnalysis, report: Report): string[] {
  const verdicts = hypothesisVerdicts(a);
  const out = [
    `Analysis of "${reportTitle(report)}": retrieval on ${report.data.dataset}, ${a.queries} quer${a.queries === 1 ? 'y' : 'ies'} with ${a.metric}; mode${a.modes.length === 1 ? '' : 's'} ${a.modes.join(', ')}`,
    `${a.settings.iterations} bootstrap resamples, ${a.settings.permutations} permutations, seed ${a.settings.seed} (${drawsSourceText(a.settings, { iterations: '--iterations', permutations: '--permutations' })})`,
    '',
    `H1: predictors vs per-query ${a.metric} of the retriever they read`,
  ];
  if (a.h1.length === 0) out.push('  (no predictor in this report)');
  else {
    out.push(...table([
      ['predictor', 'retriever', 'calibration', 'n', 'r', '95% CI', 'p', 'Spearman', 'Kendall', 'expected', 'note'],
      ...a.h1.map((r) => [
        r.predictor, r.retriever, r.calibration ?? '—', String(r.n), fmtR(r.pearson_r), fmtCi(r.ci95, 3, true), fmtP(r.p_value),
        fmtR(r.spearman), fmtR(r.kendall), r.expected === 'negative' ? '−' : '+', r.note ?? '',
      ]),
    ]).map((l) => `  ${l}`));
  }
  out.push(...verdictText(verdicts.h1));
  out.push('', `H2: pairs of modes on per-query ${a.metric} (Δ = a − b; W/T/L: queries where a is better / equal / worse)`);
  if (a.h2.length === 0) out.push('  (fewer than 2 modes)');
  else {
    out.push(...table([
      ['a', 'b', 'n', 'Δ', '95% CI', 'p boot', 'p rand', 'W/T/L'],
      ...a.h2.map((r) => [r.a, r.b, String(r.n), r.delta === null ? NA : fmtSigned(r.delta, 4), fmtCi(r.ci95, 4, true), fmtP(r.p_value), fmtP(r.p_randomization), `${r.wins}/${r.ties}/${r.losses}`]),
    ]).map((l) => `  ${l}`));
  }
  out.push(...verdictText(verdicts.h2));
  out.push('', `r, Spearman ρ and Kendall τ-b: n/a where undefined (a constant side, fewer than 3 queries). Expected: the sign if the predictor works (entropy, α: −).`);
  return out;
}

export async function analyzeCommand(argv: string[]): Promise<void> {
  const { values } = parse(argv, {
    report: { type: 'string' }, metric: { type: 'string' }, iterations: { type: 'string' }, permutations: { type: 'string' }, seed: { type: 'string' },
    json: { type: 'boolean', default: false }, help: { type: 'boolean', short: 'h' },
  });
  if (values.help) { console.log(HELP); return; }
  if (!values.report) throw new CliError(`--report FILE is required; see --help`);
  const draws = (name: string, v: string | undefined) => numberArg(name, v, (n) => Number.isInteger(n) && n >= 0 && n <= COMPARE_MAX_DRAWS, `an integer from 0 to ${COMPARE_MAX_DRAWS}`);
  const iterations = draws('iterations', values.iterations);
  const permutations = draws('permutations', values.permutations);
  const seed = numberArg('seed', values.seed, Number.isSafeInteger, 'an integer');
  const report = readReport(values.report);
  const a = analyzeRetrievalReport(report, { iterations, permutations, seed, metric: values.metric });
  if (!a.ok) throw new CliError(`${values.report}: ${a.message}`);
  const text = analysisText(a, report).join('\n');
  if (values.json) process.stderr.write(`${text}\n`);
  else console.log(text);
  for (const w of a.warnings) process.stderr.write(`warning: ${w}\n`);
  if (values.json) console.log(JSON.stringify(analysisJson(a)));
}
