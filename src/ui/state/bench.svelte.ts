/** The Benchmark tab: run settings (in the URL), progress with ETA and row counts, the result, cancel and resume. */
import * as Comlink from 'comlink';
import { RAGBENCH_SUBSETS } from '../../lib/data/ragbench.ts';
import { benchLink, readBenchLink } from '../bench/bench-link.ts';
import type { BenchConfig, BenchProgress, BenchResult, JudgeEstimate, LocalFileReport, RestoredFiles } from '../../../workers/bench-api.ts';
import { finishedProgress, startProgress } from '../bench/bench-progress.ts';
import { startBenchWorker } from '../clients/bench-client.ts';
import { writeOwnedParams } from '../app/url.ts';
import type { RagConfig } from '../../lib/rag/config.ts';
import type { KeysState } from './keys.svelte.ts';
import { DEFAULT_EVALUATOR, EVALUATORS, type EvaluatorDef, type EvaluatorId } from '../../lib/eval/score/evaluators.ts';
import { EVALUATOR_CHOICES, evaluatorConfig } from '../bench/bench-evaluators.ts';
import type { AppSettingsState } from './app-settings.svelte.ts';
import type { ModelsState } from './models.svelte.ts';
import { DEFAULT_PROVIDER, DEFAULT_PROVIDER_MODEL } from '../../lib/llm/provider-meta.ts';

export class BenchState {
  mode = $state<'validate' | 'pipeline'>('validate');
  /** Nothing by default: a subset needs a local file or the Hub, and the user picks which (a picked file selects its subset). */
  subsets = $state<string[]>([]);
  /** The user chose subsets (ticked, unticked or by link): remembered files restored later do not change the choice. */
  private subsetsChosen = false;
  n = $state<number | null>(20);
  seed = $state(0);
  evaluator = $state<EvaluatorId>(DEFAULT_EVALUATOR);
  /** The chosen evaluator's registry entry: what it needs and allows (an NLI model, repeats, an estimate). */
  get evaluatorDef(): EvaluatorDef {
    return EVALUATORS[this.evaluator];
  }
  /** Validate mode with an evaluator that calls an LLM judge (the LLM judge, RAGAS): it needs provider, model and key. */
  get judged(): boolean {
    return this.mode === 'validate' && EVALUATOR_CHOICES[this.evaluator].judge;
  }
  /** Pipeline mode with an evaluator that calls an LLM judge: the judge is the answering model (its key the Ask tab's). */
  get answererJudges(): boolean {
    return this.mode === 'pipeline' && EVALUATOR_CHOICES[this.evaluator].judge;
  }
  /** `loadNli` is running (the NLI model, then the cross-encoder). */
  private loadingNli = $state(false);
  /** Derived from the models worker's loaded list (ModelsState), the one owner of model readiness. */
  get nliStatus(): 'idle' | 'loading' | 'ready' | 'error' {
    if (this.loadingNli) return 'loading';
    if (this.models.loaded.some((m) => m.task === 'nli')) return 'ready';
    return this.models.status.nli === 'error' ? 'error' : 'idle';
  }
  judge = $state<NonNullable<BenchConfig['judge']>>({ provider: DEFAULT_PROVIDER, baseUrl: null, model: DEFAULT_PROVIDER_MODEL, repeats: 1, rpm: null, tpm: null });
  estimate = $state.raw<JudgeEstimate | null>(null);
  running = $state(false);
  progress = $state.raw<BenchProgress | null>(null);
  result = $state.raw<BenchResult | null>(null);
  error = $state<string | null>(null);
  /** The judge base URL a link set, until the user types one or confirms sending a key there. */
  private linkBaseUrl = $state<string | null>(null);
  /** What the link held that could not be used as given (repeated or unknown subsets). */
  linkWarnings = $state<string[]>([]);
  /** Local files loaded into the worker, the last one per subset (a refused file keeps its error). */
  localFiles = $state.raw<LocalFileReport[]>([]);
  loadingFiles = $state(false);
  /** Reading back the files remembered from the last visit (Run waits for it). */
  restoring = $state(true);
  /** Files of the last visit that were too large to remember: they must be picked again. */
  forgotten = $state.raw<RestoredFiles['forgotten']>([]);
  /** Remembered files that could not be read back, one message each. */
  restoreProblems = $state.raw<string[]>([]);
  private client = startBenchWorker();

