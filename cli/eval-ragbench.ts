/**
 * `rag-lab eval-ragbench`: TRACe evaluators against RAGBench gold labels, next to the dataset's baseline evaluators
 * (validate mode), and RAG Lab's own pipeline on RAGBench questions over a knowledge base of each subset's pooled
 * documents (pipeline mode). API runs print a token/cost estimate before they start and the actual usage after.
 */
import { ragbenchVectorKey } from '../src/lib/cache-keys.ts';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { formatIssue, parseRagbenchJsonl, RAGBENCH_SUBSETS, RagbenchError, ragbenchRowKey, type RagbenchRow } from '../src/lib/data/ragbench.ts';
import { buildRagbenchKb } from '../src/lib/data/ragbench-kb.ts';
import { MemoryResultStore, type RunProgress } from '../src/lib/eval/bench-run.ts';
import { BOOTSTRAP_ITERATIONS, formatInterval } from '../src/lib/eval/bootstrap.ts';
import {
  addEstimates, DEFAULT_JUDGE_OUTPUT_TOKENS, estimateJudgeRun, formatUsd, priceFor, UsageMeter, type ResolvedPrice, type RunEstimate,
} from '../src/lib/eval/cost.ts';
import { EVALUATOR_IDS, EVALUATORS, isEvaluatorId, type EvaluatorDeps, type EvaluatorId, type EvaluatorSettings } from '../src/lib/eval/evaluators.ts';
import { rowJudgeInput, TRACE_METRICS, type RepeatSummary } from '../src/lib/eval/judge-runs.ts';
import { pipelineModelNeeds, pipelineSettingsJson, pipelineSettingsText } from '../src/lib/eval/pipeline-settings.ts';
import {
  estimatePipelineRun, pipelineQuestions, pipelineSummary, type PipelineEstimate, type PipelineSubsetResult,
} from '../src/lib/eval/ragbench-pipeline.ts';
import { jsonNumber, meanOver, sampleRows, validationSummary, type SubsetValidation } from '../src/lib/eval/ragbench-validate.ts';
import { runPipelineSession, runValidateSession, type PipelineSessionSubset, type SessionReportContext } from '../src/lib/eval/session.ts';
import { minDurationMs, presetLimits, RATE_LIMIT_PRESETS, wrapProvider, type RateLimiter, type RateLimits } from '../src/lib/llm/rate-limit.ts';
import { createProvider, PROVIDER_IDS } from '../src/lib/llm/registry.ts';
import { redactSecrets } from '../src/lib/llm/redact.ts';
import type { ChatProvider } from '../src/lib/llm/types.ts';
import { ModelLoadError } from '../src/lib/models/errors.ts';
import { loadNli } from '../src/lib/models/nli.ts';
import { DEFAULT_MODELS } from '../src/lib/models/registry.ts';
import type { Dtype, NliClassifier } from '../src/lib/models/types.ts';
import { cloneConfig, DEFAULT_RAG_CONFIG, parseRagConfig, type RagConfig } from '../src/lib/rag/config.ts';
import { serializeReport, type JsonValue, type Report, type ReportEnvironment } from '../src/lib/reports/format.ts';
import { MODE_IDS } from '../src/lib/retrieval/modes.ts';
import type { SearchModels } from '../src/lib/retrieval/search.ts';
import { sha256Hex } from '../src/lib/checksum.ts';
import { attachDense } from '../src/lib/store/dense-loader.ts';
import { CliError, numberArg, parse } from './args.ts';
import { checkInputDir, checkOutputFile, readText, writeText } from './fs-errors.ts';
import { checkModelArgs, loadCliModels, MODEL_ARGS, MODEL_HELP, type CliModels } from './models.ts';
import { applyRagFlags, RAG_FLAG_ARGS, RAG_FLAG_HELP } from './rag-flags.ts';

const MODES_CLI = ['validate', 'pipeline'] as const;

