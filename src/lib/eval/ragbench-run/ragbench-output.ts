/**
 * The JSON object `rag-lab eval-ragbench --json` prints on its last line, for validate and pipeline runs: the
 * per-subset figures (with the RAGAS evaluator's, when it ran), the judge's repeat summary, and for API runs the
 * estimate, usage and rate limits (api-usage.ts), then what the evaluator says of itself (`evaluator_notes`, when
 * it says anything: RAGAS); and the rows' names by key, in lines and in JSON. Pure: field order is the printed order.
 */
import { ragbenchRowKey, type RagbenchRow } from '../../data/ragbench.ts';
import { estimateJson, limitsJson, usageJson, type ApiAccount } from '../core/api-usage.ts';
import { UsageMeter, type RunEstimate } from '../core/cost.ts';
import type { EvaluatorId } from '../score/evaluators.ts';
import type { RepeatSummary } from '../ragbench/judge-runs.ts';
import { pipelineSettingsJson } from '../core/pipeline-settings.ts';
import { pipelineSummary, type PipelineSubsetResult } from '../ragbench/pipeline-mode.ts';
import type { PipelineEstimateTotals } from './pipeline-session.ts';
import { jsonNumber, validationSummary, type SubsetValidation } from '../ragbench/validate-mode.ts';
import type { JudgeStats } from './ragbench-loops.ts';
import type { RagConfig } from '../../rag/config.ts';

export function repeatJson(s: RepeatSummary, labelOf: (key: string) => unknown) {
  const m = (r: Record<string, number>) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, jsonNumber(v)]));
  return {
    repeats: s.repeats, rows: s.rows, calls: s.calls, parse_failed_calls: s.parseFailedCalls, call_parse_failure_rate: jsonNumber(s.callParseFailureRate),
    parse_failed_rows: s.parseFailedRows, row_parse_failure_rate: jsonNumber(s.rowParseFailureRate), failed_calls: s.failedCalls,
    flipped_rows: s.flippedRows, comparable_rows: s.comparableRows, flip_rate: jsonNumber(s.flipRate),
    mean_std: m(s.meanStd), mean_range: m(s.meanRange), flipped: s.flipped.map(labelOf),
  };
}

type WithSubsets<T> = T & { subsets: Record<string, Record<string, unknown>> };

export interface ValidateJsonInput {
  evaluator: EvaluatorId;
  results: readonly SubsetValidation[];
  judge: JudgeStats | null;
  /** A row key as the JSON names it ({id, generation_model_name}). */
  labelJson: (key: string) => unknown;
  /** API runs: the provider's accounting and the judge estimate printed before the run. */
  api: ApiAccount | null;
  estimate: RunEstimate | null;
  /** The judge's usage when an evaluator other than the LLM judge called one (RAGAS: no estimate, no repeats). */
  judgeUsage?: UsageMeter | null;
  /** `EvaluatorDef.notes` of the run's settings. */
  notes?: readonly string[];
}

export function validateJson(o: ValidateJsonInput) {
  const summary = validationSummary(o.results) as WithSubsets<ReturnType<typeof validationSummary>>;
  if (o.judge) for (const [s, t] of o.judge.trackers) summary.subsets[s]!['judge'] = repeatJson(t.summary(), o.labelJson);
  const { api, estimate, judge } = o;
  return {
    evaluator: o.evaluator, mode: 'validate', ...summary,
    ...(api && estimate && judge ? {
      estimate: estimateJson(api, estimate), usage: usageJson(api, [judge.usage]), rate_limits: limitsJson(api),
      judge: repeatJson(judge.overall, o.labelJson),
    } : api && o.judgeUsage ? { usage: usageJson(api, [o.judgeUsage]), rate_limits: limitsJson(api) } : {}),
    ...(o.notes?.length ? { evaluator_notes: [...o.notes] } : {}),
  };
}

export interface PipelineJsonInput {
  evaluator: EvaluatorId;
  model: string;
  config: RagConfig;
  results: readonly PipelineSubsetResult[];
  judge: JudgeStats | null;
  /** Usage of the answering model. */
  answers: UsageMeter;
  api: ApiAccount;
  estimate: PipelineEstimateTotals;
  /** The judge's usage when an evaluator other than the LLM judge called one (RAGAS). */
  judgeUsage?: UsageMeter | null;
  /** `EvaluatorDef.notes` of the run's settings. */
  notes?: readonly string[];
}

/** Pipeline-run JSON; its row keys are `id␟generator` (the pipeline's). */
export function pipelineJson(o: PipelineJsonInput) {
  const { api, config, judge, estimate: e } = o;
  const labelJson = (key: string) => { const r = key.split('\u241f'); return { id: r[0], generation_model_name: r[1] }; };
  const judgeMeter = judge?.usage ?? o.judgeUsage ?? new UsageMeter();
  const judged = e.judge !== null || !!o.judgeUsage;
  const summary = pipelineSummary(o.results) as WithSubsets<ReturnType<typeof pipelineSummary>>;
  if (judge) for (const [s, t] of judge.trackers) summary.subsets[s]!['judge'] = repeatJson(t.summary(), labelJson);
  return {
    evaluator: o.evaluator, mode: 'pipeline', provider: api.providerId, model: o.model,
    retrieval: { mode: config.retrieval.mode, top_k: config.retrieval.topK, reject_threshold: config.retrieval.rejectThreshold },
    pipeline: pipelineSettingsJson(config),
    ...summary,
    estimate: {
      ...estimateJson(api, e.total),
      answers: estimateJson(api, e.answers), ...(e.judge ? { judge: estimateJson(api, e.judge) } : {}),
      questions: e.questions, answerable: e.answerable,
    },
    usage: { ...usageJson(api, [o.answers, judgeMeter]), answers: usageJson(api, [o.answers]), ...(judged ? { judge: usageJson(api, [judgeMeter]) } : {}) },
    rate_limits: limitsJson(api),
    ...(judge ? { judge: repeatJson(judge.overall, labelJson) } : {}),
    ...(o.notes?.length ? { evaluator_notes: [...o.notes] } : {}),
  };
}

/** RAGBench rows named by key (ragbenchRowKey): in lines `id (generation model)`, in JSON its fields; an unknown key stays the key. */
export function rowLabels(subsets: Iterable<readonly RagbenchRow[]>) {
  const byKey = new Map<string, RagbenchRow>();
  for (const rows of subsets) for (const r of rows) byKey.set(ragbenchRowKey(r), r);
  return {
    text: (key: string): string => { const r = byKey.get(key); return r ? `${r.id} (${r.generation_model_name})` : key; },
    json: (key: string) => { const r = byKey.get(key); return r ? { id: r.id, generation_model_name: r.generation_model_name } : { key }; },
  };
}
