/**
 * Pipeline mode: RAG Lab's own pipeline on RAGBench questions. A subset's documents, pooled and chunked, form the
 * knowledge base (data/ragbench-kb.ts); for N seeded random questions the pipeline (`answerQuestion`) retrieves from
 * the whole pool and answers with an LLM; an evaluator scores each answer against the contexts the model saw.
 *
 * Reported per subset:
 *  - predicted TRACe: means over the answered questions of the evaluator's scores (NaN scores left out);
 *  - gold-document recall@k: for each question, the share of its row's own documents (RAGBench's retrieved documents
 *    for that question, after pooling) found among the documents of the k chunks the pipeline retrieved (the
 *    retrieve step's hits, k = config.retrieval.topK; counted even when the pipeline then refused to answer);
 *    also the same share over only the row's documents that hold a gold relevant sentence (`relevant_recall_at_k`);
 *  - the dataset's gold scores for reference: means of relevance_score, utilization_score, completeness_score and
 *    the share of adherence_score true, over the RAGBench rows of the sampled questions (both generator rows where a
 *    subset has two). They describe RAGBench's answers, not ours: a reference point, not a target;
 *  - against gold (pipeline-gold.ts): hallucination AUROC and RMSEs of the predicted scores against the gold labels
 *    of each question's own row, with validate mode's formulas, intervals and warnings.
 *
 * Questions are sampled by `sampleRows` (seeded) among the subset's distinct question ids (the first row of each id).
 */
import { ragbenchRowKey, type RagbenchRow } from '../../data/ragbench.ts';
import { docIndexOfChunkId, relevantDocs, type RagbenchKb } from '../../data/ragbench-kb.ts';
import type { ChatProvider, TokenUsage } from '../../llm/types.ts';
import { estimateMessageTokens } from '../../llm/rate-limit.ts';
import type { NliTraceModels, NliTraceOptions } from '../metrics/nli-trace.ts';
import { nliTrace } from '../metrics/nli-trace.ts';
import { answerQuestion, type RagAnswer, type RagStatus } from '../../rag/answer.ts';
import { cloneConfig, DEFAULT_RAG_CONFIG, type RagConfig } from '../../rag/config.ts';
import { answerRequest, buildAnswerMessages } from '../../rag/prompt.ts';
import { retrieveQueries, searchOptionsFor } from '../../rag/retrieve.ts';
import { addUsage } from '../../rag/trace.ts';
import { windowContexts } from '../../rag/windows.ts';
import type { SearchModels } from '../../retrieval/search.ts';
import {
  DEFAULT_ANSWER_OUTPUT_TOKENS, DEFAULT_JUDGE_OUTPUT_TOKENS, estimateRun, judgePromptTokens, type Price, type RunEstimate,
} from '../core/cost.ts';
import { judgeRepeated, TRACE_METRICS, type RepeatedJudgeResult, type RepeatOptions } from './judge-runs.ts';
import { LexicalEvaluator } from '../metrics/lexical.ts';
import { jsonNumber, sampleRows } from './validate-mode.ts';
import { mean } from '../../stats/summary.ts';
import { dict } from '../../dict.ts';
import type { TraceScores } from '../metrics/trace.ts';
import type { EvalScores, RagasScores } from '../metrics/ragas.ts';
import { ragasJson, ragasMeans, ragasRowJson, type RagasMeans } from '../metrics/ragas-summary.ts';
import { goldComparison, goldComparisonJson, goldLabels, meanGoldJson, type GoldComparison, type GoldLabels } from './pipeline-gold.ts';

export interface PipelineEvalInput {
  question: string;
  /** The texts the model was given (window-expanded chunks), in prompt order. */
  contexts: readonly string[];
  answer: string;
  row: RagbenchRow;
}

/** An evaluator of a pipeline answer over its retrieved contexts: TRACe scores, and RAGAS's own from that evaluator. */
export type PipelineEvaluator = (input: PipelineEvalInput, signal?: AbortSignal) => EvalScores | Promise<EvalScores>;

