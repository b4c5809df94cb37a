/**
 * The open knowledge base, for Search and Ask alike: which one (the picker's registry, `kb=` in the URL), loading
 * progress per stage and per file, info (descriptor, facets, counts), errors. Owns the search worker. Opening another
 * knowledge base while one is open happens in a fresh worker: the open one stays usable until the new one is ready,
 * and stays open if it fails or is cancelled.
 */
import type { HubAccess } from '../../lib/hub/access.ts';
import * as Comlink from 'comlink';
import { sotuDescriptor } from '../../lib/data/sotu.ts';
import {
  DEFAULT_KB, EMBEDDED_KBS, RAGBENCH_KBS, hubEntry, ragbenchEntry, kbConfigKey, kbFromLink, localEntry, localPlaceholder, parseStoredKbs, storedKbs, USER_KBS_KEY, type HubKbRef, type KbEntry,
} from '../../lib/data/kb-registry.ts';
import type { LocalKbMeta } from '../../lib/data/local-kb-meta.ts';
import { modeTable } from '../../lib/models/readiness.ts';
import type { RagAnswer } from '../../lib/rag/answer.ts';
import type { RagConfig } from '../../lib/rag/config.ts';
import type { RagEvent } from '../../lib/rag/trace.ts';
import type { FusionCandidates } from '../../lib/retrieval/alpha-sim.ts';
import type { DenseInfo, FusionRequest, IndexChoice, KbInfo, KbOpenRequest, LoadProgress, ModeAvailability, SearchRequest, SearchResponse } from '../../../workers/search-api.ts';
import { formatBytes } from '../shared/format.ts';
import { openKbCounts } from '../build/build-view.ts';
import { startSearchWorker, type SearchClient } from '../clients/search-client.ts';
import type { LoadedModel, ModelSettings } from '../../../workers/models-api.ts';
import type { TuneTabApi } from '../../lib/tune/tune-tab-session.ts';
import { writeOwnedParams } from '../app/url.ts';