  /** Subsets from local files (they replace the Hub for that subset). */
  get localSubsets(): string[] {
    return this.localFiles.filter((f) => f.subset !== null).map((f) => f.subset!);
  }

  /** The subsets to choose from: RAGBench's seven, then those only local files have. */
  get subsetChoices(): string[] {
    return [...RAGBENCH_SUBSETS, ...this.localSubsets.filter((s) => !(RAGBENCH_SUBSETS as readonly string[]).includes(s))];
  }

  /** Parses picked or dropped files in the worker; each loaded subset is selected. */
  async addFiles(files: File[]): Promise<void> {
    if (files.length === 0) return;
    this.loadingFiles = true;
    try {
      const reports = await this.client.api.loadFiles(files);
      const replaced = new Set(reports.map((r) => r.subset ?? `\u0000${r.file}`));
      this.localFiles = [...this.localFiles.filter((f) => !replaced.has(f.subset ?? `\u0000${f.file}`)), ...reports];
      const added = reports.filter((r) => r.subset !== null).map((r) => r.subset!);
      this.subsets = [...new Set([...this.subsets, ...added])];
      this.forgotten = this.forgotten.filter((f) => !added.includes(f.subset));
    } catch (e) {
      this.error = (e as Error).message || String(e);
    } finally {
      this.loadingFiles = false;
    }
  }

  /** Reads back the files remembered from the last visit; their subsets are selected unless the user chose others. */
  private async restore(): Promise<void> {
    try {
      const r = await this.client.api.restoreFiles();
      const have = new Set(this.localFiles.map((f) => f.subset));
      const files = r.files.filter((f) => !have.has(f.subset));
      this.localFiles = [...files, ...this.localFiles];
      this.forgotten = r.forgotten.filter((f) => !have.has(f.subset));
      this.restoreProblems = r.problems;
      if (!this.subsetsChosen && this.subsets.length === 0) this.subsets = files.map((f) => f.subset!);
    } catch (e) {
      this.restoreProblems = [`The remembered RAGBench files could not be read (${(e as Error).message || String(e)}): pick them again.`];
    } finally {
      this.restoring = false;
    }
  }

  /** The user ticks or unticks a subset. */
  toggleSubset(subset: string, on: boolean): void {
    this.subsetsChosen = true;
    this.subsets = on ? [...new Set([...this.subsets, subset])] : this.subsets.filter((x) => x !== subset);
  }

  /** Why Run cannot start yet (null: it can). */
  get runBlocked(): string | null {
    if (this.restoring) return 'Reading the RAGBench files remembered from your last visit…';
    if (this.loadingFiles) return 'Reading the picked files…';
    if (this.subsets.length === 0) return 'Pick what to run: load a RAGBench file (such as covidqa.jsonl) or tick a subset to read from the Hugging Face Hub.';
    return null;
  }

  /**
   * `pipeline`: the Ask tab's current pipeline settings (what pipeline mode runs); `pipelineBaseUrlFromLink`: whether
   * their base URL came from a link (the key question then says so).
   */
  constructor(private readonly models: ModelsState, private readonly settings: AppSettingsState, private readonly keys: KeysState, readonly pipeline: () => RagConfig,
    private readonly pipelineBaseUrlFromLink: () => boolean = () => false) {
    const attach = () => {
      const port = models.port();
      return this.client.api.attachModels(Comlink.transfer(port, [port]));
    };
    void attach();
    void this.restore();
    // A replaced models worker (new thread count, recovery after a failed run) needs a new port here too.
    models.onRestart(attach);
  }