const HELP = `Usage: rag-lab eval-ragbench --data <dir> [options]

  --data DIR          folder of RAGBench test subsets, one <subset>.jsonl each (26 fields a row)
  --subsets LIST      comma-separated subsets (default: every <subset>.jsonl in DIR of ${RAGBENCH_SUBSETS.join(',')})
  --mode M            validate (default): score RAGBench's own answers and compare with the gold labels and baselines
                      pipeline: pool each subset's documents into a knowledge base, answer N sampled questions with
                      RAG Lab's pipeline and an LLM (--provider, --model), score the answers, report gold-document recall
  --evaluator NAME    lexical (offline, default) | nli (local cross-encoder + NLI models) | llm (LLM judge)
  --n N               validate: score a seeded random sample of N rows per subset (default: all)
                      pipeline: ask N seeded random questions per subset (default: all distinct questions)
  --seed S            sample and bootstrap seed (default 0)
  --bootstrap B       validate: 95% percentile-bootstrap intervals of our AUROC and RMSEs from B resamples,
                      seeded by --seed (default 1000; 0 = none). Figures resting on fewer than 10 rows in a class
                      (AUROC) or in all (RMSE) are flagged as not meaningful
  --json              print one JSON object on the last line of stdout
  --report-out FILE   also write the run as a RAG Lab report (format v1, docs/reports.md): every scored row with its
                      gold labels, the summary with 95% bootstrap intervals and small-sample warnings, the settings
                      (never a key); the Reports tab opens it with the same numbers

  LLM (the judge with --evaluator llm; in pipeline mode the answering model, and the judge too with --evaluator llm):
  --provider ID       ${PROVIDER_IDS.join(' | ')}
  --model NAME        model name at the provider
  --base-url URL      endpoint (default: the provider's; e.g. http://localhost:11434/v1 for Ollama)
  --api-key KEY       API key (or set RAG_LAB_API_KEY; prefer the variable: command lines end up in shell history)
  --concurrency C     rows (questions) at once (default 1)
  --repeats R         llm evaluator: ask the judge R times per row; scores are the means; reports mean ± std,
                      rows whose adherence verdict flips between repeats, and the parse-failure rate (default 1)
  --temperature T     judge temperature (default 0; repeats show more spread above 0)
  --rpm N             client-side limit: at most N requests per minute (sliding window)
  --tpm N             client-side limit: at most N tokens per minute (chars/4 estimate, corrected by reported usage)
  --limits PRESET     published free-tier limits for --model: ${Object.keys(RATE_LIMIT_PRESETS).join(', ')} (--rpm/--tpm override)
  --price-in USD      price per 1M input tokens for the cost estimate (default: the built-in table; 0 if unknown)
  --price-out USD     price per 1M output tokens

  pipeline settings (the Ask tab's RagConfig; defaults: ${DEFAULT_RAG_CONFIG.retrieval.mode}, top ${DEFAULT_RAG_CONFIG.retrieval.topK}, window ${DEFAULT_RAG_CONFIG.window}, no rerank, no transform):
  --retrieval-mode M  ${MODE_IDS.join(' | ')} (--retrieval is the same flag); dense and hybrid modes need
                      an embedder (--embedder, --models-dir as for eval-beir), rerank a cross-encoder (--reranker)
${RAG_FLAG_HELP}
  --reject-threshold X  refuse to answer below this confidence (default ${DEFAULT_RAG_CONFIG.retrieval.rejectThreshold}; 0 = never)

  nli evaluator and dense retrieval models (same flags as eval-beir):
  --nli ID            NLI model (default ${DEFAULT_MODELS.nli})
${MODEL_HELP}

  Before an API run the token/cost estimate is printed (input = chars/4 of the prompts; output assumed per call),
  and after it the usage the provider reported. Nothing here prints the API key.

  JSON (validate): {evaluator, mode, subsets: {<subset>: {n, hallucinations, auroc, auroc_ci?, rmse_*, intervals?: {auroc,
    rmse_relevance, rmse_utilization, rmse_completeness: [lo, hi] or null}, warnings: [..], baselines, judge?}},
    mean_auroc, mean_baselines, and for API runs: estimate, usage, rate_limits, judge}
  JSON (pipeline): {evaluator, mode, provider, model, retrieval: {mode, top_k, reject_threshold}, pipeline: {retrieval_mode,
    effective_mode, top_k, reject_threshold, rerank, transform, window, agentic, provider, model},
    subsets: {<subset>: {n, k, kb: {documents, pooled_from, chunks}, statuses, scored, recall_at_k, relevant_recall_at_k,
    predicted: {relevance, utilization, adherence, completeness}, gold: {n, relevance, utilization, adherence,
    completeness}, usage: {input_tokens, output_tokens}, rows: [{id, status, reason?, recall, relevant_recall,
    retrieved, gold_docs, scores}], judge?}},
    mean_recall_at_k, mean_predicted, estimate (+ answers, judge?, questions, answerable), usage (+ answers, judge?),
    rate_limits, judge?}
  estimate: {calls, input_tokens, output_tokens, output_tokens_per_call, cost_usd, price: {key, input_per_m,
    output_per_m, known}, min_minutes (under the rate limits)};  usage: {calls, calls_with_usage, input_tokens,
    output_tokens, failed_calls, cost_usd};  rate_limits: {rpm, tpm, preset, waits, waited_ms} or null;
  judge: {repeats, rows, calls, parse_failed_calls, call_parse_failure_rate, parse_failed_rows,
    row_parse_failure_rate, failed_calls, flipped_rows, comparable_rows, flip_rate, mean_std, mean_range, flipped}
    (recall_at_k: share of a question's own RAGBench documents among the documents of the k retrieved chunks;
    gold: RAGBench's labels of its own answers to those questions, for reference)
`;

const fmt = (x: number, w = 7) => (Number.isFinite(x) ? x.toFixed(3) : 'n/a').padStart(w);
const int = (x: number) => Math.round(x).toLocaleString('en-US');
const pct = (x: number) => (Number.isFinite(x) ? `${(100 * x).toFixed(1)}%` : 'n/a');

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
  const ci = results.filter((r) => r.intervals).map((r) => {
    const iv = r.intervals!;
    const one = (name: string, x: number, c: [number, number] | null) => `${name} ${fmt(x, 5).trim()} ${formatInterval(c, 3) || '[—]'}`;
    return `  ${r.subset}: ${[one('AUROC', r.auroc, iv.auroc), one('RMSE rel', r.rmse_relevance, iv.rmse_relevance),
      one('util', r.rmse_utilization, iv.rmse_utilization), one('compl', r.rmse_completeness, iv.rmse_completeness)].join(' · ')}`;
  });
  const warnings = results.flatMap((r) => (r.warnings ?? []).map((w) => `  warning: ${r.subset}: ${w}`));
  return [`RAGBench validate, evaluator ${evaluator}: hallucination AUROC (higher is better) and RMSE vs gold (lower is better)`,
    head, '-'.repeat(head.length), ...lines, ...(ci.length ? ['', '95% bootstrap intervals (percentile, rows resampled):', ...ci] : []),
    ...(warnings.length ? ['', ...warnings] : [])].join('\n');
}

