/**
 * One answer, scored (the Ask tab's "Score this answer"): the chosen evaluator of the registry (evaluators.ts) scores
 * the question, the answer and the contexts it was given, as a pipeline-mode answer is scored (pipeline-mode.ts
 * `PipelineEvalInput`): TRACe's four, and RAGAS's four when RAGAS is chosen, whose context precision and recall take
 * the reference answer when there is one (a RAGBench question's gold response). A judge reply that cannot be read,
 * or that lacks what TRACe is computed from (the relevant and utilized keys, a support verdict), is a failed score
 * (`ScoreError`), never a 0.
 *
 * `scoreRequest` is the models worker's side: it checks the request, takes that worker's loaded NLI model,
 * cross-encoder and embedder, and builds the judge's provider (api-setup.ts) with the key given for its endpoint.
 */
import * as v from 'valibot';
import type { RagbenchRow } from '../../data/ragbench.ts';
import type { ModelSpec, NliProbabilities } from '../../models/types.ts';
import { apiSetup } from '../core/api-setup.ts';
import { buildEvaluatorDeps, judgeSettings, ragasSettings, type EvaluatorModelLoader } from './evaluator-deps.ts';
import { EVALUATOR_IDS, EVALUATORS, type EvaluatorDeps, type EvaluatorId, type EvaluatorSettings } from './evaluators.ts';
import type { JudgeResult } from '../metrics/judge.ts';
import type { RepeatedJudgeResult } from '../ragbench/judge-runs.ts';
import type { RagasScores } from '../metrics/ragas.ts';
import { modelKey, nliModelKeys } from './run-models.ts';
import type { TraceScores } from '../metrics/trace.ts';

/** What is scored: the question, the answer and the texts the answer was given; the reference answer when known. */
export interface AnswerToScore {
  question: string;
  answer: string;
  contexts: readonly string[];
  /** RAGAS's reference for context precision and recall (absent or null: they are absent). */
  reference?: string | null;
}

export interface AnswerScore {
  evaluator: EvaluatorId;
  /** NaN where the evaluator gives no value (RAGAS: all four; NLI: completeness). */
  scores: TraceScores;
  /** RAGAS's own four (NaN where absent); null for the other evaluators. */
  ragas: RagasScores | null;
}

/** A score that could not be made (the judge's reply unusable, a model missing): its message says why. */
export class ScoreError extends Error {
  override readonly name = 'ScoreError';
}

/**
 * The evaluators' pipeline input takes a RAGBench row, of which they read only RAGAS's reference (`response`): the
 * row of a free question is this one, with the reference (or '') as its response.
 */
function referenceRow(question: string, reference: string): RagbenchRow {
  return {
    id: '', question, documents: [], response: reference, generation_model_name: '', annotating_model_name: '', dataset_name: '',
    documents_sentences: [], response_sentences: [], sentence_support_information: [], unsupported_response_sentence_keys: [],
    adherence_score: null, overall_supported_explanation: null, relevance_explanation: null, all_relevant_sentence_keys: [],
    all_utilized_sentence_keys: [], trulens_groundedness: null, trulens_context_relevance: null, ragas_faithfulness: null,
    ragas_context_relevance: null, gpt3_adherence: null, gpt3_context_relevance: null, gpt35_utilization: null,
    relevance_score: null, utilization_score: null, completeness_score: null,
  };
}

/** Why a judge reply gives no TRACe scores (null: it does). */
export function unusableReply(r: JudgeResult): string | null {
  if (r.parseFailed) return `no JSON object in the reply (${r.error ?? 'unreadable'})`;
  const missing = (['all_relevant_sentence_keys', 'all_utilized_sentence_keys'] as const).filter((f) => r.defaulted.includes(f));
  if (r.defaulted.includes('overall_supported') && r.defaulted.includes('sentence_support_information')) missing.push('overall_supported' as never);
  return missing.length > 0 ? `the reply lacks ${missing.join(', ')}` : null;
}

/** Scores one answer with evaluator `id` (its settings and dependencies as evaluators.ts builds them). */
export async function scoreAnswer(
  id: EvaluatorId, settings: EvaluatorSettings, deps: Omit<EvaluatorDeps, 'onJudge'>, input: AnswerToScore, signal?: AbortSignal,
): Promise<AnswerScore> {
  let judged: RepeatedJudgeResult | null = null;
  const built = EVALUATORS[id].build(settings, { ...deps, onJudge: (_row, r) => { judged = r; } });
  const s = await built.pipeline({
    question: input.question, contexts: input.contexts, answer: input.answer, row: referenceRow(input.question, input.reference?.trim() ?? ''),
  }, signal);
  const j = judged as RepeatedJudgeResult | null;
  if (j) {
    const why = j.results.map(unusableReply).find((x) => x !== null);
    if (why) throw new ScoreError(`The judge's reply could not be used (${why}): no score.`);
  }
  return {
    evaluator: id,
    scores: { relevance: s.relevance, utilization: s.utilization, adherence: s.adherence, completeness: s.completeness },
    ragas: s.ragas ? { ...s.ragas } : null,
  };
}

