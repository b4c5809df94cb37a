/**
 * The Benchmark tab's evaluator choices: every evaluator of the registry (src/lib/eval/score/evaluators.ts `EVALUATORS`,
 * keyed alike, so a new evaluator is a compile error here until it has a choice), in the order the select lists
 * them, with its label and whether it calls an LLM judge with the user's key (the registry's `api`, checked equal in
 * tests/unit/bench-evaluators.test.ts). Also what the tab says about RAGAS with the models loaded and about pipeline
 * mode's judge, and the evaluator part of the run's BenchConfig (the chosen evaluator in either mode).
 */
import type { BenchConfig } from '../lib/eval/ragbench-run/ragbench-tab-config.ts';
import type { EvaluatorId } from '../lib/eval/score/evaluators.ts';
import { nliModelKeys } from '../lib/eval/score/run-models.ts';

export interface EvaluatorChoice {
  label: string;
  /** Calls an LLM judge: the tab asks for its provider, model and key. */
  judge: boolean;
}

export const EVALUATOR_CHOICES: Record<EvaluatorId, EvaluatorChoice> = {
  lexical: { label: 'Offline lexical (no model, no network)', judge: false },
  llm: { label: 'LLM judge (your key)', judge: true },
  nli: { label: 'Local NLI model (in this browser)', judge: false },
  ragas: { label: 'RAGAS metrics (LLM judge, your key)', judge: true },
};

export const isEvaluatorChoice = (x: string | null): x is EvaluatorId => x !== null && Object.hasOwn(EVALUATOR_CHOICES, x);

/** The embedder of the loaded models (`id@dtype`), or null. */
export function loadedEmbedder(loaded: ReadonlyArray<{ task: string; spec: { id: string; dtype: string } }>): string | null {
  const e = loaded.find((m) => m.task === 'embedder');
  return e ? `${e.spec.id}@${e.spec.dtype}` : null;
}

/** What RAGAS scores in validate mode with this embedder loaded (or none): answer relevancy needs one; no reference answer there. */
export function ragasValidateNote(embedder: string | null): string {
  const relevancy = embedder
    ? `answer relevancy embeds with the loaded embedder ${embedder}`
    : 'answer relevancy is absent: it needs an embedder (load one under Settings → Models)';
  return `RAGAS scores faithfulness and ${relevancy}. Context precision and recall need a reference answer other than the one scored, which validate mode does not have: they are absent. The judge makes 2 to 3 calls per row.`;
}

/** What RAGAS scores in pipeline mode with this embedder loaded (or none): RAGBench's answer is the reference there. */
export function ragasPipelineNote(embedder: string | null): string {
  const relevancy = embedder
    ? `answer relevancy with the loaded embedder ${embedder}`
    : 'not answer relevancy: it needs an embedder (load one under Settings → Models)';
  return `RAGAS scores faithfulness, context precision and recall (RAGBench's answer to the question as the reference) and ${relevancy}. The judge makes 1 to 5 calls per answer.`;
}

/** Pipeline mode's judge (the LLM judge, RAGAS): the answering model, whose key is the Ask tab's. */
export const pipelineJudgeNote = (llm: { provider: string; model: string }): string =>
  `The judge is the answering model (${llm.provider}/${llm.model}: the Ask tab's provider, endpoint and model), with the key entered there; no second key is needed.`;

type ModelRef = { id: string; dtype: string };

/**
 * The evaluator part of the tab's BenchConfig, in either mode: the chosen evaluator; validate mode's judge settings
 * (pipeline mode's judge is the answering model of the run's `rag`, so none); the NLI models as the models worker
 * holds them (the cross-encoder only when loaded); RAGAS's embedder, the loaded one.
 */
export function evaluatorConfig(o: {
  mode: BenchConfig['mode']; evaluator: EvaluatorId; judge: NonNullable<BenchConfig['judge']>;
  loaded: ReadonlyArray<{ task: string; spec: ModelRef }>; nli: ModelRef; crossEncoder: ModelRef;
}): Pick<BenchConfig, 'evaluator' | 'judge' | 'nliModels' | 'ragasEmbedder'> {
  const judged = o.mode === 'validate' && EVALUATOR_CHOICES[o.evaluator].judge;
  return {
    evaluator: o.evaluator,
    judge: judged ? { ...o.judge } : null,
    nliModels: o.evaluator === 'nli' ? nliModelKeys(o.nli, o.loaded.some((m) => m.task === 'cross-encoder') ? o.crossEncoder : null) : null,
    ...(o.evaluator === 'ragas' ? { ragasEmbedder: loadedEmbedder(o.loaded) } : {}),
  };
}
