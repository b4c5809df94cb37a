/** The Benchmark tab: run settings (in the URL), progress with ETA and row counts, the result, cancel and resume. */
import * as Comlink from 'comlink';
import { RAGBENCH_SUBSETS } from '../../lib/data/ragbench.ts';
import type { BenchConfig, BenchProgress, BenchResult, JudgeEstimate, LocalFileReport } from '../../../workers/bench-api.ts';
import { startBenchWorker } from '../bench-client.ts';
import { writeOwnedParams } from '../url.ts';
import type { RagConfig } from '../../lib/rag/config.ts';
import type { KeysState } from './keys.svelte.ts';
import type { ModelsState } from './models.svelte.ts';

export class BenchState {
  mode = $state<'validate' | 'pipeline'>('validate');
  subsets = $state<string[]>(['emanual']);
  n = $state<number | null>(20);
  seed = $state(0);
  evaluator = $state<'lexical' | 'llm' | 'nli'>('lexical');
  nliStatus = $state<'idle' | 'loading' | 'ready' | 'error'>('idle');
  judge = $state<NonNullable<BenchConfig['judge']>>({ provider: 'groq', baseUrl: null, model: 'llama-3.3-70b-versatile', repeats: 1, rpm: null, tpm: null });
  estimate = $state.raw<JudgeEstimate | null>(null);
  running = $state(false);
  progress = $state.raw<BenchProgress | null>(null);
  result = $state.raw<BenchResult | null>(null);
  error = $state<string | null>(null);
  /** Local files loaded into the worker, the last one per subset (a refused file keeps its error). */
  localFiles = $state.raw<LocalFileReport[]>([]);
  loadingFiles = $state(false);
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
    } catch (e) {
      this.error = (e as Error).message || String(e);
    } finally {
      this.loadingFiles = false;
    }
  }

  /** `pipeline`: the Ask tab's current pipeline settings (what pipeline mode runs). */
  constructor(private readonly models: ModelsState, private readonly keys: KeysState, readonly pipeline: () => RagConfig) {
    const attach = () => {
      const port = models.port();
      return this.client.api.attachModels(Comlink.transfer(port, [port]));
    };
    void attach();
    // A replaced models worker (new thread count, recovery after a failed run) needs a new port here too.
    models.onRestart(attach);
  }

  /** Loads the NLI model and the cross-encoder (relevance) in the models worker. */
  async loadNli(): Promise<void> {
    this.nliStatus = 'loading';
    const nli = await this.models.loadTask('nli');
    await this.models.loadTask('cross-encoder');
    this.nliStatus = nli ? 'ready' : 'error';
  }

  loadFromUrl(search: string): void {
    const p = new URLSearchParams(search);
    const subs = (p.get('b_sub') ?? '').split(',').filter((s) => (RAGBENCH_SUBSETS as readonly string[]).includes(s));
    if (subs.length) this.subsets = subs;
    const n = p.get('b_n');
    if (n === 'all') this.n = null;
    else if (n && Number.isInteger(Number(n)) && Number(n) > 0) this.n = Number(n);
    const seed = p.get('b_seed');
    if (seed && Number.isInteger(Number(seed))) this.seed = Number(seed);
    const ev = p.get('b_eval');
    if (ev === 'llm' || ev === 'nli') this.evaluator = ev;
    if (p.get('b_mode') === 'pipeline') this.mode = 'pipeline';
    const prov = p.get('b_prov');
    if (prov === 'groq' || prov === 'openai' || prov === 'anthropic' || prov === 'hf') this.judge.provider = prov;
    const model = p.get('b_model');
    if (model) this.judge.model = model.slice(0, 200);
    const base = p.get('b_base');
    if (base && /^https?:\/\/[^\s?#@]+$/.test(base)) this.judge.baseUrl = base;
    const reps = Number(p.get('b_rep'));
    if (Number.isInteger(reps) && reps >= 1 && reps <= 10) this.judge.repeats = reps;
  }

  writeUrl(): void {
    const out = new URLSearchParams({ b_sub: this.subsets.join(','), b_n: this.n === null ? 'all' : String(this.n), b_seed: String(this.seed), b_eval: this.evaluator });
    if (this.mode === 'pipeline') out.set('b_mode', 'pipeline');
    if (this.evaluator === 'llm' && this.mode === 'validate') {
      out.set('b_prov', this.judge.provider);
      out.set('b_model', this.judge.model);
      if (this.judge.baseUrl) out.set('b_base', this.judge.baseUrl);
      if (this.judge.repeats > 1) out.set('b_rep', String(this.judge.repeats));
    }
    writeOwnedParams((k) => k.startsWith('b_'), out);
  }

  config(): BenchConfig {
    return {
      mode: this.mode, subsets: [...this.subsets], n: this.n, seed: this.seed, evaluator: this.mode === 'pipeline' ? 'lexical' : this.evaluator,
      judge: this.evaluator === 'llm' && this.mode === 'validate' ? { ...this.judge } : null,
      rag: this.mode === 'pipeline' ? $state.snapshot(this.pipeline()) as RagConfig : null,
      datasetsHost: this.models.settings.datasetsHost,
      hubUrl: this.models.settings.remoteHost,
      localSubsets: this.localSubsets.filter((s) => this.subsets.includes(s)),
      nliModels: this.evaluator === 'nli' && this.mode === 'validate' ? {
        nli: `${this.models.settings.nli.id}@${this.models.settings.nli.dtype}`,
        reranker: this.models.loaded.some((m) => m.task === 'cross-encoder') ? `${this.models.settings.crossEncoder.id}@${this.models.settings.crossEncoder.dtype}` : null,
      } : null,
    };
  }

  async run(): Promise<void> {
    this.running = true;
    this.error = null;
    this.progress = null;
    try {
      const key = this.mode === 'pipeline' ? this.keys.get(this.pipeline().llm.provider) : this.evaluator === 'llm' ? this.keys.get(this.judge.provider) : null;
      this.result = await this.client.api.run(this.config(), key, Comlink.proxy((p: BenchProgress) => { this.progress = p; }));
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