// ------------------------------------------------------------------------------------------------ the worker's side

/** The models a score draws on (the models worker's session fits). */
export interface ScoreModels {
  loaded(): ReadonlyArray<{ task: string; spec: ModelSpec; dim: number | null }> | Promise<ReadonlyArray<{ task: string; spec: ModelSpec; dim: number | null }>>;
  embed(texts: string[], kind: 'query' | 'passage'): Promise<Float32Array>;
  rerank(query: string, passages: string[]): Promise<number[]>;
  nli(premise: string, hypothesis: string): Promise<NliProbabilities>;
}

/** Bounds of a request (the Ask tab's question limit, its answer and sources with room to spare). */
export const SCORE_LIMITS = { questionChars: 4000, answerChars: 40_000, contexts: 100, contextChars: 40_000 } as const;

const Text = (max: number) => v.pipe(v.string(), v.maxLength(max, `is over ${max} characters`));
const ScoreRequestSchema = v.object({
  evaluator: v.picklist(EVALUATOR_IDS, 'is not an evaluator'),
  /** The LLM judge (and RAGAS's): the Ask tab's provider, endpoint and model; null for the others. */
  judge: v.nullable(v.object({ provider: v.string(), baseUrl: v.nullable(v.string()), model: v.pipe(v.string(), v.trim(), v.minLength(1, 'names no model')) })),
  input: v.object({
    question: v.pipe(Text(SCORE_LIMITS.questionChars), v.trim(), v.minLength(1, 'is empty')),
    answer: v.pipe(Text(SCORE_LIMITS.answerChars), v.trim(), v.minLength(1, 'is empty: there is nothing to score')),
    contexts: v.pipe(v.array(Text(SCORE_LIMITS.contextChars)), v.maxLength(SCORE_LIMITS.contexts, `has over ${SCORE_LIMITS.contexts} sources`)),
    reference: v.nullable(Text(SCORE_LIMITS.answerChars)),
  }),
});
export type ScoreRequest = v.InferInput<typeof ScoreRequestSchema>;

/** The loaded NLI model and cross-encoder, and the loaded embedder (RAGAS's answer relevancy; none: absent). */
function loadedModels(m: ScoreModels | null): EvaluatorModelLoader & { embedderName(): Promise<string | null> } {
  const find = async (task: string) => (m ? (await m.loaded()).find((x) => x.task === task) : undefined);
  return {
    async embedderName() {
      const e = await find('embedder');
      return e && e.dim !== null ? modelKey(e.spec) : null;
    },
    async embedder() {
      const e = await find('embedder');
      return m && e && e.dim !== null ? { spec: e.spec, dim: e.dim, embed: (texts, kind) => m.embed([...texts], kind) } : null;
    },
    async nliModels() {
      const nli = await find('nli');
      if (!m || !nli) throw new ScoreError('The NLI evaluator needs the NLI model: load it under Settings → Models.');
      const ce = await find('cross-encoder');
      return { nli: { spec: nli.spec, predict: (p, h) => m.nli(p, h) }, reranker: ce ? { spec: ce.spec, score: (q, ps) => m.rerank(q, [...ps]) } : null };
    },
  };
}

/** Checks a request from the page and scores it with these models; `apiKey` goes only to the judge's endpoint. */
export async function scoreRequest(request: unknown, models: ScoreModels | null, apiKey: string | null): Promise<AnswerScore> {
  const parsed = v.safeParse(ScoreRequestSchema, request);
  if (!parsed.success) {
    const i = parsed.issues[0];
    throw new ScoreError(`The score request is invalid: ${v.getDotPath(i) ?? 'it'} ${i.message}.`);
  }
  const { evaluator: id, judge, input } = parsed.output;
  const def = EVALUATORS[id];
  if (def.api && !judge) throw new ScoreError(`The ${def.label} needs a provider and model: choose them above.`);
  if (def.api && judge?.provider === 'browser') throw new ScoreError(`The ${def.label} needs an API provider: the in-browser model does not judge.`);
  const loader = loadedModels(models);
  const nli = def.usesNli ? await loader.nliModels() : null;
  const settings: EvaluatorSettings = {
    nliModels: nli ? nliModelKeys(nli.nli.spec, nli.reranker?.spec ?? null) : null,
    judge: judgeSettings(id, judge),
    ...ragasSettings(id, def.usesEmbedder ? await loader.embedderName() : null),
  };
  const provider = def.api && judge ? apiSetup({ provider: judge.provider, baseUrl: judge.baseUrl, model: judge.model, apiKey }).provider : null;
  const deps = nli ? { nli } : await buildEvaluatorDeps(id, { models: loader, judge: provider });
  return scoreAnswer(id, settings, deps, input);
}