export function formatPipelineTable(results: readonly PipelineSubsetResult[], title: string): string {
  const k = results[0]?.k ?? 0;
  const head = ['subset'.padEnd(11), 'n'.padStart(4), 'answered'.padStart(8), '|', `recall@${k}`.padStart(9), 'rel.docs'.padStart(8), '|',
    'predicted:', 'rel'.padStart(6), 'util'.padStart(6), 'adh'.padStart(6), 'compl'.padStart(6), '|',
    'gold (RAGBench):', 'rel'.padStart(6), 'util'.padStart(6), 'adh'.padStart(6), 'compl'.padStart(6)].join(' ');
  const line = (name: string, n: string, answered: string, v: number[]) =>
    [name.padEnd(11), n.padStart(4), answered.padStart(8), '|', fmt(v[0]!, 9), fmt(v[1]!, 8), '|', ''.padStart(10),
      fmt(v[2]!, 6), fmt(v[3]!, 6), fmt(v[4]!, 6), fmt(v[5]!, 6), '|', ''.padStart(16), fmt(v[6]!, 6), fmt(v[7]!, 6), fmt(v[8]!, 6), fmt(v[9]!, 6)].join(' ');
  const vals = (r: PipelineSubsetResult) => [r.recallAtK, r.relevantRecallAtK, r.predicted.relevance, r.predicted.utilization, r.predicted.adherence,
    r.predicted.completeness, r.gold.relevance, r.gold.utilization, r.gold.adherence, r.gold.completeness];
  const lines = results.map((r) => line(r.subset, String(r.n), String(r.statuses.answered ?? 0), vals(r)));
  if (results.length > 1) {
    const all = results.map(vals);
    const m = all[0]!.map((_, i) => { const xs = all.map((v) => v[i]!).filter(Number.isFinite); return xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : NaN; });
    lines.push(line('mean', String(results.reduce((a, r) => a + r.n, 0)), String(results.reduce((a, r) => a + (r.statuses.answered ?? 0), 0)), m));
  }
  const other = results.flatMap((r) => {
    const s = Object.entries(r.statuses).filter(([st]) => st !== 'answered');
    return s.length ? [`  ${r.subset}: ${s.map(([st, c]) => `${c} ${st}`).join(', ')}`] : [];
  });
  return [title, head, '-'.repeat(head.length), ...lines,
    ...(other.length ? ['', 'not answered (no scores; recall still counted):', ...other] : []),
    '', `recall@${k}: share of each question's own RAGBench documents among the documents of the ${k} retrieved chunks (rel.docs: only those holding a gold relevant sentence).`,
    'gold: RAGBench\'s labels of its own answers to the same questions (a reference, not a target).'].join('\n');
}

function repeatLines(name: string, s: RepeatSummary, labelOf: (key: string) => string): string[] {
  const short = { relevance: 'rel', utilization: 'util', adherence: 'adh', completeness: 'compl' } as const;
  const std = TRACE_METRICS.map((m) => `${short[m]} ${fmt(s.meanStd[m], 5).trim()}`).join(', ');
  const lines = [
    `  ${name}: ${s.rows} rows × ${s.repeats}; adherence flips in ${s.flippedRows}/${s.comparableRows} rows (${pct(s.flipRate)}); mean std ${std}`,
    `    parse failures: ${s.parseFailedCalls}/${s.calls} calls (${pct(s.callParseFailureRate)}), ${s.parseFailedRows}/${s.rows} rows (${pct(s.rowParseFailureRate)}); failed calls ${s.failedCalls}`,
  ];
  if (s.flipped.length) lines.push(`    flipped: ${s.flipped.slice(0, 10).map(labelOf).join(', ')}${s.flipped.length > 10 ? `, … (${s.flipped.length - 10} more)` : ''}`);
  return lines;
}

function repeatJson(s: RepeatSummary, labelOf: (key: string) => unknown) {
  const m = (r: Record<string, number>) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, jsonNumber(v)]));
  return {
    repeats: s.repeats, rows: s.rows, calls: s.calls, parse_failed_calls: s.parseFailedCalls, call_parse_failure_rate: jsonNumber(s.callParseFailureRate),
    parse_failed_rows: s.parseFailedRows, row_parse_failure_rate: jsonNumber(s.rowParseFailureRate), failed_calls: s.failedCalls,
    flipped_rows: s.flippedRows, comparable_rows: s.comparableRows, flip_rate: jsonNumber(s.flipRate),
    mean_std: m(s.meanStd), mean_range: m(s.meanRange), flipped: s.flipped.map(labelOf),
  };
}

// ------------------------------------------------------------------------------------------------ API setup

interface ApiSetup {
  /** The provider behind the rate limiter (when any); the session meters it per role. */
  provider: ChatProvider;
  limiter: RateLimiter | null;
  limits: (RateLimits & { preset?: string; rpd?: number; tpd?: number; source?: string; asOf?: string }) | null;
  price: ResolvedPrice;
  apiKey: string | undefined;
  providerId: string;
  model: string;
}

const OPTIONS = {
  data: { type: 'string' }, subsets: { type: 'string' }, evaluator: { type: 'string', default: 'lexical' },
  mode: { type: 'string', default: 'validate' }, n: { type: 'string' }, seed: { type: 'string' }, bootstrap: { type: 'string' },
  json: { type: 'boolean', default: false }, 'report-out': { type: 'string' }, help: { type: 'boolean', short: 'h' }, nli: { type: 'string' },
  provider: { type: 'string' }, model: { type: 'string' }, 'base-url': { type: 'string' }, 'api-key': { type: 'string' },
  concurrency: { type: 'string' }, repeats: { type: 'string' }, temperature: { type: 'string' },
  rpm: { type: 'string' }, tpm: { type: 'string' }, limits: { type: 'string' }, 'price-in': { type: 'string' }, 'price-out': { type: 'string' },
  retrieval: { type: 'string' }, 'retrieval-mode': { type: 'string' }, 'reject-threshold': { type: 'string' },
  ...RAG_FLAG_ARGS, ...MODEL_ARGS,
} as const;

type Values = ReturnType<typeof parse<typeof OPTIONS>>['values'];

