/** The Tune panel's texts (src/ui/tune/tune-view.ts): the progress line, Adopt's diff lines, a test set's provenance. */
import { describe, expect, it } from 'vitest';
import { adoptLines, progressText, provenanceText, spaceFields } from '../../src/ui/tune/tune-view.ts';
import { RUN_SETTINGS } from '../../src/lib/settings/retrieval-run.ts';
import { modelsText } from '../../src/lib/tune/tune-text.ts';

describe('the Tune panel texts', () => {
  it('says where a writing or a tune is, with the ETA', () => {
    expect(progressText({ phase: 'write', done: 12, total: 36, written: 8, dropped: 3, cached: 1, etaMs: 65_000 }))
      .toBe('questions: 12 of 36 chunks (8 written, 3 dropped, 1 from the cache) · ETA 1 min 05 s');
    expect(progressText({ phase: 'tune', rung: 1, rungs: 3, done: 4, total: 14, queries: 70, etaMs: null }))
      .toBe('rung 2 of 3: trial 4 of 14 on 70 tuning queries · ETA … for this rung');
    expect(progressText({ phase: 'embed', embedder: 'Xenova/bge-small-en-v1.5@q8', done: 500, total: 5183, etaMs: 65_000 }))
      .toBe('Xenova/bge-small-en-v1.5@q8: 500 of 5183 items embedded · ETA 1 min 05 s');
  });

  it('lists what Adopt changes, a null as the knowledge base\'s own or the default', () => {
    expect(adoptLines([
      { setting: 'k1', label: 'BM25 k1', from: null, to: 1.5 },
      { setting: 'mode', label: 'retrieval mode', from: 'sparse', to: 'hybrid_fixed' },
    ])).toEqual(["k1: the knowledge base's / default → 1.5 (BM25 k1)", 'mode: sparse → hybrid_fixed (retrieval mode)']);
  });

  it('shows a test set\'s model, prompt version, seed and counts, not the rest', () => {
    expect(provenanceText({ provider: 'openai', model: 'm', promptVersion: 'testset-v1', seed: 0, asked: 36, junk: 6, cached: 2 }))
      .toBe('model m, promptVersion testset-v1, seed 0, junk 6, cached 2');
  });
  it('names the models and what a corpus-trained embedder was trained on', () => {
    const id = { dataKey: 'k', dataset: 'SciFact', kb: null, embedder: 'corpus/scifact-lsi@q8', reranker: 'x/ce@q8' };
    expect(modelsText({ ...id, embedderCorpus: { title: 'SciFact', corpusHash: 'h', thisDataset: true } })).toBe('embedder corpus/scifact-lsi@q8 (trained on this dataset (SciFact)), reranker x/ce@q8');
    expect(modelsText({ ...id, embedderCorpus: { title: 'Manuals', corpusHash: 'g', thisDataset: false } })).toMatch(/\(trained on Manuals, another corpus than this dataset\)/);
    expect(modelsText({ ...id, embedder: null, reranker: null })).toBe('no embedder');
  });
  it('the space fields come from the declarations: their flags, default values and modes; rebuilding ones only when asked', () => {
    const plain = spaceFields(false), all = spaceFields(true);
    expect(plain.find((f) => f.flag === 'k1')).toEqual({ flag: 'k1', describe: 'BM25 k1', defaults: RUN_SETTINGS.k1.tune!.values.join(', '), where: RUN_SETTINGS.k1.tune!.modes!.join(', ') });
    expect(plain.find((f) => f.flag === 'candidate-k')!.defaults).toBe('20, 50, auto');
    expect(plain.find((f) => f.flag === 'index')!.where).toMatch(/; tried beside the finalists$/);
    expect(plain.map((f) => f.flag)).not.toContain('chunk-size');
    expect(all.find((f) => f.flag === 'chunk-size')!.where).toMatch(/builds again/);
    expect(all.length - plain.length).toBe(3);
  });
});
