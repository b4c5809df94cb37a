/**
 * Validate mode: score RAGBench rows with a TRACe evaluator and compare with the gold labels, next to the baseline
 * evaluators whose scores the dataset carries, on exactly the same rows.
 *
 *   hallucination AUROC: y_true = 1 − gold adherence (1 = hallucination), y_score = 1 − predicted adherence
 *   RMSE: relevance vs relevance_score, utilization vs utilization_score, completeness vs completeness_score
 *
 * Baselines, each over the rows where its column is not null: AUROC of ragas_faithfulness, trulens_groundedness,
 * gpt3_adherence; relevance RMSE of ragas_context_relevance, trulens_context_relevance, gpt3_context_relevance;
 * utilization RMSE of gpt35_utilization. Rows without a gold label are left out of that metric; a prediction that is
 * NaN (an evaluator that could not score a row) is left out of that metric too.
 */
import type { RagbenchRow } from '../../data/ragbench.ts';
import type { ChatProvider } from '../../llm/types.ts';
import { seededRandom } from '../../random.ts';
import { dict } from '../../dict.ts';
import { judgeTrace, type JudgeOptions, type JudgeResult } from '../metrics/judge.ts';
import { LexicalEvaluator } from '../metrics/lexical.ts';
import { nliTrace, type NliTraceModels, type NliTraceOptions } from '../metrics/nli-trace.ts';
import { auroc, bootstrapCI, mean, rmse } from '../../stats/summary.ts';
import type { TraceScores } from '../metrics/trace.ts';
import type { MetricIntervals } from './bootstrap.ts';
import type { EvalScores } from '../metrics/ragas.ts';
import { ragasJson, ragasValidation, type RagasValidation } from '../metrics/ragas-summary.ts';

/** A row's scores: TRACe (NaN where the evaluator does not score it) and the RAGAS evaluator's own. */
export type TraceEvaluator = (row: RagbenchRow, signal?: AbortSignal) => EvalScores | Promise<EvalScores>;

export interface BaselineScores {
  ragas: { auroc: number; rmse_relevance: number };
  trulens: { auroc: number; rmse_relevance: number };
  gpt3: { auroc: number; rmse_relevance: number; rmse_utilization: number };
}

export interface SubsetValidation {
  subset: string;
  /** Rows scored. */
  n: number;
  auroc: number;
  rmse_relevance: number;
  rmse_utilization: number;
  rmse_completeness: number;
  baselines: BaselineScores;
  /** 95% percentile-bootstrap interval of our AUROC (only when `bootstrap` > 0). */
  auroc_ci?: [number, number];
  /** 95% bootstrap intervals of AUROC and the RMSEs (bootstrap.ts `metricIntervals`), when computed. */
  intervals?: MetricIntervals;
  /** Figures resting on too few rows (bootstrap.ts `smallSampleWarnings`), when computed. */
  warnings?: string[];
  /** Hallucinations among the rows (gold adherence false). */
  hallucinations: number;
  /** Predictions, row for row with `rows`. */
  predictions: EvalScores[];
  rows: RagbenchRow[];
  /** The RAGAS evaluator's figures (ragas-summary.ts), when it scored the rows. */
  ragas?: RagasValidation;
}

export interface ValidateOptions {
  /** Score a seeded random sample of this many rows (all rows when absent or >= the row count). */
  n?: number;
  /** Seed of the sample and of the bootstrap. Default 0. */
  seed?: number;
  /** Rows scored at once (an LLM judge can use more than 1). Default 1. */
  concurrency?: number;
  /** Bootstrap resamples for the AUROC interval; 0 (default) skips it. */
  bootstrap?: number;
  signal?: AbortSignal;
  onProgress?: (done: number, total: number, subset: string) => void;
}

/** The lexical evaluator on a row's own sentence split (documents_sentences, response_sentences). */
export function lexicalRowEvaluator(evaluator = new LexicalEvaluator()): TraceEvaluator {
  return (row) => evaluator.evaluate({ question: row.question, documents: row.documents_sentences, response: row.response_sentences });
}