function setupApi(values: Values, need: string, log: (m: string) => void): ApiSetup {
  const providerId = values.provider;
  const model = values.model;
  if (!providerId) throw new CliError(`${need} needs --provider (${PROVIDER_IDS.join(', ')}) and --model`);
  if (!model) throw new CliError(`${need} needs --model`);
  const apiKey = values['api-key'] ?? process.env.RAG_LAB_API_KEY ?? undefined;
  let provider: ChatProvider;
  try {
    provider = createProvider({ provider: providerId, baseUrl: values['base-url'], model, apiKey });
  } catch (e) {
    throw new CliError(redactSecrets((e as Error).message, [apiKey]));
  }
  let limits: ApiSetup['limits'] = null;
  if (values.limits) {
    try {
      const p = presetLimits(values.limits, model);
      limits = { rpm: p.rpm, tpm: p.tpm, preset: p.preset.id, source: p.preset.source, asOf: p.preset.asOf, ...(p.rpd ? { rpd: p.rpd } : {}), ...(p.tpd ? { tpd: p.tpd } : {}) };
    } catch (e) {
      throw new CliError(`--limits: ${(e as Error).message}`);
    }
  }
  const rpm = numberArg('rpm', values.rpm, (x) => x > 0, 'a number > 0');
  const tpm = numberArg('tpm', values.tpm, (x) => x > 0, 'a number > 0');
  if (rpm !== undefined || tpm !== undefined) limits = { ...(limits ?? {}), ...(rpm !== undefined ? { rpm } : {}), ...(tpm !== undefined ? { tpm } : {}) };
  let limiter: RateLimiter | null = null;
  if (limits) {
    const wrapped = wrapProvider(provider, limits, {
      onWait: ({ ms, reason }) => { if (ms >= 1000) process.stderr.write(`rate limit (${reason === 'rpm' ? 'requests' : 'tokens'} per minute): waiting ${(ms / 1000).toFixed(1)} s\n`); },
    });
    provider = wrapped;
    limiter = wrapped.limiter;
  }
  const table = priceFor(providerId, model);
  const pin = numberArg('price-in', values['price-in'], (x) => x >= 0, 'a number >= 0');
  const pout = numberArg('price-out', values['price-out'], (x) => x >= 0, 'a number >= 0');
  const price: ResolvedPrice = pin !== undefined || pout !== undefined
    ? { key: `${providerId}/${model}`, inputPerM: pin ?? table.inputPerM, outputPerM: pout ?? table.outputPerM, known: true }
    : table;
  if (limits) {
    const what = [limits.rpm ? `${int(limits.rpm)} requests` : '', limits.tpm ? `${int(limits.tpm)} tokens` : ''].filter(Boolean).join(' and ');
    log(`rate limits: ${what} per minute${limits.preset ? ` (${limits.preset} for ${model}, as published at ${limits.source} on ${limits.asOf}; check your account)` : ''}`);
  }
  return { provider, limiter, limits, price, apiKey, providerId, model };
}

interface EstimateView { calls: number; inputTokens: number; outputTokens: number; totalUsd: number; outputTokensPerCall?: number }

function describeEstimate(api: ApiSetup, e: EstimateView, what: string): string[] {
  const p = api.price;
  const priced = p.known
    ? `≈ ${formatUsd(e.totalUsd)} at ${p.key} prices ($${p.inputPerM} in / $${p.outputPerM} out per 1M tokens${api.providerId === 'groq' ? '; a free-plan key is not billed' : ''})`
    : `(no price known for ${p.key}: counted as $0; give --price-in/--price-out)`;
  const lines = [`estimate: ${what}: ${int(e.calls)} calls, ~${int(e.inputTokens)} input tokens (chars/4) + ~${int(e.outputTokens)} output tokens (assumed) ${priced}`];
  if (api.limits) {
    const ms = minDurationMs(e.calls, e.inputTokens + e.outputTokens, api.limits);
    if (ms > 0) lines.push(`  under the rate limits this takes at least ${(ms / 60_000).toFixed(1)} min`);
    if (api.limits.rpd && e.calls > api.limits.rpd) lines.push(`  warning: ${int(e.calls)} calls exceed the daily limit of ${int(api.limits.rpd)} requests`);
    if (api.limits.tpd && e.inputTokens + e.outputTokens > api.limits.tpd) lines.push(`  warning: ~${int(e.inputTokens + e.outputTokens)} tokens exceed the daily limit of ${int(api.limits.tpd)} tokens`);
  }
  return lines;
}

function estimateJson(api: ApiSetup, e: EstimateView) {
  return {
    calls: e.calls, input_tokens: e.inputTokens, output_tokens: e.outputTokens,
    ...(e.outputTokensPerCall !== undefined ? { output_tokens_per_call: e.outputTokensPerCall } : {}),
    cost_usd: e.totalUsd,
    price: { key: api.price.key, input_per_m: api.price.inputPerM, output_per_m: api.price.outputPerM, known: api.price.known },
    min_minutes: api.limits ? minDurationMs(e.calls, e.inputTokens + e.outputTokens, api.limits) / 60_000 : 0,
  };
}

function usageLines(api: ApiSetup, meters: [string, UsageMeter][]): string[] {
  const lines = meters.filter(([, m]) => m.summary.calls + m.failedCalls > 0).map(([name, m]) => {
    const s = m.summary;
    const missing = s.calls - s.callsWithUsage;
    return `usage (${name}): ${int(s.calls)} calls${m.failedCalls ? ` (+${m.failedCalls} failed)` : ''}, ${int(s.inputTokens)} input + ${int(s.outputTokens)} output tokens` +
      `${missing ? ` (${missing} calls reported no usage)` : ''}${api.price.known ? ` ≈ ${formatUsd(m.cost(api.price).totalUsd)}` : ''}`;
  });
  if (api.limiter) lines.push(`rate limiter: ${api.limiter.stats.waits} waits, ${(api.limiter.stats.waitedMs / 1000).toFixed(1)} s in all`);
  return lines;
}

function usageJson(api: ApiSetup, meters: UsageMeter[]) {
  const s = { calls: 0, calls_with_usage: 0, input_tokens: 0, output_tokens: 0, failed_calls: 0 };
  for (const m of meters) {
    s.calls += m.summary.calls; s.calls_with_usage += m.summary.callsWithUsage; s.input_tokens += m.summary.inputTokens;
    s.output_tokens += m.summary.outputTokens; s.failed_calls += m.failedCalls;
  }
  return { ...s, cost_usd: (s.input_tokens * api.price.inputPerM + s.output_tokens * api.price.outputPerM) / 1e6 };
}

