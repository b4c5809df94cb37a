/**
 * trainKbEmbedder, the build worker's training run: the open knowledge base's texts or a local knowledge base read
 * by name are trained on, the model is saved under corpus/<name>-lsi<dim> with what it was trained on, progress goes
 * read → tokenize … svd → write → save, and bad requests are refused in words before any work.
 */
import { describe, expect, it } from 'vitest';
import { buildLocalKb } from '../../src/lib/kb-build/build-kb.ts';
import { kbTrainingTexts } from '../../src/lib/models/corpus-embedder/corpus-hash.ts';
import { MAX_TRAIN_DIM, trainKbEmbedder, type TrainEmbedderProgress } from '../../src/lib/kb-build/train-embedder.ts';
import { DEFAULT_BM25 } from '../../src/lib/retrieval/bm25.ts';
import { DEFAULT_CHUNKING } from '../../src/lib/retrieval/chunk.ts';
import { KnowledgeBase } from '../../src/lib/retrieval/knowledge-base.ts';
import { MemoryLocalKbStore } from '../../src/lib/store/local-kb-store.ts';
import { describeFiles, type NewTrainedModel, type TrainedModelMeta } from '../../src/lib/store/trained-models.ts';
import { topicCorpus } from '../helpers/topic-corpus.ts';

const DOCS = topicCorpus().map((d) => ({ id: d.id, title: d.title, text: d.text }));

function memoryStore() {
  const saved: NewTrainedModel[] = [];
  return {
    saved,
    async put(m: NewTrainedModel): Promise<TrainedModelMeta> {
      saved.push(m);
      const files = await describeFiles(m.meta.id, m.files);
      return { ...m.meta, files, bytes: files.reduce((a, f) => a + f.bytes, 0) };
    },
  };
}

describe('kbTrainingTexts', () => {
  it('gives every chunk as BM25 indexes it (title line, then the chunk)', () => {
    const kb = KnowledgeBase.build(DOCS.slice(0, 3), { chunking: false });
    expect(kbTrainingTexts(kb)).toEqual(DOCS.slice(0, 3).map((d) => `${d.title}\n${d.text}`));
  });
});

