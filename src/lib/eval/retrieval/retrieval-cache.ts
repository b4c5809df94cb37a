/**
 * The retrieval benchmark's row cache (eval/retrieval/retrieval-bench.ts RetrievalRowCache): one record per (config hash, row
 * key) in the IndexedDB store 'retrieval-rows', carrying a format version and a SHA-256 checksum over a canonical
 * serialisation of (version, hash, row key, row). A record of another version, of the wrong shape (valibot,
 * record-schemas.ts), of another key or with a wrong checksum is never used: `get` throws InvalidCachedRow with the
 * reason, the run computes the row again and its notes say so. `MemoryRetrievalRowCache` is the same contract in
 * memory (Node, tests).
 */
import { InvalidCachedRow, type RetrievalRowCache } from './retrieval-bench.ts';
import * as v from 'valibot';
import { ReportRowSchema, type ReportRow } from '../../reports/format.ts';
import { sha256Hex } from '../../checksum.ts';
import { database } from '../../store/db.ts';
import { checkStored } from '../../store/record-schemas.ts';

/** Bump when the record layout or the canonical serialisation changes. */
export const RETRIEVAL_ROW_SCHEMA_VERSION = 1;
const STORE = 'retrieval-rows';

/** `retrieval-rows`: one row of a retrieval benchmark run (a report row) by (config hash, row key). */
export const RetrievalRowRecordSchema = v.object({
  key: v.string(),
  hash: v.string(),
  row: v.string(),
  schemaVersion: v.number(),
  checksum: v.pipe(v.string(), v.regex(/^[0-9a-f]{64}$/)),
  savedAt: v.number(),
  value: ReportRowSchema,
});

export interface RetrievalRowRecord { key: string; hash: string; row: string; value: ReportRow; schemaVersion: number; checksum: string; savedAt: number }

/** SHA-256 of JSON [version, hash, row key, row] (the row as stored: its field order is kept by IndexedDB). */
export function retrievalRowChecksum(hash: string, rowKey: string, row: ReportRow, version = RETRIEVAL_ROW_SCHEMA_VERSION): Promise<string> {
  return sha256Hex(JSON.stringify([version, hash, rowKey, row]));
}

const recordKey = (hash: string, rowKey: string) => `${hash}|${rowKey}`;
const rangeOf = (hash: string) => IDBKeyRange.bound(`${hash}|`, `${hash}|\uffff`);

/** The stored row when the record is intact; throws InvalidCachedRow with the reason when it is not. */
export async function verifiedRow(stored: unknown, hash: string, rowKey: string): Promise<ReportRow> {
  const shape = checkStored(stored, RetrievalRowRecordSchema, RETRIEVAL_ROW_SCHEMA_VERSION, 'the cached row', (found) => `the cached row is of format ${found}`);
  if (!shape.ok) throw new InvalidCachedRow(shape.reason);
  const rec = stored as RetrievalRowRecord;
  if (rec.key !== recordKey(hash, rowKey) || rec.hash !== hash || rec.row !== rowKey || rec.value.key !== rowKey) {
    throw new InvalidCachedRow('the cached row belongs to another run or row');
  }
  if ((await retrievalRowChecksum(hash, rowKey, rec.value)) !== rec.checksum) throw new InvalidCachedRow('the cached row does not match its checksum');
  return rec.value;
}

export const indexedDbRetrievalRowCache: RetrievalRowCache & { clear(hash: string): Promise<void> } = {
  async get(hash, rowKey) {
    const stored: unknown = await (await database()).get(STORE, recordKey(hash, rowKey));
    return stored === undefined ? undefined : verifiedRow(stored, hash, rowKey);
  },
  async put(hash, rowKey, row) {
    const rec: RetrievalRowRecord = {
      key: recordKey(hash, rowKey), hash, row: rowKey, value: row, schemaVersion: RETRIEVAL_ROW_SCHEMA_VERSION,
      checksum: await retrievalRowChecksum(hash, rowKey, row), savedAt: Date.now(),
    };
    await (await database()).put(STORE, rec);
  },
  async clear(hash) {
    await (await database()).delete(STORE, rangeOf(hash));
  },
};

/** For tests: the stored record of a row, and overwriting it as is (an edited or corrupted record). */
export async function getRawRetrievalRow(hash: string, rowKey: string): Promise<RetrievalRowRecord | undefined> {
  return (await (await database()).get(STORE, recordKey(hash, rowKey))) as RetrievalRowRecord | undefined;
}

export async function putRawRetrievalRow(rec: unknown): Promise<void> {
  await (await database()).put(STORE, rec);
}

/** The row cache in memory (Node, tests): rows are copied in and out, so a caller cannot change what is stored. */
export class MemoryRetrievalRowCache implements RetrievalRowCache {
  readonly rows = new Map<string, ReportRow>();
  async get(hash: string, rowKey: string): Promise<ReportRow | undefined> {
    const row = this.rows.get(recordKey(hash, rowKey));
    return row === undefined ? undefined : structuredClone(row);
  }
  async put(hash: string, rowKey: string, row: ReportRow): Promise<void> {
    this.rows.set(recordKey(hash, rowKey), structuredClone(row));
  }
  get size(): number { return this.rows.size; }
}
