/** run-models.ts: models as `id@dtype`, as a report's environment lists them, and which a RAGBench run needs. */
import { describe, expect, it } from 'vitest';
import { namedModels } from '../../src/lib/eval/retrieval/retrieval-request.ts';
import { modelKey, namedRunModels, nliModelKeys, ragbenchModelNeeds, runModelInfo } from '../../src/lib/eval/score/run-models.ts';
import { DEFAULT_MODELS } from '../../src/lib/models/registry.ts';
import { cloneConfig, DEFAULT_RAG_CONFIG, type RagConfig } from '../../src/lib/rag/config.ts';

const rag = (edit: (c: RagConfig) => void): RagConfig => { const c = cloneConfig(DEFAULT_RAG_CONFIG); edit(c); return c; };

describe('model names', () => {
  it('a model is id@dtype; the NLI evaluator names its NLI model and cross-encoder (null: none)', () => {
    expect(modelKey({ id: 'Xenova/nli-deberta-v3-xsmall', dtype: 'q8' })).toBe('Xenova/nli-deberta-v3-xsmall@q8');
    expect(nliModelKeys({ id: 'a/nli', dtype: 'fp32' }, { id: 'b/ce', dtype: 'q8' })).toEqual({ nli: 'a/nli@fp32', reranker: 'b/ce@q8' });
    expect(nliModelKeys({ id: 'a/nli', dtype: 'fp32' }, null)).toEqual({ nli: 'a/nli@fp32', reranker: null });
  });

  it('a loaded model as the report lists it: task, id, dtype, device (nothing else of the spec)', () => {
    const spec = { id: 'a/e', dtype: 'fp16', device: 'webgpu', extra: 1 };
    expect(runModelInfo('embedder', spec)).toEqual({ task: 'embedder', id: 'a/e', dtype: 'fp16', device: 'webgpu' });
  });
});

describe('ragbenchModelNeeds', () => {
  it('validate: only the NLI evaluator needs models (its NLI model and the cross-encoder)', () => {
    expect(ragbenchModelNeeds('lexical', null)).toEqual({ embedder: false, reranker: false, nli: false, search: false });
    expect(ragbenchModelNeeds('llm', null)).toEqual({ embedder: false, reranker: false, nli: false, search: false });
    expect(ragbenchModelNeeds('nli', null)).toEqual({ embedder: false, reranker: true, nli: true, search: false });
  });

  it('pipeline: what its retrieval searches with, and the NLI evaluator\'s models on top', () => {
    expect(ragbenchModelNeeds('lexical', rag((c) => { c.retrieval.mode = 'sparse'; }))).toEqual({ embedder: false, reranker: false, nli: false, search: false });
    expect(ragbenchModelNeeds('lexical', rag((c) => { c.retrieval.mode = 'dense'; }))).toEqual({ embedder: true, reranker: false, nli: false, search: true });
    expect(ragbenchModelNeeds('llm', rag((c) => { c.retrieval.mode = 'sparse'; c.rerank.enabled = true; }))).toEqual({ embedder: false, reranker: true, nli: false, search: true });
    // The NLI evaluator's cross-encoder is not a search model: sparse retrieval still searches without one.
    expect(ragbenchModelNeeds('nli', rag((c) => { c.retrieval.mode = 'sparse'; }))).toEqual({ embedder: false, reranker: true, nli: true, search: false });
  });
});

describe('namedRunModels', () => {
  it('names the needed models by the given ids or the registry\'s, in the order embedder, cross-encoder, NLI', () => {
    const all = namedRunModels({ nli: 'x/nli', dtype: 'q8' }, { embedder: true, reranker: true, nli: true }, 'cpu');
    expect(all).toEqual({
      embedder: `${DEFAULT_MODELS.embedder}@q8`, reranker: `${DEFAULT_MODELS['cross-encoder']}@q8`, nli: 'x/nli@q8',
      loaded: [
        { task: 'embedder', id: DEFAULT_MODELS.embedder, dtype: 'q8', device: 'cpu' },
        { task: 'cross-encoder', id: DEFAULT_MODELS['cross-encoder'], dtype: 'q8', device: 'cpu' },
        { task: 'nli', id: 'x/nli', dtype: 'q8', device: 'cpu' },
      ],
    });
    expect(namedRunModels({ reranker: 'y/ce', dtype: 'fp32' }, { nli: true, reranker: true }, 'cpu').loaded.map((m) => `${m.task} ${m.id}`))
      .toEqual(['cross-encoder y/ce', `nli ${DEFAULT_MODELS.nli}`]);
    expect(namedRunModels({ dtype: 'fp32' }, {}, 'cpu')).toEqual({ embedder: null, reranker: null, nli: null, loaded: [] });
  });

  it('retrieval-run\'s namedModels are its embedder and cross-encoder', () => {
    expect(namedModels({ embedder: 'e/1', dtype: 'fp16' }, { dense: true, reranker: false }, 'cpu'))
      .toEqual({ embedder: 'e/1@fp16', reranker: null, loaded: [{ task: 'embedder', id: 'e/1', dtype: 'fp16', device: 'cpu' }] });
  });
});
