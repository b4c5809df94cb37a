/**
 * Report rows from finished runs (format.ts ReportRow): the one mapping the benchmark session (RAGBench validate and
 * pipeline, bench worker and CLI) and `eval-beir` (retrieval) use, so the same row of the same dataset gets the same
 * key in every run and Compare can pair it.
 *
 *   validate: key `${subset}:${ragbenchRowKey(row)}`, answer = the dataset's response, contexts = its documents,
 *     scores = the four TRACe predictions, gold = RAGBench's labels, reference = the baseline evaluators' columns;
 *   pipeline: key `${subset}:${id}`, our answer, status, retrieved chunk ids, TRACe + `recall` / `relevant_recall`,
 *     gold = RAGBench's labels of the question's row (of RAGBench's answer: the AUROC / RMSE vs gold rest on them);
 *   both: the RAGAS evaluator's scores, when it ran, as `ragas_faithfulness`, `ragas_answer_relevancy`,
 *     `ragas_context_precision`, `ragas_context_recall` (null where absent) beside TRACe's (then null);
 *   retrieval: key `${mode}:${queryId}`, group = mode, scores = the per-query IR metrics, `total_ms` and its `ms.*` stages, `query_ms` and the query's
 *     `qpp.*` predictors, retrieved = the top 10 ids (eval/retrieval/retrieval-bench.ts; older single-mode reports used key =
 *     query id, group = dataset, and stay readable).
 */
import { ragbenchRowKey, type RagbenchRow } from '../../data/ragbench.ts';
import type { IrScores } from '../../stats/ir-metrics.ts';
import type { PipelineRowResult } from './pipeline-mode.ts';
import type { BaselineScores } from './validate-mode.ts';
import type { TraceScores } from '../metrics/trace.ts';
import { RAGAS_METRICS, ragasField, type EvalScores, type RagasScores } from '../metrics/ragas.ts';
import { APP_VERSION } from '../../reports/app-version.ts';
import type { ReportEnvironment, ReportRow, ReportSummary } from '../../reports/format.ts';

/** NaN, ±∞ and undefined → null (reports hold no non-finite numbers). */
export const finiteOrNull = (x: number | null | undefined): number | null => (typeof x === 'number' && Number.isFinite(x) ? x : null);

const traceScores = (p: TraceScores): Record<string, number | null> => ({
  relevance: finiteOrNull(p.relevance), utilization: finiteOrNull(p.utilization),
  adherence: finiteOrNull(p.adherence), completeness: finiteOrNull(p.completeness),
});

const ragasScores = (r: RagasScores | undefined): Record<string, number | null> =>
  (r ? Object.fromEntries(RAGAS_METRICS.map((m) => [ragasField(m), finiteOrNull(r[m])])) : {});

/** The RAGBench columns of baseline evaluators a validate row carries as `reference`. */
export const REFERENCE_COLUMNS = [
  'ragas_faithfulness', 'trulens_groundedness', 'gpt3_adherence',
  'ragas_context_relevance', 'trulens_context_relevance', 'gpt3_context_relevance', 'gpt35_utilization',
] as const;

export const validateRowKey = (subset: string, row: Pick<RagbenchRow, 'id' | 'generation_model_name'>) => `${subset}:${ragbenchRowKey(row)}`;

/** A scored RAGBench row of a validate run. */
export function validateReportRow(subset: string, row: RagbenchRow, pred: EvalScores): ReportRow {
  return {
    key: validateRowKey(subset, row), group: subset, question: row.question, answer: row.response, contexts: [...row.documents],
    scores: { ...traceScores(pred), ...ragasScores(pred.ragas) },
    gold: {
      relevance: finiteOrNull(row.relevance_score), utilization: finiteOrNull(row.utilization_score),
      completeness: finiteOrNull(row.completeness_score), adherence: row.adherence_score ?? null,
    },
    reference: Object.fromEntries(REFERENCE_COLUMNS.map((c) => [c, finiteOrNull(row[c])])),
  };
}

/** A question of a pipeline run: our answer, its status and retrieval, the evaluator's scores and the recalls. */
export function pipelineReportRow(subset: string, r: PipelineRowResult): ReportRow {
  const error = r.status === 'error' ? r.reason ?? 'error' : r.evalError;
  return {
    key: `${subset}:${r.id}`, group: subset, question: r.question, answer: r.answer, contexts: [...r.contexts],
    retrieved: [...r.retrieved], status: r.status, ...(error !== undefined ? { error } : {}),
    scores: { ...traceScores(r.scores), recall: finiteOrNull(r.recall), relevant_recall: finiteOrNull(r.relevantRecall), ...ragasScores(r.ragas) },
    gold: { ...r.gold },
  };
}

/** A retrieval row's key: the same (mode, query) has the same key in every run, so Compare pairs it. */
export const retrievalRowKey = (mode: string, queryId: string): string => `${mode}:${queryId}`;

/** One judged query of a retrieval run in one mode: its IR scores, latency (non-model stages) and predictors. */
export function retrievalReportRow(
  mode: string, query: { id: string; text: string }, scores: IrScores, retrieved: readonly string[],
  extra: {
    queryMs: number | null; predictors: Readonly<Record<string, number | null>>;
    /** End-to-end latency (`total_ms`) and its stages (`ms.<stage>`). */
    latency?: { total: number; stages: Readonly<Record<string, number>> } | null;
  } = { queryMs: null, predictors: {} },
): ReportRow {
  return {
    key: retrievalRowKey(mode, query.id), group: mode, question: query.text, answer: '', retrieved: retrieved.slice(0, 10),
    scores: {
      ...Object.fromEntries(Object.entries(scores).map(([k, x]) => [k, finiteOrNull(x)])),
      ...(extra.latency ? { total_ms: finiteOrNull(extra.latency.total) } : {}),
      ...(extra.latency ? Object.fromEntries(Object.entries(extra.latency.stages).map(([k, x]) => [`ms.${k}`, finiteOrNull(x)])) : {}),
      query_ms: finiteOrNull(extra.queryMs),
      ...Object.fromEntries(Object.entries(extra.predictors).map(([k, x]) => [k, finiteOrNull(x)])),
    },
    gold: {},
  };
}

/** The dataset's baseline evaluators' figures (`BaselineScores`) as summary baselines of `group`. */
export function baselineEntries(group: string | null, b: BaselineScores): ReportSummary['baselines'] {
  const out: ReportSummary['baselines'] = [];
  for (const [evaluator, figures] of Object.entries(b)) {
    for (const [metric, value] of Object.entries(figures as Record<string, number>)) out.push({ group, evaluator, metric, value: finiteOrNull(value) });
  }
  return out;
}

/** What the shell that ran knows of its environment; the app version comes from here. */
export interface RunEnvironment {
  runtime: ReportEnvironment['runtime'];
  agent: string;
  models: ReportEnvironment['models'];
}

export function reportEnvironment(env: RunEnvironment, llm: ReportEnvironment['llm'], judge: ReportEnvironment['judge']): ReportEnvironment {
  return { app: APP_VERSION, runtime: env.runtime, agent: env.agent.slice(0, 500), models: env.models.slice(0, 20), llm, judge };
}
