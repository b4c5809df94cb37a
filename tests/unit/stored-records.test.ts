/**
 * Records read back from IndexedDB (fake-indexeddb here) are checked for their shape before use: a record of the
 * wrong shape is reported with the field at fault, the caller rebuilds, recomputes or asks again, and nothing
 * crashes. Settings in localStorage fall back field by field.
 */
import 'fake-indexeddb/auto';
import { describe, expect, it } from 'vitest';
import type { SourceDocument } from '../../src/lib/retrieval/document.ts';
import type { ChatProvider, ChatRequest } from '../../src/lib/llm/types.ts';
import { cloneConfig, DEFAULT_RAG_CONFIG } from '../../src/lib/rag/config.ts';
import { transformCacheKey, transformQuery, type TransformCacheKey } from '../../src/lib/rag/transforms.ts';
import { database } from '../../src/lib/store/db.ts';
import { checksumOf, getRawRecord, INDEX_SCHEMA_VERSION, loadIndex, putRawRecord, type IndexRecord } from '../../src/lib/store/index-cache.ts';
import { openKnowledgeBase } from '../../src/lib/store/kb-loader.ts';
import { indexedDbTransformCache } from '../../src/lib/rag/transform-cache.ts';
import {
  checkIndexRecord, loadVectorIndex, loadVectors, saveVectors, VECTOR_SCHEMA_VERSION, type IndexExpectation,
} from '../../src/lib/store/vector-cache.ts';
import { DEFAULT_SETTINGS, parseSettings } from '../../src/ui/app/settings.ts';

const DOCS: SourceDocument[] = [
  { id: 'a', title: 'Basalt', text: 'Basalt forms when lava cools quickly. Basalt columns line the coast.' },
  { id: 'b', title: 'Obsidian', text: 'Obsidian is volcanic glass with sharp edges. Obsidian tools were traded.' },
];
const OPTS = { cdfQueries: 0 };

/** Opens the knowledge base once (built and cached) and returns its cache key and the good record. */
async function cachedKb(corpus: string) {
  const first = await openKnowledgeBase(corpus, DOCS, 'h1', OPTS);
  expect(first.source).toBe('built');
  const good = (await getRawRecord(first.cacheKey))!;
  expect(good.schemaVersion).toBe(INDEX_SCHEMA_VERSION);
  return { key: first.cacheKey, good };
}

const put = async (store: string, rec: unknown) => void (await (await database()).put(store, rec as never));