/** Local NLI TRACe: the row's documents are the chunks, its documents_sentences the context sentences; no gold answer. */
export function nliRowEvaluator(models: NliTraceModels, opts: Omit<NliTraceOptions, 'signal'> = {}): TraceEvaluator {
  return (row, signal) => nliTrace({
    question: row.question,
    documents: row.documents,
    answer: row.response,
    contextSentences: row.documents_sentences.flat().map(([, t]) => t),
    goldAnswer: null,
  }, models, { ...opts, ...(signal ? { signal } : {}) });
}

/**
 * LLM judge on the row's documents_sentences keys (so its keys are comparable with RAGBench's). `onResult` sees each
 * whole judge result (parse failures, token usage).
 */
export function judgeRowEvaluator(provider: ChatProvider, opts: Omit<JudgeOptions, 'signal'>, onResult?: (row: RagbenchRow, r: JudgeResult) => void): TraceEvaluator {
  return async (row, signal) => {
    const r = await judgeTrace(provider, {
      question: row.question,
      documents: row.documents_sentences,
      response: row.response_sentences.map(([, t]) => t),
    }, { ...opts, ...(signal ? { signal } : {}) });
    onResult?.(row, r);
    return r.scores;
  };
}

/** `n` rows drawn without replacement by a seeded shuffle, kept in their original order. */
export function sampleRows<T>(rows: readonly T[], n: number | undefined, seed = 0): T[] {
  if (n === undefined || n >= rows.length) return [...rows];
  const idx = rows.map((_, i) => i);
  const rand = seededRandom(seed);
  for (let i = 0; i < n; i++) {
    const j = i + Math.floor(rand() * (idx.length - i));
    [idx[i], idx[j]] = [idx[j]!, idx[i]!];
  }
  return idx.slice(0, Math.max(0, n)).sort((a, b) => a - b).map((i) => rows[i]!);
}

const hallucinationLabels = (rows: readonly RagbenchRow[]): (0 | 1)[] => rows.map((r) => (r.adherence_score === false ? 1 : 0));
/** 1 − score, or NaN where a row has no gold label or no score (so AUROC leaves it out). */
function invertedScores(rows: readonly RagbenchRow[], scores: readonly (number | null)[]): number[] {
  return rows.map((r, i) => (r.adherence_score === null || scores[i] == null || Number.isNaN(scores[i]) ? NaN : 1 - scores[i]!));
}

/** Hallucination AUROC of adherence-like scores (higher = more supported) against the gold adherence. */
export function hallucinationAuroc(rows: readonly RagbenchRow[], adherence: readonly (number | null)[]): number {
  return auroc(hallucinationLabels(rows), invertedScores(rows, adherence));
}

/** The dataset's baseline evaluators on these rows. */
export function baselineScores(rows: readonly RagbenchRow[]): BaselineScores {
  const gold = (k: 'relevance_score' | 'utilization_score') => rows.map((r) => r[k]);
  const col = (k: keyof RagbenchRow) => rows.map((r) => r[k] as number | null);
  return {
    ragas: {
      auroc: hallucinationAuroc(rows, col('ragas_faithfulness')),
      rmse_relevance: rmse(col('ragas_context_relevance'), gold('relevance_score')),
    },
    trulens: {
      auroc: hallucinationAuroc(rows, col('trulens_groundedness')),
      rmse_relevance: rmse(col('trulens_context_relevance'), gold('relevance_score')),
    },
    gpt3: {
      auroc: hallucinationAuroc(rows, col('gpt3_adherence')),
      rmse_relevance: rmse(col('gpt3_context_relevance'), gold('relevance_score')),
      rmse_utilization: rmse(col('gpt35_utilization'), gold('utilization_score')),
    },
  };
}

/** Our metrics from predictions made row for row. */
export function traceMetrics(rows: readonly RagbenchRow[], preds: readonly TraceScores[]): Pick<SubsetValidation, 'auroc' | 'rmse_relevance' | 'rmse_utilization' | 'rmse_completeness'> {
  return {
    auroc: hallucinationAuroc(rows, preds.map((p) => p.adherence)),
    rmse_relevance: rmse(preds.map((p) => p.relevance), rows.map((r) => r.relevance_score)),
    rmse_utilization: rmse(preds.map((p) => p.utilization), rows.map((r) => r.utilization_score)),
    rmse_completeness: rmse(preds.map((p) => p.completeness), rows.map((r) => r.completeness_score)),
  };
}

