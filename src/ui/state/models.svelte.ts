/**
 * Models in the browser: what enabling them downloads and how long embedding takes, per-file download
 * progress, loading (cancellable), the dense index build, the model cache and the parity self-test. Owns the models
 * worker; connects it to the search worker through KbState (which reaches this as its `KbModels`). The settings it
 * loads with are AppSettingsState's: a save that changes the thread count or the host restarts or reconfigures the
 * worker (`applied`). Failures become notices of the feature that asked for
 * the model (NoticesState), cleared when a later load of the same model succeeds.
 */
import * as Comlink from 'comlink';
import { planRecovery, runtimeReason, wasmDtypeFor, type PlannedLoad } from '../../lib/models/device-fallback.ts';
import type { ModelDownload } from '../../lib/models/download-size.ts';
import { embedRate, type EmbedRate } from '../../lib/models/embed-rate.ts';
import { ortWasmPaths } from '../../lib/models/ort-files.ts';
import type { FileProgress, ModelSpec, ModelTask } from '../../lib/models/types.ts';
import type { CachedFile, GeneratorDownload, LoadedModel, ParityReport } from '../../../workers/models-api.ts';
import type { DenseInfo, LoadProgress } from '../../../workers/search-api.ts';
import { startModelsWorker, type ModelsClient } from '../clients/models-client.ts';
import type { AnswerScore, ScoreRequest } from '../../lib/eval/score/score-answer.ts';
import { threadCount, type Settings } from '../app/settings.ts';
import { isTrainedModelId } from '../../lib/models/trained-ids.ts';
import { DENSE_ON_KEY, KbEmbedderState } from './kb-embedder.svelte.ts';
import type { NoticeFeature } from '../app/notices.ts';
import type { AppSettingsState } from './app-settings.svelte.ts';
import type { KbModels, KbState } from './kb.svelte.ts';
import type { NoticesState } from './notices.svelte.ts';
import type { TrainedModelsState } from './trained-models.svelte.ts';

type TaskStatus = 'idle' | 'loading' | 'ready' | 'error';

/** Thrown into an enable flow that the user cancelled. */
class Cancelled extends Error {}

/** A promise that only ever rejects, when `cancel` is called (raced against the steps of an enable flow). */
function cancellation(): { promise: Promise<never>; cancel: () => void } {
  let cancel = () => {};
  const promise = new Promise<never>((_, reject) => { cancel = () => reject(new Cancelled('Cancelled.')); });
  promise.catch(() => {});
  return { promise, cancel };
}

export interface DownloadPlan {
  status: 'idle' | 'loading' | 'ready' | 'error';
  embedder: ModelDownload | null;
  crossEncoder: ModelDownload | null;
  /** Why the sizes are unknown (the host has no tree API, is unreachable…). */
  error: string | null;
}

/** What ModelsState is built from: the settings, the knowledge base it embeds, where failures go, the trained models. */
export interface ModelsDeps {
  settings: AppSettingsState;
  kb: KbState;
  notices: NoticesState;
  trained: TrainedModelsState;
  /** Called after the models worker recovered from a failed run (the app runs the failed search again). */
  recovered?: () => void;
}

export class ModelsState implements KbModels {
  /** Download progress per `model/file`. */
  files = $state.raw<Record<string, FileProgress>>({});
  status = $state<Record<ModelTask, TaskStatus>>({ embedder: 'idle', 'cross-encoder': 'idle', nli: 'idle' });
  /**
   * The models worker's loaded list as it last answered (the models session owns it): mode availability (KbState.modes,
   * the search worker's calls, the Benchmark tab's choices) and the NLI status are derived from it. Only the worker's
   * answer sets it (`refreshLoaded`), or a fresh worker, which has none loaded.
   */
  loaded = $state.raw<LoadedModel[]>([]);

  /** Also lists the cache again: a load may have downloaded files, and a listing asked of a replaced worker never answers. */
  private async refreshLoaded(): Promise<void> {
    this.loaded = await this.client.api.loaded();
    void this.refreshCache().catch(() => {});
  }
  /** Asks the models worker again what is loaded (the Benchmark's run may have loaded its dataset's own trained embedder). */
  syncLoaded(): Promise<void> {
    return this.refreshLoaded();
  }
  dense = $state<{ status: TaskStatus; progress: LoadProgress | null; info: DenseInfo | null }>({ status: 'idle', progress: null, info: null });
  /** What enabling the search models downloads (sizes from the host's file list). */
  plan = $state.raw<DownloadPlan>({ status: 'idle', embedder: null, crossEncoder: null, error: null });
  /** Embedding speed measured during the current dense build (null before its first batch). */
  rate = $state.raw<EmbedRate | null>(null);
  private embedStart: number | null = null;
  cached = $state.raw<CachedFile[]>([]);
  parity = $state.raw<ParityReport | null>(null);
  parityError = $state<string | null>(null);
  readonly isolated = typeof crossOriginIsolated !== 'undefined' && crossOriginIsolated;
  /** Whether the isolation comes from coi-serviceworker (index.html) rather than the host's own headers. */
  readonly isolatedByServiceWorker = this.isolated && (typeof navigator !== 'undefined' && navigator.serviceWorker?.controller?.scriptURL.endsWith('/coi-serviceworker.js') === true);
  readonly logicalCores = typeof navigator !== 'undefined' && navigator.hardwareConcurrency > 0 ? navigator.hardwareConcurrency : 1;
  /** CPU threads the models worker was started with (the runtime fixes them at start). */
  threads = $state(1);
  private client: ModelsClient;
  /** Which embedder the open knowledge base uses (its own trained one, Settings' pretrained one, a pick, none). */
  readonly embedders: KbEmbedderState;

