// hnswlib-wasm moves index files through IDBFS, and the browser cache is IndexedDB: both need it in Node.
import 'fake-indexeddb/auto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { fileVectorStore } from '../../cli/vector-files.ts';
import type { SourceDocument } from '../../src/lib/retrieval/document.ts';
import type { ModelSpec, TextEmbedder } from '../../src/lib/models/types.ts';
import { seededRandom } from '../../src/lib/random.ts';
import { ExactDenseIndex } from '../../src/lib/retrieval/dense.ts';
import { HNSW_DEFAULTS, HnswIndex } from '../../src/lib/retrieval/hnsw.ts';
import { KnowledgeBase } from '../../src/lib/retrieval/knowledge-base.ts';
import { search } from '../../src/lib/retrieval/search.ts';
import { database } from '../../src/lib/store/db.ts';
import { attachDense, type AttachDenseOptions } from '../../src/lib/store/dense-loader.ts';
import {
  getRawIndexRecord, indexedDbVectorStore, putRawIndexRecord, vectorIndexChecksum, vectorIndexKey, vectorKey,
  vectorsFingerprint, type VectorStore,
} from '../../src/lib/store/vector-cache.ts';

// hnswlib-wasm logs every FS sync with console.log (not switchable): keep the test output readable.
const HNSWLIB_CHATTER = /^(b\. jsFS synced|d\. Calling sync callback|EmscriptenFileSystemManager: Mounting|warning: \d+ FS\.syncfs)/;
const consoleLog = console.log.bind(console);
vi.spyOn(console, 'log').mockImplementation((...args: unknown[]) => {
  if (!HNSWLIB_CHATTER.test(String(args[0]))) consoleLog(...args);
});

const DIM = 16;
const SPEC: ModelSpec = { id: 'test/fake-embedder', dtype: 'fp32', device: 'cpu' };

/** 240 short documents over a 60-word vocabulary (seeded), indexed whole. */
function corpus(): SourceDocument[] {
  const rand = seededRandom(7);
  const vocab = Array.from({ length: 60 }, (_, i) => `w${i.toString(36)}x`);
  return Array.from({ length: 240 }, (_, d) => ({
    id: `doc${String(d).padStart(3, '0')}`,
    title: '',
    text: Array.from({ length: 6 + Math.floor(rand() * 8) }, () => vocab[Math.floor(rand() * vocab.length)]!).join(' '),
  }));
}
const DOCS = corpus();
const newKb = () => KnowledgeBase.build(DOCS, { chunking: false, cdfQueries: 10 });

/** Deterministic "embeddings": the sum of a seeded random vector per word (similar texts → similar vectors). */
class FakeEmbedder implements TextEmbedder {
  readonly spec = SPEC;
  readonly dim = DIM;
  calls = 0;
  texts = 0;
  /** Another "version" of the model (same id): a different word seed, so different vectors. */
  constructor(private readonly variant = 0) {}
  embed(texts: readonly string[]): Promise<Float32Array> {
    this.calls++;
    this.texts += texts.length;
    const out = new Float32Array(texts.length * DIM);
    texts.forEach((t, i) => {
      for (const w of t.split(/\s+/).filter(Boolean)) {
        const rand = seededRandom([...w].reduce((h, c) => Math.imul(h ^ c.charCodeAt(0), 0x01000193) >>> 0, 0x811c9dc5 ^ this.variant));
        for (let j = 0; j < DIM; j++) out[i * DIM + j]! += rand() - 0.5;
      }
    });
    return Promise.resolve(out);
  }
}

const QUERY_TEXTS = ['w1x w2x w3x', 'wax wbx', 'w10x w1fx w5x w7x', 'wzx', 'w4x w4x w9x'];

/** Top 10 of every query through the knowledge base's dense index: ids and scores. */
async function denseResults(kb: KnowledgeBase): Promise<Array<Array<[string, number]>>> {
  const q = await new FakeEmbedder().embed(QUERY_TEXTS);
  return QUERY_TEXTS.map((_, i) => kb.dense!.search(q.subarray(i * DIM, (i + 1) * DIM), 10, kb.itemId).map((h) => [kb.itemId(h.index), h.score]));
}

/** The full pipeline in hybrid_calibrated mode (ids and fused scores of the returned hits). */
async function hybridResults(kb: KnowledgeBase): Promise<Array<Array<[string, number]>>> {
  const enc = new FakeEmbedder();
  const encoder = { embedQuery: async (t: string) => enc.embed([t]) };
  const out = [];
  for (const t of QUERY_TEXTS) {
    const r = await search(kb, t, { mode: 'hybrid_calibrated', topK: 5 }, { encoder });
    out.push(r.hits.map((h): [string, number] => [h.id, h.score]));
  }
  return out;
}

