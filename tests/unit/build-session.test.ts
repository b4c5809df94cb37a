/**
 * One build as the build worker runs it (runBuild): files (PDFs made here, text, a file that cannot be used) →
 * extraction → build → one put into the local store (memory, and IndexedDB through fake-indexeddb); a rebuild reads
 * the saved artifact's documents, queries and judgements back; a failed or cancelled build leaves the saved
 * knowledge bases as they were. Plus the checks of a request and the pure parts of opening a local knowledge base.
 */
import 'fake-indexeddb/auto';
import { openDB, type IDBPDatabase } from 'idb';
import { describe, expect, it } from 'vitest';
import type { BuildRequest } from '../../workers/build-api.ts';
import { FILES } from '../../src/lib/artifact/format.ts';
import { buildLocalKb } from '../../src/lib/kb-build/build-kb.ts';
import { localDescriptor, openLocalKb } from '../../src/lib/kb-build/open-local.ts';
import { checkBuildRequest, embedderFromModels, NO_EMBEDDER, runBuild } from '../../src/lib/kb-build/run-build.ts';
import { exportLocalKb, publishSavedKb } from '../../src/lib/kb-build/saved-kb.ts';
import { NO_ARXIV_PROXY, rebuildDocuments, sourceDocuments } from '../../src/lib/kb-build/sources.ts';
import { listIndexes, openArtifact } from '../../src/lib/artifact/read.ts';
import { readArtifactZip } from '../../src/lib/artifact/zip.ts';
import type { BuildProgress } from '../../src/lib/data/source-documents.ts';
import type { BuildSettings, LocalKbMeta } from '../../src/lib/data/local-kb-meta.ts';
import { DEFAULT_BM25 } from '../../src/lib/retrieval/bm25.ts';
import { DEFAULT_CHUNKING } from '../../src/lib/retrieval/chunk.ts';
import { sha256Hex } from '../../src/lib/checksum.ts';
import { STORES } from '../../src/lib/store/db.ts';
import {
  IndexedDbLocalKbStore, localVectorKey, MemoryLocalKbStore, type LocalKbRecord, type LocalKbStore,
} from '../../src/lib/store/local-kb-store.ts';
import { textPdf } from '../helpers/make-pdf.ts';
import { addBeirScifact } from '../helpers/hub-dataset-fixtures.ts';
import { serveHubRepos } from '../helpers/hub-repo-server.ts';
import { parseJsonBytes, parseMeta } from '../../src/lib/artifact/format.ts';
import { hubSource } from '../../src/lib/hub/hub-source.ts';
import { memoryTestSetStore, type StoredTestSet } from '../../src/lib/store/test-set-store.ts';

const enc = new TextEncoder();
const SETTINGS: BuildSettings = { chunking: { ...DEFAULT_CHUNKING }, bm25: DEFAULT_BM25, embed: false };

/** Three PDF pages (the known sentence on page 2), a Markdown file, and an empty file. */
function files() {
  return [
    { path: 'docs/field-guide.pdf', bytes: textPdf(['Herons wade in shallow water at dawn.', 'The bittern booms from the reed bed in spring.', 'Egrets roost in the willows.'], { title: 'Field Guide' }) },
    { path: 'docs/notes.md', bytes: enc.encode('# Estuary notes\n\nGulls follow the fishing boats home at dusk.\n') },
    { path: 'docs/empty.txt', bytes: new Uint8Array() },
  ];
}

const request = (over: Partial<BuildRequest> = {}): BuildRequest => ({ name: 'birds', title: 'Birds', source: { kind: 'files', files: files() }, settings: SETTINGS, ...over });

let dbs = 0;
function freshDb(): () => Promise<IDBPDatabase> {
  const p = openDB(`build-session-test-${dbs++}`, 1, { upgrade(d) { for (const s of STORES) d.createObjectStore(s, { keyPath: 'key' }); } });
  return () => p;
}

const stores: Array<[string, () => LocalKbStore]> = [
  ['memory', () => new MemoryLocalKbStore()],
  ['IndexedDB', () => new IndexedDbLocalKbStore({ db: freshDb() })],
];

