/**
 * `rag-lab eval-ragbench`: TRACe evaluators against RAGBench gold labels, next to the dataset's baseline evaluators
 * (validate mode), and RAG Lab's own pipeline on RAGBench questions over a knowledge base of each subset's pooled
 * documents (pipeline mode). API runs print a token/cost estimate before they start and the actual usage after.
 * Flags are parsed and output printed here; src/lib/eval sets up the API (api-setup.ts) and the run's settings
 * (ragbench-run-settings.ts), runs the sessions (session.ts, ragbench-pipeline-session.ts) and writes the text.
 */
import { resolve } from 'node:path';
import { RAGBENCH_SUBSETS } from '../src/lib/data/ragbench.ts';
import { ApiSetupError, apiSetup, type ApiSetup } from '../src/lib/eval/core/api-setup.ts';
import { usageLines } from '../src/lib/eval/core/api-usage.ts';
import { MemoryResultStore, type RunProgress } from '../src/lib/eval/ragbench-run/resumable-rows.ts';
import { UsageMeter } from '../src/lib/eval/core/cost.ts';
import { buildEvaluatorDeps, nliModelLoader } from '../src/lib/eval/score/evaluator-deps.ts';
import { EVALUATORS, judgeFlagProblem, runsOffline, type EvaluatorId } from '../src/lib/eval/score/evaluators.ts';
import { sampledJudgeEstimate } from '../src/lib/eval/ragbench/judge-runs.ts';
import { runRagbenchPipelineSession } from '../src/lib/eval/ragbench-run/pipeline-session.ts';
import { pipelineJson, rowLabels, validateJson } from '../src/lib/eval/ragbench-run/ragbench-output.ts';
import { ragbenchRunSettings, type RagbenchRunSettings } from '../src/lib/eval/ragbench-run/ragbench-run-settings.ts';
import { RAGBENCH_RUN_DEFAULTS, RAGBENCH_RUN_SETTINGS as RUN_FLAGS } from '../src/lib/eval/ragbench-run/ragbench-run-schema.ts';
import { flagHelp, flagOptions, readFlags } from '../src/lib/settings/cli-flags.ts';
import { kbLine, pipelineEstimateLines, pipelineText, validateEstimateLines, validateText } from '../src/lib/eval/ragbench-run/ragbench-tables.ts';
import { runValidateSession } from '../src/lib/eval/ragbench-run/ragbench-loops.ts';
import { RATE_LIMIT_PRESETS } from '../src/lib/llm/rate-limit.ts';
import { PROVIDER_IDS } from '../src/lib/llm/registry.ts';
import { redactSecrets } from '../src/lib/llm/redact.ts';
import { loadNli } from '../src/lib/models/nli.ts';
import { DEFAULT_MODELS } from '../src/lib/models/registry.ts';
import type { Dtype } from '../src/lib/models/types.ts';
import { DEFAULT_RAG_CONFIG, type RagConfig } from '../src/lib/rag/config.ts';
import { MODE_IDS } from '../src/lib/retrieval/modes.ts';
import { attachDense } from '../src/lib/store/dense-loader.ts';
import { CliError, numberArg, parse } from './args.ts';
import { writeReport } from './compare.ts';
import { checkInputDir, checkOutputFile } from './fs-errors.ts';
import { loadCliModels, MODEL_ARGS, MODEL_HELP, type CliModels } from './models.ts';
import { pipelineConfig, RAG_FLAG_ARGS, RAG_FLAG_HELP, RAG_FLAG_NAMES } from './rag-flags.ts';
import { chooseSubsets, readSubsets } from './ragbench-folder.ts';
import { tenthLines } from '../src/lib/util/progress-bar.ts';

