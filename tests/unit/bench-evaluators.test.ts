/** The Benchmark tab's evaluator choices (src/ui/bench/bench-evaluators.ts) are the registry's evaluators, with its judge flag. */
import { describe, expect, it } from 'vitest';
import { EVALUATOR_IDS, EVALUATORS } from '../../src/lib/eval/score/evaluators.ts';
import {
  EVALUATOR_CHOICES, evaluatorConfig, isEvaluatorChoice, loadedEmbedder, pipelineJudgeNote, ragasPipelineNote, ragasValidateNote,
} from '../../src/ui/bench/bench-evaluators.ts';

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

  describe('the evaluator part of the run\'s config', () => {
    const judge = { provider: 'groq' as const, baseUrl: null, model: 'j', repeats: 2, rpm: 30, tpm: null };
    const nli = { id: 'tiny-nli', dtype: 'q8' };
    const crossEncoder = { id: 'tiny-ce', dtype: 'q8' };
    const loaded = [{ task: 'nli', spec: nli }, { task: 'cross-encoder', spec: crossEncoder }, { task: 'embedder', spec: { id: 'e', dtype: 'fp32' } }];
    const cfg = (mode: 'validate' | 'pipeline', evaluator: 'lexical' | 'nli' | 'llm' | 'ragas', have = loaded) => evaluatorConfig({ mode, evaluator, judge, loaded: have, nli, crossEncoder });

    it('pipeline mode runs the chosen evaluator (not forced to lexical); its judge is the answering model, so no judge settings', () => {
      for (const ev of EVALUATOR_IDS) expect(cfg('pipeline', ev).evaluator).toBe(ev);
      expect(cfg('pipeline', 'llm').judge).toBeNull();
      expect(cfg('validate', 'llm').judge).toEqual(judge);
      expect(cfg('validate', 'lexical').judge).toBeNull();
    });

    it('NLI names its loaded models in either mode (the cross-encoder only when loaded); RAGAS the loaded embedder', () => {
      expect(cfg('pipeline', 'nli').nliModels).toEqual({ nli: 'tiny-nli@q8', reranker: 'tiny-ce@q8' });
      expect(cfg('validate', 'nli', loaded.slice(0, 1)).nliModels).toEqual({ nli: 'tiny-nli@q8', reranker: null });
      expect(cfg('pipeline', 'lexical')).toEqual({ evaluator: 'lexical', judge: null, nliModels: null });
      expect(cfg('pipeline', 'ragas').ragasEmbedder).toBe('e@fp32');
      expect(cfg('validate', 'ragas', []).ragasEmbedder).toBeNull();
    });

    it('pipeline mode says its judge is the answering model and what RAGAS scores there', () => {
      expect(pipelineJudgeNote({ provider: 'openai', model: 'answerer' })).toMatch(/^The judge is the answering model \(openai\/answerer: the Ask tab's provider, endpoint and model\), with the key entered there; no second key/);
      expect(ragasPipelineNote(null)).toMatch(/not answer relevancy: it needs an embedder/);
      expect(ragasPipelineNote('e@q8')).toMatch(/context precision and recall \(RAGBench's answer to the question as the reference\) and answer relevancy with the loaded embedder e@q8/);
    });
  });
});