const bytesOf = (r: LocalKbRecord | null) => r && Object.fromEntries([...r.files].map(([p, b]) => [p, Buffer.from(b).toString('base64')]));
const stagesOf = (events: BuildProgress[]) => events.map((e) => e.stage).filter((s, i, a) => i === 0 || a[i - 1] !== s);

describe.each(stores)('runBuild with the %s store', (_name, makeStore) => {
  it('files → a saved knowledge base whose search finds a sentence on its page; progress from extract to save', async () => {
    const store = makeStore();
    const events: BuildProgress[] = [];
    const summary = await runBuild(request(), { store, onProgress: (p) => events.push(p) });
    expect(stagesOf(events)).toEqual(['extract', 'chunk', 'index', 'calibrate', 'save']);
    expect(summary).toMatchObject({ name: 'birds', title: 'Birds', documents: 4, pages: 3, skippedCount: 1, embedder: null, origin: { kind: 'files', files: 3 } });
    expect(summary.skipped).toEqual([{ path: 'docs/empty.txt', reason: 'empty file' }]);
    expect(summary.stageMs.extract).toBeGreaterThan(0);
    expect(summary.stageMs.save).toBeGreaterThan(0);

    const list = await store.list();
    expect(list.map((m) => [m.name, m.title])).toEqual([['birds', 'Birds']]);
    expect(list[0]!.settings).toEqual(SETTINGS);
    expect(list[0]!.summary.documents).toBe(4);

    const local = await openLocalKb(store, 'birds');
    expect(local.descriptor).toMatchObject({ id: 'local:birds', title: 'Birds', source: { kind: 'local', name: 'birds' } });
    expect(local.descriptor.examples.length).toBe(3);
    const kb = local.opened.kb;
    const [top] = kb.bm25.search('bittern booms reed bed', 1, kb.itemId);
    expect(kb.docOf(top!.index)).toMatchObject({ id: 'docs/field-guide.pdf#p2', title: 'Field Guide, p. 2', meta: { file: 'docs/field-guide.pdf', page: 2, format: 'pdf' } });
  });

  it('a rebuild with other settings reads the saved documents back and replaces the knowledge base only when it succeeds', async () => {
    const store = makeStore();
    await runBuild(request({ settings: { ...SETTINGS, chunking: false } }), { store });
    const first = await store.get('birds');
    const created = first!.meta.createdAt;
    const events: BuildProgress[] = [];
    const summary = await runBuild(request({ title: 'Birds, chunked small', source: { kind: 'rebuild', name: 'birds' }, settings: { ...SETTINGS, chunking: { ...DEFAULT_CHUNKING, chunkSize: 20, overlap: 5 } } }), { store, onProgress: (p) => events.push(p) });
    expect(events[0]).toMatchObject({ stage: 'extract', item: 'birds' });
    expect(summary).toMatchObject({ documents: 4, pages: 3, origin: first!.meta.summary.origin });
    expect(summary.chunks).toBeGreaterThan(first!.meta.summary.chunks);
    expect(summary.notes.join(' ')).toMatch(/the 1 inputs its first build skipped are not part of it/);
    const second = await store.get('birds');
    expect(second!.meta).toMatchObject({ title: 'Birds, chunked small', createdAt: created });
    expect(second!.meta.settings.chunking).toMatchObject({ chunkSize: 20, overlap: 5 });
    const opened = (await openLocalKb(store, 'birds')).opened;
    expect(opened.kb.docs.map((d) => d.id)).toEqual(['docs/field-guide.pdf#p1', 'docs/field-guide.pdf#p2', 'docs/field-guide.pdf#p3', 'docs/notes.md']);
  });

  it('a failed or cancelled build leaves the saved knowledge bases untouched', async () => {
    const store = makeStore();
    await runBuild(request(), { store });
    const before = await store.get('birds');
    const same = async () => {
      const now = await store.get('birds');
      expect(now?.meta).toEqual(before!.meta);
      expect(bytesOf(now)).toEqual(bytesOf(before));
      expect((await store.list()).map((m) => m.name)).toEqual(['birds']);
    };
    // Nothing usable in the files.
    await expect(runBuild(request({ source: { kind: 'files', files: [{ path: 'empty.txt', bytes: new Uint8Array() }] } }), { store })).rejects.toThrow(/None of the 1 input has text to index:\n- empty file: empty.txt/);
    await same();
    // Cancelled in every stage before the save.
    for (const at of ['extract', 'chunk', 'index', 'calibrate'] as const) {
      const c = new AbortController();
      await expect(runBuild(request({ title: 'Other' }), { store, signal: c.signal, onProgress: (p) => { if (p.stage === at) c.abort(); } })).rejects.toThrow(/abort/i);
      await same();
    }
    // Embedding asked with no embedder loaded: refused before any work.
    const events: BuildProgress[] = [];
    await expect(runBuild(request({ settings: { ...SETTINGS, embed: true } }), { store, embedder: () => embedderFromModels(null), onProgress: (p) => events.push(p) })).rejects.toThrow(NO_EMBEDDER);
    expect(events).toEqual([]);
    await same();
    // A rebuild of a knowledge base that is gone.
    await expect(runBuild(request({ name: 'gone', source: { kind: 'rebuild', name: 'gone' } }), { store })).rejects.toThrow('gone is not in this browser any more (deleted, or built in another browser)');
    await same();
  });
});

