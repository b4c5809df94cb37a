/**
 * The search session of the Search and Ask tabs (one per search worker): the open knowledge base, its dense side,
 * every mode's availability, searches (a newer one supersedes the one in flight), the α simulator's candidates and
 * RAG answers. It keeps no list of loaded models: each call that needs one is given the models session's list as the
 * page has it (ModelsState), and derives the stages' models from it and the KB's vectors (models/readiness.ts).
 */
import { sotuDescriptor } from '../data/sotu.ts';
import { embedderMismatch } from '../artifact/attach.ts';
import type { LoadedModel } from '../models/model-contract.ts';
import { modeTable, NEED_EMBEDDER, readiness } from '../models/readiness.ts';
import type { ModelSpec, TextEmbedder } from '../models/types.ts';
import { highlightSpans } from '../retrieval/highlight.ts';
import type { KnowledgeBase } from '../retrieval/knowledge-base.ts';
import type { SearchModels, SearchOutcome } from '../retrieval/search.ts';
import type { FusionRequest, HitView, ModeAvailability, SearchRequest, SearchResponse } from '../retrieval/search-request.ts';
import { runSearch } from '../retrieval/search-run.ts';
import { RerankCache } from '../retrieval/rerank-cache.ts';
import { fusionCandidates, type FusionCandidates } from '../retrieval/alpha-sim.ts';
import { LruMap } from '../util/lru.ts';
import { kbCorpusHash, kbTrainingTexts } from '../models/corpus-embedder/corpus-hash.ts';
import { createProvider } from '../llm/registry.ts';
import { redactSecrets } from '../llm/redact.ts';
import { answerQuestion, type RagAnswer } from './answer.ts';
import type { RagConfig } from './config.ts';
import { batchDeltas } from './delta-batch.ts';
import type { RagEvent } from './trace.ts';
import type { TransformCache } from './transforms.ts';
import type { DenseInfo, HubRepoRequest, IndexChoice, KbInfo, KbOpenRequest, LoadProgress } from './kb-contract.ts';
import { hubVectors, openKbFrom, type KbOpenDeps, type OpenKb } from './kb-open.ts';
import { attachKbVectors } from './kb-vectors.ts';

/** The models session as this one calls it (through a port to the models worker). */
export interface ModelLine {
  loaded(): Promise<LoadedModel[]>;
  embed(texts: string[], kind: 'query' | 'passage'): Promise<Float32Array>;
  rerank(query: string, passages: string[]): Promise<number[]>;
}

export interface KbSessionDeps extends KbOpenDeps {
  /** Where query transforms of RAG answers are cached. */
  transformCache: TransformCache;
}

const SUPERSEDED = 'A newer search replaced this one.';

export class KbSession {
  private current: OpenKb | null = null;
  private models: ModelLine | null = null;
  private askAbort: AbortController | null = null;
  /** The search in flight: a newer one aborts it, so its rerank is skipped or its result dropped. */
  private searchAbort: AbortController | null = null;
  /** Query embeddings of this session (LRU, 256 queries). */
  private readonly queryVectors = new LruMap<string, Float32Array>(256);
  /**
   * Cross-encoder scores of this session, per (model id, dtype, device, query, chunk): in memory only (an LRU of 4096
   * pairs), cleared with the knowledge base whose chunk ids it holds.
   */
  private readonly rerankCache = new RerankCache();
  /** Per stage and model spec: the model stage's ms in the first search that ran it since the models were attached. */
  private readonly firstQueryMs = new Map<string, number>();

  constructor(private readonly deps: KbSessionDeps) {}

  private async embedQuery(query: string, spec: ModelSpec): Promise<Float32Array> {
    const key = `${spec.id}\u0000${spec.dtype}\u0000${spec.device}\u0000${query}`;
    const hit = this.queryVectors.get(key);
    if (hit) return hit;
    const v = await this.models!.embed([query], 'query');
    this.queryVectors.set(key, v);
    return v;
  }