  private readonly kb: KbState;
  private readonly notices: NoticesState;
  private readonly appSettings: AppSettingsState;
  private readonly recovered: () => void;

  constructor({ settings, kb, notices, trained, recovered = () => {} }: ModelsDeps) {
    this.appSettings = settings;
    this.kb = kb;
    this.notices = notices;
    this.recovered = recovered;
    this.defaultsReady = settings.defaultsReady;
    this.client = this.start();
    // The search worker sees an embedder only when it is this knowledge base's (no other corpus's model answers here).
    this.embedders = new KbEmbedderState(kb, this, settings, trained);
    this.onRestart(() => kb.reconnectModels());
    settings.onSave((next, previous) => this.applied(next, previous));
    // Another knowledge base replaced the first one: dense search stays on with its own embedder (KbEmbedderState.choice).
    kb.onOpen((_, first) => { if (!first) void this.embedders.afterSwitch(); });
    if (typeof navigator !== 'undefined' && navigator.storage?.persist) navigator.storage.persist().catch(() => {});
  }

  /** The settings models load with (AppSettingsState owns them). */
  private get settings(): Settings { return this.appSettings.value; }

  /** KbModels: the loaded list the open knowledge base may use, and why its dense modes are off (KbEmbedderState). */
  get usable(): LoadedModel[] { return this.embedders.usable; }
  get denseNote(): string | null { return this.embedders.denseNote; }

  private modelSettings() {
    return { remoteHost: this.settings.remoteHost, wasmPaths: ortWasmPaths(document.baseURI), numThreads: threadCount(this.settings.threads, this.logicalCores, this.isolated) };
  }

  private start(): ModelsClient {
    const client = startModelsWorker();
    const settings = this.modelSettings();
    this.threads = settings.numThreads;
    client.api.configure(settings);
    void client.api.onBroken(Comlink.proxy((reason: string) => { if (this.client === client) void this.recover(reason); }));
    // The search worker's runtime (in-browser LLM) takes the thread count only if it has not started yet.
    this.kb.configureModels(settings);
    return client;
  }

  private readonly restartListeners: (() => unknown)[] = [];

  /** Runs `reconnect` whenever the models worker is replaced (other workers holding a port to it need a new one). */
  onRestart(reconnect: () => unknown): void {
    this.restartListeners.push(reconnect);
  }

  /** A fresh models worker (after a failure that broke the runtime), reconnected to the search and bench workers. */
  private async restart(): Promise<void> {
    this.client.terminate();
    this.resetPlan(); // partly downloaded files may be cached now
    this.client = this.start();
    this.loaded = [];
    for (const reconnect of this.restartListeners) await reconnect();
  }

  /** Settings were saved (AppSettingsState.save): a new thread count restarts the worker, a new host reconfigures it. */
  private applied(next: Settings, previous: Settings): void {
    const hostChanged = next.remoteHost !== previous.remoteHost;
    const modelsChanged = JSON.stringify([next.embedder, next.crossEncoder]) !== JSON.stringify([previous.embedder, previous.crossEncoder]);
    if (threadCount(next.threads, this.logicalCores, this.isolated) !== this.threads) {
      void this.restartWithThreads();
    } else if (hostChanged) {
      const settings = this.modelSettings();
      this.client.api.configure(settings);
      this.kb.configureModels(settings);
    }
    if (hostChanged || modelsChanged) this.resetPlan();
  }

  /** Forgets the download plan; an answer still on its way for the old one is dropped (`planToken`). */
  private resetPlan(): void {
    this.planToken++;
    this.plan = { status: 'idle', embedder: null, crossEncoder: null, error: null };
  }

  private planToken = 0;

