/**
 * IndexedDB cache of query transforms (rewrite, multi-query, HyDE) by (transform, n, provider, model, question):
 * a repeated question costs no LLM call. Failures to read or write only cost the cache, never the answer.
 */
import { transformCacheKey, type CachedTransform, type TransformCache } from '../rag/transforms.ts';
import { database } from './db.ts';

const STORE = 'transforms';

export const indexedDbTransformCache: TransformCache = {
  async get(key) {
    try {
      const rec = (await (await database()).get(STORE, transformCacheKey(key))) as { value: CachedTransform } | undefined;
      return rec?.value;
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
