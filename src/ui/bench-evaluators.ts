/**
 * The Benchmark tab's evaluator choices: every evaluator of the registry (src/lib/eval/evaluators.ts `EVALUATORS`,
 * keyed alike, so a new evaluator is a compile error here until it has a choice), in the order the select lists
 * them, with its label and whether it calls an LLM judge with the user's key (the registry's `api`, checked equal in
 * tests/unit/bench-evaluators.test.ts). Also what the tab says about RAGAS with the models loaded.
 */
import type { EvaluatorId } from '../lib/eval/evaluators.ts';

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
