/** `rag-lab eval-ragbench`: TRACe evaluators against RAGBench gold labels, next to the dataset's baseline evaluators. */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { formatIssue, parseRagbenchJsonl, RAGBENCH_SUBSETS, RagbenchError } from '../src/lib/data/ragbench.ts';
import { LexicalEvaluator } from '../src/lib/eval/lexical.ts';
import { createProvider, PROVIDER_IDS } from '../src/lib/llm/registry.ts';
import { redactSecrets } from '../src/lib/llm/redact.ts';
import {
  judgeRowEvaluator,
  lexicalRowEvaluator,
  meanOver,
  nliRowEvaluator,
  validateRagbench,
  validationSummary,
  type SubsetValidation,
  type TraceEvaluator,
} from '../src/lib/eval/ragbench-validate.ts';
import { ModelLoadError } from '../src/lib/models/errors.ts';
import { loadNli } from '../src/lib/models/nli.ts';
import { DEFAULT_MODELS } from '../src/lib/models/registry.ts';
import type { Dtype } from '../src/lib/models/types.ts';
import { CliError, numberArg, parse } from './args.ts';
import { loadCliModels, MODEL_ARGS, MODEL_HELP } from './models.ts';

const EVALUATORS = ['lexical', 'nli', 'llm'] as const;
type EvaluatorName = (typeof EVALUATORS)[number];

const HELP = `Usage: rag-lab eval-ragbench --data <dir> [options]

  --data DIR          folder of RAGBench test subsets, one <subset>.jsonl each (26 fields a row)
  --subsets LIST      comma-separated subsets (default: ${RAGBENCH_SUBSETS.join(',')})
  --evaluator NAME    lexical (offline, default) | nli (local cross-encoder + NLI models) | llm (LLM judge)
  --mode validate     score the rows and compare with the gold labels and the baselines (the only mode)
  --n N               score a seeded random sample of N rows per subset (default: all)
  --seed S            sample and bootstrap seed (default 0)
  --bootstrap B       95% bootstrap interval of our AUROC from B resamples (default: none)
  --json              print one JSON object on the last line of stdout

  llm evaluator (an LLM judge with RAGBench's annotation schema, JSON mode, temperature 0):
  --provider ID       ${PROVIDER_IDS.join(' | ')}
  --model NAME        model name at the provider
  --base-url URL      endpoint (default: the provider's; e.g. http://localhost:11434/v1 for Ollama)
  --api-key KEY       API key (or set RAG_LAB_API_KEY; prefer the variable: command lines end up in shell history)
  --concurrency C     rows judged at once (default 1)

  nli evaluator models (same flags as eval-beir):
  --nli ID            NLI model (default ${DEFAULT_MODELS.nli})
${MODEL_HELP}
`;

const fmt = (x: number, w = 7) => (Number.isFinite(x) ? x.toFixed(3) : '—').padStart(w);

