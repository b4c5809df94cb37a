/// <reference lib="webworker" />
/**
 * Build worker: turns files, a Hub dataset or an arXiv query into a knowledge base saved in IndexedDB, exports and
 * publishes saved ones. A thin shell over src/lib/build/. CONTRACT STUB (issue 12): the build-core helper implements it.
 */
import * as Comlink from 'comlink';
import { inspectHubDataset } from '../src/lib/data/hub-dataset.ts';
import type { BuildWorkerApi } from './build-api.ts';

const notYet = async (): Promise<never> => { throw new Error('The build worker is not built yet.'); };

const api: BuildWorkerApi = {
  attachModels() {},
  build: notYet,
  inspectHubDataset: (req, access) => inspectHubDataset(req, { hubUrl: access.hubUrl, token: access.token }),
  exportZip: notYet,
  publish: notYet,
};

Comlink.expose(api);
