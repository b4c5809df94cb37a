/// <reference lib="webworker" />
/**
 * Search worker: downloads and indexes the knowledge base, answers queries. Nothing here runs on the main thread.
 */
import { artifactVectorKey, metaKeyOf } from '../src/lib/cache-keys.ts';
import * as Comlink from 'comlink';
import { SOTU_FILE, sotuDescriptor, sotuDocuments } from '../src/lib/data/sotu.ts';
import { facetsOf, type KbDescriptor } from '../src/lib/data/kb-source.ts';
import { kbIdOf } from '../src/lib/data/kb-registry.ts';
import type { ArtifactDense, FileSource, OpenedArtifact } from '../src/lib/artifact/types.ts';
import { modeTable, NEED_EMBEDDER, readiness, type DenseOwner } from '../src/lib/models/readiness.ts';
import { highlightSpans } from '../src/lib/retrieval/highlight.ts';
import type { KnowledgeBase } from '../src/lib/retrieval/knowledge-base.ts';
import { searchSteps, type SearchOutcome } from '../src/lib/retrieval/search.ts';
import { fusionCandidates } from '../src/lib/eval/alpha-sim.ts';
import { RerankCache } from '../src/lib/retrieval/rerank-cache.ts';
import { LruMap } from '../src/lib/lru.ts';
import { sha256Hex } from '../src/lib/checksum.ts';
import { openKnowledgeBase } from '../src/lib/store/kb-loader.ts';
import type { ModelSpec, TextEmbedder } from '../src/lib/models/types.ts';
import { attachDense, type DenseSetup } from '../src/lib/store/dense-loader.ts';
import { artifacts } from './artifact-adapter.ts';
import { readBoundedText } from '../src/lib/hub/bounded-read.ts';
import { openLocalKb } from '../src/lib/kb-build/open-local.ts';
import { kbTrainingTexts } from '../src/lib/kb-build/train-embedder.ts';
import { IndexedDbLocalKbStore } from '../src/lib/store/local-kb-store.ts';
import { embedderMismatch } from '../src/lib/artifact/attach.ts';
import type { LoadedModel, ModelsWorkerApi } from './models-api.ts';
import { createProvider } from '../src/lib/llm/registry.ts';
import { configureModels } from '../src/lib/models/env.ts';
import { redactSecrets } from '../src/lib/llm/redact.ts';
import { answerQuestion, type RagAnswer } from '../src/lib/rag/answer.ts';
import { batchDeltas } from '../src/lib/rag/delta-batch.ts';
import { indexedDbTransformCache } from '../src/lib/store/transform-cache.ts';
import type { HitView, KbInfo, KbOpenRequest, LoadProgress, ModeAvailability, SearchRequest, SearchResponse, SearchWorkerApi } from './search-api.ts';

/** The open knowledge base of this worker (one per worker: the page opens another one in a fresh worker). */
interface OpenKb {
  kb: KnowledgeBase;
  /** Cache key of the vectors embedded here (corpus id and what identifies its content), computed when first needed. */
  key: () => Promise<string>;
  info: KbInfo;
  /** Vectors an artifact ships, attached by enableDense when the loaded embedder made them. */
  artifactDense: ArtifactDense | null;
}
let current: OpenKb | null = null;
let models: Comlink.Remote<ModelsWorkerApi> | null = null;
/** The models worker's loaded list as the page last mirrored it (the one owner of model readiness). */
let loadedModels: LoadedModel[] = [];
let askAbort: AbortController | null = null;