/** The lexical evaluator on the contexts split into sentences (keys `{context}{letters}`) and the answer. */
export function lexicalPipelineEvaluator(evaluator = new LexicalEvaluator()): PipelineEvaluator {
  return ({ question, contexts, answer }) => evaluator.evaluate({ question, documents: contexts, response: answer });
}

/** The LLM judge (repeated `opts.repeats` times; scores = means) on the contexts and the answer. */
export function judgePipelineEvaluator(
  provider: ChatProvider, opts: RepeatOptions, onResult?: (input: PipelineEvalInput, r: RepeatedJudgeResult) => void,
): PipelineEvaluator {
  return async (input, signal) => {
    const r = await judgeRepeated(provider, { question: input.question, documents: input.contexts, response: input.answer }, opts, signal);
    onResult?.(input, r);
    return r.scores;
  };
}

/** Local NLI TRACe on the contexts (the chunks) and the answer; no gold answer, so completeness is NaN. */
export function nliPipelineEvaluator(models: NliTraceModels, opts: Omit<NliTraceOptions, 'signal'> = {}): PipelineEvaluator {
  return ({ question, contexts, answer }, signal) =>
    nliTrace({ question, documents: contexts, answer, goldAnswer: null }, models, { ...opts, ...(signal ? { signal } : {}) });
}

/** The sampled questions (one row per distinct id) and every row of those ids (for the gold reference). */
export function pipelineQuestions(rows: readonly RagbenchRow[], n: number | undefined, seed = 0): { questions: RagbenchRow[]; goldRows: RagbenchRow[] } {
  const first = new Map<string, RagbenchRow>();
  for (const r of rows) if (!first.has(r.id)) first.set(r.id, r);
  const questions = sampleRows([...first.values()], n, seed);
  const ids = new Set(questions.map((q) => q.id));
  return { questions, goldRows: rows.filter((r) => ids.has(r.id)) };
}

/** Share of `gold` found in `retrieved` (distinct values); NaN when `gold` is empty. */
export function goldDocRecall(gold: readonly number[], retrieved: readonly number[]): number {
  const g = [...new Set(gold)];
  if (g.length === 0) return NaN;
  const r = new Set(retrieved);
  return g.filter((d) => r.has(d)).length / g.length;
}

/** Chunk ids of the last retrieve step of a RAG run (its top-k hits), [] when retrieval did not run. */
export function retrievedChunkIds(answer: Pick<RagAnswer, 'trace'>): string[] {
  const step = answer.trace.filter((s) => s.step === 'retrieve').at(-1);
  const hits = step?.outputs['hits'];
  return Array.isArray(hits) ? hits.map((h) => String((h as { id: unknown }).id)) : [];
}

export interface PipelineRowResult {
  key: string;
  id: string;
  question: string;
  status: RagStatus;
  reason?: string;
  answer: string;
  /** Chunk ids of the retrieved top-k, best first. */
  retrieved: string[];
  /** Their pooled documents (distinct, in rank order). */
  retrievedDocs: number[];
  /** The row's own documents (pooled indexes). */
  goldDocs: number[];
  /** Of those, the documents holding a gold relevant sentence. */
  relevantDocs: number[];
  recall: number;
  relevantRecall: number;
  /** Texts the model saw. */
  contexts: string[];
  /** The evaluator's scores; NaN when there is no answer to score (refused, failed) or the evaluator failed. */
  scores: TraceScores;
  /** The RAGAS evaluator's scores of an answered question it scored (NaN where a metric is absent). */
  ragas?: RagasScores;
  /** Why the evaluator gave no scores, when it threw. */
  evalError?: string;
  /** RAGBench's gold labels of the question's row (of RAGBench's answer, not ours). */
  gold: GoldLabels;
  usage: TokenUsage | null;
  ms: number;
}

export interface GoldReference {
  /** RAGBench rows of the sampled questions. */
  n: number;
  relevance: number;
  utilization: number;
  completeness: number;
  /** Share of rows whose gold adherence is true (rows without a label left out). */
  adherence: number;
}

