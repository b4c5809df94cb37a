/** The typed surface of workers/search.worker.ts (the search session of src/lib/rag/kb-session.ts), shared with the UI. */
import type { ModelSettings } from './models-api.ts';
import type { KbSession } from '../src/lib/rag/kb-session.ts';
import type { TuneTabApi } from '../src/lib/tune/tune-tab-session.ts';

export type { DenseInfo, HubRepoRequest, IndexChoice, KbInfo, KbOpenRequest, LoadProgress, LoadStage } from '../src/lib/rag/kb-contract.ts';
export type { FusionRequest, HitView, ModeAvailability, SearchRequest, SearchResponse } from '../src/lib/retrieval/search-request.ts';
export type { KbSourceRef } from '../src/lib/data/kb-source.ts';

export type SearchWorkerApi = Pick<KbSession, 'enableDense' | 'modes' | 'trainingTexts' | 'open' | 'listHubIndexes' | 'search' | 'fusionCandidates' | 'ask' | 'cancelAsk'> & TuneTabApi & {
  /** Model host and wasm paths for models that run in this worker (the in-browser LLM). */
  configureModels(settings: ModelSettings): void;
  /** Gives this worker a direct line to the models worker. */
  attachModels(port: MessagePort): void;
};