describe('build requests', () => {
  it('are checked before any work, naming what is wrong', () => {
    expect(() => checkBuildRequest(request({ name: 'My KB' }))).toThrow(/"My KB" cannot name a knowledge base: a name is lower-case letters/);
    expect(() => checkBuildRequest(request({ title: '  ' }))).toThrow(/needs a title/);
    expect(() => checkBuildRequest(request({ settings: { ...SETTINGS, chunking: { ...DEFAULT_CHUNKING, chunkSize: 100, overlap: 100 } } }))).toThrow(/build settings are not valid \(chunking: the overlap must be smaller than the chunk size\)/);
    expect(() => checkBuildRequest(request({ settings: { ...SETTINGS, bm25: { k1: 0.9, b: 1.5 } } }))).toThrow(/bm25\.b: BM25 b must be between 0 and 1/);
    expect(() => checkBuildRequest(request({ source: { kind: 'ftp' } as unknown as BuildRequest['source'] }))).toThrow(/Unknown build source "ftp"/);
    expect(checkBuildRequest(request({ title: ' Birds ' })).title).toBe('Birds');
  });

  it('an arXiv build without a proxy says what to set', async () => {
    await expect(sourceDocuments({ kind: 'arxiv', request: { query: 'retrieval', max: 5 }, proxyUrl: ' ' }, { store: new MemoryLocalKbStore() })).rejects.toThrow(NO_ARXIV_PROXY);
  });
});

describe('the embedder of the models worker', () => {
  it('is the loaded embedder, passing texts and kind through; none loaded is refused in words', async () => {
    const calls: Array<[string[], string]> = [];
    const models = {
      loaded: () => [{ task: 'cross-encoder' as const, spec: { id: 'ce', dtype: 'q8' as const, device: 'wasm' as const }, dim: null }, { task: 'embedder' as const, spec: { id: 'emb', dtype: 'fp32' as const, device: 'wasm' as const }, dim: 2 }],
      embed: async (texts: string[], kind: 'query' | 'passage') => { calls.push([texts, kind]); return new Float32Array(texts.length * 2).fill(1); },
    };
    const e = await embedderFromModels(models);
    expect(e.spec.id).toBe('emb');
    expect(e.dim).toBe(2);
    expect(Array.from(await e.embed(['a', 'b'], 'passage'))).toEqual([1, 1, 1, 1]);
    expect(calls).toEqual([[['a', 'b'], 'passage']]);
    await expect(embedderFromModels({ loaded: async () => [models.loaded()[0]!], embed: models.embed })).rejects.toThrow(NO_EMBEDDER);
    await expect(embedderFromModels(null)).rejects.toThrow(NO_EMBEDDER);
  });
});