export interface PipelineSubsetResult {
  subset: string;
  /** Questions asked. */
  n: number;
  k: number;
  kb: { documents: number; pooledFrom: number; chunks: number };
  statuses: Partial<Record<RagStatus, number>>;
  /** Means of the predicted scores over the answered questions (per metric, NaN scores left out). */
  predicted: TraceScores;
  /** Answered questions with scores. */
  scored: number;
  /** The RAGAS evaluator's means over the answered questions it scored (ragas-summary.ts). */
  ragas?: RagasMeans;
  recallAtK: number;
  relevantRecallAtK: number;
  gold: GoldReference;
  /** The predicted scores against the gold labels of the same questions (pipeline-gold.ts). */
  vsGold: GoldComparison;
  rows: PipelineRowResult[];
  usage: TokenUsage | null;
}

export interface PipelineOptions {
  n?: number;
  seed?: number;
  /** Default: DEFAULT_RAG_CONFIG (the model named there must suit the provider: set config.llm.model). */
  config?: RagConfig;
  /** Questions at once. Default 1. */
  concurrency?: number;
  signal?: AbortSignal;
  onProgress?: (done: number, total: number, subset: string) => void;
  onRow?: (r: PipelineRowResult) => void;
  /** Bootstrap resamples of the intervals against gold (seeded by `seed`); 0 or absent: none. */
  bootstrap?: number;
}

const NAN_SCORES: TraceScores = { relevance: NaN, utilization: NaN, adherence: NaN, completeness: NaN };

const meanOf = (xs: readonly (number | null | undefined)[]) => mean(xs.filter((x): x is number => typeof x === 'number' && !Number.isNaN(x)));

/** The gold reference over `rows`. */
export function goldReference(rows: readonly RagbenchRow[]): GoldReference {
  return {
    n: rows.length,
    relevance: meanOf(rows.map((r) => r.relevance_score)),
    utilization: meanOf(rows.map((r) => r.utilization_score)),
    completeness: meanOf(rows.map((r) => r.completeness_score)),
    adherence: meanOf(rows.map((r) => (r.adherence_score === null ? null : r.adherence_score ? 1 : 0))),
  };
}

