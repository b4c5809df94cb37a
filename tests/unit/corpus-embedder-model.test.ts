/**
 * A corpus-trained embedder end to end in Node: trained on a small generated corpus, its ONNX graphs pass
 * onnx.checker (Debian's python3-onnx; skipped with a reason without it), and the project's own loadEmbedder reads
 * the folder offline and gives the trainer's fold-in (mean of token vectors over the mask, L2-normalised): fp32 to
 * 1e-5, q8 to cosine ≥ 0.99. A text with no known word gives the zero vector (not NaN), which dense search scores 0
 * with confidence 0. Also the trainer's faults, clamps, progress and cancellation.
 */
import { AutoTokenizer } from '@huggingface/transformers';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bertWords } from '../../src/lib/models/corpus-embedder/bert-tokens.ts';
import { trainCorpusEmbedder, type TrainedModel, type TrainProgress } from '../../src/lib/models/corpus-embedder/train.ts';
import { loadEmbedder } from '../../src/lib/models/embedder.ts';
import { configureModels } from '../../src/lib/models/env.ts';
import { ExactDenseIndex } from '../../src/lib/retrieval/dense.ts';
import { KnowledgeBase } from '../../src/lib/retrieval/knowledge-base.ts';
import { search } from '../../src/lib/retrieval/search.ts';
import { writeModelFiles } from '../helpers/corpus-model.ts';
import { topicCorpus } from '../helpers/topic-corpus.ts';

const PY = '/usr/bin/python3';
const onnxPy = existsSync(PY) && spawnSync(PY, ['-c', 'import onnx'], { encoding: 'utf8' }).status === 0;
const ID = 'corpus/topics-lsi8';
const DOCS = topicCorpus();
const TEXTS = ['river boat on the water', 'The rocket reached orbit around the planet.', 'protein kinase, receptor; gene mutation!', 'guitar', 'Boat and PLANET and gene'];
const NONE = 'zzz qqq unknownword';

let dir: string;
let model: TrainedModel;

/** The trainer's own fold-in: the mean of the token vectors of [CLS] words [SEP], L2-normalised (zero stays zero). */
function foldIn(ids: readonly number[]): number[] {
  const { vectors, dim } = model.embeddings;
  const v = new Array<number>(dim).fill(0);
  for (const id of ids) for (let c = 0; c < dim; c++) v[c]! += vectors[id * dim + c]! / ids.length;
  const norm = Math.hypot(...v);
  return norm > 0 ? v.map((x) => x / norm) : v;
}