export function formatValidationTable(results: readonly SubsetValidation[], evaluator: string): string {
  const head = ['subset'.padEnd(11), 'n'.padStart(5), 'halluc'.padStart(6), '|',
    'AUROC:', 'ours'.padStart(6), 'ragas'.padStart(7), 'trulens'.padStart(7), 'gpt3'.padStart(7), '|',
    'RMSE rel:', 'ours'.padStart(5), 'ragas'.padStart(7), 'trulens'.padStart(7), 'gpt3'.padStart(7), '|',
    'RMSE util:', 'ours'.padStart(5), 'gpt35'.padStart(7), '|', 'RMSE compl'].join(' ');
  const row = (name: string, n: string, h: string, r: { auroc: number; ragas: number; trulens: number; gpt3: number; rr: number; rragas: number; rtrulens: number; rgpt3: number; ru: number; rugpt: number; rc: number }) =>
    [name.padEnd(11), n.padStart(5), h.padStart(6), '|', ''.padStart(6), fmt(r.auroc, 6), fmt(r.ragas), fmt(r.trulens), fmt(r.gpt3), '|',
      ''.padStart(9), fmt(r.rr, 5), fmt(r.rragas), fmt(r.rtrulens), fmt(r.rgpt3), '|', ''.padStart(10), fmt(r.ru, 5), fmt(r.rugpt), '|', fmt(r.rc, 10)].join(' ');
  const lines = results.map((r) => row(r.subset, String(r.n), String(r.hallucinations), {
    auroc: r.auroc, ragas: r.baselines.ragas.auroc, trulens: r.baselines.trulens.auroc, gpt3: r.baselines.gpt3.auroc,
    rr: r.rmse_relevance, rragas: r.baselines.ragas.rmse_relevance, rtrulens: r.baselines.trulens.rmse_relevance, rgpt3: r.baselines.gpt3.rmse_relevance,
    ru: r.rmse_utilization, rugpt: r.baselines.gpt3.rmse_utilization, rc: r.rmse_completeness,
  }));
  const m = (f: (r: SubsetValidation) => number) => meanOver(results, f);
  lines.push(row('mean', String(results.reduce((a, r) => a + r.n, 0)), String(results.reduce((a, r) => a + r.hallucinations, 0)), {
    auroc: m((r) => r.auroc), ragas: m((r) => r.baselines.ragas.auroc), trulens: m((r) => r.baselines.trulens.auroc), gpt3: m((r) => r.baselines.gpt3.auroc),
    rr: m((r) => r.rmse_relevance), rragas: m((r) => r.baselines.ragas.rmse_relevance), rtrulens: m((r) => r.baselines.trulens.rmse_relevance), rgpt3: m((r) => r.baselines.gpt3.rmse_relevance),
    ru: m((r) => r.rmse_utilization), rugpt: m((r) => r.baselines.gpt3.rmse_utilization), rc: m((r) => r.rmse_completeness),
  }));
  const ci = results.filter((r) => r.auroc_ci).map((r) => `  ${r.subset}: AUROC ${fmt(r.auroc, 5)} [${fmt(r.auroc_ci![0], 5)}, ${fmt(r.auroc_ci![1], 5)}]`);
  return [`RAGBench validate, evaluator ${evaluator}: hallucination AUROC (higher is better) and RMSE vs gold (lower is better)`,
    head, '-'.repeat(head.length), ...lines, ...(ci.length ? ['', '95% bootstrap intervals:', ...ci] : [])].join('\n');
}