const HELP = `Usage: rag-lab eval-ragbench --data <dir> [options]

  --data DIR          folder of RAGBench test subsets, one <subset>.jsonl each (26 fields a row)
  --subsets LIST      comma-separated subsets (default: every <subset>.jsonl in DIR of ${RAGBENCH_SUBSETS.join(',')})
${flagHelp(RUN_FLAGS)}
  --json              print one JSON object on the last line of stdout
  --report-out FILE   also write the run as a RAG Lab report (format v1, docs/reports.md): every scored row with its
                      gold labels, the summary with 95% bootstrap intervals and small-sample warnings, the settings
                      (never a key); the Reports tab opens it with the same numbers

  LLM (the judge with --evaluator llm; in pipeline mode the answering model, and the judge too with --evaluator llm):
  --provider ID       ${PROVIDER_IDS.join(' | ')}
  --model NAME        model name at the provider
  --base-url URL      endpoint (default: the provider's; e.g. http://localhost:11434/v1 for Ollama)
  --api-key KEY       API key (or set RAG_LAB_API_KEY; prefer the variable: command lines end up in shell history)
  --rpm N             client-side limit: at most N requests per minute (sliding window)
  --tpm N             client-side limit: at most N tokens per minute (chars/4 estimate, corrected by reported usage)
  --limits PRESET     published free-tier limits for --model: ${Object.keys(RATE_LIMIT_PRESETS).join(', ')} (--rpm/--tpm override)
  --price-in USD      price per 1M input tokens for the cost estimate (default: the built-in table; 0 if unknown)
  --price-out USD     price per 1M output tokens

  pipeline settings (the Ask tab's RagConfig; defaults: ${DEFAULT_RAG_CONFIG.retrieval.mode}, top ${DEFAULT_RAG_CONFIG.retrieval.topK}, window ${DEFAULT_RAG_CONFIG.window}, no rerank, no transform):
  --retrieval-mode M  ${MODE_IDS.join(' | ')} (--retrieval is the same flag); dense and hybrid modes need
                      an embedder (--embedder, --models-dir as for eval-beir), rerank a cross-encoder (--reranker)
${RAG_FLAG_HELP}

  nli evaluator and dense retrieval models (same flags as eval-beir):
  --nli ID            NLI model (default ${DEFAULT_MODELS.nli})
${MODEL_HELP}

  Before an API run the token/cost estimate is printed (input = chars/4 of the prompts; output assumed per call),
  and after it the usage the provider reported. Nothing here prints the API key.

  --json's fields, per mode: docs/cli.md ("eval-ragbench --json").
`;

// ------------------------------------------------------------------------------------------------ flags and API

const OPTIONS = {
  data: { type: 'string' }, subsets: { type: 'string' }, ...flagOptions(RUN_FLAGS),
  json: { type: 'boolean', default: false }, 'report-out': { type: 'string' }, help: { type: 'boolean', short: 'h' }, nli: { type: 'string' },
  provider: { type: 'string' }, model: { type: 'string' }, 'base-url': { type: 'string' }, 'api-key': { type: 'string' },
  rpm: { type: 'string' }, tpm: { type: 'string' }, limits: { type: 'string' }, 'price-in': { type: 'string' }, 'price-out': { type: 'string' },
  retrieval: { type: 'string' }, 'retrieval-mode': { type: 'string' },
  ...RAG_FLAG_ARGS, ...MODEL_ARGS,
} as const;

type Values = ReturnType<typeof parse<typeof OPTIONS>>['values'];

/** The API run's provider, limits and price from the LLM flags (api-setup.ts); prints the rate limits line. */
function setupApi(values: Values, need: string, log: (m: string) => void): ApiSetup {
  const { provider, model } = values;
  if (!provider) throw new CliError(`${need} needs --provider (${PROVIDER_IDS.join(', ')}) and --model`);
  if (!model) throw new CliError(`${need} needs --model`);
  const rate = (f: 'rpm' | 'tpm') => numberArg(f, values[f], (x) => x > 0, 'a number > 0');
  const price = (f: 'price-in' | 'price-out') => numberArg(f, values[f], (x) => x >= 0, 'a number >= 0');
  try {
    const api = apiSetup({
      provider, model, baseUrl: values['base-url'], apiKey: values['api-key'] ?? process.env.RAG_LAB_API_KEY, limitsPreset: values.limits,
      rates: () => ({ rpm: rate('rpm'), tpm: rate('tpm') }), prices: () => ({ inputPerM: price('price-in'), outputPerM: price('price-out') }),
      onWait: ({ ms, reason }) => { if (ms >= 1000) process.stderr.write(`rate limit (${reason === 'rpm' ? 'requests' : 'tokens'} per minute): waiting ${(ms / 1000).toFixed(1)} s\n`); },
    });
    if (api.limitsLine) log(api.limitsLine);
    return api;
  } catch (e) {
    throw e instanceof ApiSetupError ? new CliError(e.kind === 'limits' ? `--limits: ${e.message}` : e.message) : e;
  }
}

// ------------------------------------------------------------------------------------------------ models, data, reports

/** The NLI evaluator's models from local files: the cross-encoder (`reranker`, loaded first), then the NLI model. */
const nliLoader = (values: Values, log: (m: string) => void, reranker: () => Promise<CliModels['reranker']>) =>
  nliModelLoader({ id: values.nli ?? DEFAULT_MODELS.nli, dtype: values.dtype as Dtype, device: 'cpu' }, { reranker, nli: loadNli }, { log, error: (m) => new CliError(m) });