beforeAll(async () => {
  model = await trainCorpusEmbedder(DOCS.map((d) => `${d.title}\n${d.text}`), { dim: 8, trainedOn: 'generated topics' });
  dir = mkdtempSync(join(tmpdir(), 'rag-lab-corpus-model-'));
  writeModelFiles(dir, ID, model.files);
  configureModels({ localModelPath: dir, allowRemote: false });
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('trainCorpusEmbedder files', () => {
  it('writes the Hub layout with a config that says it is corpus-trained', () => {
    expect(Object.keys(model.files).sort()).toEqual(['config.json', 'onnx/model.onnx', 'onnx/model_quantized.onnx', 'tokenizer.json', 'tokenizer_config.json']);
    const config = JSON.parse(new TextDecoder().decode(model.files['config.json']));
    expect(config).toMatchObject({ model_type: 'bert', hidden_size: 8, corpus_embedder: { method: 'lsi', corpus_trained: true, dim: 8, documents: 60, trained_on: 'generated topics' } });
    expect(config.corpus_embedder.vocabulary).toBe(model.summary.vocabulary);
    expect(model.summary).toMatchObject({ method: 'lsi', documents: 60, dim: 8, requestedDim: 8, notes: [] });
    expect(model.summary.vocabulary).toBeGreaterThanOrEqual(40); // the 40 topic words (df ≥ 2; stop words are no term under the default analysis 'stems')
  });

  it.skipIf(!onnxPy)('passes onnx.checker.check_model (python3-onnx)', () => {
    const py = spawnSync(PY, ['-c', `
import sys, onnx
for f in sys.argv[1:]:
    m = onnx.load(f)
    onnx.checker.check_model(m, full_check=True)
    print(f, [i.name for i in m.graph.input], [o.name for o in m.graph.output], sorted((t.name, t.data_type) for t in m.graph.initializer))`,
    join(dir, ID, 'onnx/model.onnx'), join(dir, ID, 'onnx/model_quantized.onnx')], { encoding: 'utf8' });
    expect(py.status, py.stderr).toBe(0);
    expect(py.stdout).toContain("['input_ids', 'attention_mask', 'token_type_ids'] ['last_hidden_state'] [('embeddings', 1)]");
    // The q8 graph holds int8 rows (TensorProto INT8 = 3) and float scales (FLOAT = 1).
    expect(py.stdout).toContain("[('embeddings_q', 3), ('last_axis', 7), ('scales', 1)]");
  });
});

describe('loading it through loadEmbedder (offline)', () => {
  it('fp32 equals the fold-in to 1e-5 and q8 has cosine ≥ 0.99 with it', async () => {
    const tok = await AutoTokenizer.from_pretrained(ID);
    const expected = TEXTS.map((t) => foldIn((tok(t, { return_tensor: false }) as unknown as { input_ids: number[] }).input_ids));
    const fp32 = await loadEmbedder({ id: ID, dtype: 'fp32', device: 'cpu' });
    const q8 = await loadEmbedder({ id: ID, dtype: 'q8', device: 'cpu' });
    expect(fp32.dim).toBe(8);
    const a = await fp32.embed(TEXTS, 'passage');
    const b = await q8.embed(TEXTS, 'passage');
    TEXTS.forEach((t, r) => {
      const e = expected[r]!;
      expect(Math.hypot(...e), t).toBeCloseTo(1, 6);
      for (let c = 0; c < 8; c++) expect(Math.abs(a[r * 8 + c]! - e[c]!), t).toBeLessThan(1e-5);
      let cos = 0;
      for (let c = 0; c < 8; c++) cos += b[r * 8 + c]! * e[c]!;
      expect(cos, t).toBeGreaterThanOrEqual(0.99);
    });
    // LSI's point: a query shares a topic's direction with documents it shares no word with.
    const [river, space] = [await fp32.embed(['stream flood'], 'query'), await fp32.embed(['comet telescope'], 'query')];
    const doc = await fp32.embed(['boat bridge fish'], 'passage');
    const dot = (x: Float32Array, y: Float32Array) => x.reduce((s, v, i) => s + v * y[i]!, 0);
    expect(dot(river, doc)).toBeGreaterThan(dot(space, doc) + 0.5);
    await Promise.all([fp32.dispose(), q8.dispose()]);
  });

  it('a text with no known word is the zero vector (never NaN), scored 0 by dense search with confidence 0', async () => {
    const emb = await loadEmbedder({ id: ID, dtype: 'fp32', device: 'cpu' });
    const v = await emb.embed([NONE, 'river'], 'query');
    expect(Array.from(v.subarray(0, 8))).toEqual(new Array(8).fill(0));
    expect(Math.hypot(...v.subarray(8))).toBeCloseTo(1, 5);
    const docs = DOCS.slice(0, 20).map((d) => ({ id: d.id, title: d.title, text: d.text }));
    const kb = KnowledgeBase.build(docs, { chunking: false, cdfQueries: 0, indexTitle: false });
    kb.dense = new ExactDenseIndex(await emb.embed(docs.map((d) => d.text), 'passage'), emb.dim);
    const out = await search(kb, NONE, { mode: 'dense', rejectThreshold: 0 }, { encoder: { embedQuery: (q) => emb.embed([q], 'query') } });
    if (out.status !== 'ok' && out.status !== 'rejected') throw new Error(`expected hits, got ${out.status}`);
    expect(out.hits.length).toBeGreaterThan(0);
    for (const h of out.hits) expect(h.dense).toBe(0);
    expect(out.telemetry.confidence).toBe(0);
    await emb.dispose();
  });
});

describe('trainCorpusEmbedder faults, clamps, progress and cancellation', () => {
  it('refuses an empty or one-document corpus, a corpus with no shared word, and bad options', async () => {
    await expect(trainCorpusEmbedder([])).rejects.toThrow('training needs at least 2 documents, got 0');
    await expect(trainCorpusEmbedder(['one document'])).rejects.toThrow('training needs at least 2 documents, got 1');
    await expect(trainCorpusEmbedder(['alpha beta', 'gamma delta'])).rejects.toThrow(/no word occurs in at least 2 of the 2 documents/);
    await expect(trainCorpusEmbedder(['a b', 'a b'], { dim: 0 })).rejects.toThrow('dim must be an integer ≥ 1, got 0');
    await expect(trainCorpusEmbedder(['a b', 'a b'], { dim: 2.5 })).rejects.toThrow(/dim must be an integer/);
    await expect(trainCorpusEmbedder(['same words', 'same words'])).rejects.toThrow(/the tf-idf matrix is zero/);
  });

  it('clamps dim to min(terms, documents) − 1 and to the numerical rank, with a note', async () => {
    const small = await trainCorpusEmbedder(['red green blue', 'red green', 'green blue', 'red blue'], { dim: 64 });
    expect(small.summary.requestedDim).toBe(64);
    expect(small.summary.dim).toBe(2); // 3 terms, 4 documents
    expect(small.summary.notes[0]).toMatch(/dim 64 clamped to 2/);
    // Two identical halves: rank 2 however many terms and documents.
    const twice = await trainCorpusEmbedder(['a b c d', 'e f g h', 'a b c d', 'e f g h', 'a b c d', 'e f g h'], { dim: 4 });
    expect(twice.summary.dim).toBe(2);
    expect(twice.summary.notes.join(' ')).toMatch(/numerical rank 2/);
    expect(twice.summary.singularValues.every((s) => s > 0)).toBe(true);
  });

  it('caps the vocabulary, reports progress per stage and stops on abort', async () => {
    const texts = DOCS.map((d) => d.text);
    const seen: TrainProgress[] = [];
    const capped = await trainCorpusEmbedder(texts, { dim: 4, maxVocab: 10, onProgress: (p) => seen.push(p) });
    expect(capped.summary.vocabulary).toBe(10);
    expect(capped.summary.notes.join(' ')).toMatch(/vocabulary capped at 10 of \d+ terms/);
    expect([...new Set(seen.map((p) => p.stage))]).toEqual(['tokenize', 'vocabulary', 'matrix', 'svd', 'write']);
    const svd = seen.filter((p) => p.stage === 'svd');
    expect(svd.at(-1)).toEqual({ stage: 'svd', done: 8, total: 8 });
    const controller = new AbortController();
    const run = trainCorpusEmbedder(texts, { dim: 4, onProgress: (p) => { if (p.stage === 'svd' && p.done === 2) controller.abort(); }, signal: controller.signal });
    await expect(run).rejects.toThrow(/aborted/i);
  });

  it('is deterministic for a seed', async () => {
    const texts = DOCS.map((d) => d.text);
    const [a, b] = [await trainCorpusEmbedder(texts, { dim: 4, seed: 3 }), await trainCorpusEmbedder(texts, { dim: 4, seed: 3 })];
    expect(Array.from(a.embeddings.vectors)).toEqual(Array.from(b.embeddings.vectors));
    expect(a.files['onnx/model.onnx']).toEqual(b.files['onnx/model.onnx']);
  });

  it('weighs token vectors E[w] = idf_w^β · U_k[w]: β = 2 is β = 1 times idf_w = ln(N / df_w)', async () => {
    const texts = DOCS.map((d) => d.text);
    const [one, two] = [await trainCorpusEmbedder(texts, { dim: 4, analysis: 'words' }), await trainCorpusEmbedder(texts, { dim: 4, idfPower: 2, analysis: 'words' })];
    const { tokens, vectors, dim } = one.embeddings;
    const sets = texts.map((t) => new Set(bertWords(t)));
    for (const w of ['river', 'galaxy', 'the']) {
      const id = tokens.indexOf(w);
      const idf = Math.log(texts.length / sets.filter((s) => s.has(w)).length);
      for (let c = 0; c < dim; c++) expect(two.embeddings.vectors[id * dim + c]!).toBeCloseTo(vectors[id * dim + c]! * idf, 5);
    }
    expect(Array.from(vectors.subarray(0, 5 * dim))).toEqual(new Array(5 * dim).fill(0)); // the special tokens
    expect(JSON.parse(new TextDecoder().decode(two.files['config.json'])).corpus_embedder).toMatchObject({ idf_power: 2, token_vectors: expect.stringContaining('idf_w^2') });
    await expect(trainCorpusEmbedder(texts, { idfPower: -1 })).rejects.toThrow('idfPower must be a number from 0 to 8, got -1');
  });
});
