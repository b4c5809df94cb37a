/** One search request on a knowledge base, as the Search tab's session and `rag-lab search` run it. */
import type { KnowledgeBase } from './knowledge-base.ts';
import type { SearchRequest } from './search-request.ts';
import { searchSteps, type SearchModels, type SearchOutcome } from './search.ts';

/**
 * The request's final outcome; with `onFirst`, rerank modes hand over the fused results first (`telemetry.pending`
 * names the stages still running). null: `signal` was aborted before the search ran.
 */
export async function runSearch(kb: KnowledgeBase, request: SearchRequest, models: SearchModels, opts: { signal?: AbortSignal; onFirst?: (first: SearchOutcome) => unknown } = {}): Promise<SearchOutcome | null> {
  const steps = await searchSteps(kb, request.query, request, models);
  if (opts.signal?.aborted) return null;
  if (!opts.onFirst || !steps.first.telemetry?.pending.length) return steps.final(opts.signal);
  // The page gets the fused results while the cross-encoder runs; waiting for its acknowledgement before
  // answering keeps the two in order (they travel on different ports).
  const shown = Promise.resolve(opts.onFirst(steps.first)).catch(() => undefined);
  const final = await steps.final(opts.signal);
  await shown;
  return final;
}
