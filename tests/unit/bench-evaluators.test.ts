/** The Benchmark tab's evaluator choices (src/ui/bench-evaluators.ts) are the registry's evaluators, with its judge flag. */
import { describe, expect, it } from 'vitest';
import { EVALUATOR_IDS, EVALUATORS } from '../../src/lib/eval/evaluators.ts';
import { EVALUATOR_CHOICES, isEvaluatorChoice, loadedEmbedder, ragasValidateNote } from '../../src/ui/bench-evaluators.ts';

describe('Benchmark tab evaluator choices', () => {
  it('list every evaluator of the registry, the select\'s order kept (lexical, llm, nli, then ragas), each asking for a judge when it calls one', () => {
    expect(Object.keys(EVALUATOR_CHOICES)).toEqual(['lexical', 'llm', 'nli', 'ragas']);
    expect(Object.keys(EVALUATOR_CHOICES).sort()).toEqual([...EVALUATOR_IDS].sort());
    for (const id of EVALUATOR_IDS) expect(EVALUATOR_CHOICES[id].judge, id).toBe(EVALUATORS[id].api);
    expect(isEvaluatorChoice('ragas')).toBe(true);
    expect(isEvaluatorChoice('constructor')).toBe(false);
    expect(isEvaluatorChoice(null)).toBe(false);
  });

  it('RAGAS says what it scores with the loaded models: answer relevancy only with an embedder', () => {
    expect(loadedEmbedder([{ task: 'nli', spec: { id: 'n', dtype: 'q8' } }])).toBeNull();
    expect(loadedEmbedder([{ task: 'embedder', spec: { id: 'Xenova/bge-small-en-v1.5', dtype: 'q8' } }])).toBe('Xenova/bge-small-en-v1.5@q8');
    expect(ragasValidateNote(null)).toMatch(/answer relevancy is absent: it needs an embedder \(load one under Settings → Models\)/);
    expect(ragasValidateNote('e@q8')).toMatch(/answer relevancy embeds with the loaded embedder e@q8/);
    expect(ragasValidateNote('e@q8')).toMatch(/Context precision and recall .* absent/);
  });
});