describe('opening a local knowledge base', () => {
  async function saved(store: LocalKbStore): Promise<LocalKbRecord> {
    const docs = [{ id: 'a', title: 'Alpha', text: 'Kingfishers dive for minnows.' }, { id: 'b', title: 'Beta', text: 'Swifts sleep on the wing.' }];
    const built = await buildLocalKb({
      docs, fields: [], pages: 0, skipped: [], notes: [], origin: { kind: 'files', files: 2, bytes: 50 },
      queries: [{ id: 'q', text: 'kingfisher' }], qrels: new Map([['q', new Map([['a', 1]])]]),
    }, { name: 'river', title: 'River', description: 'built here', settings: SETTINGS });
    const meta: LocalKbMeta = { name: 'river', title: 'River', description: 'built here', createdAt: '2026-01-01T00:00:00.000Z', updatedAt: '2026-01-01T00:00:00.000Z', settings: SETTINGS, summary: built.summary };
    const rec = { meta, entry: built.entry, files: built.files };
    await store.put(rec);
    return rec;
  }

  it('has the local id, source and the title given since, and its vectors key is the one removing it clears', async () => {
    const store = new MemoryLocalKbStore();
    const rec = await saved(store);
    await store.rename('river', 'River birds');
    const local = await openLocalKb(store, 'river');
    expect(local.descriptor).toMatchObject({ id: 'local:river', title: 'River birds', description: 'built here', source: { kind: 'local', name: 'river' } });
    expect(local.source.label).toBe('local:river');
    expect(local.opened.queries).toEqual([{ id: 'q', text: 'kingfisher' }]);
    // search.worker.ts keys vectors `${descriptor id}:artifact:<first 16 hex of meta.json's SHA-256>`.
    const meta = await local.source.read(FILES.meta);
    expect(`${local.descriptor.id}:artifact:${(await sha256Hex(meta!)).slice(0, 16)}`).toBe(localVectorKey('river', await sha256Hex(rec.files.get(FILES.meta)!)));
    expect(localDescriptor({ ...rec, meta: { ...rec.meta, description: '' } }, local.opened.descriptor).description).toBe('built here');
    await expect(openLocalKb(store, 'gone')).rejects.toThrow('gone is not in this browser any more (deleted, or built in another browser)');
  });

  it('a rebuild source carries the queries and judgements', async () => {
    const store = new MemoryLocalKbStore();
    const rec = await saved(store);
    const src = await rebuildDocuments(rec);
    expect(src.docs.map((d) => d.id)).toEqual(['a', 'b']);
    expect(src.queries).toEqual([{ id: 'q', text: 'kingfisher' }]);
    expect(src.qrels?.get('q')?.get('a')).toBe(1);
    expect(src.origin).toEqual(rec.meta.summary.origin);
  });
});

describe('what leaves the browser', () => {
  it('exports a saved knowledge base as a zip that opens as the same artifact; a damaged or missing one is refused', async () => {
    const store = new MemoryLocalKbStore();
    await runBuild(request(), { store });
    const zip = await exportLocalKb(store, 'birds');
    const source = readArtifactZip(zip, 'birds.zip');
    const [entry] = await listIndexes(source);
    expect(entry).toMatchObject({ id: 'birds', path: 'birds', title: 'Birds' });
    const opened = await openArtifact(source, 'birds');
    const saved = (await openLocalKb(store, 'birds')).opened;
    expect(opened.kb.size).toBe(saved.kb.size);
    for (let i = 0; i < saved.kb.size; i++) expect(opened.kb.itemText(i)).toBe(saved.kb.itemText(i));

    const rec = (await store.get('birds'))!;
    const chunks = rec.files.get('chunks.parquet')!.slice();
    chunks[chunks.length - 30] = chunks[chunks.length - 30]! ^ 0xff;
    await store.put({ ...rec, files: new Map(rec.files).set('chunks.parquet', chunks) });
    await expect(exportLocalKb(store, 'birds')).rejects.toThrow(/"birds" is damaged \(chunks\.parquet does not match its checksum\)/);
    const fetches: string[] = [];
    const fetchSpy = (async (u: string | URL | Request) => { fetches.push(String(u)); return new Response('{}'); }) as typeof fetch;
    await expect(publishSavedKb(store, { name: 'birds', repo: 'me/kbs', access: { hubUrl: 'http://127.0.0.1:9/', token: 'hf_abcdefghijklmnopqrstuvwxyz' } }, { fetch: fetchSpy })).rejects.toThrow(/is damaged/);
    expect(fetches).toEqual([]); // nothing is sent for a damaged knowledge base
    await expect(exportLocalKb(store, 'gone')).rejects.toThrow('gone is not in this browser any more');
  });
});