describe('index cache: records of the wrong shape', () => {
  it('reports the field at fault for each wrong shape, and opening rebuilds and stores a good record again', async () => {
    const { key, good } = await cachedKb('shapes');
    const broken: Array<[unknown, RegExp]> = [
      [{ key, schemaVersion: INDEX_SCHEMA_VERSION }, /the cached index has the wrong shape \(checksum: /],
      [{ ...good, data: { ...good.data, itemDoc: Array.from(good.data.itemDoc) } }, /\(data\.itemDoc: /],
      [{ ...good, data: { ...good.data, bm25: { ...good.data.bm25, terms: 'basalt' } } }, /\(data\.bm25\.terms: /],
      [{ ...good, data: { ...good.data, bm25: undefined } }, /\(data\.bm25: /],
      [{ ...good, data: { ...good.data, sparseCdf: { sorted: [0.5], count: 1, queries: 1 } } }, /\(data\.sparseCdf/],
      [{ ...good, savedAt: 'yesterday' }, /\(savedAt: /],
      [{ key, schemaVersion: 'one' }, /wrong shape \(schemaVersion: /],
    ];
    for (const [rec, reason] of broken) {
      await putRawRecord(rec as IndexRecord);
      const load = await loadIndex(key);
      expect(load.status).toBe('invalid');
      if (load.status === 'invalid') expect(load.reason).toMatch(reason);
      const opened = await openKnowledgeBase('shapes', DOCS, 'h1', OPTS);
      expect(opened.source).toBe('built');
      expect(opened.cacheNote).toMatch(/^The cached index was not usable: the cached index has the wrong shape/);
      expect(opened.kb.size).toBe(good.data.itemDoc.length);
      // The rebuilt index replaced the bad record: the next open is from the cache.
      expect((await openKnowledgeBase('shapes', DOCS, 'h1', OPTS)).source).toBe('cache');
    }
  });

  it('a record whose BM25 corpus-CDF table is coarse (4,096 of more scores, saved before issue 32) is rebuilt, whole, once', async () => {
    const opts = { cdfQueries: 20 };
    const first = await openKnowledgeBase('coarse-cdf', DOCS, 'h1', opts);
    const good = (await getRawRecord(first.cacheKey))!;
    const whole = good.data.sparseCdf!;
    expect(whole.sorted.length).toBe(whole.count);
    const data = { ...good.data, sparseCdf: { sorted: whole.sorted.slice(0, 2), count: 5000, queries: 20 } };
    await putRawRecord({ ...good, data, checksum: await checksumOf(data) });
    expect((await loadIndex(first.cacheKey)).status).toBe('hit');
    const opened = await openKnowledgeBase('coarse-cdf', DOCS, 'h1', opts);
    expect(opened.source).toBe('built');
    expect(opened.cacheNote).toMatch(/older, coarser corpus-CDF table/);
    expect(opened.kb.sparseCdf!.sorted).toEqual(whole.sorted);
    const again = await openKnowledgeBase('coarse-cdf', DOCS, 'h1', opts);
    expect(again).toMatchObject({ source: 'cache', cacheNote: null });
  });

  it('a record of another format keeps its own message; a record that is not an object is the wrong shape', async () => {
    const { key, good } = await cachedKb('formats');
    await putRawRecord({ ...good, schemaVersion: INDEX_SCHEMA_VERSION + 1 });
    expect(await loadIndex(key)).toEqual({ status: 'invalid', reason: `the cached index is from an older version of RAG Lab (format ${INDEX_SCHEMA_VERSION + 1}, now ${INDEX_SCHEMA_VERSION})` });
    // A store with an in-line key cannot hold a bare string: the closest is an object holding only the key.
    await put('indexes', { key });
    const load = await loadIndex(key);
    expect(load).toMatchObject({ status: 'invalid' });
    if (load.status === 'invalid') expect(load.reason).toMatch(/^the cached index has the wrong shape \(/);
  });
});

describe('embedding and vector-index caches: records of the wrong shape', () => {
  it('embeddings: plain arrays, a missing dim or a CDF of the wrong type are reported, never used', async () => {
    const key = 'kb|model|q8';
    const vectors = new Float32Array([1, 0, 0, 1]);
    expect(await saveVectors(key, vectors, 2, null)).toEqual({ ok: true });
    expect((await loadVectors(key, 2)).status).toBe('hit');
    const base = (await (await database()).get('vectors', key)) as Record<string, unknown>;
    const broken: Array<[Record<string, unknown>, RegExp]> = [
      [{ ...base, vectors: [1, 0, 0, 1] }, /^the cached embeddings record has the wrong shape \(vectors: /],
      [{ ...base, dim: undefined }, /\(dim: /],
      [{ ...base, cdf: { sorted: 'x', count: 1, queries: 1 } }, /\(cdf/],
      [{ key, schemaVersion: VECTOR_SCHEMA_VERSION }, /wrong shape/],
    ];
    for (const [rec, reason] of broken) {
      await put('vectors', rec);
      const load = await loadVectors(key, 2);
      expect(load.status).toBe('invalid');
      if (load.status === 'invalid') expect(load.reason).toMatch(reason);
    }
  });

  it('vector indexes: an unknown kind or a graph of the wrong type is reported before any checksum or restore', async () => {
    const expect_: IndexExpectation = { kind: 'hnsw', dim: 2, size: 2, metric: 'cosine', vectorsChecksum: 'v' };
    const rec = { key: 'k', schemaVersion: 1, checksum: 'c', vectorsChecksum: 'v', savedAt: 0 };
    const head = { version: 1, dim: 2, size: 2, metric: 'cosine', M: 16, efConstruction: 200, efSearch: 50 };
    for (const [data, reason] of [
      [{ ...head, kind: 'faiss', graph: new Uint8Array(4) }, /^the cached vector index has the wrong shape \(data\.kind: /],
      [{ ...head, kind: 'hnsw', graph: [1, 2, 3] }, /\(data\.graph: /],
      [{ ...head, kind: 'hnsw', graph: new Uint8Array(4), metric: 'l2' }, /\(data\.metric: /],
      [null, /\(data: /],
    ] as const) {
      const checked = await checkIndexRecord({ ...rec, data }, expect_);
      expect(checked.status).toBe('invalid');
      if (checked.status === 'invalid') expect(checked.reason).toMatch(reason);
    }
    await put('vector-indexes', { ...rec, data: { ...head, kind: 'hnsw', graph: 'not bytes' } });
    const load = await loadVectorIndex('k', expect_);
    expect(load.status).toBe('invalid');
    if (load.status === 'invalid') expect(load.reason).toMatch(/data\.graph/);
  });
});

describe('transform cache: records of the wrong shape', () => {
  const question = 'Where does basalt form?';
  const config = cloneConfig(DEFAULT_RAG_CONFIG);
  config.transform.kind = 'rewrite';
  const key: TransformCacheKey = { transform: 'rewrite', n: 1, provider: 'groq', model: config.llm.model, question };
  const calls: ChatRequest[] = [];
  const provider: ChatProvider = {
    id: 'groq',
    chat: async (req) => (calls.push(req), { text: 'basalt formation lava', usage: null, finishReason: 'stop', model: req.model }),
    stream: async () => { throw new Error('not used'); },
  };

  it('drops the record, asks the model again with a note saying why, and caches the new reply', async () => {
    await put('transforms', { key: transformCacheKey(key), value: { queries: 'basalt', passage: null } });
    const dropped = await indexedDbTransformCache.get(key);
    expect(dropped).toEqual({ dropped: expect.stringMatching(/^The cached transform has the wrong shape \(value\.queries: .*\); it was dropped and the transform ran again\.$/) });

    await put('transforms', { key: transformCacheKey(key), value: null });
    const out = await transformQuery(question, config, provider, { cache: indexedDbTransformCache });
    expect(calls).toHaveLength(1);
    expect(out.cached).toBe(false);
    expect(out.queries).toEqual(['basalt formation lava']);
    expect(out.note).toMatch(/^The cached transform has the wrong shape \(value: /);
    // The good reply replaced the bad record.
    expect(await indexedDbTransformCache.get(key)).toEqual({ queries: ['basalt formation lava'], passage: null });
    const again = await transformQuery(question, config, provider, { cache: indexedDbTransformCache });
    expect(again).toMatchObject({ cached: true, queries: ['basalt formation lava'] });
    expect(again.note).toBeUndefined();
    expect(calls).toHaveLength(1);
  });
});

describe('settings in localStorage', () => {
  it('one invalid field falls back alone, with a warning naming it; the others are kept', () => {
    const stored = { ...DEFAULT_SETTINGS, autoLoadModels: true, threads: 4, embedder: { id: 7 }, remoteHost: 'not a url' };
    const { settings, warning } = parseSettings(JSON.stringify(stored));
    expect(settings.autoLoadModels).toBe(true);
    expect(settings.threads).toBe(4);
    expect(settings.embedder).toEqual(DEFAULT_SETTINGS.embedder);
    expect(settings.remoteHost).toBe(DEFAULT_SETTINGS.remoteHost);
    expect(warning).toMatch(/^Saved settings were invalid and were reset to their defaults: remoteHost \(.*\); embedder \(.*\)\. The other settings were kept\.$/);
  });

  it('JSON that is not a settings object resets everything with a warning', () => {
    for (const raw of ['[1, 2]', '42', 'null', '"text"']) {
      const { settings, warning } = parseSettings(raw);
      expect(settings).toEqual(DEFAULT_SETTINGS);
      expect(warning).toBe('Saved settings were not a settings object and were reset.');
    }
    expect(parseSettings('{not json').warning).toBe('Saved settings were unreadable and were reset.');
  });
});