function limitsJson(api: ApiSetup) {
  if (!api.limits || !api.limiter) return null;
  return { rpm: api.limits.rpm ?? null, tpm: api.limits.tpm ?? null, preset: api.limits.preset ?? null, waits: api.limiter.stats.waits, waited_ms: api.limiter.stats.waitedMs };
}

async function loadNliModel(values: Values, log: (m: string) => void): Promise<NliClassifier> {
  const id = values.nli ?? DEFAULT_MODELS.nli;
  const t0 = performance.now();
  try {
    const nli = await loadNli({ id, dtype: values.dtype as Dtype, device: 'cpu' });
    log(`loaded NLI ${id} (${values.dtype}) in ${(performance.now() - t0).toFixed(0)} ms`);
    return nli;
  } catch (e) {
    throw new CliError(e instanceof ModelLoadError ? e.message : `could not load NLI model ${id}: ${(e as Error).message}`);
  }
}

/** A row with at least one gold TRACe label to compare with. */
const hasGold = (r: RagbenchRow) =>
  r.adherence_score !== null || r.relevance_score !== null || r.utilization_score !== null || r.completeness_score !== null;

/**
 * The subsets to evaluate: those named by --subsets (each file must exist), else every <subset>.jsonl in `dir`
 * (and which were found is logged).
 */
function chooseSubsets(dir: string, list: string | undefined, log: (m: string) => void): string[] {
  const fileOf = (s: string) => join(dir, `${s}.jsonl`);
  if (list !== undefined) {
    const subsets = list.split(',').map((s) => s.trim()).filter(Boolean);
    if (subsets.length === 0) throw new CliError('--subsets is empty');
    for (const s of subsets) if (!existsSync(fileOf(s))) throw new CliError(`${fileOf(s)}: subset file not found (subsets: ${RAGBENCH_SUBSETS.join(', ')})`);
    return subsets;
  }
  const found = RAGBENCH_SUBSETS.filter((s) => existsSync(fileOf(s)));
  if (found.length === 0) throw new CliError(`nothing to evaluate: ${dir} holds no RAGBench subset file (${RAGBENCH_SUBSETS.map((s) => `${s}.jsonl`).join(', ')})`);
  if (found.length < RAGBENCH_SUBSETS.length) log(`found ${found.length} of ${RAGBENCH_SUBSETS.length} subset files in ${dir}: ${found.join(', ')}`);
  return found;
}

const rowLabel = (rowsByKey: Map<string, RagbenchRow>) => (key: string) => {
  const r = rowsByKey.get(key);
  return r ? `${r.id} (${r.generation_model_name})` : key;
};

// ------------------------------------------------------------------------------------------------ command