describe('trainKbEmbedder', () => {
  it('trains on given texts, saves corpus/<name>-lsi<dim> and reports each stage', async () => {
    const store = memoryStore();
    const events: TrainEmbedderProgress[] = [];
    const texts = DOCS.map((d) => `${d.title}\n${d.text}`);
    const meta = await trainKbEmbedder({ source: { kind: 'texts', texts }, kbId: 'sotu', kbTitle: 'State of the Union', dim: 8 }, { store, localKbs: new MemoryLocalKbStore(), onProgress: (p) => events.push(p) });
    expect(meta).toMatchObject({ id: 'corpus/sotu-lsi8', kbId: 'sotu', kbTitle: 'State of the Union', method: 'lsi', dim: 8, documents: 60 });
    expect(Object.keys(store.saved[0]!.files).sort()).toEqual(['config.json', 'onnx/model.onnx', 'onnx/model_quantized.onnx', 'tokenizer.json', 'tokenizer_config.json']);
    const config = JSON.parse(new TextDecoder().decode(store.saved[0]!.files['config.json']));
    expect(config.corpus_embedder).toMatchObject({ corpus_trained: true, trained_on: 'State of the Union', documents: 60 });
    const stages = events.map((e) => e.stage).filter((s, i, a) => a[i - 1] !== s);
    expect(stages).toEqual(['read', 'tokenize', 'vocabulary', 'matrix', 'svd', 'write', 'save']);
    expect(events.every((e) => Number.isFinite(e.done) && Number.isFinite(e.total) && e.done <= e.total)).toBe(true);
  });

  it('reads a knowledge base built in this browser by name (its chunks)', async () => {
    const localKbs = new MemoryLocalKbStore();
    const settings = { chunking: { ...DEFAULT_CHUNKING, chunkSize: 200, overlap: 0 }, bm25: DEFAULT_BM25, embed: false };
    const built = await buildLocalKb({ docs: DOCS, fields: [], pages: 0, skipped: [], notes: [], origin: { kind: 'files', files: 60, bytes: 1 } }, { name: 'topics', title: 'Topics', settings });
    const now = new Date().toISOString();
    await localKbs.put({ meta: { name: 'topics', title: 'Topics', description: '', createdAt: now, updatedAt: now, settings, summary: built.summary }, entry: built.entry, files: built.files });
    const store = memoryStore();
    const meta = await trainKbEmbedder({ source: { kind: 'local', name: 'topics' }, kbId: 'local:topics', kbTitle: 'Topics', dim: 4 }, { store, localKbs });
    expect(meta).toMatchObject({ id: 'corpus/topics-lsi4', kbTitle: 'Topics', dim: 4 });
    expect(meta.documents).toBe(built.summary.chunks);
    await expect(trainKbEmbedder({ source: { kind: 'local', name: 'gone' }, kbId: 'local:gone', kbTitle: 'Gone' }, { store, localKbs })).rejects.toThrow(/gone is not in this browser any more/);
  });

  it('refuses a bad dimension, no texts or a corpus with nothing to learn, in words', async () => {
    const deps = { store: memoryStore(), localKbs: new MemoryLocalKbStore() };
    const texts = DOCS.map((d) => d.text);
    await expect(trainKbEmbedder({ source: { kind: 'texts', texts }, kbId: 'sotu', kbTitle: 'S', dim: MAX_TRAIN_DIM + 1 }, deps)).rejects.toThrow(/whole number from 1 to 1024/);
    await expect(trainKbEmbedder({ source: { kind: 'texts', texts: [1, 2] as unknown as string[] }, kbId: 'sotu', kbTitle: 'S' }, deps)).rejects.toThrow(/no texts to train on/);
    await expect(trainKbEmbedder({ source: { kind: 'texts', texts: ['only one'] }, kbId: 'sotu', kbTitle: 'Tiny' }, deps)).rejects.toThrow(/cannot be trained on Tiny: training needs at least 32 chunks \(documents\), got 1/);
    expect(deps.store.saved).toEqual([]);
  });

  it('refuses a knowledge base too small for a useful model (a 3-file one gave a 2-d model that zeroed other corpora), and says what a small one gets', async () => {
    const deps = { store: memoryStore(), localKbs: new MemoryLocalKbStore() };
    const three = DOCS.slice(0, 3).map((d) => `${d.title}\n${d.text}`);
    await expect(trainKbEmbedder({ source: { kind: 'texts', texts: three }, kbId: 'local:three', kbTitle: 'Three files' }, deps))
      .rejects.toThrow('A corpus embedder cannot be trained on Three files: training needs at least 32 chunks (documents), got 3: too small for a corpus embedder (use BM25, or a pretrained embedder, on it).');
    // Enough chunks but only a handful of distinct words: the SVD has fewer than 16 directions.
    const words = ['alpha beta', 'beta gamma', 'gamma delta', 'delta alpha', 'alpha gamma'];
    const narrow = Array.from({ length: 40 }, (_, i) => words[i % words.length]!);
    await expect(trainKbEmbedder({ source: { kind: 'texts', texts: narrow }, kbId: 'local:narrow', kbTitle: 'Narrow' }, deps))
      .rejects.toThrow(/^A corpus embedder cannot be trained on Narrow: its text allows only \d dimensions \(at least 16 are needed; dim 256 clamped to/);
    expect(deps.store.saved).toEqual([]);
    // 60 chunks: fewer dimensions than asked, kept, and the meta says how many it has.
    const texts = DOCS.map((d) => `${d.title}\n${d.text}`);
    const meta = await trainKbEmbedder({ source: { kind: 'texts', texts }, kbId: 'sotu', kbTitle: 'S' }, deps);
    expect(meta.id).toBe('corpus/sotu-lsi256');
    expect(meta.dim).toBeGreaterThanOrEqual(16);
    expect(meta.dim).toBeLessThan(60);
    expect(meta.notes.join(' ')).toMatch(/^dim 256 clamped to \d+/);
  });
});