  /** The stage models, derived each time from the loaded list and the knowledge base's vectors (no flags). */
  private stageModels(loaded: readonly LoadedModel[]) {
    return readiness(this.current?.info.dense ?? null, this.models ? loaded : []);
  }

  private searchModels(loaded: readonly LoadedModel[]) {
    const { embed, rerank } = this.stageModels(loaded);
    const ce = rerank?.spec;
    return {
      encoder: embed ? { embedQuery: (q: string) => this.embedQuery(q, embed.spec) } : null,
      reranker: ce ? { rerank: (q: string, ps: readonly string[]) => this.models!.rerank(q, [...ps]), model: { id: ce.id, dtype: ce.dtype, device: ce.device } } : null,
      rerankCache: this.rerankCache,
    };
  }

  /** A core outcome as the page shows it: each hit with its document's title, text and highlights, plus the models used. */
  private view(base: KnowledgeBase, out: SearchOutcome, loaded: readonly LoadedModel[]): SearchResponse {
    if (out.status === 'empty' || out.status === 'unavailable') return out;
    const stage = this.stageModels(loaded);
    const used = out.telemetry.stages.flatMap((s) => {
      const m = s.model && (s.stage === 'embed' || s.stage === 'rerank') ? stage[s.stage] : null;
      if (!m) return [];
      const key = `${s.stage}\u0000${m.spec.id}\u0000${m.spec.dtype}\u0000${m.spec.device}`;
      // The first search that ran the model (a rerank served wholly from the cache ran none) sets its first-query time.
      const ran = s.stage === 'embed' || (out.telemetry.rerankPairs?.scored ?? 0) > 0;
      if (ran && !this.firstQueryMs.has(key)) this.firstQueryMs.set(key, s.ms);
      return [{
        stage: s.stage as 'embed' | 'rerank', id: m.spec.id, device: m.spec.device, dtype: m.spec.dtype, fallback: m.fallback,
        loadMs: m.loadMs ?? null, warmupMs: m.warmupMs ?? null, firstQueryMs: this.firstQueryMs.get(key) ?? null,
      }];
    });
    if (used.length) out.telemetry.models = used;
    const hits: HitView[] = out.hits.map((h) => {
      const doc = base.docOf(h.item);
      const text = base.itemText(h.item);
      return { ...h, title: doc.title, meta: doc.meta ?? {}, text, highlights: highlightSpans(text, out.telemetry.queryTerms, base.bm25.analyzer) };
    });
    return { ...out, hits };
  }

  /**
   * Opens a knowledge base: the embedded one (its shipped BM25 artifact when the build has one, else the corpus file
   * indexed here) or an index artifact of a Hub dataset repo (per-file progress). Until it resolves, the knowledge
   * base opened before stays open; on failure it still is.
   */
  async open(request: KbOpenRequest, onProgress: (p: LoadProgress) => void): Promise<KbInfo> {
    const next = await openKbFrom(this.deps, request, onProgress);
    // Its content's identity: a corpus-trained model belongs to it when trained on the same texts (models/kb-embedder.ts).
    // An artifact's meta.json carries it (hashing every text costs a fifth of opening the embedded corpus).
    if (!next.info.corpusHash) next.info = { ...next.info, corpusHash: await kbCorpusHash(next.kb) };
    this.current = next;
    this.rerankCache.clear();
    this.queryVectors.clear();
    return next.info;
  }

  /** The indexes a Hub dataset repo lists in its index_config.json. */
  async listHubIndexes(request: HubRepoRequest): Promise<IndexChoice[]> {
    const source = await this.deps.artifacts.hubSource({ repo: request.repo, revision: request.revision, hubUrl: request.hubUrl, token: request.token });
    const list = await this.deps.artifacts.listIndexes(source);
    return list.map((x) => ({
      id: x.id, title: x.title || x.id, description: x.description, path: x.path,
      documents: x.counts.documents, chunks: x.counts.chunks, embedder: x.embedder,
    }));
  }

  /** A new line to the models session: query vectors of the old one's model may not match, so they are computed again. */
  attachModels(models: ModelLine): void {
    this.models = models;
    this.queryVectors.clear();
    this.firstQueryMs.clear();
  }

