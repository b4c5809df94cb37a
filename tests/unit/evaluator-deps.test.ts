/** evaluator-deps.ts: the NLI evaluator's models from single-model loaders, and each evaluator's dependencies. */
import { describe, expect, it } from 'vitest';
import { buildEvaluatorDeps, nliModelLoader } from '../../src/lib/eval/score/evaluator-deps.ts';
import type { ChatProvider } from '../../src/lib/llm/types.ts';
import { ModelLoadError } from '../../src/lib/models/errors.ts';
import type { ModelSpec, NliClassifier, PairScorer } from '../../src/lib/models/types.ts';

const SPEC: ModelSpec = { id: 'rag-lab/tiny-nli', dtype: 'q8', device: 'cpu' };
const nliOf = (spec: ModelSpec): NliClassifier => ({ spec, predict: async () => ({ entailment: 1, neutral: 0, contradiction: 0 }) });
const ce: PairScorer = { spec: { id: 'rag-lab/tiny-cross-encoder', dtype: 'q8', device: 'cpu' }, score: async (_q, ps) => ps.map(() => 0) };
const fail = (message: string) => new Error(`failed: ${message}`);

describe('nliModelLoader', () => {
  it('loads the cross-encoder first, then the NLI model of the spec, and says how long the NLI model took', async () => {
    const order: string[] = [], lines: string[] = [];
    const loader = nliModelLoader(SPEC, {
      reranker: async () => { order.push('reranker'); return ce; },
      nli: async (spec) => { order.push(`nli ${spec.id} ${spec.dtype}`); return nliOf(spec); },
    }, { log: (l) => lines.push(l), error: fail });
    const models = await loader.nliModels();
    expect(order).toEqual(['reranker', 'nli rag-lab/tiny-nli q8']);
    expect(models.reranker).toBe(ce);
    expect(models.nli.spec).toEqual(SPEC);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^loaded NLI rag-lab\/tiny-nli \(q8\) in \d+ ms$/);
  });

  it('a failed NLI load is the hook\'s error: a ModelLoadError\'s own message, else one naming the model', async () => {
    const mle = new ModelLoadError('Model "rag-lab/tiny-nli": no such folder.', { modelId: SPEC.id, kind: 'not-found' });
    const load = (e: Error) => nliModelLoader(SPEC, { reranker: async () => null, nli: async () => { throw e; } }, { log: () => {}, error: fail }).nliModels();
    await expect(load(mle)).rejects.toThrow(/^failed: Model "rag-lab\/tiny-nli": no such folder\.$/);
    await expect(load(new Error('disk full'))).rejects.toThrow(/^failed: could not load NLI model rag-lab\/tiny-nli: disk full$/);
  });

  it('a failed cross-encoder load passes as it is, and the NLI model is not loaded', async () => {
    const e = new Error('no cross-encoder');
    let nliLoaded = false;
    const loader = nliModelLoader(SPEC, { reranker: async () => { throw e; }, nli: async (s) => { nliLoaded = true; return nliOf(s); } }, { log: () => {}, error: fail });
    await expect(loader.nliModels()).rejects.toBe(e);
    expect(nliLoaded).toBe(false);
  });
});

describe('buildEvaluatorDeps', () => {
  const judge: ChatProvider = { id: 'openai', chat: async () => { throw new Error('unused'); }, stream: async () => { throw new Error('unused'); } };

  it('lexical needs nothing; the LLM judge its provider; the NLI evaluator its models from the loader', async () => {
    expect(await buildEvaluatorDeps('lexical', {})).toEqual({});
    expect((await buildEvaluatorDeps('llm', { judge })).judge).toBe(judge);
    const models = { nli: nliOf(SPEC), reranker: null };
    expect((await buildEvaluatorDeps('nli', { models: { nliModels: async () => models } })).nli).toBe(models);
  });

  it('says what is missing', async () => {
    await expect(buildEvaluatorDeps('llm', { judge: null })).rejects.toThrow('Choose a provider and model for the LLM judge.');
    await expect(buildEvaluatorDeps('nli', {})).rejects.toThrow(/needs the NLI model/);
  });
});
