/** The IndexedDB implementation of the artifact file cache (hub/file-cache.ts says what is cached under which key). */
import { sha256Hex, sha256Of } from '../checksum.ts';
import { cacheWriteNote, contentHashOf, type ArtifactFileCache } from '../hub/file-cache.ts';
import { database } from './db.ts';
import { ArtifactFileRecordSchema, ArtifactRefRecordSchema, checkStored } from './record-schemas.ts';

const STORE = 'artifacts';

/** Format of the records in the `artifacts` store. */
export const ARTIFACT_RECORD_VERSION = 1;

/** The IndexedDB cache in the `rag-lab` database (store `artifacts`, db.ts). */
export function indexedDbArtifactCache(): ArtifactFileCache {
  const cache: ArtifactFileCache = {
    lastNote: null,
    checksContent: true,
    async getFile(key) {
      const k = `file:${key}`;
      let stored: unknown;
      try {
        stored = await (await database()).get(STORE, k);
      } catch {
        return null;
      }
      if (stored === undefined) return null;
      const shape = checkStored(stored, ArtifactFileRecordSchema, ARTIFACT_RECORD_VERSION, 'The cached artifact file', (found) => `The cached artifact file is of format ${found}`);
      let reason = shape.ok ? null : shape.reason;
      if (shape.ok) {
        const rec = stored as { size: number; sha256: string; bytes: Uint8Array };
        if (rec.bytes.byteLength !== rec.size) reason = `The cached copy of ${key} has ${rec.bytes.byteLength} bytes instead of ${rec.size}`;
        else if ((contentHashOf(key) ?? rec.sha256) !== rec.sha256 || (await sha256Hex(rec.bytes)) !== rec.sha256) reason = `The cached copy of ${key} does not match its checksum`;
        else return rec.bytes;
      }
      cache.lastNote = `${reason}; it was dropped and will be downloaded again.`;
      await (await database()).delete(STORE, k).catch(() => {});
      return null;
    },
    async putFile(key, bytes) {
      const rec = { key: `file:${key}`, schemaVersion: ARTIFACT_RECORD_VERSION, size: bytes.byteLength, sha256: await sha256Of(bytes, { take: false }), bytes, savedAt: Date.now() };
      try {
        await (await database()).put(STORE, rec);
      } catch (e) {
        cache.lastNote = cacheWriteNote(e, key);
        throw e;
      }
    },
    async getRef(key) {
      try {
        const stored: unknown = await (await database()).get(STORE, `ref:${key}`);
        if (stored === undefined) return null;
        const shape = checkStored(stored, ArtifactRefRecordSchema, ARTIFACT_RECORD_VERSION, 'The cached revision', (found) => `The cached revision is of format ${found}`);
        return shape.ok ? (stored as { sha: string }).sha : null;
      } catch {
        return null;
      }
    },
    async putRef(key, sha) {
      try {
        await (await database()).put(STORE, { key: `ref:${key}`, schemaVersion: ARTIFACT_RECORD_VERSION, sha, savedAt: Date.now() });
      } catch (e) {
        cache.lastNote = cacheWriteNote(e, `the revision ${key}`);
      }
    },
  };
  return cache;
}
