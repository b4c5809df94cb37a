/**
 * The local knowledge-base stores (memory and IndexedDB through fake-indexeddb) behave alike: put/get/list/rename/
 * remove. The IndexedDB store removes the cached vectors and vector-index graphs of that knowledge base only, reports
 * damaged records, and a failed (full-quota) put leaves the record it would have replaced as it was.
 */
import 'fake-indexeddb/auto';
import { openDB, type IDBPDatabase } from 'idb';
import { describe, expect, it } from 'vitest';
import { buildLocalKb } from '../../src/lib/kb-build/build-kb.ts';
import type { BuildSettings, LocalKbMeta } from '../../src/lib/data/local-kb-meta.ts';
import { DEFAULT_BM25 } from '../../src/lib/retrieval/bm25.ts';
import { sha256Hex } from '../../src/lib/checksum.ts';
import { STORES } from '../../src/lib/store/db.ts';
import { quotaFullOn } from '../helpers/failing-db.ts';
import {
  checkLocalKbFiles, IndexedDbLocalKbStore, LOCAL_KB_STORES, localVectorKey, localVectorPrefix, MemoryLocalKbStore,
  requestPersistentStorage, type LocalKbRecord, type LocalKbStore,
} from '../../src/lib/store/local-kb-store.ts';

const SETTINGS: BuildSettings = { chunking: false, bm25: DEFAULT_BM25, embed: false };

/** A real (small) built knowledge base as the store keeps it. */
async function record(name: string, title = `KB ${name}`, text = 'Herons wade in the shallow water of the estuary.'): Promise<LocalKbRecord> {
  const docs = [{ id: `${name}-1`, title: 'first', text }, { id: `${name}-2`, title: 'second', text: 'Gulls follow the fishing boats home.' }];
  const built = await buildLocalKb({ docs, fields: [], pages: 0, skipped: [], notes: [], origin: { kind: 'files', files: 2, bytes: 90 } }, { name, title, settings: SETTINGS });
  const meta: LocalKbMeta = { name, title, description: '', createdAt: '2026-01-01T00:00:00.000Z', updatedAt: `2026-01-0${name.length}T00:00:00.000Z`, settings: SETTINGS, summary: built.summary };
  return { meta, entry: built.entry, files: built.files };
}

let dbs = 0;
/** A fresh database with the app's stores (each test its own). */
function freshDb(): () => Promise<IDBPDatabase> {
  const p = openDB(`local-kbs-test-${dbs++}`, 1, { upgrade(d) { for (const s of STORES) d.createObjectStore(s, { keyPath: 'key' }); } });
  return () => p;
}

const stores: Array<[string, () => { store: LocalKbStore; problems: string[]; db: (() => Promise<IDBPDatabase>) | null }]> = [
  ['memory', () => ({ store: new MemoryLocalKbStore(), problems: [], db: null })],
  ['IndexedDB', () => {
    const problems: string[] = [];
    const db = freshDb();
    return { store: new IndexedDbLocalKbStore({ db, onProblem: (m) => problems.push(m) }), problems, db };
  }],
];

const bytesOf = (r: LocalKbRecord | null) => r && Object.fromEntries([...r.files].map(([p, b]) => [p, Buffer.from(b).toString('base64')]));