// ------------------------------------------------------------------------------------------------ command

/** What both modes take from the command: the flags, the API setup, the run's settings, the log and the row names. */
interface Run extends RagbenchRunSettings { values: Values; api: ApiSetup | null; evaluator: EvaluatorId; repeats: number; log: (m: string) => void; labels: ReturnType<typeof rowLabels> }

export async function evalRagbenchCommand(argv: string[]): Promise<void> {
  const { values } = parse(argv, OPTIONS);
  if (values.help) { console.log(HELP); return; }
  if (!values.data) throw new CliError(`--data is required\n\n${HELP}`);
  // The run's own settings, each checked against its declaration (eval/ragbench-run/ragbench-run-schema.ts).
  const { mode, evaluator, n, seed, concurrency, bootstrap, repeats, temperature } = { ...RAGBENCH_RUN_DEFAULTS, ...readFlags(RUN_FLAGS, values, (m) => new CliError(m)) };
  const judgeFlags = judgeFlagProblem(evaluator, repeats, temperature ?? undefined);
  if (judgeFlags) throw new CliError(judgeFlags);
  const usesApi = mode === 'pipeline' || EVALUATORS[evaluator].api;
  for (const f of ['rpm', 'tpm', 'limits', 'price-in', 'price-out'] as const) {
    if (values[f] !== undefined && !usesApi) throw new CliError(`--${f} applies to API runs (--evaluator llm or --mode pipeline)`);
  }
  for (const f of ['retrieval', 'retrieval-mode', ...RAG_FLAG_NAMES]) {
    const given = (values as Record<string, unknown>)[f];
    if (given !== undefined && given !== false && mode !== 'pipeline') throw new CliError(`--${f} applies to --mode pipeline`);
  }
  // The report's path is checked before any work, so a typo does not cost the run.
  if (values['report-out']) checkOutputFile(values['report-out'], '--report-out');
  const dir = resolve(values.data);
  checkInputDir(dir, '--data', 'a folder of RAGBench <subset>.jsonl files');
  const log = (msg: string) => { if (!values.json) console.log(msg); else process.stderr.write(msg + '\n'); };
  const subsets = chooseSubsets(dir, values.subsets, log);
  const config = mode === 'pipeline' ? pipelineConfig(values) : null;
  const api = usesApi ? setupApi(values, mode === 'pipeline' ? '--mode pipeline' : `--evaluator ${evaluator}`, log) : null;
  const data = readSubsets(dir, subsets, mode, log);

  const run: Run = {
    values, api, evaluator, repeats, log, labels: rowLabels(data.values()),
    // The models as the flags name them, the evaluator settings and the report's config and environment.
    ...ragbenchRunSettings({
      mode, data, n: n ?? undefined, seed, evaluator, repeats, temperature: temperature ?? undefined, api, rag: config, modelIds: values, device: 'cpu', bootstrap, concurrency,
      runtime: { runtime: 'node', agent: `node ${process.version} (${process.platform})` }, source: 'local',
      withReport: values['report-out'] !== undefined, redact: (m) => redactSecrets(m, [api?.apiKey]),
    }),
  };
  for (const note of EVALUATORS[evaluator].notes?.(run.session.settings) ?? []) log(note);
  if (mode === 'pipeline') await pipelineMode(run, config!, api!);
  else await validateMode(run);
}