const hnswOpts = (kbKey: string, store: VectorStore): AttachDenseOptions => ({ kbKey, store, index: 'hnsw', cdfQueries: 8 });
const indexKeyOf = (kbKey: string) => vectorIndexKey(vectorKey(kbKey, SPEC.id, SPEC.dtype), 'hnsw', 'cosine', HNSW_DEFAULTS);

describe('attachDense with the IndexedDB store (fake-indexeddb)', () => {
  const store = indexedDbVectorStore;

  it('computes and saves on the first call; the second restores embeddings and graph without the embedder', async () => {
    const buildSpy = vi.spyOn(HnswIndex, 'build');
    const first = new FakeEmbedder();
    const kb1 = newKb();
    const s1 = await attachDense(kb1, first, hnswOpts('kb-a', store));
    expect(s1).toMatchObject({ source: 'computed', indexSource: 'built', index: 'hnsw', dim: DIM, cacheNote: null });
    expect(first.calls).toBeGreaterThan(0);
    expect(first.texts).toBe(kb1.size + 8); // every item, then the CDF pseudo-queries
    expect(buildSpy).toHaveBeenCalledTimes(1);
    expect(kb1.dense).toBeInstanceOf(HnswIndex);
    const rec = await getRawIndexRecord(indexKeyOf('kb-a'));
    expect(rec?.data.kind).toBe('hnsw');
    expect(rec?.data.size).toBe(kb1.size);
    expect(rec?.vectorsChecksum).toMatch(/^[0-9a-f]{64}$/);

    const second = new FakeEmbedder();
    const kb2 = newKb();
    const s2 = await attachDense(kb2, second, hnswOpts('kb-a', store));
    expect(s2).toMatchObject({ source: 'cache', indexSource: 'cache', index: 'hnsw', dim: DIM, cacheNote: null, embedMs: 0 });
    expect(second.calls).toBe(0);
    expect(buildSpy).toHaveBeenCalledTimes(1); // restored, not rebuilt
    expect(kb2.dense).toBeInstanceOf(HnswIndex);
    expect(kb2.denseCdf?.sorted).toEqual(kb1.denseCdf?.sorted);
    const r1 = await denseResults(kb1), r2 = await denseResults(kb2);
    expect(r1.every((hits) => hits.length === 10)).toBe(true);
    expect(r2).toEqual(r1);
    expect(await hybridResults(kb2)).toEqual(await hybridResults(kb1));
    // and the graph finds what the exact scan finds on this small corpus
    const exact = newKb();
    exact.dense = new ExactDenseIndex(await new FakeEmbedder().embed(DOCS.map((d) => d.text)), DIM);
    expect((await denseResults(exact)).map((h) => h.map(([id]) => id))).toEqual(r1.map((h) => h.map(([id]) => id)));
    buildSpy.mockRestore();
  });

  it('detects a corrupted graph record (flipped bytes), rebuilds with a note and saves a good one again', async () => {
    const key = indexKeyOf('kb-b');
    const base = await attachDense(newKb(), new FakeEmbedder(), hnswOpts('kb-b', store));
    expect(base.indexSource).toBe('built');
    const kbRef = newKb();
    await attachDense(kbRef, new FakeEmbedder(), hnswOpts('kb-b', store));
    const expected = await denseResults(kbRef);

    const rec = (await getRawIndexRecord(key))!;
    const graph = (rec.data as { graph: Uint8Array }).graph.slice();
    for (const at of [100, 5000, graph.length - 3]) graph[at]! ^= 0xff;
    await putRawIndexRecord({ ...rec, data: { ...rec.data, graph } as typeof rec.data });

    const emb = new FakeEmbedder();
    const kb = newKb();
    const s = await attachDense(kb, emb, hnswOpts('kb-b', store));
    expect(s.source).toBe('cache'); // the embeddings were fine
    expect(emb.calls).toBe(0);
    expect(s.indexSource).toBe('built');
    expect(s.cacheNote).toMatch(/cached hnsw index was not usable: .*corrupted \(checksum mismatch\)\. It was rebuilt\./);
    expect(await denseResults(kb)).toEqual(expected);

    const again = await attachDense(newKb(), new FakeEmbedder(), hnswOpts('kb-b', store));
    expect(again).toMatchObject({ indexSource: 'cache', cacheNote: null });
  });

  it('rebuilds with a note when a record passes its checksum but hnswlib cannot read the graph', async () => {
    const key = indexKeyOf('kb-c');
    await attachDense(newKb(), new FakeEmbedder(), hnswOpts('kb-c', store));
    const rec = (await getRawIndexRecord(key))!;
    const graph = (rec.data as { graph: Uint8Array }).graph.slice();
    graph[36]! ^= 0x01; // maxM0 in hnswlib's header
    const data = { ...rec.data, graph } as typeof rec.data;
    await putRawIndexRecord({ ...rec, data, checksum: await vectorIndexChecksum(data, rec.vectorsChecksum) });
    const s = await attachDense(newKb(), new FakeEmbedder(), hnswOpts('kb-c', store));
    expect(s.indexSource).toBe('built');
    expect(s.cacheNote).toMatch(/cached hnsw index could not be restored \(.*not a usable hnswlib index file.*\)\. It was rebuilt\./);
  });

  it('never uses a graph built from other embeddings, nor one of another format', async () => {
    const key = indexKeyOf('kb-d');
    const kb = newKb();
    await attachDense(kb, new FakeEmbedder(), hnswOpts('kb-d', store));
    const expect1 = { kind: 'hnsw' as const, dim: DIM, size: kb.size, metric: 'cosine' as const, params: HNSW_DEFAULTS };
    const other = await store.loadIndex!(key, { ...expect1, vectorsChecksum: await vectorsFingerprint(new Float32Array(kb.size * DIM), DIM) });
    expect(other).toEqual({ status: 'invalid', reason: 'the cached vector index was built from other embeddings than the current ones' });
    const rec = (await getRawIndexRecord(key))!;
    const good = await store.loadIndex!(key, { ...expect1, vectorsChecksum: rec.vectorsChecksum });
    expect(good.status).toBe('hit');
    expect((await store.loadIndex!(key, { ...expect1, params: { M: 8, efConstruction: 200 }, vectorsChecksum: rec.vectorsChecksum })).status).toBe('invalid');
    // The embeddings record disappears and the model now gives other vectors: the old graph must not be used.
    await (await database()).delete('vectors', vectorKey('kb-d', SPEC.id, SPEC.dtype));
    const changed = newKb();
    const sc = await attachDense(changed, new FakeEmbedder(1), hnswOpts('kb-d', store));
    expect(sc).toMatchObject({ source: 'computed', indexSource: 'built' });
    expect(sc.cacheNote).toMatch(/cached hnsw index was not usable: the cached vector index was built from other embeddings than the current ones\. It was rebuilt\./);
    const q = await new FakeEmbedder(1).embed(['w1x w2x']);
    const exactChanged = new ExactDenseIndex(await new FakeEmbedder(1).embed(DOCS.map((d) => d.text)), DIM);
    expect(changed.dense!.search(q, 10, changed.itemId).map((h) => h.index)).toEqual(exactChanged.search(q, 10, changed.itemId).map((h) => h.index));

    const rec2 = (await getRawIndexRecord(key))!;
    expect(rec2.vectorsChecksum).not.toBe(rec.vectorsChecksum);
    await putRawIndexRecord({ ...rec2, schemaVersion: 0 });
    const s = await attachDense(newKb(), new FakeEmbedder(1), hnswOpts('kb-d', store));
    expect(s).toMatchObject({ source: 'cache', indexSource: 'built' });
    expect(s.cacheNote).toMatch(/from another version of RAG Lab/);
  });

  it('keeps working in memory, with a note, when saving fails (returned or thrown)', async () => {
    const failing: VectorStore = {
      load: (k, n) => store.load(k, n),
      loadIndex: (k, e) => store.loadIndex!(k, e),
      save: async () => ({ ok: false, reason: 'the browser storage quota is full' }),
      saveIndex: async () => { throw new Error('disk on fire'); },
    };
    const emb = new FakeEmbedder();
    const kb = newKb();
    const s = await attachDense(kb, emb, hnswOpts('kb-e', failing));
    expect(s).toMatchObject({ source: 'computed', indexSource: 'built', index: 'hnsw' });
    expect(s.cacheNote).toMatch(/Caching the embeddings failed: the browser storage quota is full\./);
    expect(s.cacheNote).toMatch(/Caching the hnsw index failed: disk on fire\./);
    expect((await denseResults(kb)).every((h) => h.length === 10)).toBe(true);
    expect((await hybridResults(kb)).every((h) => h.length === 5)).toBe(true);
    // nothing was stored: the next call computes again
    expect(await getRawIndexRecord(indexKeyOf('kb-e'))).toBeUndefined();
    const next = new FakeEmbedder();
    expect(await attachDense(newKb(), next, hnswOpts('kb-e', store))).toMatchObject({ source: 'computed', indexSource: 'built', cacheNote: null });
    expect(next.calls).toBeGreaterThan(0);
  });

  it('keeps the exact scan (and caches no index) for a small corpus on auto', async () => {
    const kb = newKb();
    const s = await attachDense(kb, new FakeEmbedder(), { kbKey: 'kb-f', store, cdfQueries: 8 });
    expect(s).toMatchObject({ index: 'exact', indexSource: 'built', cacheNote: null });
    expect(kb.dense).toBeInstanceOf(ExactDenseIndex);
    expect(await getRawIndexRecord(vectorIndexKey(vectorKey('kb-f', SPEC.id, SPEC.dtype), 'exact', 'cosine', HNSW_DEFAULTS))).toBeUndefined();
    expect(await getRawIndexRecord(indexKeyOf('kb-f'))).toBeUndefined();
  });
});

