/**
 * The Benchmark tab's retrieval benchmark (BEIR): the one owner of its source, modes, progress and result.
 * It runs in its OWN bench worker (not BenchState's): the worker keeps one AbortController and the last run's
 * knowledge base for the α simulator, so a RAGBench run and a retrieval run neither cancel each other nor share
 * memory; the worker gets its own models-worker port, reconnected when the models worker restarts.
 */
import type { HubAccess } from '../../lib/hub/access.ts';
import * as Comlink from 'comlink';
import type { FusionCandidates } from '../../lib/retrieval/alpha-sim.ts';
import type { RetrievalMode } from '../../lib/retrieval/modes.ts';
import type { BeirFilesReport, RetrievalBenchConfig, RetrievalBenchProgress, RetrievalBenchResult, RetrievalSource } from '../../../workers/bench-api.ts';
import { startBenchWorker } from '../clients/bench-client.ts';
import { pickedFromList } from '../build/build-files.ts';
import type { RetrievalProtocol, RunOverrides } from '../../lib/eval/retrieval/retrieval-session.ts';
import {
  changedFields, embedderChoices, kbChoices, modeChoices, parseMaxQueries, presetFields, runnableModes, runOverrides,
  type EmbedderChoice, type KbChoice, type ModeChoice, type RunField, type RunFields,
} from '../bench/retrieval-bench-view.ts';
import type { CorpusEmbedderState } from './corpus-embedder.svelte.ts';
import type { LocalKbsState } from './local-kbs.svelte.ts';
import type { KbState } from './kb.svelte.ts';
import type { ModelsState } from './models.svelte.ts';

export type RetrievalSourceKind = RetrievalSource['kind'];

export class RetrievalBenchState {
  /** Which benchmark the Benchmark tab shows (RAGBench is BenchState's). */
  view = $state<'ragbench' | 'retrieval' | 'tune'>('ragbench');
  sourceKind = $state<RetrievalSourceKind>('hub-dataset');
  /** Hub dataset id (owner/name), BEIR layout. */
  dataset = $state('BeIR/scifact');
  /** The chosen knowledge base's entry id (kbChoices). */
  kbId = $state('');
  /** What the picked folder holds (or why it was refused). */
  folder = $state.raw<BeirFilesReport | null>(null);
  loadingFolder = $state(false);
  modes = $state<RetrievalMode[]>(['sparse']);
  /** The max-queries field as typed (blank: all). */
  maxQueries = $state('');
  seed = $state(0);
  split = $state('test');
  /** Per-query predictors for the analysis (H1); off makes a run a little faster. */
  predictors = $state(true);
  /** The run's protocol; `fields` start as its preset (setProtocol) and the user edits them. Not persisted. */
  protocol = $state<RetrievalProtocol>('default');
  fields = $state<RunFields>(presetFields('default'));
  running = $state(false);
  progress = $state.raw<RetrievalBenchProgress | null>(null);
  result = $state.raw<RetrievalBenchResult | null>(null);
  error = $state<string | null>(null);
  /** The embedder: 'auto' (never one trained on another corpus) or a model id the user picked (run-embedder.ts). */
  embedder = $state('auto');
  /** The dataset a corpus embedder is being (or was last) trained on here: its model id's knowledge-base id and name. */
  training = $state.raw<{ kbId: string; dataset: string; unit: 'documents' | 'chunks' } | null>(null);
  /** Started on first use (a folder pick or a run), not when the page opens. */
  private started: ReturnType<typeof startBenchWorker> | null = null;

  /** `access`: the Hub URL and token from Settings and HubTokenState (never from a link). */
  constructor(private readonly models: ModelsState, private readonly kb: KbState, private readonly locals: LocalKbsState, readonly embedders: CorpusEmbedderState,
    readonly access: () => HubAccess) {
    models.onRestart(() => { if (this.started) void this.attach(this.started); });
  }

  /** The link's `bench=retrieval` shows this part of the Benchmark tab. */
  loadFromUrl(search: string): void {
    const bench = new URLSearchParams(search).get('bench');
    if (bench === 'retrieval' || bench === 'tune') this.view = bench;
  }

  private attach(c: ReturnType<typeof startBenchWorker>): Promise<void> {
    const port = this.models.port();
    return c.api.attachModels(Comlink.transfer(port, [port]));
  }

  private get client(): ReturnType<typeof startBenchWorker> {
    if (!this.started) {
      this.started = startBenchWorker();
      void this.attach(this.started);
    }
    return this.started;
  }

  /** Every mode with its availability from the loaded models (ModelsState owns readiness). */
  get modeChoices(): ModeChoice[] {
    return modeChoices(this.models.loaded, this.embedders.trained.length);
  }

  /** Automatic, the loaded pretrained embedder, and each corpus-trained model with what it was trained on. */
  get embedderChoices(): EmbedderChoice[] {
    return embedderChoices(this.models.loaded, this.embedders.trained);
  }

  get kbChoices(): KbChoice[] {
    return kbChoices(this.locals.list, this.kb.entries);
  }

  /** Chooses a protocol: every settings field goes back to its preset. */
  setProtocol(protocol: RetrievalProtocol): void {
    this.protocol = protocol;
    this.fields = presetFields(protocol);
  }

  /** Whether the source is a dataset (chunking and BM25 apply) rather than a knowledge base (which fixes them). */
  get datasetSource(): boolean {
    return this.sourceKind !== 'kb';
  }

  /** The fields that differ from the protocol's preset. */
  get changed(): RunField[] {
    return changedFields(this.protocol, this.fields);
  }

  /** The fields as the run's overrides, or the core's message about the first bad one (Run is disabled then). */
  get settingsCheck(): { ok: true; overrides: RunOverrides } | { ok: false; message: string } {
    return runOverrides(this.protocol, this.fields, this.datasetSource);
  }

