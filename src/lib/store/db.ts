/** The app's IndexedDB database and its object stores (one place for the schema). */
import type { IDBPDatabase } from 'idb';
import { yieldingDatabase } from './open-db.ts';

export const DB_NAME = 'rag-lab';
/** 'vector-indexes' (version 3): serialised vector indexes (HNSW graphs) built over the cached embeddings. */
export const STORES = ['indexes', 'vectors', 'vector-indexes', 'results', 'transforms', 'artifacts', 'reports', 'report-bodies', 'report-texts', 'deleted-reports', 'deleted-report-bodies', 'local-kbs', 'local-kb-files', 'retrieval-rows', 'ragbench-files', 'test-sets', 'test-set-replies'] as const;
/**
 * 4: 'results' (benchmark rows by config hash) and 'transforms' (cached query transforms).
 * 5: 'artifacts' (verified artifact files and Hub revision refs, artifact-cache.ts).
 * 6: 'reports', 'report-bodies', 'report-texts' (saved reports: list entries, full texts, questions and answers for
 *    the find box; report-store.ts) and their deleted
 *    archive 'deleted-reports', 'deleted-report-bodies'.
 * 7: 'local-kbs', 'local-kb-files' (knowledge bases built in this browser: list entries, artifact files;
 *    local-kb-store.ts).
 * 8: 'retrieval-rows' (retrieval benchmark rows by config hash and row key, retrieval-cache.ts).
 * 9: 'ragbench-files' (RAGBench files picked in the Benchmark tab, remembered across a reload; ragbench-file-store.ts).
 * 10: 'test-sets', 'test-set-replies' (test sets of knowledge bases and the LLM replies they were written from; test-set-store.ts).
 * Upgrades only add stores: what older versions stored stays.
 */
export const DB_VERSION = 10;
export type StoreName = (typeof STORES)[number];

/** The connection, opened on first use; it yields to a newer build in another tab (open-db.ts). */
export const database: () => Promise<IDBPDatabase> = yieldingDatabase(DB_NAME, DB_VERSION, (d) => {
  for (const name of STORES) if (!d.objectStoreNames.contains(name)) d.createObjectStore(name, { keyPath: 'key' });
});

/** Turns a failed write into a message for the user (quota errors get their own). */
export function saveFailure(e: unknown, what: string): string {
  const err = e as DOMException;
  return err?.name === 'QuotaExceededError'
    ? `the browser storage quota is full, so the ${what} stays in memory only and will be rebuilt next time`
    : `the ${what} could not be cached (${err?.message ?? String(e)}); it stays in memory only`;
}