  /** Sizes what enabling the embedder and cross-encoder in the settings downloads (the host's tree API). */
  async refreshPlan(): Promise<void> {
    if (this.plan.status === 'loading') return;
    const token = ++this.planToken;
    this.plan = { ...this.plan, status: 'loading' };
    await this.defaultsReady;
    const client = this.client;
    try {
      const [embedder, crossEncoder] = await Promise.all([
        client.api.downloadPlan({ ...(this.embedders.choice.spec ?? this.settings.embedder) }), client.api.downloadPlan({ ...this.settings.crossEncoder }),
      ]);
      if (token === this.planToken) this.plan = { status: 'ready', embedder, crossEncoder, error: null };
    } catch (e) {
      if (token === this.planToken) this.plan = { status: 'error', embedder: null, crossEncoder: null, error: (e as Error).message || String(e) };
    }
  }

  /** What the in-browser LLM `model` downloads on this device, from the host's file list (nothing is downloaded). */
  async generatorPlan(model: string): Promise<GeneratorDownload> {
    await this.defaultsReady;
    return this.client.api.generatorDownloadPlan(model);
  }

  /** Scores one answer in the models worker (its loaded models; the judge called from there with `apiKey`). */
  scoreAnswer(request: ScoreRequest, apiKey: string | null): Promise<AnswerScore> {
    return this.client.api.score(request, apiKey);
  }

  /** Pending enable flows are rejected with Cancelled when the user cancels (see `cancel`). */
  private cancelled = cancellation();
  private generation = 0;

  private guard<T>(p: Promise<T>): Promise<T> {
    return Promise.race([p, this.cancelled.promise]);
  }

  /**
   * Stops downloading and embedding: the models worker is terminated and replaced by a fresh one (the search
   * worker drops the dense build waiting on the old one), nothing is enabled, BM25 search keeps working.
   */
  async cancel(): Promise<void> {
    this.generation++;
    const old = this.cancelled;
    this.cancelled = cancellation();
    old.cancel();
    for (const task of ['embedder', 'cross-encoder', 'nli'] as const) if (this.status[task] === 'loading') this.status[task] = 'idle';
    this.dense = { status: 'idle', progress: null, info: null };
    this.files = {};
    this.rate = null;
    try { localStorage.removeItem(DENSE_ON_KEY); } catch { /* nothing kept */ }
    await this.restart();
    this.notices.raise('models', 'cancelled', 'info', 'Loading the models was cancelled. BM25 search keeps working; enable the models again at any time.');
  }

  /**
   * ONNX Runtime fixes its threads when it starts: a new models worker, with the models that were loaded loaded
   * again as they were (same ids, dtypes and devices) and the dense and rerank modes enabled again.
   */
  private restartWithThreads(): Promise<void> {
    return this.reloadInFreshWorker(this.loaded.map((m) => ({ task: m.task, spec: m.spec, fallback: m.fallback })));
  }

  private recovering = false;

  /**
   * A run failed in the models worker, which cannot run models any more (transformers.js): a fresh worker loads the
   * same models, WebGPU ones on WASM (planRecovery), and the modes come back; the UI shows why (`fallback`).
   */
  async recover(reason: string): Promise<void> {
    if (this.recovering) return;
    this.recovering = true;
    try {
      await this.reloadInFreshWorker(planRecovery(this.loaded, reason));
    } finally {
      this.recovering = false;
    }
    this.recovered();
  }

  private async reloadInFreshWorker(plan: readonly PlannedLoad[]): Promise<void> {
    await this.restart();
    const get = (task: ModelTask) => plan.find((p) => p.task === task);
    const embedder = get('embedder');
    const crossEncoder = get('cross-encoder');
    const nli = get('nli');
    if (embedder) await this.enableDense(embedder.spec, embedder.fallback);
    if (crossEncoder) await this.enableReranker(crossEncoder.spec, crossEncoder.fallback);
    if (nli) await this.loadTask('nli', nli.spec, nli.fallback);
  }

  private onFile = (p: FileProgress) => {
    this.files = { ...this.files, [`${p.model}/${p.file}`]: p };
  };

  /** A new port to the models worker (for another worker to call it directly). */
  port(): MessagePort {
    return this.client.port();
  }

  /** Resolves once first-visit defaults know the device (AppSettingsState). */
  private readonly defaultsReady: Promise<void>;