export const STAGE_LABELS: Record<LoadProgress['stage'], string> = {
  download: 'Downloading the corpus',
  rows: 'Reading the subset\'s rows',
  'download-file': 'Downloading',
  'artifact-open': 'Opening the index artifact',
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

/** One line for a progress report: "Downloading chunks.parquet (3.1 MB / 12.0 MB)", "Building the BM25 index". */
export function stageText(p: LoadProgress): string {
  return p.stage === 'download-file' && p.file ? `Downloading ${p.file}` : STAGE_LABELS[p.stage];
}

/** The counts part of a progress report: bytes for downloads, items otherwise. */
export function progressCounts(p: LoadProgress): string {
  return p.stage === 'download' || p.stage === 'download-file' ? `${formatBytes(p.done)} / ${formatBytes(p.total)}` : `${p.done.toLocaleString()} / ${p.total.toLocaleString()}`;
}

/** Where Hub requests go and the token they may carry (from Settings and HubTokenState; never from a link). */
export type { HubAccess };

/** What the open knowledge base needs of the models (ModelsState): a port to their worker and the loaded list it may use. */
export interface KbModels {
  /** A new port to the models worker, for each new search worker. */
  port(): MessagePort;
  /** The models worker's loaded list as this knowledge base may use it (given to each search worker call that needs it). */
  readonly usable: LoadedModel[];
  /** Why dense modes are off here beyond "no model loaded" (no embedder chosen, another corpus's loaded). */
  readonly denseNote: string | null;
}

/** What KbState is built from. */
export interface KbDeps {
  /** The knowledge bases built in this browser (LocalKbsState): listed in the picker; one removed there closes here. */
  locals: { readonly list: readonly LocalKbMeta[]; onRemove(listener: (name: string) => void): void };
  /** The Hub URL and token for artifact repos (Settings and HubTokenState). */
  hubAccess: () => HubAccess;
  /** The vectors repo of the embedded corpus and RAGBench's hosts (AppSettingsState). */
  settings: { vectorsRepo(): { repo: string; revision: string } | null; ragbenchHosts(): { hubUrl: string; viewerUrl: string } };
  /**
   * The models (ModelsState), reached through a function: the models are built from this state (they embed its
   * knowledge base), so they exist only after it; called once both do.
   */
  models: () => KbModels;
}

export class KbState {
  /** The state of the open knowledge base (of the first open until one is ready). */
  status = $state<'idle' | 'loading' | 'ready' | 'error' | 'cancelled'>('idle');
  progress = $state.raw<LoadProgress | null>(null);
  info = $state.raw<KbInfo | null>(null);
  error = $state<string | null>(null);
  /** The knowledge base that is open (or being opened first). */
  entry = $state.raw<KbEntry>(DEFAULT_KB);
  /** The Hub knowledge bases the user added (kept in localStorage). */
  private hubEntries = $state.raw<KbEntry[]>([]);
  /**
   * What the picker offers: the embedded knowledge bases, those built in this browser (derived from the local list,
   * which LocalKbsState owns), the Hub ones the user added, then the RAGBench subsets.
   */
  readonly entries = $derived.by((): KbEntry[] => [
    ...EMBEDDED_KBS, ...this.locals.list.map((m) => localEntry(m.name, m.title, m.description || undefined)), ...this.hubEntries, ...RAGBENCH_KBS,
  ]);
  /** Another knowledge base being opened while `entry` stays open. */
  pending = $state.raw<{ entry: KbEntry; progress: LoadProgress | null } | null>(null);
  /** Why the last switch failed (the open knowledge base stayed open). */
  switchError = $state<string | null>(null);
  /** What the link's `kb=` or the stored list held that could not be used. */
  warnings = $state<string[]>([]);
  /** Queries the knowledge base suggests on first open (from its descriptor). */
  readonly examples = $derived(this.info?.descriptor.examples ?? []);
  /** The open knowledge base as the picker lists it now (a local one's title follows renames: LocalKbsState owns it). */
  readonly current = $derived(this.entries.find((e) => e.id === this.entry.id) ?? this.entry);
  /** The build record of the open knowledge base when it was built here (its counts, its title). */
  private readonly built = $derived.by(() => {
    const ref = this.entry.ref;
    return ref.kind === 'local' ? this.locals.list.find((m) => m.name === ref.name) ?? null : null;
  });
  /** The open knowledge base's title, for every view (status line, Ask, Search): a local one's as LocalKbsState has it now. */
  readonly title = $derived(this.built?.title ?? this.info?.descriptor.title ?? this.current.title);
  readonly placeholder = $derived(this.built ? localPlaceholder(this.built.title) : this.info?.descriptor.placeholder ?? sotuDescriptor.placeholder);
  /** What the open knowledge base holds, in parts ("3 files", "329 pages", "1,020 chunks"; "233 documents", …). */
  readonly counts = $derived(this.info ? openKbCounts(this.info, this.built?.summary ?? null) : []);
  /**
   * Mode availability, derived from what the knowledge base holds (its vectors and their model) and the models
   * worker's loaded list (`loadedModels`, ModelsState's last answer of it): never set by enable calls.
   */
  readonly modes = $derived<ModeAvailability | null>(this.info ? modeTable(this.info.dense, this.loadedModels(), this.denseNote()) : null);
  /** What identifies this knowledge base in config hashes (id, and the commit sha an artifact was read at). */
  readonly configKey = $derived(kbConfigKey(this.entry.ref, this.info?.revisionSha ?? null));
  private client: SearchClient | null = null;
  private pendingClient: SearchClient | null = null;
  /** Model host and wasm paths, passed to each new search worker (for the in-browser LLM). */
  private modelSettings: ModelSettings | null = null;
  private readonly locals: KbDeps['locals'];
  private readonly openListeners: ((info: KbInfo, first: boolean) => void)[] = [];
  private opened = 0;

  constructor(private readonly deps: KbDeps) {
    this.locals = deps.locals;
    // A knowledge base deleted in the Build tab: one being opened stops (the open one stays); the open one gives way to the default.
    deps.locals.onRemove((name) => {
      if (this.pending?.entry.id === localEntry(name).id) this.cancel();
      if (this.entry.id === localEntry(name).id) void this.open(DEFAULT_KB);
    });
    if (typeof localStorage === 'undefined') return;
    const { entries, warning } = parseStoredKbs(localStorage.getItem(USER_KBS_KEY));
    this.hubEntries = entries;
    if (warning) this.warnings = [warning];
  }

  /** The user dismissed the `i`-th warning (a link's or the stored list's). */
  dismissWarning(i: number): void {
    this.warnings = this.warnings.filter((_, j) => j !== i);
  }

  /** The user dismissed the message of a switch that failed. */
  dismissSwitchError(): void {
    this.switchError = null;
  }

  /** Picks the knowledge base the link names (`kb=`); an unknown or malformed one warns and keeps the default. */
  loadFromUrl(search: string): void {
    const { entry, warnings } = kbFromLink(new URLSearchParams(search).get('kb'), this.entries);
    this.entry = entry;
    this.warnings = [...this.warnings, ...warnings];
  }

  /** Runs `listener` after each knowledge base that opened (`first`: the page's first one). */
  onOpen(listener: (info: KbInfo, first: boolean) => void): void {
    this.openListeners.push(listener);
  }

  /** A knowledge base built here was rebuilt or replaced: open in Search, it opens again. */
  reopenLocal(name: string): void {
    if (this.entry.id === localEntry(name).id) void this.open(this.entries.find((e) => e.id === localEntry(name).id));
  }

  /** The models worker's loaded list as this knowledge base may use it. */
  private loadedModels(): LoadedModel[] {
    return this.deps.models().usable;
  }

  /** Why dense modes are off here beyond "no model loaded". */
  private denseNote(): string | null {
    return this.deps.models().denseNote;
  }

  writeUrl(): void {
    writeOwnedParams((k) => k === 'kb', new URLSearchParams(this.entry.id === DEFAULT_KB.id ? '' : { kb: this.entry.id }));
  }

  private startClient(): SearchClient {
    const client = startSearchWorker();
    if (this.modelSettings) client.api.configureModels(this.modelSettings);
    const port = this.deps.models().port();
    client.api.attachModels(Comlink.transfer(port, [port]));
    return client;
  }

  private request(entry: KbEntry): KbOpenRequest {
    const ref = entry.ref;
    if (ref.kind === 'embedded') return { kind: 'embedded', id: ref.id, baseUrl: document.baseURI };
    if (ref.kind === 'hub') return { kind: 'hub', repo: ref.repo, revision: ref.revision, path: ref.path, ...this.deps.hubAccess() };
    if (ref.kind === 'local') {
      if (!this.locals.list.some((m) => m.name === ref.name)) {
        throw new Error('it is not in this browser (a knowledge base built in the Build tab stays in the browser that built it, until deleted).');
      }
      return { kind: 'local', name: ref.name };
    }
    if (ref.kind === 'ragbench') return { kind: 'ragbench', subset: ref.subset, ...this.deps.settings.ragbenchHosts() };
    throw new Error(`${entry.title}: this kind of knowledge base (${ref.kind}) cannot be opened in the browser.`);
  }

  /**
   * Opens `entry` (default: the one picked). With a knowledge base already open, the new one opens in a fresh worker
   * and replaces it only once ready; a failure keeps the open one and says why in `switchError`.
   */
  async open(entry: KbEntry = this.entry): Promise<void> {
    // A link's local:<name> is a placeholder until the local list is read: open the listed entry (its title).
    if (entry.ref.kind === 'local') entry = this.entries.find((e) => e.id === entry.id) ?? entry;
    const switching = this.status === 'ready' && this.client !== null;
    this.pendingClient?.terminate();
    this.pendingClient = null;
    const client = this.startClient();
    this.switchError = null;
    if (switching) {
      this.pendingClient = client;
      this.pending = { entry, progress: null };
    } else {
      this.client?.terminate();
      this.client = client;
      this.entry = entry;
      this.status = 'loading';
      this.error = null;
      this.info = null;
      this.progress = null;
    }
    const current = () => (switching ? this.pendingClient === client : this.client === client);
    try {
      const info = await client.api.open(this.request(entry), Comlink.proxy((p: LoadProgress) => {
        if (!current()) return;
        if (switching) this.pending = { entry, progress: p };
        else this.progress = p;
      }));
      if (!current()) return;
      if (switching) {
        this.client?.terminate();
        this.client = client;
        this.pendingClient = null;
        this.pending = null;
        this.entry = entry;
      }
      this.info = info;
      this.status = 'ready';
      this.remember(entry);
      this.writeUrl();
      const first = this.opened++ === 0;
      for (const listener of this.openListeners) listener(info, first);
    } catch (e) {
      if (!current()) return; // cancelled or superseded
      const message = (e as Error).message || String(e);
      if (switching) {
        client.terminate();
        this.pendingClient = null;
        this.pending = null;
        this.switchError = `${entry.title} could not be opened: ${message} ${this.entry.title} stays open.`;
      } else if (entry.id !== DEFAULT_KB.id) {
        // Nothing was open yet (e.g. a link's Hub knowledge base): say why, and open the default one instead.
        await this.open(DEFAULT_KB);
        this.switchError = `${entry.title} could not be opened: ${message} Opened ${DEFAULT_KB.title} instead.`;
      } else {
        this.error = message;
        this.status = 'error';
      }
    }
  }

  /** Keeps a Hub knowledge base that opened in the picker's list (and in localStorage). */
  private remember(entry: KbEntry): void {
    if (entry.ref.kind !== 'hub' || this.entries.some((e) => e.id === entry.id)) return;
    this.hubEntries = [...this.hubEntries, entry];
    try {
      localStorage.setItem(USER_KBS_KEY, storedKbs(this.hubEntries));
    } catch { /* the list is kept for this tab */ }
  }

  /** Opens a RAGBench subset's pooled documents (from the Ask tab's gold question). */
  openRagbench(subset: string): Promise<void> {
    const entry = ragbenchEntry(subset);
    return this.open(this.entries.find((e) => e.id === entry.id) ?? entry);
  }

  /** Opens an index of a Hub dataset repo (validated by the picker with `parseHubRef`). */
  openHub(ref: HubKbRef, choice?: IndexChoice): Promise<void> {
    return this.open(this.entries.find((e) => e.id === hubEntry(ref).id) ?? hubEntry(ref, choice?.title, choice?.description));
  }

  /** The indexes a Hub dataset repo lists (index_config.json), read in a short-lived worker. */
  async listHubIndexes(repo: string, revision: string): Promise<IndexChoice[]> {
    const client = startSearchWorker();
    try {
      return await client.api.listHubIndexes({ kind: 'hub', repo, revision, ...this.deps.hubAccess() });
    } finally {
      client.terminate();
    }
  }

  /**
   * Stops opening: a switch in progress is dropped (the open knowledge base stays); a first open terminates the
   * worker, and `open()` starts again.
   */
  cancel(): void {
    if (this.pendingClient) {
      this.pendingClient.terminate();
      this.pendingClient = null;
      this.pending = null;
      return;
    }
    this.client?.terminate();
    this.client = null;
    this.status = 'cancelled';
    this.progress = null;
  }

  configureModels(settings: ModelSettings): void {
    this.modelSettings = settings;
    this.client?.api.configureModels(settings);
    this.pendingClient?.api.configureModels(settings);
  }

  /** Gives the running search worker a fresh port to the (restarted) models worker. */
  async reconnectModels(): Promise<void> {
    for (const client of [this.client, this.pendingClient]) {
      if (!client) continue;
      const port = this.deps.models().port();
      await client.api.attachModels(Comlink.transfer(port, [port]));
    }
  }

  /** Gives the knowledge base its dense side with the loaded embedding model (progress in `onProgress`). */
  async enableDense(onProgress: (p: LoadProgress) => void): Promise<DenseInfo> {
    const client = this.client;
    if (!client || this.status !== 'ready') throw new Error('The knowledge base is not loaded yet.');
    const vectors = this.deps.settings.vectorsRepo();
    const info = await client.api.enableDense(Comlink.proxy(onProgress), vectors ? { kind: 'hub', repo: vectors.repo, revision: vectors.revision, ...this.deps.hubAccess() } : null);
    if (this.client === client && this.info) this.info = { ...this.info, dense: info.owner };
    return info;
  }

  /** The open knowledge base's chunk texts, for training its corpus embedder in a build worker. */
  async trainingTexts(): Promise<string[]> {
    if (!this.client || this.status !== 'ready') throw new Error('The knowledge base is not loaded yet.');
    return this.client.api.trainingTexts();
  }

  async ask(question: string, config: RagConfig, apiKey: string | null, onEvent: (e: RagEvent) => void): Promise<RagAnswer> {
    const failed = (reason: string): RagAnswer => ({ status: 'error', answer: '', partial: false, citations: [], invalidCitations: [], contexts: [], trace: [], reason, finishReason: null, usage: null, ms: 0 });
    if (!this.client || this.status !== 'ready') return failed('The knowledge base is not loaded yet.');
    try {
      return await this.client.api.ask(question, config, apiKey, this.loadedModels(), onEvent);
    } catch (e) {
      return failed((e as Error).message || String(e));
    }
  }

  cancelAsk(): void {
    this.client?.api.cancelAsk();
  }

  /** The α simulator's candidates of a query, from the search worker (rejects with the reason when it cannot). */
  async fusionCandidates(req: FusionRequest): Promise<FusionCandidates> {
    if (!this.client || this.status !== 'ready') throw new Error('The knowledge base is not loaded yet.');
    return this.client.api.fusionCandidates(req, this.loadedModels());
  }

  /** The Tune panel's session in the search worker, on the open knowledge base, with the loaded models' list (null until it is open). */
  tuner(): { api: TuneTabApi; loaded: LoadedModel[] } | null {
    return this.client && this.status === 'ready' ? { api: this.client.api, loaded: this.loadedModels() } : null;
  }

  /** Runs a query in the search worker; `onFirst` gets the fused results of a rerank mode before the final ones. */
  async search(req: SearchRequest, onFirst?: (first: SearchResponse) => void): Promise<SearchResponse> {
    if (!this.client || this.status !== 'ready') {
      return { status: 'error', reason: 'The knowledge base is not loaded yet.', hits: [], telemetry: null };
    }
    try {
      return await this.client.api.search(req, this.loadedModels(), onFirst ? Comlink.proxy(onFirst) : undefined);
    } catch (e) {
      return { status: 'error', reason: `Search failed: ${(e as Error).message}`, hits: [], telemetry: null };
    }
  }
}