export async function evalRagbenchCommand(argv: string[]): Promise<void> {
  const { values } = parse(argv, OPTIONS);
  if (values.help) { console.log(HELP); return; }
  if (!values.data) throw new CliError(`--data is required\n\n${HELP}`);
  if (!(MODES_CLI as readonly string[]).includes(values.mode)) throw new CliError(`--mode must be validate or pipeline, got "${values.mode}"`);
  const mode = values.mode as (typeof MODES_CLI)[number];
  if (!isEvaluatorId(values.evaluator)) throw new CliError(`--evaluator must be one of ${EVALUATOR_IDS.join(', ')}, got "${values.evaluator}"`);
  const evaluatorName: EvaluatorId = values.evaluator;
  const n = numberArg('n', values.n, (x) => Number.isInteger(x) && x > 0, 'a positive integer');
  const seed = numberArg('seed', values.seed, Number.isInteger, 'an integer') ?? 0;
  const concurrency = numberArg('concurrency', values.concurrency, (x) => Number.isInteger(x) && x > 0, 'a positive integer') ?? 1;
  const bootstrap = numberArg('bootstrap', values.bootstrap, (x) => Number.isInteger(x) && x >= 0, 'an integer >= 0') ?? BOOTSTRAP_ITERATIONS;
  const repeats = numberArg('repeats', values.repeats, (x) => Number.isInteger(x) && x >= 1, 'an integer >= 1') ?? 1;
  const temperature = numberArg('temperature', values.temperature, (x) => x >= 0 && x <= 2, 'a number in [0, 2]');
  if (repeats > 1 && evaluatorName !== 'llm') throw new CliError('--repeats needs --evaluator llm (only an LLM judge varies between calls)');
  if (temperature !== undefined && evaluatorName !== 'llm') throw new CliError('--temperature is the judge temperature: it needs --evaluator llm');
  const usesApi = mode === 'pipeline' || evaluatorName === 'llm';
  for (const f of ['rpm', 'tpm', 'limits', 'price-in', 'price-out'] as const) {
    if (values[f] !== undefined && !usesApi) throw new CliError(`--${f} applies to API runs (--evaluator llm or --mode pipeline)`);
  }
  for (const f of ['retrieval', 'retrieval-mode', 'top-k', 'reject-threshold', 'transform', 'window', 'rerank'] as const) {
    if (values[f] !== undefined && mode !== 'pipeline') throw new CliError(`--${f} applies to --mode pipeline`);
  }
  if (values.agentic && mode !== 'pipeline') throw new CliError('--agentic applies to --mode pipeline');
  // The report's path is checked before any work, so a typo does not cost the run.
  if (values['report-out']) checkOutputFile(values['report-out'], '--report-out');
  const dir = resolve(values.data);
  checkInputDir(dir, '--data', 'a folder of RAGBench <subset>.jsonl files');
  const log = (msg: string) => { if (!values.json) console.log(msg); else process.stderr.write(msg + '\n'); };
  const subsets = chooseSubsets(dir, values.subsets, log);

  // Pipeline settings are checked before any file is read or model loaded.
  let config: RagConfig | null = null;
  if (mode === 'pipeline') {
    const c = cloneConfig(DEFAULT_RAG_CONFIG);
    const retrieval = values['retrieval-mode'] ?? values.retrieval;
    if (values['retrieval-mode'] !== undefined && values.retrieval !== undefined) throw new CliError('give --retrieval-mode or --retrieval, not both');
    if (retrieval !== undefined) {
      const flag = values['retrieval-mode'] !== undefined ? 'retrieval-mode' : 'retrieval';
      if (!(MODE_IDS as readonly string[]).includes(retrieval)) throw new CliError(`--${flag} must be one of ${MODE_IDS.join(', ')}, got "${retrieval}"`);
      c.retrieval.mode = retrieval as RagConfig['retrieval']['mode'];
    }
    applyRagFlags(c, values);
    c.retrieval.rejectThreshold = numberArg('reject-threshold', values['reject-threshold'], (x) => x >= 0 && x <= 1, 'a number in [0, 1]') ?? c.retrieval.rejectThreshold;
    if (values.provider && (PROVIDER_IDS as readonly string[]).includes(values.provider)) c.llm.provider = values.provider as RagConfig['llm']['provider'];
    if (values.model) c.llm.model = values.model;
    if (values['base-url']) c.llm.baseUrl = values['base-url'];
    const parsed = parseRagConfig(c);
    if (!parsed.ok) throw new CliError(parsed.message);
    config = parsed.config;
    // Model flags (dtype, --models-dir, the cache dir) are checked now, before any file is read.
    checkModelArgs(values, pipelineModelNeeds(config));
  }
  const api = usesApi ? setupApi(values, mode === 'pipeline' ? '--mode pipeline' : '--evaluator llm', log) : null;

  const data = new Map<string, RagbenchRow[]>();
  for (const subset of subsets) {
    const file = join(dir, `${subset}.jsonl`);
    let parsed;
    try {
      parsed = parseRagbenchJsonl(readText(file), subset);
    } catch (e) {
      if (e instanceof RagbenchError) throw new CliError(`${file}: ${e.message}`);
      throw e;
    }
    if (parsed.rows.length === 0) throw new CliError(`nothing to evaluate: ${file} has no rows`);
    if (mode === 'validate' && !parsed.rows.some(hasGold)) throw new CliError(`nothing to evaluate: no row of ${file} has a gold label (adherence, relevance, utilization or completeness score)`);
    if (parsed.skipped.length > 0) {
      log(`${subset}: skipped ${parsed.skipped.length} of ${parsed.total} rows:`);
      for (const i of parsed.skipped.slice(0, 5)) log(`  ${formatIssue(i)}`);
      if (parsed.skipped.length > 5) log(`  … and ${parsed.skipped.length - 5} more`);
    }
    data.set(subset, parsed.rows);
  }
  const rowsByKey = new Map<string, RagbenchRow>();
  for (const rows of data.values()) for (const r of rows) rowsByKey.set(ragbenchRowKey(r), r);
  const label = rowLabel(rowsByKey);
  const judgeSettings = usesJudge(evaluatorName) && api
    ? { provider: api.providerId, baseUrl: values['base-url'] ?? null, model: api.model, repeats, ...(temperature !== undefined ? { temperature } : {}) }
    : null;
  const settings: EvaluatorSettings = { judge: judgeSettings, nliModels: evaluatorName === 'nli' ? nliModelIds(values) : null };
  const shared: SharedArgs = {
    values, data, api, evaluatorName, settings, n, seed, concurrency, log, label, bootstrap,
    reportConfig: {
      mode, subsets: [...data.keys()], n: n ?? null, seed, evaluator: evaluatorName, judge: judgeSettings ? { ...judgeSettings, rpm: api?.limits?.rpm ?? null, tpm: api?.limits?.tpm ?? null } : null,
      rag: config ? (JSON.parse(JSON.stringify(config)) as JsonValue) : null, nliModels: settings.nliModels ?? null, localSubsets: [...data.keys()], bootstrap, concurrency,
      // The tab's BenchConfig names these; the CLI reads local files only (none).
      datasetsHost: null, hubUrl: null,
    },
    redact: (m) => redactSecrets(m, [api?.apiKey]),
  };

  if (mode === 'pipeline') {
    await pipelineMode({ ...shared, config: config!, api: api! });
    return;
  }

  // ---------------------------------------------------------------------------------------------- validate
  let parseFailures = 0;
  let estimate: RunEstimate | null = null;
  const envModels: CliModelInfo[] = [];
  let deps: EvaluatorDeps = {};
  if (evaluatorName === 'nli') {
    const models = await loadCliModels(values, { dense: false, reranker: true }, log);
    deps = { nli: { nli: await loadNliModel(values, log), reranker: models.reranker } };
    envModels.push(...loadedModelInfo(values, { nli: true, reranker: true }));
  } else if (evaluatorName === 'llm') {
    const a = api!;
    const inputs = subsets.flatMap((s) => sampleRows(data.get(s)!, n, seed).map(rowJudgeInput));
    estimate = estimateJudgeRun(inputs, { repeats, price: a.price, outputTokensPerCall: DEFAULT_JUDGE_OUTPUT_TOKENS });
    for (const l of describeEstimate(a, estimate, `judge, ${int(inputs.length)} rows × ${repeats}`)) log(l);
    deps = { judge: a.provider };
  }

  let first = true;
  const session = await runValidateSession({
    evaluator: evaluatorName, settings, deps, subsets: [...data].map(([subset, rows]) => ({ subset, rows })), store: new MemoryResultStore(),
    ...(n !== undefined ? { n } : {}), seed, concurrency, bootstrap, redact: shared.redact,
    onJudge: (row, r) => {
      if (r.parseFailedCalls === 0) return;
      parseFailures += r.parseFailedCalls;
      const why = r.results.find((x) => x.parseFailed)?.error;
      log(`${row.id} (${row.generation_model_name}): ${r.parseFailedCalls}/${r.results.length} judge replies not parsed (${why})${r.parseFailed ? '; scores left out' : ''}`);
    },
    ...(evaluatorName === 'lexical' ? {} : { onProgress: ((print) => (p: RunProgress) => print(p.subset, p.done + p.failed, p.total))(progressPrinter()) }),
    onSubset: (run, ms) => {
      const v = run.validation;
      for (const f of run.failures) log(`${label(f.key)}: ${evaluatorName === 'llm' ? 'judge call failed' : 'evaluator failed'}: ${f.reason}`);
      log(`${v.subset}: ${v.n} rows scored in ${ms.toFixed(0)} ms${run.failures.length ? ` (${run.failures.length} failed, left out)` : ''}`);
      if (first && v.n === 0 && run.failures.length > 0) throw new CliError(`every ${evaluatorName === 'llm' ? 'judge call' : 'row'} failed; the first: ${run.failures[0]!.reason}`, 1);
      first = false;
    },
    report: reportContext(shared, envModels), withReport: values['report-out'] !== undefined,
  });
  const results = session.runs.map((r) => r.validation);
  const judge = session.judge;
  const judgeMeter = judge?.usage ?? new UsageMeter();
  if (judge && parseFailures + judgeMeter.failedCalls > 0) log(`judge: ${parseFailures} replies not parsed, ${judgeMeter.failedCalls} calls failed (rows without a parsed reply are left out of the metrics)`);
  const labelJson = (key: string) => { const r = rowsByKey.get(key); return r ? { id: r.id, generation_model_name: r.generation_model_name } : { key }; };

  if (values.json) {
    const summary = validationSummary(results) as ReturnType<typeof validationSummary> & { subsets: Record<string, Record<string, unknown>> };
    if (judge) for (const [s, t] of judge.trackers) summary.subsets[s]!['judge'] = repeatJson(t.summary(), labelJson);
    console.log(JSON.stringify({
      evaluator: evaluatorName, mode: 'validate', ...summary,
      ...(api && estimate && judge ? {
        estimate: estimateJson(api, estimate), usage: usageJson(api, [judgeMeter]), rate_limits: limitsJson(api),
        judge: repeatJson(judge.overall, labelJson),
      } : {}),
    }));
  } else {
    console.log(formatValidationTable(results, evaluatorName + (repeats > 1 ? ` (judge × ${repeats}, scores are means)` : '')));
    if (judge) {
      console.log('');
      console.log(`judge repeats: ${repeats} per row${repeats > 1 ? ' (std: population standard deviation over the parsed replies of a row, averaged over rows)' : ''}`);
      for (const [s, t] of judge.trackers) for (const l of repeatLines(s, t.summary(), label)) console.log(l);
    }
  }
  if (api) for (const l of usageLines(api, [['judge', judgeMeter]])) log(l);
  writeReport(values['report-out'], session.report);
}