  /**
   * Loads a task's model: the one in the settings unless `spec` is given (`fallback`: why it differs). A model that
   * cannot start on WebGPU (no adapter, an unsupported dtype, a failed session) is loaded on WASM instead
   * (`wasmDtypeFor`), and the UI says why.
   */
  async loadTask(task: ModelTask, given?: ModelSpec, fallback: string | null = null, raisedBy: NoticeFeature = task === 'nli' ? 'benchmark' : 'models', level: 'error' | 'warn' = 'error'): Promise<LoadedModel | null> {
    await this.defaultsReady;
    const spec = given ?? (task === 'embedder' ? this.settings.embedder : task === 'cross-encoder' ? this.settings.crossEncoder : this.settings.nli);
    this.status[task] = 'loading';
    this.notices.clear(raisedBy, 'cancelled');
    try {
      const info = await this.guard(this.client.api.load(task, { ...spec }, Comlink.proxy(this.onFile), fallback));
      this.status[task] = 'ready';
      this.notices.clear(raisedBy, task);
      await this.refreshLoaded();
      return info;
    } catch (e) {
      if (e instanceof Cancelled) return null;
      const message = (e as Error).message || String(e);
      if (await this.client.api.needsRestart().catch(() => true)) await this.restart();
      if (spec.device === 'webgpu') {
        const dtype = wasmDtypeFor(spec.dtype);
        return this.loadTask(task, { ...spec, device: 'wasm', dtype }, `WebGPU could not start this model (${runtimeReason(message)}); using WASM ${dtype}.`, raisedBy, level);
      }
      this.status[task] = 'error';
      const text = task === 'nli' ? message : level === 'warn' ? `Reranking is off: ${message} The other modes keep working.` : `${message} BM25 search keeps working.`;
      this.notices.raise(raisedBy, task, level, text);
      return null;
    }
  }

  private onDenseProgress = (p: LoadProgress) => {
    this.dense.progress = p;
    if (p.stage === 'embed-cache') this.embedStart = performance.now();
    else if (p.stage === 'embed' && this.embedStart !== null) this.rate = embedRate(this.embedStart, performance.now(), p.done, p.total);
  };

  /**
   * Loads the open knowledge base's embedder (`choice`, unless `spec` is given), then embeds the knowledge base (or
   * reads cached vectors): dense modes go live. With none chosen, says why and loads nothing.
   */
  async enableDense(spec: ModelSpec | null = this.embedders.choice.spec, fallback: string | null = null): Promise<void> {
    if (!spec) {
      this.notices.raise('models', 'dense', 'info', this.embedders.choice.note ?? 'This knowledge base has no embedder: BM25 search keeps working.');
      return;
    }
    if (!(await this.loadTask('embedder', spec, fallback))) return;
    await this.buildDense();
  }

  denseOff(): void {
    this.dense = { status: 'idle', progress: null, info: null };
  }

  /** Embeds the open knowledge base with the loaded embedder, only when it is this knowledge base's choice (the one gate). */
  async buildDense(): Promise<void> {
    if (!this.embedders.loadedIsChoice) {
      this.dense = { status: 'idle', progress: null, info: null };
      return;
    }
    this.dense = { status: 'loading', progress: null, info: null };
    this.rate = null;
    this.embedStart = null;
    try {
      const info = await this.guard(this.kb.enableDense(this.onDenseProgress));
      this.dense = { status: 'ready', progress: null, info };
      this.notices.clear('models', 'dense');
      try {
        if (isTrainedModelId(info.model.id)) localStorage.setItem(DENSE_ON_KEY, '1');
      } catch { /* not kept: loaded again by hand after a reload */ }
    } catch (e) {
      if (e instanceof Cancelled) return;
      this.dense = { status: 'error', progress: null, info: null };
      this.notices.raise('models', 'dense', 'error', `Dense index failed: ${(e as Error).message || String(e)} BM25 search keeps working.`);
    }
  }

  /** Loads the cross-encoder: the rerank modes are live once it is in the loaded list (nothing else to enable). */
  async enableReranker(spec?: ModelSpec, fallback: string | null = null): Promise<void> {
    await this.loadTask('cross-encoder', spec, fallback);
  }

  /** Whether the combined Enable also loads the cross-encoder: not when it is loaded, nor after it failed (no retry). */
  get offersReranker(): boolean {
    return !this.loaded.some((m) => m.task === 'cross-encoder') && this.status['cross-encoder'] !== 'error' && this.status['cross-encoder'] !== 'loading';
  }

  /**
   * The combined Enable: dense search with this knowledge base's embedder, then the cross-encoder unless it is
   * loaded or failed before (`offersReranker`); a cross-encoder that cannot be had now is a quiet warning, the dense
   * part stands.
   */
  async enableAll(): Promise<void> {
    const generation = this.generation;
    const reranker = this.offersReranker;
    await this.enableDense();
    if (generation === this.generation && reranker) await this.loadTask('cross-encoder', undefined, null, 'models', 'warn');
  }

  async refreshCache(): Promise<void> {
    this.cached = await this.client.api.cachedFiles();
  }

  async deleteModel(modelId: string): Promise<void> {
    await this.client.api.deleteCachedModel(modelId);
    await this.refreshLoaded(); // lists the cache again too
  }

  async runParity(task: ModelTask): Promise<void> {
    this.parity = null;
    this.parityError = null;
    try {
      this.parity = await this.client.api.parity(task);
    } catch (e) {
      this.parityError = (e as Error).message;
    }
  }
}
