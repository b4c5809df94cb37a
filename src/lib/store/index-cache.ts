/**
 * IndexedDB cache of built knowledge-base indexes. Each record carries a schema version and a SHA-256 checksum
 * of its arrays; a record of another version or with a wrong checksum is reported as invalid (the caller
 * rebuilds and tells the user). Saving never throws: a full quota is reported, and the app keeps the index in memory.
 */
import type { KbData } from '../retrieval/knowledge-base.ts';
import { sha256Hex } from '../checksum.ts';
import { database, saveFailure } from './db.ts';
import { checkStored, IndexRecordSchema } from './record-schemas.ts';

/** Bump when the index format or anything that changes index contents (analyzer, chunker) changes. */
export const INDEX_SCHEMA_VERSION = 1;
const STORE = 'indexes';

export interface IndexRecord {
  key: string;
  schemaVersion: number;
  checksum: string;
  savedAt: number;
  data: KbData;
}

export type CacheLoad =
  | { status: 'hit'; data: KbData; savedAt: number }
  | { status: 'miss' }
  | { status: 'invalid'; reason: string };

export type CacheSave = { ok: true; bytes: number } | { ok: false; reason: string };

/** Checksum over every array and the scalar fields of the index. */
export function checksumOf(data: KbData): Promise<string> {
  const { itemDoc, itemChunk, itemStart, itemEnd, bm25, sparseCdf, ...rest } = data;
  return sha256Hex(
    JSON.stringify(rest), JSON.stringify(bm25.params), JSON.stringify(bm25.analyzer), bm25.terms.join('\u0000'),
    itemDoc, itemChunk, itemStart, itemEnd, bm25.offsets, bm25.docs, bm25.tfs, bm25.docLengths,
    ...(sparseCdf ? [sparseCdf.sorted, `${sparseCdf.count}:${sparseCdf.queries}`] : []),
  );
}

export function byteSize(data: KbData): number {
  const b = data.bm25;
  return [data.itemDoc, data.itemChunk, data.itemStart, data.itemEnd, b.offsets, b.docs, b.tfs, b.docLengths, data.sparseCdf?.sorted]
    .reduce((a, arr) => a + (arr?.byteLength ?? 0), 0) + b.terms.reduce((a, t) => a + t.length * 2, 0);
}

/** A stored record of another format or shape is invalid (the caller rebuilds and overwrites it), never used. */
export async function loadIndex(key: string): Promise<CacheLoad> {
  let stored: unknown;
  try {
    stored = await (await database()).get(STORE, key);
  } catch (e) {
    return { status: 'invalid', reason: `the index cache could not be read (${(e as Error).message})` };
  }
  if (stored === undefined) return { status: 'miss' };
  const check = checkStored(stored, IndexRecordSchema, INDEX_SCHEMA_VERSION, 'the cached index',
    (found) => `the cached index is from an older version of RAG Lab (format ${found}, now ${INDEX_SCHEMA_VERSION})`);
  if (!check.ok) return { status: 'invalid', reason: check.reason };
  const rec = stored as IndexRecord;
  try {
    if ((await checksumOf(rec.data)) !== rec.checksum) return { status: 'invalid', reason: 'the cached index is corrupted (checksum mismatch)' };
  } catch {
    return { status: 'invalid', reason: 'the cached index is corrupted (unreadable record)' };
  }
  return { status: 'hit', data: rec.data, savedAt: rec.savedAt };
}

export async function saveIndex(key: string, data: KbData): Promise<CacheSave> {
  try {
    const rec: IndexRecord = { key, schemaVersion: INDEX_SCHEMA_VERSION, checksum: await checksumOf(data), savedAt: Date.now(), data };
    await (await database()).put(STORE, rec);
    return { ok: true, bytes: byteSize(data) };
  } catch (e) {
    return { ok: false, reason: saveFailure(e, 'index') };
  }
}

export async function deleteIndex(key: string): Promise<void> {
  await (await database()).delete(STORE, key);
}

/** For tests: overwrite a stored record as-is (to simulate corruption or an old format). */
export async function putRawRecord(rec: IndexRecord): Promise<void> {
  await (await database()).put(STORE, rec);
}

export async function getRawRecord(key: string): Promise<IndexRecord | undefined> {
  return (await (await database()).get(STORE, key)) as IndexRecord | undefined;
}