  /** Loads the NLI model and the cross-encoder (relevance) in the models worker. */
  async loadNli(): Promise<void> {
    this.loadingNli = true;
    try {
      await this.models.loadTask('nli');
      await this.models.loadTask('cross-encoder', undefined, null, 'benchmark');
    } finally {
      this.loadingNli = false;
    }
  }

  loadFromUrl(search: string): void {
    const link = readBenchLink(search);
    this.linkWarnings = link.warnings;
    if (link.subsets) { this.subsets = link.subsets; this.subsetsChosen = true; }
    if (link.n !== undefined) this.n = link.n;
    this.seed = link.seed ?? this.seed;
    this.evaluator = link.evaluator ?? this.evaluator;
    this.mode = link.mode ?? this.mode;
    Object.assign(this.judge, link.judge);
    if (link.judge.baseUrl) this.linkBaseUrl = link.judge.baseUrl;
  }

  /** The user typed a base URL: it is theirs now (a key still goes only where it was entered for, or after asking). */
  setBaseUrl(raw: string): void {
    this.judge.baseUrl = raw.trim() || null;
    this.linkBaseUrl = null;
  }

  /** Whether the base URL is the one a link set and the user has not confirmed. */
  get baseUrlFromLink(): boolean {
    return this.linkBaseUrl !== null && this.judge.baseUrl === this.linkBaseUrl;
  }

  writeUrl(): void {
    writeOwnedParams((k) => k.startsWith('b_'), benchLink(this, this.judged ? this.judge : null, this.evaluatorDef.repeatable));
  }

  config(): BenchConfig {
    const { evaluator, judge, nliModels, ...ragas } = evaluatorConfig({
      mode: this.mode, evaluator: this.evaluator, judge: $state.snapshot(this.judge), loaded: this.models.loaded,
      nli: this.settings.value.nli, crossEncoder: this.settings.value.crossEncoder,
    });
    return {
      mode: this.mode, subsets: [...this.subsets], n: this.n, seed: this.seed, evaluator, judge,
      rag: this.mode === 'pipeline' ? $state.snapshot(this.pipeline()) as RagConfig : null,
      datasetsHost: this.settings.value.datasetsHost,
      hubUrl: this.settings.value.remoteHost,
      localSubsets: this.localSubsets.filter((s) => this.subsets.includes(s)),
      nliModels, ...ragas,
    };
  }

  async run(): Promise<void> {
    this.error = null;
    let key: string | null = null;
    // Pipeline mode answers with the Ask tab's provider and endpoint; validate mode's LLM judge with its own.
    const llm = this.mode === 'pipeline' ? this.pipeline().llm : this.judged ? this.judge : null;
    if (llm) {
      const fromLink = this.mode === 'pipeline' ? this.pipelineBaseUrlFromLink() : this.baseUrlFromLink;
      const k = await this.keys.keyFor(llm.provider, llm.baseUrl, fromLink, 'bench');
      if (!k.ok) { this.error = k.message; return; }
      if (k.confirmed && this.mode !== 'pipeline') this.linkBaseUrl = null;
      key = k.key;
    }
    const config = this.config();
    this.running = true;
    // Not blank while the worker starts: every subset listed, the first one loading.
    this.progress = startProgress(config.subsets);
    try {
      // A report arriving after the result (another message port) must not undo the finished state.
      const result = await this.client.api.run(config, key, Comlink.proxy((p: BenchProgress) => { if (this.running) this.progress = p; }));
      this.result = result;
      this.progress = finishedProgress(this.progress, config.subsets, result.skipped);
    } catch (e) {
      this.error = (e as Error).message || String(e);
    } finally {
      this.running = false;
    }
  }

  async estimateRun(): Promise<void> {
    this.error = null;
    try {
      this.estimate = await this.client.api.estimate(this.config(), Comlink.proxy((p: BenchProgress) => { this.progress = p; }));
    } catch (e) {
      this.error = (e as Error).message || String(e);
    }
  }

  cancel(): void {
    this.client.api.cancel();
  }

  async clear(): Promise<void> {
    await this.client.api.clearCache(this.config());
    this.result = null;
  }
}
