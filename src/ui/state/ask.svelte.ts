/** The Ask tab: the question, the pipeline config (mirrored in the URL, never a key), the streamed answer and trace. */
import * as Comlink from 'comlink';
import type { RagAnswer } from '../../lib/rag/answer.ts';
import { cloneConfig, DEFAULT_RAG_CONFIG, fromUrlParams, parseRagConfig, toUrlParams, type RagConfig } from '../../lib/rag/config.ts';
import { batchDeltas } from '../../lib/rag/delta-batch.ts';
import { ALL_PROVIDER_IDS, BROWSER_PROVIDER, PROVIDERS } from '../../lib/llm/registry.ts';
import type { ProviderId } from '../../lib/llm/types.ts';
import type { RagEvent, TraceStep } from '../../lib/rag/trace.ts';
import { writeOwnedParams } from '../app/url.ts';
import { fullyCached, type BrowserPlanState } from '../ask/browser-model-view.ts';
import type { GeneratorDownload } from '../../../workers/models-api.ts';
import type { KbState } from './kb.svelte.ts';
import type { KeyForRequest, KeysState } from './keys.svelte.ts';

/** Ask's own URL parameters: the question, and the config's parameters with an `a_` prefix. */
const PREFIX = 'a_';
export const MAX_QUESTION_CHARS = 4000;

export class AskState {
  question = $state('');
  config = $state<RagConfig>(cloneConfig(DEFAULT_RAG_CONFIG));
  warnings = $state<string[]>([]);
  running = $state(false);
  /** The answer as it streams (the agent may start a second one). */
  streamed = $state('');
  steps = $state.raw<TraceStep[]>([]);
  currentStep = $state<string | null>(null);
  result = $state.raw<RagAnswer | null>(null);
  /** The question `result` answers (the field may have changed since). */
  asked = $state('');
  configError = $state<string | null>(null);
  /** What the in-browser model in the Model field downloads (read from the model host; nothing is downloaded). */
  browserPlan = $state.raw<BrowserPlanState>({ status: 'idle' });
  /** The in-browser models the user started in this tab: a download starts only on their explicit Start. */
  private started = $state.raw<ReadonlySet<string>>(new Set());
  /** The in-browser model the Model field names (its default when the field is empty). */
  readonly browserModel = $derived(this.config.llm.model.trim() || BROWSER_PROVIDER.defaultModel);
  /** The in-browser model is picked but not started (and not in the cache): Ask waits for its Start. */
  readonly browserNeedsStart = $derived(
    this.config.llm.provider === 'browser' && !this.started.has(this.browserModel) && !fullyCached(this.browserPlan, this.browserModel),
  );
  /** The base URL a link set, until the user types one or confirms sending a key there. */
  private linkBaseUrl = $state<string | null>(null);

  /** `planBrowserModel`: sizes an in-browser model's download (ModelsState.generatorPlan, in the models worker). */
  constructor(private readonly kb: KbState, private readonly keys: KeysState, private readonly planBrowserModel: (model: string) => Promise<GeneratorDownload>) {}

  /** Puts a question in the field (a RAGBench row opened in Ask: AskScoreState.openRagbench). */
  setQuestion(question: string): void {
    this.question = question;
  }

  loadFromUrl(search: string): void {
    const p = new URLSearchParams(search);
    this.question = (p.get('aq') ?? '').slice(0, MAX_QUESTION_CHARS);
    const own = new URLSearchParams();
    for (const [k, v] of p) if (k.startsWith(PREFIX)) own.append(k.slice(PREFIX.length), v);
    const { config, warnings } = fromUrlParams(own);
    this.config = config;
    this.warnings = warnings;
    this.linkBaseUrl = config.llm.baseUrl;
  }

  /**
   * The user picked another provider: a model name of one provider rarely exists at another (the new one's first
   * suggestion is taken), and the errors of the old one's run or key go with it (a failed answer, a refused key).
   */
  setProvider(raw: string): void {
    if (!(ALL_PROVIDER_IDS as readonly string[]).includes(raw)) return;
    const id = raw as ProviderId;
    if (id === this.config.llm.provider) return;
    this.config.llm.provider = id;
    const suggestions = id === 'browser' ? BROWSER_PROVIDER.models : PROVIDERS[id].models;
    if (!suggestions.includes(this.config.llm.model)) this.config.llm.model = suggestions[0] ?? '';
    if (id === 'browser') this.config.llm.baseUrl = null;
    this.configError = null;
    if (!this.running && this.result?.status === 'error') this.result = null;
  }

