/**
 * The Tune panel's state (Benchmark tab): the open knowledge base's test sets, making one (written by the Ask tab's
 * LLM, imported from a file, or pseudo-queries), a tune on one of them in the search worker
 * (src/lib/tune/tune-tab-session.ts), and Adopt: the winner's settings put into the Search tab (and its link) and the
 * Ask tab's retrieval, after the diff was shown. The one owner of these facts; the panel renders them.
 */
import * as Comlink from 'comlink';
import { PROVIDERS } from '../../lib/llm/registry.ts';
import { MODES, MODE_IDS, type RetrievalMode } from '../../lib/retrieval/modes.ts';
import type { SearchSettings } from '../../lib/settings/search.ts';
import { TAB_LIMITS, TEST_SET_LIMITS, type TestSetSummary, type TuneTabProgress, type TuneTabResult } from '../../lib/tune/tune-tab-types.ts';
import type { RemoteProviderId } from '../../lib/llm/types.ts';
import type { RunEstimate } from '../../lib/eval/core/cost.ts';
import { downloadFile } from '../shared/download.ts';
import { formatBytes } from '../../lib/util/format-bytes.ts';
import type { AskState } from './ask.svelte.ts';
import type { KbState } from './kb.svelte.ts';
import type { SearchState } from './search.svelte.ts';
import type { IrMetricId } from '../../lib/tune/tune-session.ts';
import { spaceFields } from '../tune/tune-view.ts';

const message = (e: unknown) => ((e as Error)?.message || String(e)).replace(/^(TuneError|Error): /, '');

export class TuneState {
  sets = $state.raw<TestSetSummary[]>([]);
  /** Stored records that could not be read back (named, not used). */
  skipped = $state.raw<string[]>([]);
  selected = $state('');
  /** Questions to ask the LLM for, and pseudo-queries to make. */
  questions = $state(50);
  pseudoCount = $state(100);
  seed = $state(0);
  estimate = $state.raw<(RunEstimate & { chunks: number }) | null>(null);
  budget = $state(40);
  /** Chunking and the analyzer join the space (the knowledge base built again for each: slower, with a dense side re-embedded). */
  rebuild = $state(false);
  /** A second test set to check the first against ('' none): the settings' rankings on both compared. */
  agreeWith = $state('');
  /** The budget is trials, or minutes (as many trials as fit, at most TAB_LIMITS.budget). */
  budgetIn = $state<'trials' | 'minutes'>('trials');
  minutes = $state(2);
  /** A dimension narrowed by flag to the values its text lists ('' or absent: its declared values; tune-view.ts spaceFields). */
  space = $state<Record<string, string>>({});
  /** Other embedders, comma-separated ("owner/name" or "owner/name@dtype"), compared with the loaded one in the dense modes. */
  embedders = $state('');
  /** What the tune maximises; p95 latency is the front's other axis. */
  objective = $state<IrMetricId>('ndcg@10');
  /** The modes of the space (those that cannot run now are left out by the session, with a note). */
  modes = $state<RetrievalMode[]>(['sparse', 'rrf', 'hybrid_fixed', 'hybrid_calibrated']);
  busy = $state<'write' | 'tune' | 'import' | null>(null);
  progress = $state.raw<TuneTabProgress | null>(null);
  result = $state.raw<TuneTabResult | null>(null);
  error = $state<string | null>(null);
  /** The diff is shown; Adopt applies it. */
  confirming = $state(false);
  adopted = $state<string | null>(null);
  /** The knowledge base the list (and the result) are of. */
  private listedFor: string | null = null;

  constructor(private readonly kb: KbState, private readonly search: SearchState, private readonly ask: AskState) {}

  readonly selectedSet = $derived(this.sets.find((s) => s.id === this.selected) ?? null);

  private session() {
    const t = this.kb.tuner();
    if (!t) throw new Error('The knowledge base is not open yet: open one in the Search tab first.');
    return t;
  }

  private async guard(kind: 'write' | 'tune' | 'import', work: () => Promise<void>): Promise<void> {
    if (this.busy) return;
    this.busy = kind;
    this.error = null;
    try {
      await work();
    } catch (e) {
      this.error = message(e);
    } finally {
      this.busy = null;
      this.progress = null;
    }
  }

  /** Reads the open knowledge base's test sets (again when another one opened: a result of the one before is put away). */
  async refresh(): Promise<void> {
    const t = this.kb.tuner();
    const id = this.kb.info?.corpusId ?? null;
    if (!t || this.listedFor === id) return;
    if (this.listedFor !== id) { this.result = null; this.confirming = false; this.adopted = null; this.estimate = null; }
    this.listedFor = id;
    try {
      const { sets, skipped } = await t.api.testSets();
      this.sets = sets;
      this.skipped = skipped;
      if (!sets.some((s) => s.id === this.selected)) this.selected = sets[0]?.id ?? '';
    } catch (e) {
      this.error = message(e);
    }
  }

  private added(s: TestSetSummary): void {
    this.sets = [s, ...this.sets.filter((x) => x.id !== s.id)];
    this.selected = s.id;
  }