// ------------------------------------------------------------------------------------------------ reports

const usesJudge = (e: EvaluatorId) => EVALUATORS[e].api;

/** The NLI evaluator's models as `id@dtype` (the names its cached scores would be filed under). */
function nliModelIds(values: Values): { nli: string; reranker: string } {
  return { nli: `${values.nli ?? DEFAULT_MODELS.nli}@${values.dtype}`, reranker: `${values.reranker ?? DEFAULT_MODELS['cross-encoder']}@${values.dtype}` };
}

type CliModelInfo = ReportEnvironment['models'][number];

/** The models this run loaded, as a report's environment lists them (the CLI runs them on the CPU). */
function loadedModelInfo(values: Values, which: { nli?: boolean; reranker?: boolean; embedder?: boolean }): CliModelInfo[] {
  const one = (task: string, id: string): CliModelInfo => ({ task, id, dtype: values.dtype, device: 'cpu' });
  return [
    ...(which.embedder ? [one('embedder', values.embedder ?? DEFAULT_MODELS.embedder)] : []),
    ...(which.reranker ? [one('cross-encoder', values.reranker ?? DEFAULT_MODELS['cross-encoder'])] : []),
    ...(which.nli ? [one('nli', values.nli ?? DEFAULT_MODELS.nli)] : []),
  ];
}

function reportContext(a: SharedArgs, models: CliModelInfo[]): SessionReportContext {
  return { config: a.reportConfig, environment: { runtime: 'node', agent: `node ${process.version} (${process.platform})`, models }, source: 'local', revision: null };
}

/** Writes the report (when --report-out names a file) and says so on stderr. */
function writeReport(path: string | undefined, report: Report | null): void {
  if (!path || !report) return;
  writeText(path, serializeReport(report));
  process.stderr.write(`report written to ${path} (${report.rows.length} rows)\n`);
}

/** Progress lines on stderr, every 10% of a subset. */
function progressPrinter(): (subset: string, done: number, total: number) => void {
  let last = '';
  return (subset, done, total) => {
    const step = `${subset}:${Math.floor((100 * done) / Math.max(1, total) / 10)}`;
    if (step !== last) { last = step; process.stderr.write(`${subset}: ${done}/${total}\n`); }
  };
}

// ------------------------------------------------------------------------------------------------ pipeline

interface SharedArgs {
  values: Values;
  data: Map<string, RagbenchRow[]>;
  api: ApiSetup | null;
  evaluatorName: EvaluatorId;
  settings: EvaluatorSettings;
  n: number | undefined;
  seed: number;
  concurrency: number;
  bootstrap: number;
  log: (m: string) => void;
  label: (key: string) => string;
  reportConfig: Record<string, JsonValue>;
  redact: (m: string) => string;
}

interface PipelineArgs extends SharedArgs {
  config: RagConfig;
  api: ApiSetup;
}