  /** Reads what `model` would download (once per model; a newer model's answer wins). */
  async refreshBrowserPlan(model: string = this.browserModel): Promise<void> {
    const p = this.browserPlan;
    if ((p.status !== 'idle' && p.model === model && p.status !== 'error')) return;
    this.browserPlan = { status: 'loading', model };
    try {
      const plan = await this.planBrowserModel(model);
      if (this.browserModel === model) this.browserPlan = { status: 'ready', model, plan };
    } catch (e) {
      if (this.browserModel === model) this.browserPlan = { status: 'error', model, error: (e as Error).message || String(e) };
    }
  }

  /** The user's explicit Start of the in-browser model: it may download now, and the question is asked. */
  startBrowserModel(): Promise<void> {
    this.started = new Set([...this.started, this.browserModel]);
    return this.ask();
  }

  /** The user typed a base URL: it is theirs now (a key still goes only where it was entered for, or after asking). */
  setBaseUrl(raw: string): void {
    this.config.llm.baseUrl = raw.trim() || null;
    this.linkBaseUrl = null;
  }

  /** The grader model field: blank means the answering model grades (null in the config). */
  get graderModel(): string {
    return this.config.grading.model ?? '';
  }

  set graderModel(raw: string) {
    this.config.grading.model = raw.trim() || null;
  }

  /** Whether the base URL is the one a link set and the user has not confirmed. */
  get baseUrlFromLink(): boolean {
    return this.linkBaseUrl !== null && this.config.llm.baseUrl === this.linkBaseUrl;
  }

  /** The endpoint a key typed now is entered for: the user's base URL, the provider's default while it came from a link. */
  get keyEndpoint(): string | null {
    return this.baseUrlFromLink ? null : this.config.llm.baseUrl;
  }

  /** Retrieval settings adopted from a tune (the Tune panel): the pipeline's retrieval takes them, and the link. */
  adoptRetrieval(settings: Partial<RagConfig['retrieval']>): void {
    this.config = { ...this.config, retrieval: { ...this.config.retrieval, ...settings } };
    this.writeUrl();
  }

  writeUrl(): void {
    const out = new URLSearchParams();
    if (this.question) out.set('aq', this.question);
    for (const [k, v] of toUrlParams($state.snapshot(this.config) as RagConfig)) out.set(PREFIX + k, v);
    writeOwnedParams((k) => k === 'aq' || k.startsWith(PREFIX), out);
  }

  private runId = 0;

  /**
   * Events come over their own channel and can trail the result: only the running run's events count. Deltas are
   * applied once per animation frame (one render per frame however fast they come).
   */
  private eventsFor(id: number) {
    return batchDeltas((e: RagEvent) => {
      if (id !== this.runId || !this.running) return;
      if (e.type === 'generation-start') this.streamed = '';
      else if (e.type === 'delta') this.streamed += e.delta; // generateAnswer already stops at MAX_ANSWER_CHARS
      else if (e.type === 'step-start') this.currentStep = e.step;
      else if (e.type === 'step-end') {
        this.steps = [...this.steps, e.step];
        if (this.currentStep === e.step.step) this.currentStep = null;
      }
    }, (flush) => requestAnimationFrame(flush));
  }

  async ask(): Promise<void> {
    const parsed = parseRagConfig($state.snapshot(this.config));
    if (!parsed.ok) { this.configError = parsed.message; return; }
    if (this.browserNeedsStart) { this.configError = 'Start the in-browser model first (below the provider): it downloads the model.'; return; }
    this.configError = null;
    const llm = parsed.config.llm;
    const key = await this.requestKey(llm.provider, llm.baseUrl);
    if (!key.ok) { this.configError = key.message; return; }
    const id = ++this.runId;
    this.running = true;
    this.streamed = '';
    this.steps = [];
    this.result = null;
    this.asked = this.question.slice(0, MAX_QUESTION_CHARS);
    try {
      this.result = await this.kb.ask(this.asked, parsed.config, key.key, Comlink.proxy(this.eventsFor(id)));
    } finally {
      this.running = false;
      this.currentStep = null;
    }
  }

  /**
   * The key for a request to the Ask tab's endpoint (the answer, the judge that scores it): the user is asked first
   * where key-binding.ts says so, and a confirmed base URL from a link is the user's from then on.
   */
  async requestKey(provider: ProviderId, baseUrl: string | null): Promise<KeyForRequest> {
    const key = await this.keys.keyFor(provider, baseUrl, this.baseUrlFromLink, 'ask');
    if (key.ok && key.confirmed) this.linkBaseUrl = null;
    return key;
  }

  stop(): void {
    this.kb.cancelAsk();
  }
}
