/**
 * Cross-encoder scores already computed, per (model, query, chunk): re-running a query, paging top_k or changing
 * filters re-scores only the pairs not seen before. In memory only (an LRU of `capacity` pairs); the owner clears it
 * when the knowledge base changes, since chunk ids are only unique within one knowledge base.
 */
import { LruMap } from '../util/lru.ts';

/** Which model produced a score: scores of another model, dtype or device are never reused. */
export interface RerankModelKey {
  id: string;
  dtype: string;
  device: string;
}

export const DEFAULT_RERANK_CACHE_PAIRS = 4096;

export class RerankCache {
  private readonly scores: LruMap<string, number>;

  constructor(capacity = DEFAULT_RERANK_CACHE_PAIRS) {
    this.scores = new LruMap(capacity);
  }

  get size(): number {
    return this.scores.size;
  }

  get(model: RerankModelKey, query: string, chunkId: string): number | undefined {
    return this.scores.get(key(model, query, chunkId));
  }

  set(model: RerankModelKey, query: string, chunkId: string, score: number): void {
    this.scores.set(key(model, query, chunkId), score);
  }

  clear(): void {
    this.scores.clear();
  }
}

// JSON of the parts, so no choice of separator can make two different tuples collide.
const key = (m: RerankModelKey, query: string, chunkId: string) => JSON.stringify([m.id, m.dtype, m.device, query, chunkId]);
