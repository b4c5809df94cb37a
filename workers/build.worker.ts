/// <reference lib="webworker" />
/**
 * Build worker: turns files, a Hub dataset or an arXiv query into a knowledge base saved in IndexedDB, exports and
 * publishes saved ones, trains corpus embedders (`trainKbEmbedder`). A thin shell over src/lib/kb-build/ (`runBuild`); the
 * page cancels a build or a training run by terminating it.
 */
import * as Comlink from 'comlink';
import { embedderFromModels, runBuild } from '../src/lib/kb-build/run-build.ts';
import { exportLocalKb, publishSavedKb } from '../src/lib/kb-build/saved-kb.ts';
import { indexedDbTestSetStore } from '../src/lib/store/test-set-store.ts';
import { inspectHubDataset } from '../src/lib/data/hub-dataset.ts';
import { trainKbEmbedder } from '../src/lib/kb-build/train-embedder.ts';
import { IndexedDbLocalKbStore } from '../src/lib/store/local-kb-store.ts';
import { IndexedDbTrainedModelStore } from '../src/lib/store/trained-models.ts';
import type { BuildWorkerApi } from './build-api.ts';
import type { ModelsWorkerApi } from './models-api.ts';

const store = new IndexedDbLocalKbStore();
let models: Comlink.Remote<ModelsWorkerApi> | null = null;

const api: BuildWorkerApi = {
  attachModels(port) {
    models = Comlink.wrap<ModelsWorkerApi>(port);
  },

  build(request, onProgress) {
    return runBuild(request, { store, embedder: () => embedderFromModels(models), onProgress });
  },

  inspectHubDataset(req, access) {
    return inspectHubDataset(req, { hubUrl: access.hubUrl, token: access.token });
  },

  async exportZip(name) {
    const zip = await exportLocalKb(store, name);
    return Comlink.transfer(zip, [zip.buffer]);
  },

  publish(request, onProgress) {
    return publishSavedKb(store, request, { onProgress, testSets: indexedDbTestSetStore });
  },

  trainEmbedder(request, onProgress) {
    return trainKbEmbedder(request, { store: new IndexedDbTrainedModelStore(), localKbs: store, onProgress });
  },
};

Comlink.expose(api);
