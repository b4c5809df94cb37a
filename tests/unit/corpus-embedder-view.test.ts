/** The tab's words for corpus-trained embedders: stages, the corpus-trained label, the spec and the result line. */
import { describe, expect, it } from 'vitest';
import { modelName, TRAIN_BUTTON, TRAIN_EXPLANATION, trainedLabel, trainedResultText, trainedSpec, trainStageText } from '../../src/ui/models/corpus-embedder-view.ts';
import type { TrainedModelMeta } from '../../src/lib/store/trained-models.ts';

const META: TrainedModelMeta = {
  id: 'corpus/sotu-lsi256', kbId: 'sotu', kbTitle: 'State of the Union', method: 'lsi', dim: 256, documents: 12345, vocabulary: 23456,
  seconds: 3.21, created: '2026-12-02T03:00:00.000Z', bytes: 10, files: [{ path: 'config.json', bytes: 10, sha256: '0'.repeat(64) }], notes: [],
};

describe('corpus embedder view', () => {
  it('names the button and says what it does and what it is not', () => {
    expect(TRAIN_BUTTON).toBe('Train a corpus embedder (no download)');
    expect(TRAIN_EXPLANATION).toMatch(/LSI/);
    expect(TRAIN_EXPLANATION).toMatch(/weaker than a pretrained model/);
  });

  it('describes each stage with its counts', () => {
    expect(trainStageText(null)).toBe('Starting…');
    expect(trainStageText({ stage: 'svd', done: 3, total: 8 })).toBe('Truncated SVD (3 / 8)');
    expect(trainStageText({ stage: 'tokenize', done: 1024, total: 12345 })).toBe('Tokenizing the chunks (1,024 / 12,345)');
    expect(trainStageText({ stage: 'save', done: 0, total: 1 })).toBe('Saving it in this browser');
  });

  it('labels a trained id as corpus-trained, never a pretrained id', () => {
    expect(trainedLabel('corpus/sotu-lsi256', META)).toBe('corpus-trained (LSI, 256-d, trained on State of the Union)');
    expect(trainedLabel('corpus/gone-lsi256', undefined)).toMatch(/^corpus-trained \(LSI; not in this browser/);
    expect(trainedLabel('Xenova/all-MiniLM-L6-v2', META)).toBeNull();
    expect(modelName('corpus/sotu-lsi256', trainedLabel('corpus/sotu-lsi256', META))).toBe('corpus/sotu-lsi256, corpus-trained (LSI, 256-d, trained on State of the Union)');
    expect(modelName('Xenova/all-MiniLM-L6-v2', null)).toBe('Xenova/all-MiniLM-L6-v2');
  });

  it('loads q8 on WASM and says what happened, and whose embedder it is', () => {
    expect(trainedSpec(META)).toEqual({ id: 'corpus/sotu-lsi256', dtype: 'q8', device: 'wasm' });
    expect(trainedResultText(META, true)).toBe('Trained corpus/sotu-lsi256 on 12,345 chunks (23,456 terms, 256-d) in 3.2 s; it is State of the Union’s embedder, dense search here uses it.');
    // Never "selected as the embedder" (of every corpus): the model is its knowledge base's only.
    expect(trainedResultText(META, false)).toBe('Trained corpus/sotu-lsi256 on 12,345 chunks (23,456 terms, 256-d) in 3.2 s; it is State of the Union’s embedder (other knowledge bases keep theirs): open it in Search to use it for dense search.');
    expect(trainedResultText({ ...META, dim: 40 }, true)).toMatch(/\(23,456 terms, 40-d: 256 asked, this knowledge base allows 40\)/);
  });
});