/** Runs the pipeline on N sampled questions of the subset and scores it. */
export async function runRagbenchPipeline(
  rkb: RagbenchKb,
  rows: readonly RagbenchRow[],
  deps: { provider: ChatProvider; models?: SearchModels },
  evaluate: PipelineEvaluator,
  opts: PipelineOptions = {},
): Promise<PipelineSubsetResult> {
  const config = opts.config ?? cloneConfig(DEFAULT_RAG_CONFIG);
  const { questions, goldRows } = pipelineQuestions(rows, opts.n, opts.seed ?? 0);
  const models = deps.models ?? {};
  const out = new Array<PipelineRowResult>(questions.length);
  const signal = opts.signal;
  let next = 0;
  let done = 0;
  opts.onProgress?.(0, questions.length, rkb.subset);
  const one = async (row: RagbenchRow): Promise<PipelineRowResult> => {
    const ans = await answerQuestion(rkb.kb, row.question, config, { provider: deps.provider, models, ...(signal ? { signal } : {}) });
    signal?.throwIfAborted();
    const retrieved = retrievedChunkIds(ans);
    const retrievedDocs = [...new Set(retrieved.map(docIndexOfChunkId).filter((d) => d >= 0))];
    const goldDocs = rkb.rowDocs.get(ragbenchRowKey(row)) ?? [];
    const rel = relevantDocs(rkb, row);
    const contexts = ans.contexts.map((c) => c.text);
    let scores: EvalScores = { ...NAN_SCORES };
    let evalError: string | undefined;
    if (ans.status === 'answered') {
      try {
        scores = { ...(await evaluate({ question: row.question, contexts, answer: ans.answer, row }, signal)) };
      } catch (e) {
        if (signal?.aborted) throw e;
        evalError = e instanceof Error ? e.message : String(e);
      }
    }
    const s = scores;
    return {
      key: ragbenchRowKey(row), id: row.id, question: row.question, status: ans.status,
      ...(ans.reason !== undefined ? { reason: ans.reason } : {}),
      answer: ans.answer, retrieved, retrievedDocs, goldDocs: [...goldDocs], relevantDocs: rel,
      recall: goldDocRecall(goldDocs, retrievedDocs), relevantRecall: goldDocRecall(rel, retrievedDocs),
      contexts, scores: { relevance: s.relevance, utilization: s.utilization, adherence: s.adherence, completeness: s.completeness },
      ...(s.ragas ? { ragas: { ...s.ragas } } : {}),
      ...(evalError !== undefined ? { evalError } : {}),
      gold: goldLabels(row), usage: ans.usage, ms: ans.ms,
    };
  };
  const worker = async () => {
    while (next < questions.length) {
      signal?.throwIfAborted();
      const i = next++;
      out[i] = await one(questions[i]!);
      opts.onRow?.(out[i]!);
      done++;
      opts.onProgress?.(done, questions.length, rkb.subset);
    }
  };
  const concurrency = Math.max(1, Math.floor(opts.concurrency ?? 1));
  await Promise.all(Array.from({ length: Math.min(concurrency, Math.max(1, questions.length)) }, worker));
  signal?.throwIfAborted();

  const statuses: Partial<Record<RagStatus, number>> = {};
  for (const r of out) statuses[r.status] = (statuses[r.status] ?? 0) + 1;
  const answered = out.filter((r) => r.status === 'answered');
  const metric = (m: keyof TraceScores) => meanOf(answered.map((r) => r.scores[m]));
  let usage: TokenUsage | null = null;
  for (const r of out) usage = addUsage(usage, r.usage);
  const ragas = ragasMeans(answered.map((r) => r.ragas));
  return {
    subset: rkb.subset,
    n: out.length,
    k: config.retrieval.topK,
    kb: { documents: rkb.docs.length, pooledFrom: rkb.documentCount, chunks: rkb.kb.size },
    statuses,
    predicted: { relevance: metric('relevance'), utilization: metric('utilization'), adherence: metric('adherence'), completeness: metric('completeness') },
    scored: answered.filter((r) => TRACE_METRICS.some((m) => !Number.isNaN(r.scores[m])) || r.ragas !== undefined).length,
    ...(ragas ? { ragas } : {}),
    recallAtK: meanOf(out.map((r) => r.recall)),
    relevantRecallAtK: meanOf(out.map((r) => r.relevantRecall)),
    gold: goldReference(goldRows),
    vsGold: goldComparison(questions, out.map((r) => r.scores), { iterations: opts.bootstrap ?? 0, seed: opts.seed ?? 0 }),
    rows: out,
    usage,
  };
}

// ------------------------------------------------------------------------------------------------ estimate

export interface PipelineEstimate {
  questions: number;
  /** Questions whose retrieval passes (the only ones the model is asked about). */
  answerable: number;
  answers: RunEstimate;
  /** The LLM judge's calls (null without an LLM judge). */
  judge: RunEstimate | null;
  notes: string[];
}

/**
 * Tokens and cost of a pipeline run before it is made: each question is retrieved exactly as the pipeline will
 * (local, no LLM), and its answer prompt built, so the input estimate is the chars/4 of the very prompt that will be
 * sent. Questions whose retrieval is empty or rejected are not sent. Output: `answerOutputTokens` per answer
 * (assumed). With a judge, each answer is judged `repeats` times on a prompt of its contexts plus the assumed answer.
 */
