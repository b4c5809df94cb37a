/**
 * hnswlib-wasm for hnsw.ts: loading it once, lazily (with an `importScripts` stub outside a browser), and the
 * IDBFS IndexedDB database its files are moved through (serialisation: see hnsw.ts), one FS operation at a time.
 */
import type { HnswlibModule } from 'hnswlib-wasm/dist/hnswlib.js';

type HnswlibApi = typeof import('hnswlib-wasm/dist/hnswlib.js');
export interface Hnswlib {
  api: HnswlibApi;
  lib: HnswlibModule;
  /** Whether IDBFS (and so serialisation) works in this environment. */
  idb: boolean;
}

export const FS_DIR = '/hnswlib-index';
const IDB_STORE = 'FILE_DATA';
const FILE_PREFIX = 'rag-lab-';
/** S_IFREG | 0644: a regular file for IDBFS. */
export const FILE_MODE = 0o100644;

let loading: Promise<Hnswlib> | null = null;

/** Loads hnswlib-wasm once (lazily); later calls share the same promise. */
export function loadHnsw(): Promise<Hnswlib> {
  loading ??= startHnswlib().catch((e: unknown) => {
    loading = null;
    throw e;
  });
  return loading;
}

async function startHnswlib(): Promise<Hnswlib> {
  const g = globalThis as { window?: unknown; importScripts?: unknown };
  const shim = typeof g.window !== 'object' && typeof g.importScripts !== 'function';
  if (shim) {
    g.importScripts = () => {
      throw new Error('importScripts is a stub defined for loading hnswlib-wasm outside a browser');
    };
  }
  let api: HnswlibApi, lib: HnswlibModule;
  try {
    api = await import('hnswlib-wasm/dist/hnswlib.js');
    lib = await api.loadHnswlib();
  } finally {
    if (shim) delete g.importScripts;
  }
  let idb = typeof indexedDB !== 'undefined';
  if (idb) {
    try {
      // loadHnswlib starts an IndexedDB → FS sync without waiting for it; finish it before any other FS work.
      await waitSynced(lib, 15_000);
      await removeLeftovers({ api, lib, idb });
    } catch {
      idb = false; // IndexedDB present but unusable (e.g. blocked): build and search still work
    }
  }
  return { api, lib, idb };
}

/** One FS/IDBFS operation at a time (the module's FS and its sync state are global). */
let fsQueue: Promise<unknown> = Promise.resolve();
export function exclusive<T>(work: () => Promise<T>): Promise<T> {
  const run = fsQueue.then(work, work);
  fsQueue = run.catch(() => undefined);
  return run;
}

let fileSeq = 0;
export function tempName(): string {
  return `${FILE_PREFIX}${Date.now().toString(36)}-${(fileSeq++).toString(36)}-${Math.random().toString(36).slice(2, 8)}.hnsw`;
}

export function requireIdb(h: Hnswlib, what: string): void {
  if (!h.idb) {
    throw new Error(`HnswIndex: ${what} an index needs IndexedDB (hnswlib-wasm moves files through IDBFS); in Node import 'fake-indexeddb/auto' before loading it`);
  }
}

/** Resolves once the FS sync in flight has finished (hnswlib-wasm reports completion only through a flag). */
export async function waitSynced(lib: HnswlibModule, timeoutMs: number): Promise<void> {
  const start = Date.now();
  while (!lib.EmscriptenFileSystemManager.isSynced()) {
    if (Date.now() - start > timeoutMs) {
      throw new Error(`HnswIndex: hnswlib-wasm's IndexedDB sync did not finish within ${Math.round(timeoutMs / 1000)} s`);
    }
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** Deletes files a crashed serialisation left in IDBFS's database (they would be loaded into memory at start). */
async function removeLeftovers(h: Hnswlib): Promise<void> {
  const keys = (await withStore('readonly', (s) => s.getAllKeys())) as IDBValidKey[];
  const ours = keys.filter((k) => typeof k === 'string' && k.startsWith(`${FS_DIR}/${FILE_PREFIX}`));
  if (ours.length === 0) return;
  for (const k of ours) await idbDelete(k);
  await h.api.syncFileSystem('read');
}

// ---- IDBFS's IndexedDB database, opened at its current version (never upgraded by us) ----

function request<T>(r: IDBRequest<T>): Promise<T> {
  return new Promise((resolve, reject) => {
    r.onsuccess = () => resolve(r.result);
    r.onerror = () => reject(r.error ?? new Error('IndexedDB request failed'));
  });
}

async function withStore<T>(mode: IDBTransactionMode, op: (s: IDBObjectStore) => IDBRequest<T>): Promise<T> {
  const db = await request(indexedDB.open(FS_DIR));
  db.onversionchange = () => db.close(); // never hold up another tab's upgrade
  try {
    if (!db.objectStoreNames.contains(IDB_STORE)) throw new Error(`HnswIndex: IDBFS database ${FS_DIR} has no ${IDB_STORE} store`);
    const tx = db.transaction(IDB_STORE, mode);
    const result = await request(op(tx.objectStore(IDB_STORE)));
    await new Promise<void>((resolve, reject) => {
      tx.oncomplete = () => resolve();
      tx.onerror = tx.onabort = () => reject(tx.error ?? new Error('IndexedDB transaction failed'));
    });
    return result;
  } finally {
    db.close();
  }
}

export const idbGet = (key: string) => withStore('readonly', (s) => s.get(key));
export const idbPut = (key: string, value: unknown) => withStore('readwrite', (s) => s.put(value, key));
export const idbDelete = (key: IDBValidKey) => withStore('readwrite', (s) => s.delete(key));