  /**
   * Gives the knowledge base its dense side with the loaded embedding model: the artifact's vectors when it ships
   * them for this model (for the embedded corpus: the build's when they are this model's, else those of the
   * `vectors` Hub repo set in Settings, when its chunks are the same), else embeds every chunk (or reads the cached
   * vectors).
   */
  async enableDense(onProgress: (p: LoadProgress) => void, vectors: HubRepoRequest | null = null): Promise<DenseInfo> {
    const open = this.current;
    if (!open) throw new Error('The knowledge base is not loaded yet.');
    if (!this.models) throw new Error('The models worker is not connected.');
    const info = (await this.models.loaded()).find((m) => m.task === 'embedder');
    if (!info || info.dim === null) throw new Error(NEED_EMBEDDER);
    const remote = this.models;
    const embedded = open.info.corpusId === sotuDescriptor.id;
    let shipped = open.artifactDense;
    // The embedded corpus's build-time vectors are the default embedder's: another one embeds in the tab, as when the
    // build shipped none, unless a Hub repo configured in Settings holds its vectors.
    if (embedded && shipped && embedderMismatch(shipped, { spec: info.spec, dim: info.dim })) shipped = null;
    if (embedded && !shipped && vectors) shipped = open.artifactDense = await hubVectors(this.deps, open, vectors, onProgress);
    const why = shipped && embedderMismatch(shipped, { spec: info.spec, dim: info.dim });
    if (why) throw new Error(`${open.info.descriptor.title}: ${why}.`);
    const embedder: TextEmbedder = { spec: info.spec, dim: info.dim, embed: (texts, kind) => remote.embed([...texts], kind) };
    const { setup, owner } = await attachKbVectors(open.kb, shipped, embedder, { kbKey: open.key, onProgress: (stage, done, total) => onProgress({ stage, done, total }) });
    // The models worker was replaced meanwhile (the user cancelled, or it restarted): these vectors' model is gone.
    if (this.models !== remote) throw new Error('The model runtime restarted while the dense index was built; enable the models again.');
    open.info = { ...open.info, dense: owner };
    return { ...setup, model: info.spec, owner };
  }

  /** Every mode's availability with the `loaded` models. */
  modes(loaded: LoadedModel[]): ModeAvailability {
    return modeTable(this.current?.kb.dense ? this.current.info.dense : null, this.models ? loaded : []);
  }

  /**
   * The open knowledge base, what it is, and the search models of `loaded` with their specs: what the tuner runs on
   * (tune/tune-tab-session.ts), the same models a search here uses.
   */
  searchContext(loaded: LoadedModel[]): { kb: KnowledgeBase; info: KbInfo; models: SearchModels; embedder: ModelSpec | null; reranker: ModelSpec | null; passages: TextEmbedder | null } {
    if (!this.current) throw new Error('No knowledge base is open.');
    const stage = this.stageModels(loaded);
    const m = this.searchModels(loaded);
    const line = this.models, info = loaded.find((x) => x.task === 'embedder' && stage.embed && x.spec.id === stage.embed.spec.id);
    return {
      kb: this.current.kb, info: this.current.info, models: { ...(m.encoder ? { encoder: m.encoder } : {}), ...(m.reranker ? { reranker: m.reranker } : {}), rerankCache: m.rerankCache },
      embedder: stage.embed?.spec ?? null, reranker: stage.rerank?.spec ?? null,
      // The embedder of the dense side, for a knowledge base built again from the same documents (a tune's chunking).
      passages: line && info && info.dim !== null ? { spec: info.spec, dim: info.dim, embed: (texts, kind) => line.embed([...texts], kind) } : null,
    };
  }

  /** The open knowledge base's chunk texts as a corpus embedder trains on them (`kbTrainingTexts`). */
  trainingTexts(): string[] {
    if (!this.current) throw new Error('No knowledge base is open.');
    return kbTrainingTexts(this.current.kb);
  }