  /** The Ask tab's provider, model and endpoint: what writes the questions. */
  private llm(): { provider: RemoteProviderId; model: string; baseUrl: string | null } {
    const { provider, model, baseUrl } = this.ask.config.llm;
    if (!(provider in PROVIDERS)) throw new Error('Test sets are written by a provider reached over HTTP: choose one in the Ask tab (the in-browser model cannot write them).');
    return { provider: provider as RemoteProviderId, model, baseUrl: baseUrl ?? null };
  }

  async estimateWrite(): Promise<void> {
    try {
      const llm = this.llm();
      this.estimate = await this.session().api.estimateTestSet({ n: this.questions, seed: this.seed, llm });
      this.error = null;
    } catch (e) {
      this.estimate = null;
      this.error = message(e);
    }
  }

  /** Writes a test set with the Ask tab's LLM; the key goes to its endpoint only, as an Ask does (keys.keyFor). */
  write(): Promise<void> {
    return this.guard('write', async () => {
      const llm = this.llm();
      const key = await this.ask.requestKey(llm.provider, llm.baseUrl);
      if (!key.ok) throw new Error(key.message);
      const { api } = this.session();
      this.added(await api.writeTestSet({ n: this.questions, seed: this.seed, llm }, key.key, Comlink.proxy((p: TuneTabProgress) => { this.progress = p; })));
    });
  }

  importFile(file: File): Promise<void> {
    return this.guard('import', async () => {
      // Bounded before it is read: a test set is at most TEST_SET_LIMITS.bytes.
      if (file.size > TEST_SET_LIMITS.bytes) throw new Error(`${file.name} is ${formatBytes(file.size)}: a test set file is at most ${formatBytes(TEST_SET_LIMITS.bytes)}`);
      const { api } = this.session();
      this.added(await api.importTestSet(file.name, await file.text()));
    });
  }

  pseudo(): Promise<void> {
    return this.guard('import', async () => {
      this.added(await this.session().api.pseudoTestSet(this.pseudoCount, this.seed));
    });
  }

  async remove(id: string): Promise<void> {
    try {
      await this.session().api.deleteTestSet(id);
      this.sets = this.sets.filter((s) => s.id !== id);
      if (this.selected === id) this.selected = this.sets[0]?.id ?? '';
    } catch (e) {
      this.error = message(e);
    }
  }

  /** The test set as BEIR files (queries.jsonl, qrels/test.tsv as <name>-qrels-test.tsv). */
  async exportSet(id: string): Promise<void> {
    try {
      const x = await this.session().api.exportTestSet(id);
      downloadFile(x.queries, `${x.name}-queries.jsonl`, 'application/jsonl');
      downloadFile(x.qrels, `${x.name}-qrels-test.tsv`, 'text/tab-separated-values');
    } catch (e) {
      this.error = message(e);
    }
  }

  toggleMode(m: RetrievalMode, on: boolean): void {
    this.modes = on ? MODE_IDS.filter((x) => x === m || this.modes.includes(x)) : this.modes.filter((x) => x !== m);
  }

  /** The modes offered for the space: those the open knowledge base can run with the loaded models. */
  get modeChoices(): Array<{ id: RetrievalMode; label: string; available: boolean; reason: string | null }> {
    const a = this.kb.modes;
    return MODE_IDS.map((id) => ({ id, label: MODES[id].label, available: a ? a[id].available : false, reason: a && !a[id].available ? a[id].reason ?? null : null }));
  }

  run(): Promise<void> {
    return this.guard('tune', async () => {
      if (!this.selected) throw new Error('Choose a test set first (write, import or make one above).');
      const { api, loaded } = this.session();
      this.result = null;
      this.confirming = false;
      this.adopted = null;
      const search = $state.snapshot(this.search.input) as SearchSettings;
      const available = this.modes.filter((m) => this.kb.modes?.[m].available !== false);
      this.result = await api.tune({ testSetId: this.selected, search, modes: available.length ? available : this.modes,
        ...(this.budgetIn === 'minutes' ? { budget: TAB_LIMITS.budget, minutes: this.minutes } : { budget: this.budget }),
        ...(this.agreeWith && this.agreeWith !== this.selected ? { agreeWithId: this.agreeWith } : {}), ...(this.rebuild ? { rebuild: true } : {}),
        ...(this.embedders.trim() ? { embedders: this.embedders.split(',') } : {}),
        space: Object.fromEntries(spaceFields(this.rebuild).map((f) => [f.flag, this.space[f.flag]?.trim() ?? '']).filter(([, t]) => t)), objective: this.objective }, loaded, Comlink.proxy((p: TuneTabProgress) => { this.progress = p; }));
    });
  }

  cancel(): void {
    this.kb.tuner()?.api.cancelTune();
  }

  /** Puts the winner's settings into the Search tab (and its link) and the Ask tab's retrieval. */
  adopt(): void {
    const r = this.result;
    if (!r || !r.result.adoptable) return;
    const s = r.adopt.settings;
    this.search.adopt(s);
    this.ask.adoptRetrieval(s);
    this.confirming = false;
    this.adopted = r.result.trials[r.result.winner]!.label;
  }
}
