/**
 * The search contract shared by the Search tab's worker and `rag-lab search`: the request a query is sent with, the
 * response it gets (each hit with its document's title, text and highlights) and every mode's availability.
 */
import type { MetaFilter } from './filter.ts';
import type { Availability, RetrievalMode } from './modes.ts';
import type { SearchHit, SearchOptions, SearchTelemetry } from './search-types.ts';

/**
 * A query and its search options (search-types.ts; the settings a form or a link sets are declared in
 * src/lib/settings/search.ts). bm25K, denseK and fusionTopK absent or null: candidateK; rejectThreshold null: the
 * mode's default threshold.
 */
export type SearchRequest = { query: string; filters: MetaFilter[] }
  & Pick<SearchOptions, 'mode' | 'topK' | 'candidateK' | 'calibration' | 'rejectThreshold'>
  & Partial<Omit<SearchOptions, 'filters' | 'denseQuery'>>;

/** What the α simulator re-fuses in the Search tab: the query, how many candidates each retriever gives, the search's filters. */
export type FusionRequest = Pick<SearchRequest, 'query' | 'candidateK'> & Partial<Pick<SearchRequest, 'calibration' | 'bm25K' | 'denseK' | 'filters'>>;

export interface HitView extends SearchHit {
  title: string;
  meta: Record<string, string | number>;
  text: string;
  highlights: Array<[number, number]>;
}

export type SearchResponse =
  | { status: 'ok'; hits: HitView[]; telemetry: SearchTelemetry }
  | { status: 'rejected'; reason: string; hits: HitView[]; telemetry: SearchTelemetry }
  | { status: 'empty' | 'unavailable' | 'error'; reason: string; hits: []; telemetry: SearchTelemetry | null }
  /** A newer search started before this one finished; the page shows the newer one. */
  | { status: 'superseded'; reason: string; hits: []; telemetry: null };

export type ModeAvailability = Record<RetrievalMode, Availability>;
