/**
 * `analysis: 'stems'` on a hand-checked corpus: the SVD counts BM25's terms (stop words dropped, Porter stems), so
 * the model equals a 'words' model trained on the pre-stemmed text; every surface word takes its stem's row ("run",
 * "runs", "running" share one), a stop word is left out of the vocabulary ([UNK], a zero vector), and through the
 * real tokenizer and ONNX graph a text embeds as its stems do.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bertWords } from '../../src/lib/models/corpus-embedder/bert-tokens.ts';
import { StemAnalysis } from '../../src/lib/models/corpus-embedder/stem-analysis.ts';
import { trainCorpusEmbedder, type TrainedModel } from '../../src/lib/models/corpus-embedder/train.ts';
import { buildVocabulary, termCounts } from '../../src/lib/models/corpus-embedder/vocabulary.ts';
import { loadEmbedder } from '../../src/lib/models/embedder.ts';
import { configureModels } from '../../src/lib/models/env.ts';
import { writeModelFiles } from '../helpers/corpus-model.ts';

const TEXTS = ['The dog runs in the park.', 'Running dogs run!', 'Cats run.', 'The cat sleeps; cats purr.', 'A cat and a dog.'];
/** The same documents as BM25's analyzer sees them (hand-stemmed, stop words gone). */
const STEMMED = ['dog run park', 'run dog run', 'cat run', 'cat sleep cat purr', 'cat dog'];
const ID = 'corpus/stems-test';

let stems: TrainedModel;
let words: TrainedModel;
let dir: string;

const row = (m: TrainedModel, token: string) => {
  const i = m.embeddings.tokens.indexOf(token);
  expect(i, token).toBeGreaterThanOrEqual(0);
  return Array.from(m.embeddings.vectors.subarray(i * m.embeddings.dim, (i + 1) * m.embeddings.dim));
};

beforeAll(async () => {
  stems = await trainCorpusEmbedder(TEXTS, { dim: 2, analysis: 'stems' });
  words = await trainCorpusEmbedder(STEMMED, { dim: 2, analysis: 'words' });
  dir = mkdtempSync(join(tmpdir(), 'rag-lab-stems-'));
  writeModelFiles(dir, ID, stems.files);
  configureModels({ localModelPath: dir, allowRemote: false });
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("trainCorpusEmbedder analysis 'stems'", () => {
  it('counts stems in the SVD input: df over stems, stop words and punctuation not counted', () => {
    const a = new StemAnalysis();
    const docs = TEXTS.map((t) => termCounts(a.terms(bertWords(t))));
    expect(docs.map((d) => Object.fromEntries(d))).toEqual([
      { dog: 1, run: 1, park: 1 }, { run: 2, dog: 1 }, { cat: 1, run: 1 }, { cat: 2, sleep: 1, purr: 1 }, { cat: 1, dog: 1 },
    ]);
    const vocab = buildVocabulary(docs, 2, 100);
    expect(vocab.tokens.slice(5)).toEqual(['cat', 'dog', 'run']);
    expect(Array.from(vocab.df)).toEqual([3, 3, 3]);
    expect(a.stemOf.get('the')).toBeNull();
    expect(a.stemOf.get('running')).toBe('run');
  });

  it('is the words model of the pre-stemmed text, each surface word taking its stem row', () => {
    expect(stems.summary).toMatchObject({ vocabulary: 3, tokens: 5 + 7, dim: 2 });
    expect(stems.embeddings.tokens.slice(5)).toEqual(['cat', 'cats', 'dog', 'dogs', 'run', 'running', 'runs']);
    expect(stems.summary.singularValues).toEqual(words.summary.singularValues);
    for (const [surface, stem] of [['cat', 'cat'], ['cats', 'cat'], ['dogs', 'dog'], ['run', 'run'], ['runs', 'run'], ['running', 'run']]) {
      expect(row(stems, surface!)).toEqual(row(words, stem!));
    }
    expect(row(stems, 'run')).toEqual(row(stems, 'running'));
    expect(row(stems, 'runs')).toEqual(row(stems, 'running'));
    expect(row(stems, 'run')).not.toEqual(row(stems, 'cat'));
  });

  it("leaves stop words and words whose stem is no term out of the vocabulary, [UNK]'s zero row", () => {
    for (const w of ['the', 'a', 'and', 'in', 'park', 'sleeps']) expect(stems.embeddings.tokens).not.toContain(w);
    expect(row(stems, '[UNK]')).toEqual([0, 0]);
    const config = JSON.parse(new TextDecoder().decode(stems.files['config.json']));
    expect(config.vocab_size).toBe(12);
    expect(config.corpus_embedder).toMatchObject({ analysis: 'stems', vocabulary: 3, tokens: 12, token_vectors: expect.stringContaining('idf_s · U_k[s]') });
    expect(JSON.parse(new TextDecoder().decode(words.files['config.json'])).corpus_embedder).toMatchObject({ analysis: 'words' });
  });

  it('embeds a text as its stems through the tokenizer and ONNX graph (stop words add nothing)', async () => {
    const emb = await loadEmbedder({ id: ID, dtype: 'fp32', device: 'cpu' });
    const [a, b] = [await emb.embed(['The dogs are running'], 'query'), await emb.embed(['dog run'], 'query')];
    for (let c = 0; c < 2; c++) expect(a[c]!).toBeCloseTo(b[c]!, 6);
    expect(Math.hypot(...a)).toBeCloseTo(1, 5);
    await emb.dispose();
  });

  it("is the default; 'words' keeps the BERT basic tokens as the SVD's terms", async () => {
    const byDefault = await trainCorpusEmbedder(TEXTS, { dim: 2 });
    expect(byDefault.embeddings.tokens).toEqual(stems.embeddings.tokens);
    const plain = await trainCorpusEmbedder(TEXTS, { dim: 2, analysis: 'words' });
    expect(plain.embeddings.tokens).toContain('the');
    expect(plain.embeddings.tokens).not.toContain('running'); // df 1
  });

  it('refuses an unknown analysis', async () => {
    await expect(trainCorpusEmbedder(TEXTS, { analysis: 'lemmas' as 'words' })).rejects.toThrow("analysis must be one of words, stems, got lemmas");
  });
});
