/// <reference lib="webworker" />
/**
 * Search worker: downloads and indexes the knowledge base, answers queries. Nothing here runs on the main thread.
 */
import * as Comlink from 'comlink';
import { sotuDocuments } from '../src/lib/data/sotu.ts';
import { MODE_IDS, modeAvailability } from '../src/lib/retrieval/modes.ts';
import { highlightSpans } from '../src/lib/retrieval/highlight.ts';
import type { KnowledgeBase } from '../src/lib/retrieval/knowledge-base.ts';
import { capabilitiesOf, searchSteps, type SearchOutcome } from '../src/lib/retrieval/search.ts';
import { RerankCache } from '../src/lib/retrieval/rerank-cache.ts';
import { LruMap } from '../src/lib/lru.ts';
import { sha256Hex } from '../src/lib/store/checksum.ts';
import { openKnowledgeBase } from '../src/lib/store/kb-loader.ts';
import type { TextEmbedder } from '../src/lib/models/types.ts';
import { attachDense } from '../src/lib/store/dense-loader.ts';
import type { LoadedModel, ModelsWorkerApi } from './models-api.ts';
import { createProvider } from '../src/lib/llm/registry.ts';
import { configureModels } from '../src/lib/models/env.ts';
import { redactSecrets } from '../src/lib/llm/redact.ts';
import { answerQuestion, type RagAnswer } from '../src/lib/rag/answer.ts';
import { batchDeltas } from '../src/lib/rag/delta-batch.ts';
import { indexedDbTransformCache } from '../src/lib/store/transform-cache.ts';
import type { HitView, KbInfo, LoadProgress, ModeAvailability, SearchRequest, SearchResponse, SearchWorkerApi } from './search-api.ts';

let kb: KnowledgeBase | null = null;
let kbKey = '';
let models: Comlink.Remote<ModelsWorkerApi> | null = null;
let denseReady = false;
let askAbort: AbortController | null = null;
let rerankerReady = false;
/**
 * The models behind the dense and rerank stages, as the models worker reported them when they were enabled. A model
 * only changes (e.g. WebGPU lost → WASM) in a fresh models worker, which re-enables the modes, so these stay current.
 */
let stageModels: { embed: LoadedModel | null; rerank: LoadedModel | null } = { embed: null, rerank: null };
const NEED_EMBEDDER = 'Dense search needs an embedding model: load one under Settings → Models.';
const NEED_RERANKER = 'Reranking needs a cross-encoder: load one under Settings → Models.';

/** Query embeddings of this session (LRU, 256 queries). */
const queryVectors = new LruMap<string, Float32Array>(256);
async function embedQuery(query: string): Promise<Float32Array> {
  const hit = queryVectors.get(query);
  if (hit) return hit;
  const v = await models!.embed([query], 'query');
  queryVectors.set(query, v);
  return v;
}
/**
 * Cross-encoder scores of this session, per (model id, dtype, device, query, chunk): in memory only (an LRU of 4096
 * pairs), cleared with the knowledge base whose chunk ids it holds.
 */
const rerankCache = new RerankCache();
/** The search in flight: a newer one aborts it, so its rerank is skipped or its result dropped. */
let searchAbort: AbortController | null = null;
const SUPERSEDED = 'A newer search replaced this one.';

function searchModels() {
  const ce = stageModels.rerank?.spec;
  return {
    encoder: denseReady && models ? { embedQuery } : null,
    reranker: rerankerReady && models && ce
      ? { rerank: (q: string, ps: readonly string[]) => models!.rerank(q, [...ps]), model: { id: ce.id, dtype: ce.dtype, device: ce.device } }
      : null,
    rerankCache,
  };
}

/** A core outcome as the page shows it: each hit with its document's title, text and highlights, plus the models used. */
function view(base: KnowledgeBase, out: SearchOutcome): SearchResponse {
  if (out.status === 'empty' || out.status === 'unavailable') return out;
  const used = out.telemetry.stages.flatMap((s) => {
    const m = s.model && (s.stage === 'embed' || s.stage === 'rerank') ? stageModels[s.stage] : null;
    return m ? [{ stage: s.stage as 'embed' | 'rerank', id: m.spec.id, device: m.spec.device, dtype: m.spec.dtype, fallback: m.fallback }] : [];
  });
  if (used.length) out.telemetry.models = used;
  const hits: HitView[] = out.hits.map((h) => {
    const doc = base.docOf(h.item);
    const text = base.itemText(h.item);
    return { ...h, title: doc.title, meta: doc.meta ?? {}, text, highlights: highlightSpans(text, out.telemetry.queryTerms, base.bm25.analyzer) };
  });
  return { ...out, hits };
}

function availability(): ModeAvailability {
  const caps = { ...capabilitiesOf(kb!, searchModels()), denseReason: NEED_EMBEDDER, rerankerReason: NEED_RERANKER };
  return Object.fromEntries(MODE_IDS.map((m) => [m, modeAvailability(m, caps)])) as ModeAvailability;
}

async function download(url: string, onProgress: (p: LoadProgress) => void): Promise<string> {
  let res: Response;
  try {
    res = await fetch(url);
  } catch (e) {
    throw new Error(`Could not download the corpus from ${url}: ${(e as Error).message}`);
  }
  if (!res.ok || !res.body) throw new Error(`Could not download the corpus from ${url}: HTTP ${res.status}`);
  const total = Number(res.headers.get('content-length') ?? 0);
  const reader = res.body.getReader();
  const parts: Uint8Array[] = [];
  let done = 0;
  for (;;) {
    const r = await reader.read();
    if (r.done) break;
    parts.push(r.value);
    done += r.value.byteLength;
    onProgress({ stage: 'download', done, total: Math.max(total, done) });
  }
  const bytes = new Uint8Array(done);
  let at = 0;
  for (const p of parts) { bytes.set(p, at); at += p.byteLength; }
  return new TextDecoder().decode(bytes);
}