async function validateMode(a: Run): Promise<void> {
  const { values, api, evaluator, log, labels, repeats } = a;
  let parseFailures = 0;
  const planned = EVALUATORS[evaluator].repeatable ? sampledJudgeEstimate(a.session.subsets, a.session, { repeats, price: api!.price }) : null;
  if (planned) for (const l of validateEstimateLines(api!, planned, repeats)) log(l);
  const loader = { ...nliLoader(values, log, async () => (await loadCliModels(values, { dense: false, reranker: true }, log)).reranker),
    embedder: async () => (a.session.settings.ragas?.embedder ? (await loadCliModels(values, { dense: true, reranker: false }, log)).embedder : null) };
  const deps = await buildEvaluatorDeps(evaluator, { models: loader, judge: api?.provider ?? null });
  let first = true;
  const session = await runValidateSession({
    ...a.session, deps, store: new MemoryResultStore(),
    onJudge: (row, r) => {
      if (r.parseFailedCalls === 0) return;
      parseFailures += r.parseFailedCalls;
      const why = r.results.find((x) => x.parseFailed)?.error;
      log(`${row.id} (${row.generation_model_name}): ${r.parseFailedCalls}/${r.results.length} judge replies not parsed (${why})${r.parseFailed ? '; scores left out' : ''}`);
    },
    ...(runsOffline(evaluator) ? {} : { onProgress: ((print) => (p: RunProgress) => print(p.subset, p.done + p.failed, p.total))(tenthLines(process.stderr)) }),
    onSubset: (run, ms) => {
      const v = run.validation;
      for (const f of run.failures) log(`${labels.text(f.key)}: ${EVALUATORS[evaluator].repeatable ? 'judge call failed' : 'evaluator failed'}: ${f.reason}`);
      log(`${v.subset}: ${v.n} rows scored in ${ms.toFixed(0)} ms${run.failures.length ? ` (${run.failures.length} failed, left out)` : ''}`);
      if (first && v.n === 0 && run.failures.length > 0) throw new CliError(`every ${EVALUATORS[evaluator].repeatable ? 'judge call' : 'row'} failed; the first: ${run.failures[0]!.reason}`, 1);
      first = false;
    },
  });
  const { judge } = session, results = session.runs.map((r) => r.validation), judgeMeter = judge?.usage ?? session.judgeUsage ?? new UsageMeter();
  if (judge && parseFailures + judgeMeter.failedCalls > 0) log(`judge: ${parseFailures} replies not parsed, ${judgeMeter.failedCalls} calls failed (rows without a parsed reply are left out of the metrics)`);
  if (values.json) console.log(JSON.stringify(validateJson({ evaluator, results, judge, labelJson: labels.json, api, estimate: planned?.estimate ?? null, judgeUsage: session.judgeUsage, notes: session.evaluatorNotes })));
  else console.log(validateText(results, { evaluator, repeats, judge, labelOf: labels.text }));
  if (api) for (const l of usageLines(api, [['judge', judgeMeter]])) log(l);
  writeReport(values['report-out'], session.report);
}

async function pipelineMode(a: Run, config: RagConfig, api: ApiSetup): Promise<void> {
  const { values, log, evaluator, repeats, needs } = a;
  const cliModels = needs.embedder || needs.reranker ? await loadCliModels(values, { dense: needs.embedder, reranker: needs.reranker }, log) : null;
  const models = { ...nliLoader(values, log, async () => cliModels?.reranker ?? null), embedder: async () => cliModels?.embedder ?? null };
  const deps = await buildEvaluatorDeps(evaluator, { models, judge: api.provider });
  // The vectors are for dense retrieval; RAGAS alone embeds only its questions.
  const embedder = needs.dense ? cliModels?.embedder : null;
  let first = true;
  const session = await runRagbenchPipelineSession({
    ...a.session, deps, rag: config, answerer: api.provider,
    models: needs.search ? (cliModels?.search ?? {}) : {},
    attachVectors: embedder ? async (kb, kbKey) => { await attachDense(kb, embedder, { kbKey, store: cliModels!.store }); } : null,
    onKb: (r, ms) => log(kbLine(r, ms)),
    estimate: { price: api.price, judge: EVALUATORS[evaluator].repeatable ? { repeats } : null },
    onEstimate: (e) => { for (const l of pipelineEstimateLines(api, e, repeats)) log(l); },
    onJudge: (row, r) => { if (r.parseFailedCalls > 0) log(`${row.id}: ${r.parseFailedCalls}/${r.results.length} judge replies not parsed`); },
    onProgress: tenthLines(process.stderr),
    onRow: (row) => {
      if (row.status === 'error') log(`${row.id}: ${row.reason ?? 'error'}`);
      if (row.evalError) log(`${row.id}: evaluator failed: ${row.evalError}`);
    },
    onSubset: (r, ms) => {
      log(`${r.subset}: ${r.n} questions in ${ms.toFixed(0)} ms`);
      if (first && r.n > 0 && (r.statuses.error ?? 0) === r.n) throw new CliError(`every answer call failed; the first: ${r.rows[0]!.reason}`, 1);
      first = false;
    },
  });
  const { results, judge, answers } = session;
  if (values.json) console.log(JSON.stringify(pipelineJson({ evaluator, model: api.model, config, results, judge, answers, api, estimate: session.estimate!, judgeUsage: session.judgeUsage, notes: session.evaluatorNotes })));
  else console.log(pipelineText(results, config, { evaluator, repeats, judge, labelOf: a.labels.text }));
  for (const l of usageLines(api, [['answers', answers], ['judge', judge?.usage ?? session.judgeUsage ?? new UsageMeter()]])) log(l);
  writeReport(values['report-out'], session.report);
}