describe.each(stores)('%s local knowledge-base store', (_name, make) => {
  it('put, get, list (newest first), rename, remove', async () => {
    const { store } = make();
    const a = await record('a'), bc = await record('bc');
    await store.put(a);
    await store.put(bc);
    expect((await store.list()).map((m) => m.name)).toEqual(['bc', 'a']);
    const got = await store.get('a');
    expect(got?.meta).toEqual(a.meta);
    expect(got?.entry).toEqual(a.entry);
    expect(bytesOf(got)).toEqual(bytesOf(a));
    await checkLocalKbFiles(got!);
    expect(await store.get('missing')).toBeNull();

    const renamed = await store.rename('a', '  Estuary birds ');
    expect(renamed.title).toBe('Estuary birds');
    expect(renamed.updatedAt > a.meta.updatedAt).toBe(true);
    expect((await store.get('a'))?.entry.title).toBe('Estuary birds');
    expect((await store.list())[0]!.title).toBe('Estuary birds');
    await expect(store.rename('a', '   ')).rejects.toThrow(/needs a title/);
    await expect(store.rename('missing', 'x')).rejects.toThrow(/missing is not in this browser any more/);

    // A put of the same name replaces it whole.
    const a2 = await record('a', 'Rebuilt', 'Storks nest on the church tower.');
    await store.put(a2);
    expect(bytesOf(await store.get('a'))).toEqual(bytesOf(a2));
    expect((await store.list()).length).toBe(2);

    await store.remove('a');
    expect(await store.get('a')).toBeNull();
    expect((await store.list()).map((m) => m.name)).toEqual(['bc']);
    await store.remove('a'); // removing what is gone is no fault
  });

  it('refuses a record without meta.json or with a bad name', async () => {
    const { store } = make();
    const a = await record('a');
    const files = new Map(a.files);
    files.delete('meta.json');
    await expect(store.put({ ...a, files })).rejects.toThrow(/its files have no meta\.json/);
    await expect(store.put({ ...a, meta: { ...a.meta, name: 'Not OK' } })).rejects.toThrow(/cannot be saved.*name/);
    expect(await store.list()).toEqual([]);
  });

  it('a full quota fails the put with a message naming what to free, and leaves the old record', async () => {
    const a = await record('a');
    const big = await record('a', 'Bigger', Array.from({ length: 400 }, (_, i) => `word${i}`).join(' '));
    let store: LocalKbStore;
    let check: LocalKbStore;
    const made = make();
    if (made.db) {
      const real = await made.db();
      await new IndexedDbLocalKbStore({ db: made.db }).put(a);
      // A connection whose files store refuses the write as a full quota would, after the list entry was written.
      const failing = quotaFullOn(real, LOCAL_KB_STORES.files);
      store = new IndexedDbLocalKbStore({ db: async () => failing });
      check = new IndexedDbLocalKbStore({ db: made.db });
    } else {
      const budget = [...a.files.values()].reduce((x, b) => x + b.byteLength, 0) + 100;
      store = check = new MemoryLocalKbStore({ quotaBytes: budget });
      await store.put(a);
    }
    await expect(store.put(big)).rejects.toThrow(/storage quota is full\. Nothing was changed .*delete knowledge bases you no longer need/);
    const kept = await check.get('a');
    expect(kept?.meta).toEqual(a.meta);
    expect(bytesOf(kept)).toEqual(bytesOf(a));
  });
});