  /**
   * Answers a question with the RAG pipeline; the answer streams through `onEvent`. `apiKey` is used for this call
   * only and never stored, logged or returned. `loaded`: the models session's loaded list.
   */
  async ask(question: string, config: RagConfig, apiKey: string | null, loaded: LoadedModel[], onEvent: (e: RagEvent) => void): Promise<RagAnswer> {
    const failed = (reason: string): RagAnswer => ({
      status: 'error', answer: '', partial: false, citations: [], invalidCitations: [], contexts: [], trace: [],
      reason, finishReason: null, usage: null, ms: 0,
    });
    if (!this.current) return failed('The knowledge base is not loaded yet.');
    const kb = this.current.kb;
    this.askAbort?.abort();
    const controller = new AbortController();
    this.askAbort = controller;
    try {
      const provider = createProvider({ provider: config.llm.provider, baseUrl: config.llm.baseUrl ?? undefined, model: config.llm.model, apiKey: apiKey ?? undefined });
      // One message per task, not per delta: a model sending thousands of tiny deltas would flood the page.
      const batched = batchDeltas(onEvent, (flush) => setTimeout(flush, 0));
      return await answerQuestion(kb, question, config, { provider, models: this.searchModels(loaded), cache: this.deps.transformCache, onEvent: batched, signal: controller.signal });
    } catch (e) {
      return failed(redactSecrets((e as Error).message || String(e), [apiKey]));
    } finally {
      if (this.askAbort === controller) this.askAbort = null;
    }
  }

  /** Stops the running `ask` (the partial answer is kept). */
  cancelAsk(): void {
    this.askAbort?.abort();
  }

  /**
   * The α simulator's candidates of a query on the open knowledge base (`fusionCandidates` of
   * src/lib/retrieval/alpha-sim.ts: both retrievers' top candidateK among the documents the search's filters keep, no
   * qrels, so no gold marks).
   * Needs the dense side and the loaded embedder (in `loaded`); fails with the reason otherwise.
   */
  async fusionCandidates(req: FusionRequest, loaded: LoadedModel[]): Promise<FusionCandidates> {
    if (!this.current) throw new Error('The knowledge base is not loaded yet.');
    const base = this.current.kb;
    const embed = this.stageModels(loaded).embed;
    if (!base.dense || !embed) throw new Error(NEED_EMBEDDER);
    const query = req.query.trim();
    if (!query) throw new Error('Type a query first.');
    const qvec = await this.embedQuery(query, embed.spec);
    const k = { sparse: req.bm25K ?? req.candidateK, dense: req.denseK ?? req.candidateK };
    return fusionCandidates(base, { id: 'query', text: query }, qvec, new Map(), k, { calibration: req.calibration, filters: req.filters ?? [] });
  }

  /**
   * Runs a query and answers with its final result. In rerank modes `onFirst` gets the fused results first
   * (`telemetry.pending` names the stages still running); a newer search supersedes this one. `loaded`: the models
   * session's loaded list.
   */
  async search(req: SearchRequest, loaded: LoadedModel[], onFirst?: (first: SearchResponse) => void): Promise<SearchResponse> {
    if (!this.current) return { status: 'error', reason: 'The knowledge base is not loaded yet.', hits: [], telemetry: null };
    this.searchAbort?.abort();
    const controller = new AbortController();
    this.searchAbort = controller;
    const base = this.current.kb;
    try {
      const onShown = onFirst && ((first: SearchOutcome) => onFirst(this.view(base, first, loaded)));
      const out = await runSearch(base, req, this.searchModels(loaded), { signal: controller.signal, ...(onShown ? { onFirst: onShown } : {}) });
      return out ? this.view(base, out, loaded) : { status: 'superseded', reason: SUPERSEDED, hits: [], telemetry: null };
    } catch (e) {
      if (controller.signal.aborted) return { status: 'superseded', reason: SUPERSEDED, hits: [], telemetry: null };
      return { status: 'error', reason: `Search failed: ${(e as Error).message}`, hits: [], telemetry: null };
    } finally {
      if (this.searchAbort === controller) this.searchAbort = null;
    }
  }
}