export async function evalRagbenchCommand(argv: string[]): Promise<void> {
  const { values } = parse(argv, {
    data: { type: 'string' }, subsets: { type: 'string' }, evaluator: { type: 'string', default: 'lexical' },
    mode: { type: 'string', default: 'validate' }, n: { type: 'string' }, seed: { type: 'string' }, bootstrap: { type: 'string' },
    json: { type: 'boolean', default: false }, help: { type: 'boolean', short: 'h' }, nli: { type: 'string' },
    provider: { type: 'string' }, model: { type: 'string' }, 'base-url': { type: 'string' }, 'api-key': { type: 'string' },
    concurrency: { type: 'string' },
    ...MODEL_ARGS,
  });
  if (values.help) { console.log(HELP); return; }
  if (!values.data) throw new CliError(`--data is required\n\n${HELP}`);
  if (values.mode !== 'validate') throw new CliError(`--mode must be validate, got "${values.mode}"`);
  if (!(EVALUATORS as readonly string[]).includes(values.evaluator)) throw new CliError(`--evaluator must be one of ${EVALUATORS.join(', ')}, got "${values.evaluator}"`);
  const evaluatorName = values.evaluator as EvaluatorName;
  const n = numberArg('n', values.n, (x) => Number.isInteger(x) && x > 0, 'a positive integer');
  const seed = numberArg('seed', values.seed, Number.isInteger, 'an integer') ?? 0;
  const concurrency = numberArg('concurrency', values.concurrency, (x) => Number.isInteger(x) && x > 0, 'a positive integer') ?? 1;
  const bootstrap = numberArg('bootstrap', values.bootstrap, (x) => Number.isInteger(x) && x >= 0, 'an integer >= 0') ?? 0;
  const dir = resolve(values.data);
  if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new CliError(`${dir}: folder not found (expected a folder of RAGBench <subset>.jsonl files)`);
  const subsets = values.subsets ? values.subsets.split(',').map((s) => s.trim()).filter(Boolean) : [...RAGBENCH_SUBSETS];
  if (subsets.length === 0) throw new CliError('--subsets is empty');
  for (const s of subsets) {
    if (!existsSync(join(dir, `${s}.jsonl`))) throw new CliError(`${join(dir, `${s}.jsonl`)}: subset file not found (subsets: ${RAGBENCH_SUBSETS.join(', ')})`);
  }
  const log = (msg: string) => { if (!values.json) console.log(msg); else process.stderr.write(msg + '\n'); };

  let parseFailures = 0;
  let callFailures = 0;
  let firstFailure: string | null = null;
  let evaluate: TraceEvaluator;
  if (evaluatorName === 'lexical') {
    evaluate = lexicalRowEvaluator(new LexicalEvaluator());
  } else if (evaluatorName === 'nli') {
    const models = await loadCliModels(values, { dense: false, reranker: true }, log);
    const id = values.nli ?? DEFAULT_MODELS.nli;
    const t0 = performance.now();
    let nli;
    try {
      nli = await loadNli({ id, dtype: values.dtype as Dtype, device: 'cpu' });
    } catch (e) {
      throw new CliError(e instanceof ModelLoadError ? e.message : `could not load NLI model ${id}: ${(e as Error).message}`);
    }
    log(`loaded NLI ${id} (${values.dtype}) in ${(performance.now() - t0).toFixed(0)} ms`);
    evaluate = nliRowEvaluator({ nli, reranker: models.reranker });
  } else {
    if (!values.provider) throw new CliError(`--evaluator llm needs --provider (${PROVIDER_IDS.join(', ')}) and --model`);
    if (!values.model) throw new CliError('--evaluator llm needs --model');
    const apiKey = values['api-key'] ?? process.env.RAG_LAB_API_KEY ?? undefined;
    let provider;
    try {
      provider = createProvider({ provider: values.provider, baseUrl: values['base-url'], model: values.model, apiKey });
    } catch (e) {
      throw new CliError(redactSecrets((e as Error).message, [apiKey]));
    }
    const judge = judgeRowEvaluator(provider, { model: values.model }, (row, r) => {
      if (r.parseFailed) { parseFailures++; log(`${row.id} (${row.generation_model_name}): judge reply not parsed (${r.error}); scores left out`); }
    });
    evaluate = async (row, signal) => {
      try {
        return await judge(row, signal);
      } catch (e) {
        if (signal?.aborted) throw e;
        callFailures++;
        firstFailure ??= redactSecrets((e as Error).message, [apiKey]);
        log(`${row.id} (${row.generation_model_name}): judge call failed: ${redactSecrets((e as Error).message, [apiKey])}`);
        return { relevance: NaN, utilization: NaN, adherence: NaN, completeness: NaN };
      }
    };
  }

  const results: SubsetValidation[] = [];
  for (const subset of subsets) {
    const file = join(dir, `${subset}.jsonl`);
    let parsed;
    try {
      parsed = parseRagbenchJsonl(readFileSync(file, 'utf8'), subset);
    } catch (e) {
      if (e instanceof RagbenchError) throw new CliError(`${file}: ${e.message}`);
      throw e;
    }
    if (parsed.skipped.length > 0) {
      log(`${subset}: skipped ${parsed.skipped.length} of ${parsed.total} rows:`);
      for (const i of parsed.skipped.slice(0, 5)) log(`  ${formatIssue(i)}`);
      if (parsed.skipped.length > 5) log(`  … and ${parsed.skipped.length - 5} more`);
    }
    const t0 = performance.now();
    let lastPct = -1;
    const r = await validateRagbench(parsed.rows, subset, evaluate, {
      ...(n !== undefined ? { n } : {}), seed, bootstrap, concurrency: evaluatorName === 'llm' ? concurrency : 1,
      onProgress: evaluatorName === 'lexical' ? undefined : (done, total) => {
        const pct = Math.floor((100 * done) / Math.max(1, total) / 10) * 10;
        if (pct !== lastPct) { lastPct = pct; process.stderr.write(`${subset}: ${done}/${total}\n`); }
      },
    });
    log(`${subset}: ${r.n} rows scored in ${(performance.now() - t0).toFixed(0)} ms`);
    results.push(r);
    if (evaluatorName === 'llm' && callFailures >= r.n && results.length === 1) throw new CliError(`every judge call failed; the first: ${firstFailure}`, 1);
  }
  if (parseFailures + callFailures > 0) log(`judge: ${parseFailures} replies not parsed, ${callFailures} calls failed (those rows are left out of the metrics)`);
  if (values.json) console.log(JSON.stringify({ evaluator: evaluatorName, mode: 'validate', ...validationSummary(results) }));
  else console.log(formatValidationTable(results, evaluatorName));
}
