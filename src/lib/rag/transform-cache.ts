/**
 * IndexedDB cache of query transforms (rewrite, multi-query, HyDE) by (transform, n, provider, model, question):
 * a repeated question costs no LLM call. Failures to read or write only cost the cache, never the answer; a
 * record of the wrong shape is deleted and reported (the transform runs again and its note says why).
 */
import { transformCacheKey, type TransformCache } from './transforms.ts';
import { database } from '../store/db.ts';
import { checkRecord, TransformRecordSchema } from '../store/record-schemas.ts';

const STORE = 'transforms';

export const indexedDbTransformCache: TransformCache = {
  async get(key) {
    const k = transformCacheKey(key);
    try {
      const db = await database();
      const stored: unknown = await db.get(STORE, k);
      if (stored === undefined) return undefined;
      const shape = checkRecord(TransformRecordSchema, stored, 'The cached transform');
      if (shape.ok) {
        const { queries, passage } = (stored as { value: { queries: string[]; passage: string | null } }).value;
        return { queries, passage };
      }
      await db.delete(STORE, k).catch(() => {});
      return { dropped: `${shape.reason}; it was dropped and the transform ran again.` };
    } catch {
      return undefined;
    }
  },
  async set(key, value) {
    try {
      await (await database()).put(STORE, { key: transformCacheKey(key), value, savedAt: Date.now() });
    } catch {
      /* quota or a closed database: the transform is simply not cached */
    }
  },
};