describe('IndexedDB local knowledge-base store', () => {
  const put = async (db: () => Promise<IDBPDatabase>, store: string, key: string) => (await db()).put(store, { key, kept: true });
  const keys = async (db: () => Promise<IDBPDatabase>, store: string) => ((await (await db()).getAllKeys(store)) as string[]).sort();

  it('remove deletes the cached vectors and graphs of that knowledge base only', async () => {
    const db = freshDb();
    const store = new IndexedDbLocalKbStore({ db });
    const a = await record('a');
    await store.put(a);
    await store.put(await record('a-b'));
    const sha = await sha256Hex(a.files.get('meta.json')!);
    const mine = `${localVectorKey('a', sha)}|Xenova/all-MiniLM-L6-v2|q8`;
    const others = [`local:a-b:artifact:0123456789abcdef|m|fp32`, `local:ab:artifact:0123456789abcdef|m|fp32`, 'hub:o/r/a@main:artifact:0123|m|q8', 'sotu:abc|m|q8'];
    for (const k of [mine, ...others]) await put(db, 'vectors', k);
    for (const k of [`${mine}|index:hnsw|cosine|M16|efc200|seed1`, ...others.map((o) => `${o}|index:exact|cosine`)]) await put(db, 'vector-indexes', k);
    await store.remove('a');
    expect(await keys(db, 'vectors')).toEqual([...others].sort());
    expect(await keys(db, 'vector-indexes')).toEqual(others.map((o) => `${o}|index:exact|cosine`).sort());
    expect(await keys(db, LOCAL_KB_STORES.meta)).toEqual(['a-b']);
    expect(await keys(db, LOCAL_KB_STORES.files)).toEqual(['a-b']);
    expect(localVectorPrefix('a')).toBe('local:a:artifact:');
  });

  it('replacing a knowledge base drops the vectors of its previous version and keeps those of the new one', async () => {
    const db = freshDb();
    const store = new IndexedDbLocalKbStore({ db });
    const old = await record('a');
    const next = await record('a', 'again', 'Cormorants dry their wings on the pier.');
    const oldKey = localVectorKey('a', await sha256Hex(old.files.get('meta.json')!));
    const newKey = localVectorKey('a', await sha256Hex(next.files.get('meta.json')!));
    expect(oldKey).not.toBe(newKey);
    await store.put(old);
    await put(db, 'vectors', `${oldKey}|m|fp32`);
    await put(db, 'vectors', `${newKey}|m|fp32`);
    await store.put(next);
    expect(await keys(db, 'vectors')).toEqual([`${newKey}|m|fp32`]);
  });

  it('reports a damaged record: a bad list entry is left out of the list, a bad or tampered one cannot be opened', async () => {
    const db = freshDb();
    const problems: string[] = [];
    const store = new IndexedDbLocalKbStore({ db, onProblem: (m) => problems.push(m) });
    await store.put(await record('good'));
    await store.put(await record('tampered'));
    await (await db()).put(LOCAL_KB_STORES.meta, { key: 'broken', schemaVersion: 1, meta: { name: 'broken' } });
    expect((await store.list()).map((m) => m.name).sort()).toEqual(['good', 'tampered']);
    expect(problems.at(-1)).toMatch(/The saved knowledge base broken has the wrong shape \(meta\.title: .*\): it was left out of the list/);
    await expect(store.get('broken')).rejects.toThrow(/"broken" is damaged \(its list entry has the wrong shape.*delete it and build it again/);

    const rec = (await (await db()).get(LOCAL_KB_STORES.files, 'tampered')) as { files: Array<{ path: string; bytes: Uint8Array }> };
    const metaFile = rec.files.find((f) => f.path === 'meta.json')!;
    metaFile.bytes = new TextEncoder().encode(new TextDecoder().decode(metaFile.bytes).replace('KB tampered', 'KB tamperex'));
    await (await db()).put(LOCAL_KB_STORES.files, rec);
    await expect(store.get('tampered')).rejects.toThrow(/"tampered" is damaged \(meta\.json does not match its checksum\)/);

    await (await db()).delete(LOCAL_KB_STORES.files, 'good');
    await expect(store.get('good')).rejects.toThrow(/"good" is damaged \(its files are missing\)/);
    // Damaged ones can still be deleted.
    await store.remove('broken');
    await store.remove('good');
    expect((await store.list()).map((m) => m.name)).toEqual(['tampered']);
  });

  it('checkLocalKbFiles finds a file that no longer matches meta.json', async () => {
    const a = await record('a');
    const files = new Map(a.files);
    const docs = files.get('docs.parquet')!.slice();
    docs[docs.length - 20] = docs[docs.length - 20]! ^ 1;
    files.set('docs.parquet', docs);
    await expect(checkLocalKbFiles({ ...a, files })).rejects.toThrow(/"a" is damaged \(docs\.parquet does not match its checksum\)/);
    files.delete('docs.parquet');
    await expect(checkLocalKbFiles({ ...a, files })).rejects.toThrow(/docs\.parquet is missing/);
  });
});

describe('requestPersistentStorage', () => {
  it('asks once persistence is not granted yet, and says whether it is', async () => {
    const asked: string[] = [];
    const storage = (persisted: boolean, grant: boolean | 'throw') => ({
      persisted: async () => { asked.push('persisted'); return persisted; },
      persist: async () => { asked.push('persist'); if (grant === 'throw') throw new Error('denied'); return grant; },
    });
    expect(await requestPersistentStorage(storage(false, true))).toBe(true);
    expect(asked).toEqual(['persisted', 'persist']);
    asked.length = 0;
    expect(await requestPersistentStorage(storage(true, false))).toBe(true);
    expect(asked).toEqual(['persisted']);
    expect(await requestPersistentStorage(storage(false, false))).toBe(false);
    expect(await requestPersistentStorage(storage(false, 'throw'))).toBe(false);
    expect(await requestPersistentStorage({})).toBe(false);
    expect(await requestPersistentStorage(undefined)).toBe(false);
  });
});
