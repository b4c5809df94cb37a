/// <reference lib="webworker" />
/**
 * Models worker: exposes the models session (src/lib/models/model-session.ts: loading, embeddings, reranking, NLI,
 * the parity self-test) and the browser's model cache off the main thread. The search worker reaches it through a
 * MessagePort (`connect`), the page through the worker itself.
 */
import * as Comlink from 'comlink';
import { cachedDownloadPlan, cachedFiles, deleteCachedModel } from '../src/lib/models/browser-model-cache.ts';
import { resolveGeneratorSpec } from '../src/lib/llm/browser-spec.ts';
import { configureModels, modelsEnvironment } from '../src/lib/models/env.ts';
import { ModelSession } from '../src/lib/models/model-session.ts';
import { scoreRequest } from '../src/lib/eval/score/score-answer.ts';
import { isTrainedModelId } from '../src/lib/models/trained-ids.ts';
import { trainedDownloadPlan } from '../src/lib/models/trained-plan.ts';
import { IndexedDbTrainedModelStore } from '../src/lib/store/trained-models.ts';
import type { ModelsWorkerApi } from './models-api.ts';

/** Corpus-trained models (`corpus/…`), read by transformers.js through the custom cache configureModels sets. */
const trained = new IndexedDbTrainedModelStore();
const session = new ModelSession(trained);

const api: ModelsWorkerApi = {
  configure: (settings) => configureModels({ remoteHost: settings.remoteHost, wasmPaths: settings.wasmPaths, numThreads: settings.numThreads, allowRemote: true, useBrowserCache: true, trainedModels: trained }),
  onBroken: (callback) => { session.onBroken = callback; },
  load: (task, spec, onProgress, fallback = null) => session.load(task, spec, onProgress, fallback),
  needsRestart: () => session.needsRestart(),
  loaded: () => session.loaded(),
  async embed(texts, kind) {
    const v = await session.embed(texts, kind);
    return Comlink.transfer(v, [v.buffer as ArrayBuffer]);
  },
  rerank: (query, passages) => session.rerank(query, passages),
  nli: (premise, hypothesis) => session.nli(premise, hypothesis),
  cachedFiles,
  async downloadPlan(spec) {
    if (isTrainedModelId(spec.id)) return trainedDownloadPlan(spec, trained);
    return cachedDownloadPlan(modelsEnvironment().remoteHost, spec);
  },
  async generatorDownloadPlan(model) {
    const spec = await resolveGeneratorSpec(model);
    const plan = await cachedDownloadPlan(modelsEnvironment().remoteHost, spec);
    return { ...plan, device: spec.device, dtype: spec.dtype };
  },
  async deleteCachedModel(modelId) {
    if (typeof caches === 'undefined') return 0;
    const n = await deleteCachedModel(modelId);
    session.unload(modelId);
    return n;
  },
  parity: (task) => session.parity(task),
  score: (request, apiKey) => scoreRequest(request, session, apiKey),
  connect: (port) => Comlink.expose(api, port),
};

Comlink.expose(api);
