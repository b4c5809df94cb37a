/// <reference lib="webworker" />
/**
 * Search worker: the search session (rag/kb-session.ts: the knowledge base, its dense side, searches, RAG answers) and
 * the Tune panel's (tune/tune-tab-session.ts) off the main thread, reading artifacts through the IndexedDB file cache.
 */
import * as Comlink from 'comlink';
import { configureModels } from '../src/lib/models/env.ts';
import { KbSession } from '../src/lib/rag/kb-session.ts';
import { IndexedDbLocalKbStore } from '../src/lib/store/local-kb-store.ts';
import { IndexedDbRagbenchFileStore } from '../src/lib/store/ragbench-file-store.ts';
import { indexedDbTransformCache } from '../src/lib/rag/transform-cache.ts';
import { browserTuneTab } from '../src/lib/tune/tune-tab-session.ts';
import { IndexedDbTrainedModelStore } from '../src/lib/store/trained-models.ts';
import { artifacts } from './artifact-adapter.ts';
import type { ModelsWorkerApi } from './models-api.ts';
import type { SearchWorkerApi } from './search-api.ts';

let localStore: IndexedDbLocalKbStore | null = null, ragbenchFiles: IndexedDbRagbenchFileStore | null = null;
const session = new KbSession({ artifacts, localKbs: () => (localStore ??= new IndexedDbLocalKbStore()), transformCache: indexedDbTransformCache, ragbench: { files: () => (ragbenchFiles ??= new IndexedDbRagbenchFileStore()) } });
const api: SearchWorkerApi = {
  ...browserTuneTab((loaded) => session.searchContext(loaded)),
  open: (request, onProgress) => session.open(request, onProgress),
  listHubIndexes: (request) => session.listHubIndexes(request),
  configureModels(settings) {
    // The in-browser LLM and a tune's other embedders run here: the models worker's host, wasm paths and trained models.
    configureModels({ remoteHost: settings.remoteHost, wasmPaths: settings.wasmPaths, numThreads: settings.numThreads, allowRemote: true, useBrowserCache: true, trainedModels: new IndexedDbTrainedModelStore() });
  },
  attachModels(port) {
    session.attachModels(Comlink.wrap<ModelsWorkerApi>(port));
  },
  enableDense: (onProgress, vectors = null) => session.enableDense(onProgress, vectors),
  modes: (loaded) => session.modes(loaded),
  trainingTexts: () => session.trainingTexts(),
  ask: (question, config, apiKey, loaded, onEvent) => session.ask(question, config, apiKey, loaded, onEvent),
  cancelAsk: () => session.cancelAsk(),
  fusionCandidates: (request, loaded) => session.fusionCandidates(request, loaded),
  search: (request, loaded, onFirst) => session.search(request, loaded, onFirst),
};

Comlink.expose(api);
