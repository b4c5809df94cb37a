/// <reference lib="webworker" />
/**
 * Models worker: loads each model once per session, runs embeddings, reranking and NLI off the main thread,
 * manages the browser's model cache and runs the parity self-test. The search worker reaches it through a
 * MessagePort (`connect`), the page through the worker itself.
 */
import * as Comlink from 'comlink';
import { loadCrossEncoder } from '../src/lib/models/cross-encoder.ts';
import { loadEmbedder } from '../src/lib/models/embedder.ts';
import { runtimeReason } from '../src/lib/models/device-fallback.ts';
import { planModelDownload } from '../src/lib/models/download-size.ts';
import { resolveGeneratorSpec } from '../src/lib/llm/browser-spec.ts';
import { configureModels, modelsEnvironment, runtimeThreads } from '../src/lib/models/env.ts';
import { ModelLoadError } from '../src/lib/models/errors.ts';
import { loadNli } from '../src/lib/models/nli.ts';
import { isTrainedModelId } from '../src/lib/models/trained-ids.ts';
import { checkTrainedSpec, trainedDownloadPlan } from '../src/lib/store/trained-plan.ts';
import { IndexedDbTrainedModelStore } from '../src/lib/store/trained-models.ts';
import type { FileProgress, ModelSpec, ModelTask, NliClassifier, NliProbabilities, PairScorer, TextEmbedder } from '../src/lib/models/types.ts';
import type { CachedFile, LoadedModel, ModelsWorkerApi, ParityReport } from './models-api.ts';

const CACHE_NAME = 'transformers-cache';
const PARITY_TEXTS = [
  'The State of the Union address is delivered to Congress every year.',
  'Emancipation of slaves was proclaimed during the Civil War.',
  'Tariffs on imported goods were debated for decades.',
  'a',
];

/** What a cached file belongs to: a model in Hub layout, or the app's ONNX Runtime files (cached by transformers.js). */
const RUNTIME_FILES = 'ONNX Runtime Web (app files)';
function cacheEntry(url: string): { model: string; file: string } {
  const path = new URL(url).pathname;
  const m = /\/([^/]+\/[^/]+)\/resolve\/[^/]+\/(.+)$/.exec(path);
  if (m) return { model: m[1]!, file: m[2]! };
  return { model: RUNTIME_FILES, file: path.slice(path.lastIndexOf('/') + 1) };
}

/** Corpus-trained models (`corpus/…`), read by transformers.js through the custom cache configureModels sets. */
const trained = new IndexedDbTrainedModelStore();

type Model = TextEmbedder | PairScorer | NliClassifier;
type Loaded = { info: LoadedModel; model: Model };
const models = new Map<ModelTask, Loaded>();
const pending = new Map<string, Promise<Loaded>>();
/**
 * transformers.js chains every model start on one promise: after certain failures (a corrupt file, a backend
 * that failed to start) every later load in this worker fails too. Then the page restarts the worker.
 */
let broken: string | null = null;

/** Told when this worker can no longer run models (the page replaces it: ModelsState.recover). */
let onBroken: ((reason: string) => void) | null = null;

/**
 * Runs `call` on the task's model. transformers.js chains every inference in a browser on one promise, so after one
 * failed run (WebGPU device lost, out of memory…) every later run here fails with the same error: the worker marks
 * itself broken and tells the page, which starts a fresh one (WebGPU models then on WASM, device-fallback.ts).
 */
async function run<T extends Model, R>(task: ModelTask, call: (model: T) => Promise<R>): Promise<R> {
  const slot = models.get(task);
  if (!slot) throw new Error(`No ${task} model is loaded.`);
  if (broken) throw new Error(`The model runtime is restarting after a failure: ${broken}`);
  try {
    return await call(slot.model as T);
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    if (!broken) {
      broken = `${slot.info.spec.id} (${slot.info.spec.device}) failed: ${message}`;
      onBroken?.(message);
    }
    throw new Error(`Model "${slot.info.spec.id}" failed on ${slot.info.spec.device}: ${runtimeReason(message)} The model runtime restarts.`);
  }
}

async function loadModel(task: ModelTask, spec: ModelSpec, onProgress?: (p: FileProgress) => void): Promise<Loaded> {
  const t0 = performance.now();
  const opts = onProgress ? { onProgress } : {};
  if (isTrainedModelId(spec.id)) await checkTrainedSpec(spec, trained);
  const model = task === 'embedder' ? await loadEmbedder(spec, opts) : task === 'cross-encoder' ? await loadCrossEncoder(spec, opts) : await loadNli(spec, opts);
  const dim = task === 'embedder' ? (model as TextEmbedder).dim : null;
  return { info: { task, spec, dim, loadMs: performance.now() - t0, fallback: null, threads: runtimeThreads() }, model };
}

