/** The typed surface of workers/search.worker.ts, shared by the worker and the UI. */
import type { OpenStage } from '../src/lib/store/kb-loader.ts';
import type { Calibration } from '../src/lib/retrieval/calibrate.ts';
import type { MetaFilter } from '../src/lib/retrieval/filter.ts';
import type { RetrievalMode, Availability } from '../src/lib/retrieval/modes.ts';
import type { SearchHit, SearchTelemetry } from '../src/lib/retrieval/search.ts';

export type LoadStage = 'download' | OpenStage;

export interface LoadProgress {
  stage: LoadStage;
  done: number;
  total: number;
}

export interface KbInfo {
  corpusId: string;
  documents: number;
  items: number;
  source: 'cache' | 'built';
  cacheNote: string | null;
  buildMs: number;
  facets: { yearMin: number; yearMax: number; parties: string[] };
  modes: Record<RetrievalMode, Availability>;
}

export interface SearchRequest {
  query: string;
  mode: RetrievalMode;
  topK: number;
  candidateK: number;
  calibration: Calibration;
  rejectThreshold: number;
  filters: MetaFilter[];
}

export interface HitView extends SearchHit {
  title: string;
  meta: Record<string, string | number>;
  text: string;
  highlights: Array<[number, number]>;
}

export type SearchResponse =
  | { status: 'ok'; hits: HitView[]; telemetry: SearchTelemetry }
  | { status: 'rejected'; reason: string; hits: HitView[]; telemetry: SearchTelemetry }
  | { status: 'empty' | 'unavailable' | 'error'; reason: string; hits: []; telemetry: SearchTelemetry | null };

export interface SearchWorkerApi {
  /** Downloads (or reads from the HTTP cache) the corpus file, then opens its index. */
  openEmbedded(corpusUrl: string, onProgress: (p: LoadProgress) => void): Promise<KbInfo>;
  search(request: SearchRequest): Promise<SearchResponse>;
}
