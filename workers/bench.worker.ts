/// <reference lib="webworker" />
/**
 * Benchmark worker: a thin shell over the Benchmark tab's sessions. RAGBench: the subsets from local files or the Hub
 * (src/lib/eval/ragbench-run/ragbench-subsets.ts, picked files remembered in IndexedDB) and the run (src/lib/eval/ragbench-run/ragbench-tab-session.ts,
 * over the same sessions as the CLI's): validate mode with results cached per row in IndexedDB (a reload or crash
 * resumes), pipeline mode with the Ask tab's pipeline; each run comes back with its report v1. The retrieval
 * benchmark on BEIR datasets: src/lib/eval/retrieval/retrieval-tab-session.ts. One run at a time (src/lib/eval/core/run-slot.ts).
 */
import * as Comlink from 'comlink';
import { benchEstimate, benchValidateHash, runBenchSession } from '../src/lib/eval/ragbench-run/ragbench-tab-session.ts';
import { BenchRetrievalSession } from '../src/lib/eval/retrieval/retrieval-tab-session.ts';
import { RagbenchSubsets } from '../src/lib/eval/ragbench-run/ragbench-subsets.ts';
import { indexedDbResultStore } from '../src/lib/eval/ragbench-run/result-cache.ts';
import { indexedDbRetrievalRowCache } from '../src/lib/eval/retrieval/retrieval-cache.ts';
import { RunSlot } from '../src/lib/eval/core/run-slot.ts';
import { attachDense } from '../src/lib/store/dense-loader.ts';
import { IndexedDbLocalKbStore } from '../src/lib/store/local-kb-store.ts';
import { IndexedDbTrainedModelStore } from '../src/lib/store/trained-models.ts';
import type { ModelService } from '../src/lib/eval/retrieval/retrieval-request.ts';
import { IndexedDbRagbenchFileStore } from '../src/lib/store/ragbench-file-store.ts';
import { artifacts } from './artifact-adapter.ts';
import type { BenchWorkerApi } from './bench-api.ts';
import type { ModelsWorkerApi } from './models-api.ts';

const subsets = new RagbenchSubsets(new IndexedDbRagbenchFileStore());
let localStore: IndexedDbLocalKbStore | null = null;
const retrieval = new BenchRetrievalSession({
  artifacts, localKbs: () => (localStore ??= new IndexedDbLocalKbStore()), cache: indexedDbRetrievalRowCache,
  runtime: { runtime: 'browser', agent: typeof navigator !== 'undefined' ? navigator.userAgent : 'unknown' }, trained: () => new IndexedDbTrainedModelStore().list(),
});
const slot = new RunSlot();
let models: Comlink.Remote<ModelsWorkerApi> | null = null;
/** The models worker as a retrieval run uses it: it may load the dataset's own corpus-trained embedder. */
const modelService = (m: Comlink.Remote<ModelsWorkerApi>): ModelService => ({
  loaded: () => m.loaded(), embed: (t, k) => m.embed(t, k), rerank: (q, p) => m.rerank(q, p), loadEmbedder: (spec) => m.load('embedder', spec, Comlink.proxy(() => {})),
});

const api: BenchWorkerApi = {
  runRetrieval: (config, token, onProgress) => slot.run(token, (signal) => retrieval.run(config, token, models && modelService(models), signal, onProgress)),
  retrievalTrainingTexts: (config, token, onProgress) => retrieval.trainingTexts(config, token, onProgress),
  loadBeirFiles: (files) => retrieval.loadFolder(files.map((x) => ({ path: x.path, read: () => x.file.text() }))),
  fusionCandidates: (queryId) => retrieval.fusionCandidates(queryId, models),
  attachModels(port) {
    models = Comlink.wrap<ModelsWorkerApi>(port);
  },

  run: (config, apiKey, onProgress) => slot.run(apiKey, (signal) => runBenchSession(config, {
    models, store: indexedDbResultStore, attachDense, loadSubset: (subset, signal, emit) => subsets.rowsOf(config, subset, signal, emit),
  }, apiKey, signal, onProgress)),

  estimate(config, onProgress) {
    return benchEstimate(config, (subset) => subsets.rowsOf(config, subset, new AbortController().signal, (p) => onProgress({ ...p, subsets: [] })));
  },

  loadFiles: (files) => subsets.addFiles(files.map((f) => ({ name: f.name, read: async () => new Uint8Array(await f.arrayBuffer()) }))),
  restoreFiles: () => subsets.restore(),
  cancel: () => slot.cancel(),

  async clearCache(config) {
    await indexedDbResultStore.clear(await benchValidateHash(config));
  },
};

Comlink.expose(api);