export async function estimatePipelineRun(
  rkb: RagbenchKb,
  questions: readonly RagbenchRow[],
  config: RagConfig,
  models: SearchModels,
  opts: { price: Price; judgePrice?: Price; answerOutputTokens?: number; judge?: { repeats: number; outputTokensPerCall?: number } | null },
): Promise<PipelineEstimate> {
  const notes: string[] = [];
  if (config.agentic) notes.push('agentic runs make extra calls (rewrite, grade, reflect) that are not counted');
  else if (config.transform.kind !== 'none') notes.push(`the ${config.transform.kind} transform makes one extra call per question that is not counted`);
  const answerOut = opts.answerOutputTokens ?? Math.min(DEFAULT_ANSWER_OUTPUT_TOKENS, config.llm.maxTokens);
  const answerPrompts: number[] = [];
  const judgePrompts: number[] = [];
  const mode = config.retrieval.mode;
  for (const q of questions) {
    const r = await retrieveQueries(rkb.kb, [q.question.trim()], { ...searchOptionsFor(config), mode, topK: config.retrieval.topK }, models);
    if (r.status !== 'ok') continue;
    const contexts = windowContexts(rkb.kb, r.hits, config.window);
    answerPrompts.push(estimateMessageTokens(answerRequest(buildAnswerMessages(q.question.trim(), contexts), config).messages));
    if (opts.judge) {
      judgePrompts.push(judgePromptTokens({ question: q.question, documents: contexts.map((c) => c.text), response: [] }) + answerOut);
    }
  }
  const answers = estimateRun(answerPrompts, { outputTokensPerCall: answerOut, price: opts.price });
  const judge = opts.judge
    ? estimateRun(judgePrompts, { repeats: opts.judge.repeats, outputTokensPerCall: opts.judge.outputTokensPerCall ?? DEFAULT_JUDGE_OUTPUT_TOKENS, price: opts.judgePrice ?? opts.price })
    : null;
  if (config.rerank.enabled) notes.push('with rerank the model sees fewer passages than estimated');
  return { questions: questions.length, answerable: answerPrompts.length, answers, judge, notes };
}

// ------------------------------------------------------------------------------------------------ JSON

/** Per RAGAS metric: the mean over subsets of their means (subsets without one left out), as mean_predicted. */
function meanRagas(results: readonly PipelineSubsetResult[]) {
  const of = (m: keyof RagasScores) => jsonNumber(meanOf(results.map((r) => r.ragas?.means[m])));
  return { faithfulness: of('faithfulness'), answer_relevancy: of('answer_relevancy'), context_precision: of('context_precision'), context_recall: of('context_recall') };
}

const scoresJson = (s: TraceScores) => ({
  relevance: jsonNumber(s.relevance), utilization: jsonNumber(s.utilization), adherence: jsonNumber(s.adherence), completeness: jsonNumber(s.completeness),
});

/** The CLI's JSON for pipeline results: per subset the means, recall, gold reference, statuses and per-question rows. */
export function pipelineSummary(results: readonly PipelineSubsetResult[]) {
  const subsets = dict<unknown>();
  for (const r of results) {
    subsets[r.subset] = {
      n: r.n,
      k: r.k,
      kb: { documents: r.kb.documents, pooled_from: r.kb.pooledFrom, chunks: r.kb.chunks },
      statuses: r.statuses,
      scored: r.scored,
      recall_at_k: jsonNumber(r.recallAtK),
      relevant_recall_at_k: jsonNumber(r.relevantRecallAtK),
      predicted: scoresJson(r.predicted),
      gold: { n: r.gold.n, ...scoresJson(r.gold) },
      vs_gold: goldComparisonJson(r.vsGold),
      ...(r.ragas ? { ragas: ragasJson(r.ragas) } : {}),
      usage: r.usage ? { input_tokens: r.usage.inputTokens, output_tokens: r.usage.outputTokens } : null,
      rows: r.rows.map((x) => ({
        id: x.id, status: x.status, ...(x.status !== 'answered' && x.reason ? { reason: x.reason } : {}), recall: jsonNumber(x.recall), relevant_recall: jsonNumber(x.relevantRecall),
        retrieved: x.retrieved, gold_docs: x.goldDocs.map((d) => `d${d}`), scores: scoresJson(x.scores), ...(x.ragas ? { ragas: ragasRowJson(x.ragas) } : {}),
        ...(x.evalError ? { eval_error: x.evalError } : {}),
      })),
    };
  }
  const meanOver = (f: (r: PipelineSubsetResult) => number) => jsonNumber(meanOf(results.map(f)));
  return {
    subsets,
    mean_recall_at_k: meanOver((r) => r.recallAtK),
    mean_predicted: {
      relevance: meanOver((r) => r.predicted.relevance), utilization: meanOver((r) => r.predicted.utilization),
      adherence: meanOver((r) => r.predicted.adherence), completeness: meanOver((r) => r.predicted.completeness),
    },
    mean_vs_gold: meanGoldJson(results.map((r) => r.vsGold)),
    ...(results.some((r) => r.ragas) ? { mean_ragas: meanRagas(results) } : {}),
  };
}
