/**
 * The CLI's embedding cache (VectorStore) in a folder on disk: `folderVectorStore` (src/lib/kb-build/
 * vector-cache-folder.ts: which files, what bytes, the checks) over node:fs.
 *
 * hnswlib-wasm serialises through IDBFS, i.e. IndexedDB, which Node lacks: before the first index load this store
 * installs `fake-indexeddb` (in memory; hnswlib only passes files through it). Without that package installed the
 * graph is neither restored nor saved, and `attachDense` says so in its note.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { folderVectorStore } from '../src/lib/kb-build/vector-cache-folder.ts';
import type { VectorStore } from '../src/lib/store/vector-cache.ts';

const FAKE_IDB: string = 'fake-indexeddb/auto';
let idbReady: Promise<boolean> | null = null;

/** Installs an in-memory IndexedDB for hnswlib-wasm's IDBFS when Node has none; false when that is impossible. */
export function ensureIndexedDb(): Promise<boolean> {
  idbReady ??= typeof indexedDB !== 'undefined'
    ? Promise.resolve(true)
    // (a variable specifier: the package's `auto` entry has no types under its exports map; only its side effect matters)
    : import(FAKE_IDB).then(() => true, () => false);
  return idbReady;
}

export function fileVectorStore(root: string): VectorStore {
  return folderVectorStore(root, {
    join, exists: existsSync, read: (p) => readFileSync(p), readText: (p) => readFileSync(p, 'utf8'),
    write: (p, data) => writeFileSync(p, data), mkdir: (p) => { mkdirSync(p, { recursive: true }); }, indexedDb: ensureIndexedDb,
  });
}
