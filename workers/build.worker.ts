/// <reference lib="webworker" />
/**
 * Build worker: turns files, a Hub dataset or an arXiv query into a knowledge base saved in IndexedDB, exports and
 * publishes saved ones. A thin shell over src/lib/build/ (`runBuild`); the page cancels a build by terminating it.
 */
import * as Comlink from 'comlink';
import { artifactZip } from '../src/lib/artifact/zip.ts';
import { publishLocalKb } from '../src/lib/build/publish.ts';
import { embedderFromModels, runBuild } from '../src/lib/build/run-build.ts';
import { inspectHubDataset } from '../src/lib/data/hub-dataset.ts';
import { checkLocalKbFiles, IndexedDbLocalKbStore, missingMessage, type LocalKbRecord } from '../src/lib/store/local-kb-store.ts';
import type { BuildWorkerApi } from './build-api.ts';
import type { ModelsWorkerApi } from './models-api.ts';

const store = new IndexedDbLocalKbStore();
let models: Comlink.Remote<ModelsWorkerApi> | null = null;

/** A saved knowledge base whose files all match meta.json (before they leave the browser). */
async function savedRecord(name: string): Promise<LocalKbRecord> {
  const record = await store.get(name);
  if (!record) throw new Error(missingMessage(name));
  await checkLocalKbFiles(record);
  return record;
}

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
    const record = await savedRecord(name);
    const zip = artifactZip(name, record.entry, record.files);
    return Comlink.transfer(zip, [zip.buffer]);
  },

  async publish(request, onProgress) {
    const record = await savedRecord(request.name);
    return publishLocalKb({
      repo: request.repo, hubUrl: request.access.hubUrl, token: request.access.token, name: request.name,
      files: record.files, entry: record.entry, onProgress,
    });
  },
};

Comlink.expose(api);
