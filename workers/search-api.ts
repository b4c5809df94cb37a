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
import type { Facet, KbDescriptor, KbSourceRef } from '../src/lib/data/kb-source.ts';
import type { DenseOwner } from '../src/lib/models/readiness.ts';
import type { FusionCandidates } from '../src/lib/eval/alpha-sim.ts';
import type { LoadedModel } from './models-api.ts';

/** `download-file`: one file of an index artifact (named in `file`), bytes done / total. */
export type LoadStage = 'download' | 'download-file' | 'artifact-open' | OpenStage;

export interface LoadProgress {
  stage: LoadStage | DenseStage;
  done: number;
  total: number;
  /** The artifact file being downloaded (stage 'download-file'). */
  file?: string;
}

/** What `open` is given: where the knowledge base comes from, plus what only the page knows. */
export type KbOpenRequest =
  | { kind: 'embedded'; id: string; baseUrl: string }
  | {
    kind: 'hub'; repo: string; revision: string; path: string;
    /** The Hub the user configured in Settings (never one from a link). */
    hubUrl: string;
    /** The user's hf_ token, sent only to `hubUrl` when it is https://huggingface.co or typed in Settings. */
    token: string | null;
  }
  /** A knowledge base built in this browser (Build tab): its artifact files from IndexedDB. */
  | { kind: 'local'; name: string };

/** An index listed in a Hub repo's index_config.json. */
export interface IndexChoice {
  id: string;
  title: string;
  description: string;
  path: string;
  documents: number | null;
  chunks: number | null;
  embedder: string | null;
}

export interface KbInfo {
  /** The knowledge base's id (`sotu`, `hub:owner/name/path@revision`), part of every config hash. */
  corpusId: string;
  descriptor: KbDescriptor;
  /** Facets computed from the documents for the descriptor's fields (`facetsOf`). */
  facets: Facet[];
  documents: number;
  items: number;
  /** `artifact`: read from an index artifact (no indexing in the tab). */
  source: 'cache' | 'built' | 'artifact';
  cacheNote: string | null;
  buildMs: number;
  /** The commit sha an artifact was read at, when the source knows it (pins the config hash). */
  revisionSha: string | null;
  /** The model that made the knowledge base's vectors (null: no dense index yet). */
  dense: DenseOwner | null;
  /** Vectors the artifact ships, attached when dense search is enabled with this embedder (id, dim). */
  artifactEmbedder: { id: string; dim: number } | null;
  /** Things the user should know about this knowledge base (ignored files, BM25 rebuilt…). */
  notes: string[];
}

export type { KbSourceRef };

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

/** What the α simulator re-fuses in the Search tab: the query and how many candidates each retriever gives. */
export type FusionRequest = Pick<SearchRequest, 'query' | 'candidateK'> & Partial<Pick<SearchRequest, 'calibration'>>;

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
  /** Who owns the vectors now (what mode availability is derived from). */
  owner: DenseOwner;
}

export interface SearchWorkerApi {
  /** Model host and wasm paths for models that run in this worker (the in-browser LLM). */
  configureModels(settings: ModelSettings): void;
  /** Gives this worker a direct line to the models worker. */
  attachModels(port: MessagePort): void;
  /**
   * The models worker's loaded list, mirrored from the page (ModelsState) whenever it changes: mode availability is
   * derived from it and the knowledge base each time it is asked.
   */
  setLoadedModels(loaded: LoadedModel[]): void;
  /**
   * Gives the knowledge base its dense side with the loaded embedding model: the artifact's vectors when it ships
   * them for this model (for the embedded corpus: those of the `vectors` Hub repo set in Settings, when its chunks
   * are the same), else embeds every chunk (or reads the cached vectors).
   */
  enableDense(onProgress: (p: LoadProgress) => void, vectors?: Omit<Extract<KbOpenRequest, { kind: 'hub' }>, 'path'> | null): Promise<DenseInfo>;
  modes(): ModeAvailability;
  /** The open knowledge base's chunk texts as a corpus embedder trains on them (`kbTrainingTexts`). */
  trainingTexts(): string[];
  /**
   * Opens a knowledge base: the embedded one (its shipped BM25 artifact when the build has one, else the corpus file
   * indexed here) or an index artifact of a Hub dataset repo (per-file progress). Until it resolves, the knowledge
   * base opened before stays open; on failure it still is.
   */
  open(request: KbOpenRequest, onProgress: (p: LoadProgress) => void): Promise<KbInfo>;
  /** The indexes a Hub dataset repo lists in its index_config.json. */
  listHubIndexes(request: Omit<Extract<KbOpenRequest, { kind: 'hub' }>, 'path'>): Promise<IndexChoice[]>;
  /**
   * Runs a query and answers with its final result. In rerank modes `onFirst` gets the fused results first
   * (`telemetry.pending` names the stages still running); a newer search supersedes this one.
   */
  search(request: SearchRequest, onFirst?: (first: SearchResponse) => void): Promise<SearchResponse>;
  /**
   * The α simulator's candidates of a query on the open knowledge base (`fusionCandidates` of
   * src/lib/eval/alpha-sim.ts: both retrievers' top candidateK, no qrels, so no gold marks; filters not applied).
   * Needs the dense side and the loaded embedder; fails with the reason otherwise.
   */
  fusionCandidates(request: FusionRequest): Promise<FusionCandidates>;
  /**
   * Answers a question with the RAG pipeline; the answer streams through `onEvent`. `apiKey` is used for this call
   * only and never stored, logged or returned.
   */
  ask(question: string, config: RagConfig, apiKey: string | null, onEvent: (e: RagEvent) => void): Promise<RagAnswer>;
  /** Stops the running `ask` (the partial answer is kept). */
  cancelAsk(): void;
}