const api: SearchWorkerApi = {
  async openEmbedded(corpusUrl, onProgress) {
    const text = await download(corpusUrl, onProgress);
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      throw new Error(`The corpus file at ${corpusUrl} is not valid JSON.`);
    }
    const docs = sotuDocuments(json);
    const hash = (await sha256Hex(text)).slice(0, 16);
    const opened = await openKnowledgeBase('sotu', docs, hash, {}, (stage, done, total) => onProgress({ stage, done, total }));
    kb = opened.kb;
    kbKey = opened.cacheKey;
    denseReady = false;
    rerankCache.clear();
    const years = docs.map((d) => Number(d.meta?.year));
    const info: KbInfo = {
      corpusId: 'sotu',
      documents: docs.length,
      items: kb.size,
      source: opened.source,
      cacheNote: opened.cacheNote,
      buildMs: opened.buildMs,
      facets: {
        yearMin: Math.min(...years),
        yearMax: Math.max(...years),
        parties: [...new Set(docs.map((d) => String(d.meta?.party)))].sort(),
      },
      modes: availability(),
    };
    return info;
  },

  configureModels(settings) {
    // The in-browser LLM runs here (next to the knowledge base it answers from), so transformers.js needs the
    // same model host and wasm paths as the models worker.
    configureModels({ remoteHost: settings.remoteHost, wasmPaths: settings.wasmPaths, numThreads: settings.numThreads, allowRemote: true, useBrowserCache: true });
  },

  attachModels(port) {
    // A new models worker has nothing loaded yet: the model modes go off until enabled again.
    models = Comlink.wrap<ModelsWorkerApi>(port);
    denseReady = false;
    rerankerReady = false;
    stageModels = { embed: null, rerank: null };
    queryVectors.clear();
  },

  async enableDense(onProgress) {
    if (!kb) throw new Error('The knowledge base is not loaded yet.');
    if (!models) throw new Error('The models worker is not connected.');
    const info = (await models.loaded()).find((m) => m.task === 'embedder');
    if (!info || info.dim === null) throw new Error(NEED_EMBEDDER);
    const remote = models;
    const embedder: TextEmbedder = { spec: info.spec, dim: info.dim, embed: (texts, kind) => remote.embed([...texts], kind) };
    denseReady = false;
    queryVectors.clear();
    const setup = await attachDense(kb, embedder, { kbKey, onProgress: (stage, done, total) => onProgress({ stage, done, total }) });
    // The models worker was replaced meanwhile (the user cancelled, or it restarted): these vectors' model is gone.
    if (models !== remote) throw new Error('The model runtime restarted while the dense index was built; enable the models again.');
    denseReady = true;
    stageModels.embed = info;
    return { ...setup, model: info.spec };
  },

  async enableReranker() {
    if (!models) throw new Error('The models worker is not connected.');
    stageModels.rerank = (await models.loaded()).find((m) => m.task === 'cross-encoder') ?? null;
    rerankerReady = stageModels.rerank !== null;
    if (!rerankerReady) throw new Error(NEED_RERANKER);
    return availability();
  },

  modes() {
    return availability();
  },

  async ask(question, config, apiKey, onEvent) {
    const failed = (reason: string): RagAnswer => ({
      status: 'error', answer: '', partial: false, citations: [], invalidCitations: [], contexts: [], trace: [],
      reason, finishReason: null, usage: null, ms: 0,
    });
    if (!kb) return failed('The knowledge base is not loaded yet.');
    askAbort?.abort();
    const controller = new AbortController();
    askAbort = controller;
    try {
      const provider = createProvider({ provider: config.llm.provider, baseUrl: config.llm.baseUrl ?? undefined, model: config.llm.model, apiKey: apiKey ?? undefined });
      // One message per task, not per delta: a model sending thousands of tiny deltas would flood the page.
      const batched = batchDeltas(onEvent, (flush) => setTimeout(flush, 0));
      return await answerQuestion(kb, question, config, { provider, models: searchModels(), cache: indexedDbTransformCache, onEvent: batched, signal: controller.signal });
    } catch (e) {
      return failed(redactSecrets((e as Error).message || String(e), [apiKey]));
    } finally {
      if (askAbort === controller) askAbort = null;
    }
  },

  cancelAsk() {
    askAbort?.abort();
  },

  async search(req: SearchRequest, onFirst?: (first: SearchResponse) => void): Promise<SearchResponse> {
    if (!kb) return { status: 'error', reason: 'The knowledge base is not loaded yet.', hits: [], telemetry: null };
    searchAbort?.abort();
    const controller = new AbortController();
    searchAbort = controller;
    const base = kb;
    try {
      const steps = await searchSteps(base, req.query, req, searchModels());
      if (controller.signal.aborted) return { status: 'superseded', reason: SUPERSEDED, hits: [], telemetry: null };
      if (!onFirst || !steps.first.telemetry?.pending.length) return view(base, await steps.final(controller.signal));
      // The page gets the fused results while the cross-encoder runs; waiting for its acknowledgement before
      // answering keeps the two in order (they travel on different ports).
      const shown = Promise.resolve(onFirst(view(base, steps.first))).catch(() => undefined);
      const final = await steps.final(controller.signal);
      await shown;
      return view(base, final);
    } catch (e) {
      if (controller.signal.aborted) return { status: 'superseded', reason: SUPERSEDED, hits: [], telemetry: null };
      return { status: 'error', reason: `Search failed: ${(e as Error).message}`, hits: [], telemetry: null };
    } finally {
      if (searchAbort === controller) searchAbort = null;
    }
  },
};

Comlink.expose(api);
