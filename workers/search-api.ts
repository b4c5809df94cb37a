/** The typed surface of workers/search.worker.ts, shared by the worker and the UI. */
import type { OpenStage } from '../src/lib/store/kb-loader.ts';
import type { DenseSetup, DenseStage } from '../src/lib/store/dense-loader.ts';
import type { ModelSpec } from '../src/lib/models/types.ts';
import type { ModelSettings } from './models-api.ts';
import type { RagAnswer } from '../src/lib/rag/answer.ts';
import type { RagConfig } from '../src/lib/rag/config.ts';
import type { RagEvent } from '../src/lib/rag/trace.ts';
import type { Calibration } from '../src/lib/retrieval/calibrate.ts';
import type { MetaFilter } from '../src/lib/retrieval/filter.ts';
import type { RetrievalMode, Availability } from '../src/lib/retrieval/modes.ts';
import type { SearchHit, SearchTelemetry } from '../src/lib/retrieval/search.ts';

export type LoadStage = 'download' | OpenStage;

export interface LoadProgress {
  stage: LoadStage | DenseStage;
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
  /** null = the mode's default threshold. */
  rejectThreshold: number | null;
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
  | { status: 'empty' | 'unavailable' | 'error'; reason: string; hits: []; telemetry: SearchTelemetry | null }
  /** A newer search started before this one finished; the page shows the newer one. */
  | { status: 'superseded'; reason: string; hits: []; telemetry: null };

export type ModeAvailability = Record<RetrievalMode, Availability>;

export interface DenseInfo extends DenseSetup {
  model: ModelSpec;
}

export interface SearchWorkerApi {
  /** Model host and wasm paths for models that run in this worker (the in-browser LLM). */
  configureModels(settings: ModelSettings): void;
  /** Gives this worker a direct line to the models worker. */
  attachModels(port: MessagePort): void;
  /** Embeds every chunk with the loaded embedding model (or reads the cached vectors) and enables dense modes. */
  enableDense(onProgress: (p: LoadProgress) => void): Promise<DenseInfo>;
  /** Uses the loaded cross-encoder for the rerank modes. */
  enableReranker(): Promise<ModeAvailability>;
  modes(): ModeAvailability;
  /** Downloads (or reads from the HTTP cache) the corpus file, then opens its index. */
  openEmbedded(corpusUrl: string, onProgress: (p: LoadProgress) => void): Promise<KbInfo>;
  /**
   * Runs a query and answers with its final result. In rerank modes `onFirst` gets the fused results first
   * (`telemetry.pending` names the stages still running); a newer search supersedes this one.
   */
  search(request: SearchRequest, onFirst?: (first: SearchResponse) => void): Promise<SearchResponse>;
  /**
   * Answers a question with the RAG pipeline; the answer streams through `onEvent`. `apiKey` is used for this call
   * only and never stored, logged or returned.
   */
  ask(question: string, config: RagConfig, apiKey: string | null, onEvent: (e: RagEvent) => void): Promise<RagAnswer>;
  /** Stops the running `ask` (the partial answer is kept). */
  cancelAsk(): void;
}
