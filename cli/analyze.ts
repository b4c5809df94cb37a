/**
 * `rag-lab analyze --report FILE`: seed B's analysis of a retrieval report (src/lib/eval/analysis/analysis.ts, the code the
 * Benchmark tab's analysis runs, and its text, analysis-text.ts): H1, every recorded predictor against per-query
 * NDCG@10 of the retriever it reads, and H2, every pair of modes with Compare's paired statistics.
 */
import { ANALYSIS_DEFAULTS, analysisJson, analyzeRetrievalReport } from '../src/lib/eval/analysis/analysis.ts';
import { analysisText } from '../src/lib/eval/analysis/analysis-text.ts';
import { CliError, parse } from './args.ts';
import { drawFlags, readReport } from './compare.ts';

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

export async function analyzeCommand(argv: string[]): Promise<void> {
  const { values } = parse(argv, {
    report: { type: 'string' }, metric: { type: 'string' }, iterations: { type: 'string' }, permutations: { type: 'string' }, seed: { type: 'string' },
    json: { type: 'boolean', default: false }, help: { type: 'boolean', short: 'h' },
  });
  if (values.help) { console.log(HELP); return; }
  if (!values.report) throw new CliError(`--report FILE is required; see --help`);
  const { iterations, permutations, seed } = drawFlags(values);
  const report = readReport(values.report);
  const a = analyzeRetrievalReport(report, { iterations, permutations, seed, metric: values.metric });
  if (!a.ok) throw new CliError(`${values.report}: ${a.message}`);
  const text = analysisText(a, report).join('\n');
  if (values.json) process.stderr.write(`${text}\n`);
  else console.log(text);
  for (const w of a.warnings) process.stderr.write(`warning: ${w}\n`);
  if (values.json) console.log(JSON.stringify(analysisJson(a)));
}