  toggleMode(mode: RetrievalMode, on: boolean): void {
    this.modes = on ? [...new Set([...this.modes, mode])] : this.modes.filter((m) => m !== mode);
  }

  /** A `webkitdirectory` pick: parsed in the worker (documents, queries, judged queries, or the error). */
  async pickFolder(files: FileList | readonly File[] | null): Promise<void> {
    const picked = pickedFromList(files);
    if (picked.length === 0) return;
    this.loadingFolder = true;
    this.error = null;
    try {
      this.folder = await this.client.api.loadBeirFiles(picked);
      if (this.folder.error === null && !this.folder.splits.includes(this.split)) this.split = this.folder.splits[0] ?? 'test';
    } catch (e) {
      this.folder = { documents: 0, queries: 0, judged: 0, splits: [], issues: [], error: (e as Error).message || String(e) };
    } finally {
      this.loadingFolder = false;
    }
  }

  /** The run's config, or what is missing in words. */
  config(): { ok: true; config: RetrievalBenchConfig } | { ok: false; message: string } {
    const modes = runnableModes(this.modes, this.modeChoices);
    if (modes.length === 0) return { ok: false, message: 'Choose at least one mode that can run (the disabled ones say what to load).' };
    return this.sourceConfig(modes);
  }

  /** The config with these modes: the source, settings and sample checked. */
  private sourceConfig(modes: RetrievalMode[]): { ok: true; config: RetrievalBenchConfig } | { ok: false; message: string } {
    const max = parseMaxQueries(this.maxQueries);
    if (!max.ok) return max;
    const settings = this.settingsCheck;
    if (!settings.ok) return settings;
    if (!Number.isInteger(this.seed)) return { ok: false, message: 'The seed must be a whole number.' };
    const { hubUrl } = this.access();
    let source: RetrievalSource;
    if (this.sourceKind === 'hub-dataset') {
      if (!this.dataset.trim()) return { ok: false, message: 'Type a Hub dataset id (owner/name, e.g. BeIR/scifact).' };
      source = { kind: 'hub-dataset', dataset: this.dataset.trim(), revision: null, hubUrl };
    } else if (this.sourceKind === 'kb') {
      const c = this.kbChoices.find((x) => x.entry.id === this.kbId && !x.disabled);
      if (!c) return { ok: false, message: 'Choose a knowledge base that carries queries and qrels.' };
      const ref = c.entry.ref;
      if (ref.kind !== 'hub' && ref.kind !== 'local') return { ok: false, message: 'Choose a knowledge base that carries queries and qrels.' };
      source = { kind: 'kb', ref, hubUrl };
    } else {
      if (!this.folder || this.folder.error !== null) return { ok: false, message: 'Pick a BEIR folder (corpus.jsonl, queries.jsonl, qrels/<split>.tsv) first.' };
      source = { kind: 'files' };
    }
    return { ok: true, config: { source, modes, split: this.split.trim() || 'test', maxQueries: max.value, seed: this.seed, predictors: this.predictors,
      protocol: this.protocol, overrides: settings.overrides, embedder: this.embedder === 'auto' ? 'auto' : { id: this.embedder } } };
  }

  /** The token goes to the worker only for the Hub of Settings (the worker sends it nowhere else). */
  private tokenFor(c: RetrievalBenchConfig): string | null {
    return c.source.kind === 'files' || (c.source.kind === 'kb' && c.source.ref.kind === 'local') ? null : this.access().token;
  }

  async run(): Promise<void> {
    const c = this.config();
    if (!c.ok) { this.error = c.message; return; }
    this.error = null;
    this.running = true;
    this.progress = null;
    // The previous run's results go: what shows under the progress bar is this run's.
    this.result = null;
    try {
      this.result = await this.client.api.runRetrieval(c.config, this.tokenFor(c.config), Comlink.proxy((p: RetrievalBenchProgress) => { this.progress = p; }));
    } catch (e) {
      this.error = (e as Error).message || String(e);
    } finally {
      this.running = false;
      // The run may have loaded its dataset's own trained embedder in the models worker.
      void this.models.syncLoaded().catch(() => {});
    }
  }

  /**
   * Trains a corpus embedder on this dataset (its training texts from the bench worker: the documents, or the chunks
   * the protocol sets) in a build worker (CorpusEmbedderState), without selecting it in Settings: a run on this
   * dataset then finds it by its corpus hash.
   */
  async trainEmbedder(): Promise<void> {
    const c = this.sourceConfig(['sparse']);
    if (!c.ok) { this.error = c.message; return; }
    this.error = null;
    this.running = true;
    this.progress = null;
    let texts: { texts: string[]; dataset: string; kbId: string; unit: 'documents' | 'chunks' };
    try {
      texts = await this.client.api.retrievalTrainingTexts(c.config, this.tokenFor(c.config), Comlink.proxy((p: RetrievalBenchProgress) => { this.progress = p; }));
    } catch (e) {
      this.error = (e as Error).message || String(e);
      return;
    } finally {
      this.running = false;
    }
    this.training = { kbId: texts.kbId, dataset: texts.dataset, unit: texts.unit };
    this.embedder = 'auto';
    await this.embedders.train({ kbId: texts.kbId, kbTitle: texts.dataset, texts: async () => texts.texts, select: false });
  }

  cancel(): void {
    if (this.started) void this.started.api.cancel();
  }

  /** The α simulator's real-query loader: the last run's candidates of one query (the worker embeds the query). */
  readonly loadCandidates = (queryId: string): Promise<FusionCandidates> => this.client.api.fusionCandidates(queryId);
}