describe('attachDense with the CLI file store', () => {
  const root = mkdtempSync(join(tmpdir(), 'rag-lab-dense-loader-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('saves, restores without the embedder, and rebuilds a corrupted graph file with a note', async () => {
    const store = fileVectorStore(root);
    const kb1 = newKb();
    const first = new FakeEmbedder();
    expect(await attachDense(kb1, first, hnswOpts('kb-files', store))).toMatchObject({ source: 'computed', indexSource: 'built', cacheNote: null });
    expect(first.calls).toBeGreaterThan(0);

    const kb2 = newKb();
    const second = new FakeEmbedder();
    expect(await attachDense(kb2, second, hnswOpts('kb-files', fileVectorStore(root)))).toMatchObject({ source: 'cache', indexSource: 'cache', cacheNote: null });
    expect(second.calls).toBe(0);
    expect(kb2.dense).toBeInstanceOf(HnswIndex);
    expect(await denseResults(kb2)).toEqual(await denseResults(kb1));

    const graphFile = readdirSync(root).map((d) => join(root, d, 'graph.bin')).find((f) => { try { readFileSync(f); return true; } catch { return false; } })!;
    const bytes = readFileSync(graphFile);
    bytes[bytes.length >> 1]! ^= 0x5a;
    writeFileSync(graphFile, bytes);
    const kb3 = newKb();
    const s3 = await attachDense(kb3, new FakeEmbedder(), hnswOpts('kb-files', fileVectorStore(root)));
    expect(s3).toMatchObject({ source: 'cache', indexSource: 'built' });
    expect(s3.cacheNote).toMatch(/corrupted \(checksum mismatch\)\. It was rebuilt\./);
    expect(await denseResults(kb3)).toEqual(await denseResults(kb1));
    expect(await attachDense(newKb(), new FakeEmbedder(), hnswOpts('kb-files', fileVectorStore(root)))).toMatchObject({ indexSource: 'cache', cacheNote: null });
  });
});