async function pipelineMode(a: PipelineArgs): Promise<void> {
  const { config, api, log, evaluatorName, settings } = a;
  const repeats = settings.judge?.repeats ?? 1;
  const needs = pipelineModelNeeds(config);
  const needDense = needs.dense;
  const needReranker = needs.reranker || evaluatorName === 'nli';
  let cliModels: CliModels | null = null;
  if (needDense || needReranker) cliModels = await loadCliModels(a.values, { dense: needDense, reranker: needReranker }, log);
  const searchModels: SearchModels = needs.dense || needs.reranker ? (cliModels?.search ?? {}) : {};
  const envModels = loadedModelInfo(a.values, { embedder: needDense, reranker: needReranker, nli: evaluatorName === 'nli' });
  let deps: EvaluatorDeps = {};
  if (evaluatorName === 'nli') deps = { nli: { nli: await loadNliModel(a.values, log), reranker: cliModels?.reranker ?? null } };
  else if (evaluatorName === 'llm') deps = { judge: api.provider };

  // Knowledge bases, then the estimate (retrieval is local: the prompts to be sent are known before any call).
  const subsets: PipelineSessionSubset[] = [];
  const estimates: PipelineEstimate[] = [];
  for (const [subset, rows] of a.data) {
    const t0 = performance.now();
    const rkb = buildRagbenchKb(rows, subset);
    log(`${subset}: knowledge base of ${int(rkb.docs.length)} documents (pooled from ${int(rkb.documentCount)}), ${int(rkb.kb.size)} chunks, built in ${(performance.now() - t0).toFixed(0)} ms`);
    if (needDense && cliModels?.embedder) {
      const hash = (await sha256Hex(rkb.docs.map((d) => d.text).join('\u0000'))).slice(0, 16);
      await attachDense(rkb.kb, cliModels.embedder, { kbKey: ragbenchVectorKey(subset, hash, rkb.kb.options.chunking), store: cliModels.store });
    }
    subsets.push({ subset, rows, kb: rkb });
    const { questions } = pipelineQuestions(rows, a.n, a.seed);
    estimates.push(await estimatePipelineRun(rkb, questions, config, searchModels, {
      price: api.price, judge: evaluatorName === 'llm' ? { repeats } : null,
    }));
  }
  const sum = (f: (e: PipelineEstimate) => RunEstimate | null): RunEstimate | null => {
    const xs = estimates.map(f).filter((x): x is RunEstimate => x !== null);
    if (xs.length === 0) return null;
    return xs.slice(1).reduce((acc, x) => ({ ...acc, ...addEstimates(acc, x) }), xs[0]!);
  };
  const answersEst = sum((e) => e.answers)!;
  const judgeEst = sum((e) => e.judge);
  const total = judgeEst ? { ...addEstimates(answersEst, judgeEst) } : answersEst;
  const questions = estimates.reduce((x, e) => x + e.questions, 0);
  const answerable = estimates.reduce((x, e) => x + e.answerable, 0);
  for (const l of describeEstimate(api, answersEst, `answers, ${answerable} of ${questions} questions pass retrieval`)) log(l);
  if (judgeEst) for (const l of describeEstimate(api, judgeEst, `judge, ${answerable} answers × ${repeats}`)) log(l);
  for (const note of [...new Set(estimates.flatMap((e) => e.notes))]) log(`  note: ${note}`);

  let first = true;
  const session = await runPipelineSession({
    evaluator: evaluatorName, settings, deps, subsets, rag: config, answerer: api.provider, models: searchModels,
    ...(a.n !== undefined ? { n: a.n } : {}), seed: a.seed, concurrency: a.concurrency, bootstrap: a.bootstrap, redact: a.redact,
    onJudge: (row, r) => { if (r.parseFailedCalls > 0) log(`${row.id}: ${r.parseFailedCalls}/${r.results.length} judge replies not parsed`); },
    onProgress: progressPrinter(),
    onRow: (row) => {
      if (row.status === 'error') log(`${row.id}: ${row.reason ?? 'error'}`);
      if (row.evalError) log(`${row.id}: evaluator failed: ${row.evalError}`);
    },
    onSubset: (r, ms) => {
      log(`${r.subset}: ${r.n} questions in ${ms.toFixed(0)} ms`);
      if (first && r.n > 0 && (r.statuses.error ?? 0) === r.n) throw new CliError(`every answer call failed; the first: ${r.rows[0]!.reason}`, 1);
      first = false;
    },
    report: reportContext(a, envModels), withReport: a.values['report-out'] !== undefined,
  });
  const results = session.results;
  const judge = session.judge;
  const answerMeter = session.answers;
  const judgeMeter = judge?.usage ?? new UsageMeter();
  const labelJson = (key: string) => { const r = key.split('\u241f'); return { id: r[0], generation_model_name: r[1] }; };
  if (a.values.json) {
    const summary = pipelineSummary(results) as ReturnType<typeof pipelineSummary> & { subsets: Record<string, Record<string, unknown>> };
    if (judge) for (const [s, t] of judge.trackers) summary.subsets[s]!['judge'] = repeatJson(t.summary(), labelJson);
    console.log(JSON.stringify({
      evaluator: evaluatorName, mode: 'pipeline', provider: api.providerId, model: api.model,
      retrieval: { mode: config.retrieval.mode, top_k: config.retrieval.topK, reject_threshold: config.retrieval.rejectThreshold },
      pipeline: pipelineSettingsJson(config),
      ...summary,
      estimate: {
        ...estimateJson(api, total),
        answers: estimateJson(api, answersEst), ...(judgeEst ? { judge: estimateJson(api, judgeEst) } : {}),
        questions, answerable,
      },
      usage: { ...usageJson(api, [answerMeter, judgeMeter]), answers: usageJson(api, [answerMeter]), ...(judgeEst ? { judge: usageJson(api, [judgeMeter]) } : {}) },
      rate_limits: limitsJson(api),
      ...(judge ? { judge: repeatJson(judge.overall, labelJson) } : {}),
    }));
  } else {
    const title = `RAGBench pipeline over each subset's pooled documents: ${pipelineSettingsText(config)}; scored by ${evaluatorName}${repeats > 1 ? ` (judge × ${repeats}, means)` : ''}`;
    console.log(formatPipelineTable(results, title));
    if (judge) {
      console.log('');
      console.log(`judge repeats: ${repeats} per answer`);
      for (const [s, t] of judge.trackers) for (const l of repeatLines(s, t.summary(), a.label)) console.log(l);
    }
  }
  for (const l of usageLines(api, [['answers', answerMeter], ['judge', judgeMeter]])) log(l);
  writeReport(a.values['report-out'], session.report);
}