const api: ModelsWorkerApi = {
  configure(settings) {
    configureModels({ remoteHost: settings.remoteHost, wasmPaths: settings.wasmPaths, numThreads: settings.numThreads, allowRemote: true, useBrowserCache: true, trainedModels: trained });
  },

  onBroken(callback) {
    onBroken = callback;
  },

  async load(task, spec, onProgress, fallback = null) {
    if (broken) throw new Error(`The model runtime must restart after an earlier failure: ${broken}`);
    const current = models.get(task);
    if (current && JSON.stringify(current.info.spec) === JSON.stringify(spec)) return current.info;
    const key = `${task}|${JSON.stringify(spec)}`;
    let p = pending.get(key);
    if (!p) {
      // Without a WebGPU adapter, modelLoad refuses before ONNX Runtime starts; the page then loads on WASM.
      p = (async () => {
        const loaded = await loadModel(task, spec, onProgress);
        loaded.info.fallback = fallback;
        return loaded;
      })();
      pending.set(key, p);
    }
    try {
      const loaded = await p;
      await current?.model.dispose?.();
      models.set(task, loaded);
      return loaded.info;
    } catch (e) {
      if (e instanceof ModelLoadError && e.restartRequired) broken = e.message;
      throw e;
    } finally {
      pending.delete(key);
    }
  },

  needsRestart() {
    return broken !== null;
  },

  loaded() {
    return [...models.values()].map((m) => m.info);
  },

  async embed(texts, kind) {
    const v = await run<TextEmbedder, Float32Array>('embedder', (m) => m.embed(texts, kind));
    return Comlink.transfer(v, [v.buffer as ArrayBuffer]);
  },

  rerank(query, passages) {
    return run<PairScorer, number[]>('cross-encoder', (m) => m.score(query, passages));
  },

  nli(premise, hypothesis) {
    return run<NliClassifier, NliProbabilities>('nli', (m) => m.predict(premise, hypothesis));
  },

  async cachedFiles() {
    if (typeof caches === 'undefined') return [];
    const cache = await caches.open(CACHE_NAME);
    const out: CachedFile[] = [];
    for (const req of await cache.keys()) {
      const res = await cache.match(req);
      const bytes = Number(res?.headers.get('content-length') ?? 0) || (res ? (await res.clone().blob()).size : 0);
      out.push({ ...cacheEntry(req.url), bytes });
    }
    return out;
  },

  async downloadPlan(spec) {
    if (isTrainedModelId(spec.id)) return trainedDownloadPlan(spec, trained);
    const cache = typeof caches === 'undefined' ? null : await caches.open(CACHE_NAME);
    return planModelDownload(modelsEnvironment().remoteHost, spec, {
      isCached: async (url) => (cache ? (await cache.match(url)) !== undefined : false),
    });
  },

  async generatorDownloadPlan(model) {
    const spec = await resolveGeneratorSpec(model);
    const cache = typeof caches === 'undefined' ? null : await caches.open(CACHE_NAME);
    const plan = await planModelDownload(modelsEnvironment().remoteHost, spec, {
      isCached: async (url) => (cache ? (await cache.match(url)) !== undefined : false),
    });
    return { ...plan, device: spec.device, dtype: spec.dtype };
  },

  async deleteCachedModel(modelId) {
    if (typeof caches === 'undefined') return 0;
    const cache = await caches.open(CACHE_NAME);
    let n = 0;
    for (const req of await cache.keys()) {
      if (cacheEntry(req.url).model === modelId) n += (await cache.delete(req)) ? 1 : 0;
    }
    for (const [task, m] of models) if (m.info.spec.id === modelId) models.delete(task);
    return n;
  },

  async parity(task) {
    const current = models.get(task);
    if (!current) throw new Error(`Load a ${task} model before running the parity test.`);
    const spec = current.info.spec;
    const refSpec: ModelSpec = { id: spec.id, dtype: 'fp32', device: 'wasm' };
    const ref = (await loadModel(task, refSpec)).model;
    const cur = current.model;
    let maxAbsDiff = 0;
    let minCosine: number | null = null;
    const diff = (a: ArrayLike<number>, b: ArrayLike<number>) => {
      for (let i = 0; i < a.length; i++) maxAbsDiff = Math.max(maxAbsDiff, Math.abs(a[i]! - b[i]!));
    };
    if (task === 'embedder') {
      const [a, b] = [await (cur as TextEmbedder).embed(PARITY_TEXTS, 'passage'), await (ref as TextEmbedder).embed(PARITY_TEXTS, 'passage')];
      diff(a, b);
      const dim = a.length / PARITY_TEXTS.length;
      minCosine = 1;
      for (let r = 0; r < PARITY_TEXTS.length; r++) {
        let dot = 0, na = 0, nb = 0;
        for (let j = r * dim; j < (r + 1) * dim; j++) { dot += a[j]! * b[j]!; na += a[j]! ** 2; nb += b[j]! ** 2; }
        minCosine = Math.min(minCosine, dot / Math.sqrt(na * nb || 1));
      }
    } else if (task === 'cross-encoder') {
      const q = 'what did the president say about tariffs';
      diff(await (cur as PairScorer).score(q, PARITY_TEXTS), await (ref as PairScorer).score(q, PARITY_TEXTS));
    } else {
      for (const h of PARITY_TEXTS.slice(1, 3)) {
        const [a, b] = [await (cur as NliClassifier).predict(PARITY_TEXTS[0]!, h), await (ref as NliClassifier).predict(PARITY_TEXTS[0]!, h)];
        diff([a.entailment, a.neutral, a.contradiction], [b.entailment, b.neutral, b.contradiction]);
      }
    }
    await ref.dispose?.();
    const report: ParityReport = { task, spec, reference: { dtype: 'fp32', device: 'wasm' }, maxAbsDiff, minCosine, inputs: PARITY_TEXTS.length };
    return report;
  },

  connect(port) {
    Comlink.expose(api, port);
  },
};

Comlink.expose(api);
