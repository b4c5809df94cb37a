/** The open knowledge base: loading progress, info, errors. Owns the search worker. */
import * as Comlink from 'comlink';
import { SOTU_FILE } from '../../lib/data/sotu.ts';
import type { KbInfo, LoadProgress, SearchRequest, SearchResponse } from '../../../workers/search-api.ts';
import { startSearchWorker, type SearchClient } from '../search-client.ts';

export const STAGE_LABELS: Record<LoadProgress['stage'], string> = {
  download: 'Downloading the corpus',
  'cache-load': 'Looking for a cached index',
  chunk: 'Chunking documents',
  index: 'Building the BM25 index',
  calibrate: 'Calibrating scores',
  'cache-save': 'Saving the index in this browser',
};

export class KbState {
  status = $state<'idle' | 'loading' | 'ready' | 'error' | 'cancelled'>('idle');
  progress = $state.raw<LoadProgress | null>(null);
  info = $state.raw<KbInfo | null>(null);
  error = $state<string | null>(null);
  private client: SearchClient | null = null;

  async open(): Promise<void> {
    this.client?.terminate();
    const client = startSearchWorker();
    this.client = client;
    this.status = 'loading';
    this.error = null;
    this.info = null;
    const url = new URL(SOTU_FILE, document.baseURI).href;
    try {
      const info = await client.api.openEmbedded(url, Comlink.proxy((p: LoadProgress) => { this.progress = p; }));
      if (this.client !== client) return;
      this.info = info;
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

  async search(req: SearchRequest): Promise<SearchResponse> {
    if (!this.client || this.status !== 'ready') {
      return { status: 'error', reason: 'The knowledge base is not loaded yet.', hits: [], telemetry: null };
    }
    try {
      return await this.client.api.search(req);
    } catch (e) {
      return { status: 'error', reason: `Search failed: ${(e as Error).message}`, hits: [], telemetry: null };
    }
  }
}
