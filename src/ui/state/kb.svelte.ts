/** The open knowledge base: loading progress, info, errors. Owns the search worker. */
import * as Comlink from 'comlink';
import { SOTU_EXAMPLES, SOTU_FILE } from '../../lib/data/sotu.ts';
import type { RagAnswer } from '../../lib/rag/answer.ts';
import type { RagConfig } from '../../lib/rag/config.ts';
import type { RagEvent } from '../../lib/rag/trace.ts';
import type { DenseInfo, KbInfo, LoadProgress, ModeAvailability, SearchRequest, SearchResponse } from '../../../workers/search-api.ts';
import { startSearchWorker, type SearchClient } from '../search-client.ts';
import type { ModelSettings } from '../../../workers/models-api.ts';

export const STAGE_LABELS: Record<LoadProgress['stage'], string> = {
  download: 'Downloading the corpus',
  'cache-load': 'Looking for a cached index',
  chunk: 'Chunking documents',
  index: 'Building the BM25 index',
  calibrate: 'Calibrating scores',
  'cache-save': 'Saving the index in this browser',
  'embed-cache': 'Looking for cached embeddings',
  embed: 'Embedding chunks',
  'vector-index': 'Building or restoring the vector index',
  'dense-calibrate': 'Calibrating dense scores',
  'embed-save': 'Saving embeddings and the vector index in this browser',
};

export class KbState {
  status = $state<'idle' | 'loading' | 'ready' | 'error' | 'cancelled'>('idle');
  progress = $state.raw<LoadProgress | null>(null);
  info = $state.raw<KbInfo | null>(null);
  error = $state<string | null>(null);
  /** Queries the knowledge base suggests on first open (from its loader). */
  readonly examples = SOTU_EXAMPLES;
  /** Mode availability, refreshed when models are enabled. */
  modes = $state.raw<ModeAvailability | null>(null);
  private client: SearchClient | null = null;
  /** Model host and wasm paths, passed to each new search worker (for the in-browser LLM). */
  modelSettings: ModelSettings | null = null;
  /** Supplies a port to the models worker for each new search worker. */
  modelsPort: (() => MessagePort) | null = null;

  async open(): Promise<void> {
    this.client?.terminate();
    const client = startSearchWorker();
    this.client = client;
    if (this.modelSettings) client.api.configureModels(this.modelSettings);
    if (this.modelsPort) {
      const port = this.modelsPort();
      client.api.attachModels(Comlink.transfer(port, [port]));
    }
    this.status = 'loading';
    this.error = null;
    this.info = null;
    const url = new URL(SOTU_FILE, document.baseURI).href;
    try {
      const info = await client.api.openEmbedded(url, Comlink.proxy((p: LoadProgress) => { this.progress = p; }));
      if (this.client !== client) return;
      this.info = info;
      this.modes = info.modes;
      this.status = 'ready';
    } catch (e) {
      if (this.client !== client) return; // cancelled or superseded
      this.error = (e as Error).message || String(e);
      this.status = 'error';
    }
  }

  /** Stops indexing by terminating the worker; `open()` starts again. */
  cancel(): void {
    this.client?.terminate();
    this.client = null;
    this.status = 'cancelled';
    this.progress = null;
  }

  configureModels(settings: ModelSettings): void {
    this.modelSettings = settings;
    this.client?.api.configureModels(settings);
  }

  /** Gives the running search worker a fresh port to the (restarted) models worker. */
  async reconnectModels(): Promise<void> {
    if (!this.client || !this.modelsPort) return;
    const port = this.modelsPort();
    await this.client.api.attachModels(Comlink.transfer(port, [port]));
    this.modes = await this.client.api.modes().catch(() => this.modes);
  }

  /** Embeds the chunks with the loaded embedding model (progress in `progress`) and enables the dense modes. */
  async enableDense(onProgress: (p: LoadProgress) => void): Promise<DenseInfo> {
    if (!this.client || this.status !== 'ready') throw new Error('The knowledge base is not loaded yet.');
    const info = await this.client.api.enableDense(Comlink.proxy(onProgress));
    this.modes = await this.client.api.modes();
    return info;
  }

  async enableReranker(): Promise<void> {
    if (!this.client || this.status !== 'ready') throw new Error('The knowledge base is not loaded yet.');
    this.modes = await this.client.api.enableReranker();
  }

  async ask(question: string, config: RagConfig, apiKey: string | null, onEvent: (e: RagEvent) => void): Promise<RagAnswer> {
    const failed = (reason: string): RagAnswer => ({ status: 'error', answer: '', partial: false, citations: [], invalidCitations: [], contexts: [], trace: [], reason, finishReason: null, usage: null, ms: 0 });
    if (!this.client || this.status !== 'ready') return failed('The knowledge base is not loaded yet.');
    try {
      return await this.client.api.ask(question, config, apiKey, onEvent);
    } catch (e) {
      return failed((e as Error).message || String(e));
    }
  }

  cancelAsk(): void {
    this.client?.api.cancelAsk();
  }

  /** Runs a query in the search worker; `onFirst` gets the fused results of a rerank mode before the final ones. */
  async search(req: SearchRequest, onFirst?: (first: SearchResponse) => void): Promise<SearchResponse> {
    if (!this.client || this.status !== 'ready') {
      return { status: 'error', reason: 'The knowledge base is not loaded yet.', hits: [], telemetry: null };
    }
    try {
      return await this.client.api.search(req, onFirst ? Comlink.proxy(onFirst) : undefined);
    } catch (e) {
      return { status: 'error', reason: `Search failed: ${(e as Error).message}`, hits: [], telemetry: null };
    }
  }
}
