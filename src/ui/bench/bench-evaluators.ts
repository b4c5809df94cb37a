/**
 * The Benchmark tab's evaluator choices, derived from the registry (src/lib/eval/evaluators.ts `EVALUATORS`): every
 * evaluator in the registry's order, with its picker label and whether it calls an LLM judge with the user's key (its
 * `api`). Also what the tab says about an evaluator with the models loaded (its `modeNote`) and about pipeline mode's
 * judge, and the evaluator part of the run's BenchConfig (the chosen evaluator in either mode).
 */
import type { BenchConfig } from '../../lib/eval/ragbench-run/ragbench-tab-config.ts';
import { EVALUATORS, type EvaluatorId } from '../../lib/eval/score/evaluators.ts';
import { nliModelKeys } from '../../lib/eval/score/run-models.ts';

export { ragasPipelineNote, ragasValidateNote } from '../../lib/eval/score/evaluators.ts';

export interface EvaluatorChoice {
  label: string;
  /** Calls an LLM judge: the tab asks for its provider, model and key. */
  judge: boolean;
}

export const EVALUATOR_CHOICES: Readonly<Record<EvaluatorId, EvaluatorChoice>> = Object.freeze(Object.fromEntries(
  Object.values(EVALUATORS).map((d) => [d.id, { label: d.choice, judge: d.api }]),
) as Record<EvaluatorId, EvaluatorChoice>);

/** What the tab says of evaluator `id` in `mode` with the loaded embedder (or none); null when nothing. */
export const evaluatorModeNote = (id: EvaluatorId, mode: 'validate' | 'pipeline', embedder: string | null): string | null =>
  EVALUATORS[id].modeNote?.(mode, embedder) ?? null;

export const isEvaluatorChoice = (x: string | null): x is EvaluatorId => x !== null && Object.hasOwn(EVALUATOR_CHOICES, x);

/** The embedder of the loaded models (`id@dtype`), or null. */
export function loadedEmbedder(loaded: ReadonlyArray<{ task: string; spec: { id: string; dtype: string } }>): string | null {
  const e = loaded.find((m) => m.task === 'embedder');
  return e ? `${e.spec.id}@${e.spec.dtype}` : null;
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
    nliModels: EVALUATORS[o.evaluator].usesNli ? nliModelKeys(o.nli, o.loaded.some((m) => m.task === 'cross-encoder') ? o.crossEncoder : null) : null,
    ...(EVALUATORS[o.evaluator].usesEmbedder ? { ragasEmbedder: loadedEmbedder(o.loaded) } : {}),
  };
}