/** Scores (a sample of) one subset's rows and compares with gold and baselines. */
export async function validateRagbench(allRows: readonly RagbenchRow[], subset: string, evaluate: TraceEvaluator, opts: ValidateOptions = {}): Promise<SubsetValidation> {
  const rows = sampleRows(allRows, opts.n, opts.seed ?? 0);
  const preds = new Array<EvalScores>(rows.length);
  const concurrency = Math.max(1, Math.floor(opts.concurrency ?? 1));
  let next = 0;
  let done = 0;
  opts.onProgress?.(0, rows.length, subset);
  const worker = async () => {
    while (next < rows.length) {
      opts.signal?.throwIfAborted();
      const i = next++;
      preds[i] = await evaluate(rows[i]!, opts.signal);
      done++;
      opts.onProgress?.(done, rows.length, subset);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, Math.max(1, rows.length)) }, worker));
  opts.signal?.throwIfAborted();

  const result: SubsetValidation = {
    subset,
    n: rows.length,
    ...traceMetrics(rows, preds),
    baselines: baselineScores(rows),
    hallucinations: rows.filter((r) => r.adherence_score === false).length,
    predictions: preds,
    rows,
    ...withRagas(rows, preds),
  };
  if (opts.bootstrap && opts.bootstrap > 0) {
    const pairs = rows.map((r, i) => ({ r, p: preds[i]!.adherence }));
    const ci = bootstrapCI(pairs, (s) => hallucinationAuroc(s.map((x) => x.r), s.map((x) => x.p)), { iterations: opts.bootstrap, seed: opts.seed ?? 0 });
    result.auroc_ci = ci.ci;
  }
  return result;
}

/** `{ ragas }` when the predictions carry RAGAS scores, else nothing. */
export function withRagas(rows: readonly RagbenchRow[], preds: readonly EvalScores[]): { ragas?: RagasValidation } {
  const r = ragasValidation(rows, preds);
  return r ? { ragas: r } : {};
}

/** Mean over subsets of a metric, skipping NaN (a subset with one class only has no AUROC). */
export function meanOver(results: readonly SubsetValidation[], metric: (r: SubsetValidation) => number): number {
  return mean(results.map(metric).filter((x) => !Number.isNaN(x)));
}

/** NaN → null, for JSON. */
export const jsonNumber = (x: number): number | null => (Number.isFinite(x) ? x : null);

/** The CLI's JSON summary: per subset our metrics and the baselines, and the mean AUROC over subsets. */
export function validationSummary(results: readonly SubsetValidation[]) {
  const subsets = dict<unknown>();
  for (const r of results) {
    const b = r.baselines;
    subsets[r.subset] = {
      n: r.n,
      hallucinations: r.hallucinations,
      auroc: jsonNumber(r.auroc),
      ...(r.auroc_ci ? { auroc_ci: r.auroc_ci.map(jsonNumber) } : {}),
      ...(r.intervals ? { intervals: Object.fromEntries(Object.entries(r.intervals).map(([k, ci]) => [k, ci ? ci.map(jsonNumber) : null])) } : {}),
      ...(r.warnings ? { warnings: r.warnings } : {}),
      rmse_relevance: jsonNumber(r.rmse_relevance),
      rmse_utilization: jsonNumber(r.rmse_utilization),
      rmse_completeness: jsonNumber(r.rmse_completeness),
      baselines: {
        ragas: { auroc: jsonNumber(b.ragas.auroc), rmse_relevance: jsonNumber(b.ragas.rmse_relevance) },
        trulens: { auroc: jsonNumber(b.trulens.auroc), rmse_relevance: jsonNumber(b.trulens.rmse_relevance) },
        gpt3: { auroc: jsonNumber(b.gpt3.auroc), rmse_relevance: jsonNumber(b.gpt3.rmse_relevance), rmse_utilization: jsonNumber(b.gpt3.rmse_utilization) },
      },
      ...(r.ragas ? { ragas: ragasJson(r.ragas) } : {}),
    };
  }
  return {
    subsets,
    mean_auroc: jsonNumber(meanOver(results, (r) => r.auroc)),
    mean_baselines: {
      ragas: jsonNumber(meanOver(results, (r) => r.baselines.ragas.auroc)),
      trulens: jsonNumber(meanOver(results, (r) => r.baselines.trulens.auroc)),
      gpt3: jsonNumber(meanOver(results, (r) => r.baselines.gpt3.auroc)),
    },
  };
}