describe('a Hub dataset source', () => {
  it('downloads rows from the loopback Hub into a saved knowledge base with its queries and judgements', async () => {
    const hub = await serveHubRepos({});
    try {
      const sha = addBeirScifact(hub);
      const store = new MemoryLocalKbStore();
      const events: BuildProgress[] = [];
      const summary = await runBuild(request({
        name: 'scifact-300', title: 'SciFact (300 rows)',
        source: { kind: 'hub-dataset', request: { dataset: 'BeIR/scifact', config: 'corpus', split: 'corpus', maxRows: 300, columns: { id: '_id', title: 'title', text: 'text', metadata: [] } }, access: { hubUrl: hub.url, token: null } },
      }), { store, onProgress: (p) => events.push(p) });
      expect(stagesOf(events)).toEqual(['download', 'chunk', 'index', 'calibrate', 'save']);
      expect(summary).toMatchObject({ documents: 300, origin: { kind: 'hub-dataset', dataset: 'BeIR/scifact', revision: sha, rows: 300 } });
      expect(summary.queries).toBeGreaterThan(0);
      expect(summary.stageMs.download).toBeGreaterThan(0);
      const opened = (await openLocalKb(store, 'scifact-300')).opened;
      expect(opened.queries?.length).toBe(summary.queries);
      expect(opened.qrels?.size).toBeGreaterThan(0);
    } finally {
      await hub.close();
    }
  });

  it('publishes with a stored test set as its queries and qrels; a pseudo, stale or foreign one is refused before any request', async () => {
    const store = new MemoryLocalKbStore();
    await runBuild(request(), { store });
    const meta = parseMeta(parseJsonBytes((await store.get('birds'))!.files.get('meta.json')!, 'meta.json'));
    const sets = memoryTestSetStore();
    const base: StoredTestSet = {
      id: 'ts1', kbId: 'local:birds', kbTitle: 'Birds', corpusHash: meta.corpus_sha256!, label: '2 questions by m', kind: 'llm', provenance: { model: 'm' },
      queries: [{ id: 'q1', text: 'where do bitterns boom' }, { id: 'q2', text: 'gulls and fishing boats' }], qrels: [['q1', [['docs/field-guide.pdf#2', 1]]], ['q2', [['docs/notes.md', 1]]]],
      splitSeed: 0, notes: [], savedAt: 1,
    };
    await sets.put(base);
    await sets.put({ ...base, id: 'pseudo', kind: 'pseudo', label: 'pseudo' });
    await sets.put({ ...base, id: 'stale', corpusHash: 'f'.repeat(64), label: 'old set' });
    await sets.put({ ...base, id: 'other', kbId: 'local:fish' });
    const hub = await serveHubRepos({ token: 'hf_publishWRITEtoken77' });
    try {
      hub.addRepo('me/kbs', new Map([['README.md', enc.encode('# kbs\n')]]));
      const req = (testSetId: string) => ({ name: 'birds', repo: 'me/kbs', access: { hubUrl: hub.url, token: 'hf_publishWRITEtoken77' }, testSetId });
      for (const [id, why] of [['pseudo', /pseudo-queries are not published/], ['stale', /old set is stale: birds changed since it was made/], ['other', /not one of birds's/], ['gone', /not one of birds's/]] as const) {
        await expect(publishSavedKb(store, req(id), { testSets: sets })).rejects.toThrow(why);
      }
      expect(hub.requests).toEqual([]);
      const out = await publishSavedKb(store, req('ts1'), { testSets: sets });
      const opened = await openArtifact(await hubSource({ repo: 'me/kbs', revision: out.commit, hubUrl: hub.url }), 'birds');
      expect(opened.queries).toEqual(base.queries);
      expect([...opened.qrels!].map(([q, m]) => [q, [...m]])).toEqual(base.qrels);
      // The saved knowledge base itself is unchanged (the test set rides only on the published copy).
      expect((await openLocalKb(store, 'birds')).opened.queries).toBeNull();
    } finally {
      await hub.close();
    }
  });
});