/** Query embeddings of this session (LRU, 256 queries). */
const queryVectors = new LruMap<string, Float32Array>(256);
async function embedQuery(query: string, spec: ModelSpec): Promise<Float32Array> {
  const key = `${spec.id}\u0000${spec.dtype}\u0000${spec.device}\u0000${query}`;
  const hit = queryVectors.get(key);
  if (hit) return hit;
  const v = await models!.embed([query], 'query');
  queryVectors.set(key, v);
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

/** The stage models, derived each time from the loaded list and the knowledge base's vectors (no flags). */
function stageModels() {
  return readiness(current?.info.dense ?? null, models ? loadedModels : []);
}

function searchModels() {
  const { embed, rerank } = stageModels();
  const ce = rerank?.spec;
  return {
    encoder: embed ? { embedQuery: (q: string) => embedQuery(q, embed.spec) } : null,
    reranker: ce ? { rerank: (q: string, ps: readonly string[]) => models!.rerank(q, [...ps]), model: { id: ce.id, dtype: ce.dtype, device: ce.device } } : null,
    rerankCache,
  };
}

/** A core outcome as the page shows it: each hit with its document's title, text and highlights, plus the models used. */
function view(base: KnowledgeBase, out: SearchOutcome): SearchResponse {
  if (out.status === 'empty' || out.status === 'unavailable') return out;
  const stage = stageModels();
  const used = out.telemetry.stages.flatMap((s) => {
    const m = s.model && (s.stage === 'embed' || s.stage === 'rerank') ? stage[s.stage] : null;
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
  return modeTable(current?.kb.dense ? current.info.dense : null, models ? loadedModels : []);
}

async function download(url: string, onProgress: (p: LoadProgress) => void): Promise<string> {
  let res: Response;
  try {
    res = await fetch(url);
  } catch (e) {
    throw new Error(`Could not download the corpus from ${url}: ${(e as Error).message}`);
  }
  if (!res.ok || !res.body) throw new Error(`Could not download the corpus from ${url}: HTTP ${res.status}`);
  // Bounded as every download (download-limits.ts): a corpus file is "other", 256 MB.
  return readBoundedText(res, { file: 'the corpus', onProgress: (done, total) => onProgress({ stage: 'download', done, total: Math.max(total, done) }) });
}

/** The embedded corpus: its shipped BM25 artifact when the build has one (no indexing), else its JSON file. */
async function openEmbedded(baseUrl: string, onProgress: (p: LoadProgress) => void): Promise<OpenKb> {
  const folder = new URL('corpora/', baseUrl).href;
  const notes: string[] = [];
  // A static host answering unknown paths with index.html (a dev server, an SPA fallback) has no artifact either.
  const config = await fetch(new URL('index_config.json', folder)).then(async (r) => r.ok && (await readBoundedText(r, { file: 'index_config.json' })).trimStart().startsWith('{')).catch(() => false);
  if (config) {
    try {
      const t0 = performance.now();
      const source = artifacts.httpFolderSource({ baseUrl: folder });
      const opened = await artifacts.openArtifact(source, sotuDescriptor.id, { onProgress: fileProgress(onProgress) });
      const next = fromArtifact(opened, sotuDescriptor, sotuDescriptor.id, null, performance.now() - t0, source, sotuDescriptor.id);
      next.info.cacheNote = sourceNote((source as { notes?: string[] }).notes ?? []);
      return next;
    } catch (e) {
      notes.push(`The shipped index could not be read (${(e as Error).message}); the corpus was indexed in this tab instead.`);
    }
  }
  const corpusUrl = new URL(SOTU_FILE, baseUrl).href;
  const text = await download(corpusUrl, onProgress);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new Error(`The corpus file at ${corpusUrl} is not valid JSON.`);
  }
  const docs = sotuDocuments(json);
  const hash = (await sha256Hex(text)).slice(0, 16);
  const opened = await openKnowledgeBase(sotuDescriptor.id, docs, hash, {}, (stage, done, total) => onProgress({ stage, done, total }));
  const info: KbInfo = {
    corpusId: sotuDescriptor.id, descriptor: sotuDescriptor, facets: facetsOf(sotuDescriptor.fields, docs),
    documents: docs.length, items: opened.kb.size, source: opened.source, cacheNote: opened.cacheNote, buildMs: opened.buildMs,
    revisionSha: null, dense: null, artifactEmbedder: null, notes,
  };
  return { kb: opened.kb, key: async () => opened.cacheKey, info, artifactDense: null };
}

/** What a file source says about its cache (a write that failed, a revision taken from the cache), in one line. */
function sourceNote(notes: readonly string[]): string | null {
  const unique = [...new Set(notes)];
  if (unique.length === 0) return null;
  return unique.length === 1 ? unique[0]! : `${unique[0]} (and ${unique.length - 1} more like it)`;
}

const fileProgress = (onProgress: (p: LoadProgress) => void) => (file: string, done: number, total: number) => onProgress({ stage: 'download-file', file, done, total });

/**
 * An opened artifact as this worker keeps it. Vectors embedded here for it are cached under its id and the SHA-256
 * of its meta.json, which lists the size and SHA-256 of every file (so another upload is another key).
 */
function fromArtifact(opened: OpenedArtifact, descriptor: KbDescriptor, id: string, revisionSha: string | null, ms: number, source: FileSource, path: string): OpenKb {
  const dense = opened.dense;
  const info: KbInfo = {
    corpusId: id, descriptor, facets: facetsOf(descriptor.fields, opened.kb.docs),
    documents: opened.kb.docs.length, items: opened.kb.size, source: 'artifact', cacheNote: null, buildMs: ms, revisionSha,
    dense: null, artifactEmbedder: dense ? { id: dense.embedder.id, dim: dense.embedder.dim } : null, notes: [...opened.notes],
  };
  let key: Promise<string> | null = null;
  const contentKey = async () => {
    const meta = await source.read(path ? `${path}/meta.json` : 'meta.json');
    if (!meta) throw new Error(`${path ? `${path}/` : ''}meta.json is no longer readable from ${source.label}: open the knowledge base again.`);
    return artifactVectorKey(id, metaKeyOf(await sha256Hex(meta)));
  };
  return { kb: opened.kb, key: () => (key ??= contentKey().catch((e) => { key = null; throw e; })), info, artifactDense: dense };
}

/**
 * The vectors of the embedded corpus from a Hub artifact repo (its `sotu` index, else the first index with vectors),
 * accepted only when its chunks are exactly the open knowledge base's (same ids, in the same order).
 */
async function hubVectors(open: OpenKb, req: Omit<Extract<KbOpenRequest, { kind: 'hub' }>, 'path'>, onProgress: (p: LoadProgress) => void): Promise<ArtifactDense> {
  const source = await artifacts.hubSource({ repo: req.repo, revision: req.revision, hubUrl: req.hubUrl, token: req.token });
  const list = await artifacts.listIndexes(source);
  const entry = list.find((x) => x.id === sotuDescriptor.id && x.embedder) ?? list.find((x) => x.embedder);
  if (!entry) throw new Error(`${req.repo}@${req.revision}: index_config.json lists no index with vectors; clear the vectors repo in Settings to embed in this tab.`);
  const opened = await artifacts.openArtifact(source, entry.path, { onProgress: fileProgress(onProgress) });
  if (!opened.dense) throw new Error(`${req.repo}/${entry.path}: the index ships no vectors.`);
  const same = opened.kb.size === open.kb.size && Array.from({ length: open.kb.size }, (_, i) => i).every((i) => opened.kb.itemId(i) === open.kb.itemId(i));
  if (!same) throw new Error(`${req.repo}/${entry.path}/chunks.parquet: its chunks are not the embedded corpus's (other chunking or another corpus version); rebuild it with scripts/sotu-artifact.ts.`);
  return opened.dense;
}

/**
 * A knowledge base built in this browser: its artifact files from IndexedDB, opened like any artifact (vectors
 * embedded here are cached under `local:<name>:artifact:<sha of meta.json>`, which deleting it removes).
 */
async function openLocal(name: string, onProgress: (p: LoadProgress) => void): Promise<OpenKb> {
  const t0 = performance.now();
  const local = await openLocalKb(localKbs(), name, { open: artifacts.openArtifact, onProgress: fileProgress(onProgress) });
  return fromArtifact(local.opened, local.descriptor, local.descriptor.id, null, performance.now() - t0, local.source, '');
}
let localStore: IndexedDbLocalKbStore | null = null;
const localKbs = () => (localStore ??= new IndexedDbLocalKbStore());

const api: SearchWorkerApi = {
  async open(request, onProgress) {
    let next: OpenKb;
    if (request.kind === 'embedded') {
      if (request.id !== sotuDescriptor.id) throw new Error(`Unknown embedded knowledge base "${request.id}".`);
      next = await openEmbedded(request.baseUrl, onProgress);
    } else if (request.kind === 'local') {
      next = await openLocal(request.name, onProgress);
    } else {
      const ref = { kind: 'hub' as const, repo: request.repo, revision: request.revision, path: request.path };
      const t0 = performance.now();
      const source = await artifacts.hubSource({ repo: request.repo, revision: request.revision, hubUrl: request.hubUrl, token: request.token });
      const opened = await artifacts.openArtifact(source, request.path, { onProgress: fileProgress(onProgress) });
      const sha = source.revisionSha ?? (/^[0-9a-f]{40}$/.test(request.revision) ? request.revision : null);
      // The descriptor is the artifact's; its id and source are where it was opened from (links and hashes use them).
      const descriptor: KbDescriptor = { ...opened.descriptor, id: kbIdOf(ref), source: ref };
      next = fromArtifact(opened, descriptor, kbIdOf(ref), sha, performance.now() - t0, source, request.path);
      next.info.cacheNote = sourceNote(source.notes);
    }
    current = next;
    rerankCache.clear();
    queryVectors.clear();
    return next.info;
  },

  async listHubIndexes(request) {
    const source = await artifacts.hubSource({ repo: request.repo, revision: request.revision, hubUrl: request.hubUrl, token: request.token });
    const list = await artifacts.listIndexes(source);
    return list.map((x) => ({
      id: x.id, title: x.title || x.id, description: x.description, path: x.path,
      documents: x.counts.documents, chunks: x.counts.chunks, embedder: x.embedder,
    }));
  },

  configureModels(settings) {
    // The in-browser LLM runs here (next to the knowledge base it answers from), so transformers.js needs the
    // same model host and wasm paths as the models worker.
    configureModels({ remoteHost: settings.remoteHost, wasmPaths: settings.wasmPaths, numThreads: settings.numThreads, allowRemote: true, useBrowserCache: true });
  },

  attachModels(port) {
    // Query vectors of the old models worker's model may not match the new one's: computed again on demand.
    models = Comlink.wrap<ModelsWorkerApi>(port);
    queryVectors.clear();
  },

  setLoadedModels(loaded) {
    loadedModels = loaded;
  },

  async enableDense(onProgress, vectors = null) {
    const open = current;
    if (!open) throw new Error('The knowledge base is not loaded yet.');
    if (!models) throw new Error('The models worker is not connected.');
    const info = (await models.loaded()).find((m) => m.task === 'embedder');
    if (!info || info.dim === null) throw new Error(NEED_EMBEDDER);
    const remote = models;
    // The embedded corpus ships without vectors: a Hub repo configured in Settings may hold them.
    if (!open.artifactDense && vectors && open.info.corpusId === sotuDescriptor.id) open.artifactDense = await hubVectors(open, vectors, onProgress);
    const shipped = open.artifactDense;
    let setup: DenseSetup;
    let owner: DenseOwner;
    if (shipped) {
      const need = shipped.embedder;
      const why = embedderMismatch(shipped, { spec: info.spec, dim: info.dim });
      if (why) throw new Error(`${open.info.descriptor.title}: ${why}.`);
      onProgress({ stage: 'vector-index', done: 0, total: 1 });
      const r = await artifacts.attachArtifactDense(open.kb, shipped, { spec: info.spec, dim: info.dim });
      onProgress({ stage: 'vector-index', done: 1, total: 1 });
      setup = { source: 'artifact', cacheNote: null, dim: info.dim, index: r.index as DenseSetup['index'], indexSource: 'cache', indexMs: r.indexMs, embedMs: 0 };
      owner = { id: need.id, dtype: null, device: null, dim: need.dim };
    } else {
      const embedder: TextEmbedder = { spec: info.spec, dim: info.dim, embed: (texts, kind) => remote.embed([...texts], kind) };
      setup = await attachDense(open.kb, embedder, { kbKey: await open.key(), onProgress: (stage, done, total) => onProgress({ stage, done, total }) });
      owner = { id: info.spec.id, dtype: info.spec.dtype, device: info.spec.device, dim: info.dim };
    }
    // The models worker was replaced meanwhile (the user cancelled, or it restarted): these vectors' model is gone.
    if (models !== remote) throw new Error('The model runtime restarted while the dense index was built; enable the models again.');
    open.info = { ...open.info, dense: owner };
    return { ...setup, model: info.spec, owner };
  },

  modes() {
    return availability();
  },

  trainingTexts() {
    if (!current) throw new Error('No knowledge base is open.');
    return kbTrainingTexts(current.kb);
  },

  async ask(question, config, apiKey, onEvent) {
    const failed = (reason: string): RagAnswer => ({
      status: 'error', answer: '', partial: false, citations: [], invalidCitations: [], contexts: [], trace: [],
      reason, finishReason: null, usage: null, ms: 0,
    });
    if (!current) return failed('The knowledge base is not loaded yet.');
    const kb = current.kb;
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

  async fusionCandidates(req) {
    if (!current) throw new Error('The knowledge base is not loaded yet.');
    const base = current.kb;
    const embed = stageModels().embed;
    if (!base.dense || !embed) throw new Error(NEED_EMBEDDER);
    const query = req.query.trim();
    if (!query) throw new Error('Type a query first.');
    const qvec = await embedQuery(query, embed.spec);
    return fusionCandidates(base, { id: 'query', text: query }, qvec, new Map(), req.candidateK, { calibration: req.calibration });
  },

  async search(req: SearchRequest, onFirst?: (first: SearchResponse) => void): Promise<SearchResponse> {
    if (!current) return { status: 'error', reason: 'The knowledge base is not loaded yet.', hits: [], telemetry: null };
    searchAbort?.abort();
    const controller = new AbortController();
    searchAbort = controller;
    const base = current.kb;
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