describe('attachDense and a cached corpus-CDF table', () => {
  it('builds a downsampled table (4,096 points, saved before issue 32) again, whole, and saves it; a whole one is kept', async () => {
    const saved: Array<{ cdf: { sorted: Float64Array; count: number } | null }> = [];
    const vectors = await new FakeEmbedder().embed(DOCS.map((d) => d.text));
    const old = { sorted: Float64Array.from([0.1, 0.5, 0.9]), count: 5000, queries: 100 };
    const store = (cdf: typeof old): VectorStore => ({
      load: async () => ({ status: 'hit', vectors, dim: DIM, cdf }),
      save: async (_k, _v, _d, c) => { saved.push({ cdf: c }); return { ok: true }; },
    });
    const kb = newKb();
    await attachDense(kb, new FakeEmbedder(), { kbKey: 'kb-old-cdf', store: store(old), cdfQueries: 10 });
    expect(kb.denseCdf!.sorted.length).toBe(10 * kb.size);
    expect(kb.denseCdf!.count).toBe(10 * kb.size);
    expect(saved).toHaveLength(1);
    expect(saved[0]!.cdf!.sorted.length).toBe(10 * kb.size);
    const whole = { sorted: Float64Array.from([0.1, 0.5, 0.9]), count: 3, queries: 1 };
    const kb2 = newKb();
    await attachDense(kb2, new FakeEmbedder(), { kbKey: 'kb-whole-cdf', store: store(whole), cdfQueries: 10 });
    expect(kb2.denseCdf).toBe(whole);
    expect(saved).toHaveLength(1);
  });
});
