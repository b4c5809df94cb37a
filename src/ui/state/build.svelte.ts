/**
 * The Build tab's state: the picked files, the form (title → name, description, chunking, BM25, embedding with the
 * loaded embedder), the build running in the build worker (progress per stage, cancel = terminate, nothing saved),
 * its summary, and actions on the knowledge bases built here (rebuild, export). The list itself belongs to
 * LocalKbsState. The Hub-dataset, arXiv and web-page forms call `start(source)` with their source; the form's title,
 * description and settings come from here.
 */
import * as Comlink from 'comlink';
import type { BuildProgress } from '../../lib/data/source-documents.ts';
import type { BuildSummary } from '../../lib/data/local-kb-meta.ts';
import type { LoadedModel } from '../../../workers/models-api.ts';
import type { BuildRequest, BuildSource, HubAccess } from '../../../workers/build-api.ts';
import { requestPersistentStorage } from '../../lib/store/local-kb-store.ts';
import { startBuildWorker } from '../clients/build-client.ts';
import { checkBuildForm, defaultBuildForm, stagesFor, titleForSource, titleFromFiles, type BuildForm, type BuildFormErrors } from '../build/build-view.ts';
import type { PickedFile } from '../build/build-files.ts';
import type { LocalKbsState } from './local-kbs.svelte.ts';

const message = (e: unknown) => (e instanceof Error ? e.message : String(e)) || 'unknown error';

export interface BuildDeps {
  /** The models worker's loaded list (ModelsState owns it). */
  loadedModels: () => LoadedModel[];
  /** A fresh port to the models worker (for embedding at build time). */
  modelsPort: () => MessagePort | null;
  /** The Hub URL and token (Settings and HubTokenState; never from a link). */
  access: () => HubAccess;
  /** The proxy URL from Settings ('' = none set): arXiv and web pages are read through it. */
  arxivProxy: () => string;
  /** Called when a build saved a knowledge base (KbState reopens it if it is open in Search). */
  saved: (name: string) => void;
}

type BuildWorker = ReturnType<typeof startBuildWorker>;

export class BuildState {
  status = $state<'idle' | 'building' | 'done' | 'error' | 'cancelled'>('idle');

  /** Files picked or dropped, not built yet (duplicates allowed: extraction names them). */
  files = $state.raw<PickedFile[]>([]);
  /** Folders or files of a drop that could not be read. */
  pickProblems = $state.raw<string[]>([]);
  form = $state<BuildForm>(defaultBuildForm());
  /** The title was filled in from the picked files or a source (replaced by the next suggestion until edited). */
  private titleSuggested = '';
  formErrors = $state.raw<BuildFormErrors>({});
  /** The build running or last run: its name, title and the stages it goes through. */
  running = $state.raw<{ name: string; title: string; source: BuildSource['kind']; stages: ReturnType<typeof stagesFor> } | null>(null);
  progress = $state.raw<BuildProgress | null>(null);
  summary = $state.raw<BuildSummary | null>(null);
  /**
   * The last build's summary as the tab shows it: only while its knowledge base is still in this browser (a deleted
   * one leaves no card with a dead "Open in Search"), with its title as LocalKbsState has it now (renames).
   */
  readonly shown = $derived.by(() => {
    const s = this.summary;
    const m = s ? this.locals.find(s.name) : null;
    return s && m ? { ...s, title: m.title } : null;
  });
  /** The source the last build was asked for from (its panel shows the progress and the summary), null: none yet. */
  asked = $state<BuildSource['kind'] | null>(null);
  /** The name of the knowledge base the last build saved while its summary is shown (the form does not warn about it). */
  readonly justBuilt = $derived(this.status === 'done' ? (this.shown?.name ?? null) : null);
  /** Whether the browser keeps stored data (asked before the first save), null: it did not say. */
  persistent = $state<boolean | null>(null);
  error = $state<string | null>(null);
  /** What an action on a saved knowledge base (export) said. */
  actionError = $state<string | null>(null);
  exporting = $state<string | null>(null);
  /** The knowledge base last exported (its entry says what the .zip holds: build-result-view.ts exportNote). */
  exported = $state<string | null>(null);

  private worker: BuildWorker | null = null;

  constructor(readonly locals: LocalKbsState, private readonly deps: BuildDeps) {}

  /** The Hub URL and token from Settings (never from a link). */
  access(): HubAccess {
    return this.deps.access();
  }

  /** The proxy URL from Settings ('' = none set): arXiv and web pages are read through it. */
  arxivProxy(): string {
    return this.deps.arxivProxy();
  }

  /** The embedder the models worker has loaded (the form's "Embed with …"), or null. */
  readonly embedder = $derived.by(() => this.deps.loadedModels().find((m) => m.task === 'embedder') ?? null);
  readonly filesBytes = $derived(this.files.reduce((n, f) => n + f.file.size, 0));
  /** What the form's title and settings give (name, errors), for the form to show while typing. */
  readonly check = $derived.by(() => checkBuildForm(this.form, { taken: this.locals.names, embedder: this.embedder?.spec.id ?? null }));

  /** Sets the title from a source (picked files, a dataset id, an arXiv query) unless the user typed one. */
  suggestTitle(title: string): void {
    if (this.form.title.trim() === '' || this.form.title === this.titleSuggested) {
      this.form.title = title;
      this.titleSuggested = title;
    }
  }

  addFiles(files: readonly PickedFile[], problems: readonly string[] = []): void {
    this.files = [...this.files, ...files];
    this.pickProblems = [...problems];
    this.suggestTitle(titleFromFiles(this.files.map((f) => f.path)));
  }

  clearFiles(): void {
    this.files = [];
    this.pickProblems = [];
    if (this.form.title === this.titleSuggested) this.suggestTitle('');
  }

  /** Builds the picked files: read as bytes here, transferred (not copied) to the build worker. */
  async buildFiles(): Promise<void> {
    if (this.files.length === 0 || this.status === 'building') return;
    this.asked = 'files';
    const check = this.validate();
    if (!check) return;
    const picked = this.files;
    await this.run(check, 'files', async () => ({
      kind: 'files', files: await Promise.all(picked.map(async (f) => ({ path: f.path, bytes: new Uint8Array(await f.file.arrayBuffer()) }))),
    }));
    if (this.status === 'done' && this.files === picked) this.clearFiles();
  }

  /** Builds a saved knowledge base again from its documents, with the form's current settings. */
  rebuild(name: string): Promise<void> {
    return this.start({ kind: 'rebuild', name });
  }

  private validate(source?: BuildSource): Extract<ReturnType<typeof checkBuildForm>, { ok: true }> | null {
    const of = source?.kind === 'rebuild' ? this.locals.find(source.name) : null;
    if (source?.kind === 'rebuild' && !of) {
      this.error = `${source.name} is no longer in this browser.`;
      this.status = 'error';
      return null;
    }
    const check = checkBuildForm(this.form, {
      taken: this.locals.names, embedder: this.embedder?.spec.id ?? null, fixed: of ? { name: of.name, title: of.title, description: of.description } : undefined,
    });
    this.formErrors = check.ok ? {} : check.errors;
    if (check.ok) return check;
    // Said where the build was asked for too (the Hub-dataset, arXiv and web forms are below the settings).
    this.error = `Check the name and settings above: ${Object.values(check.errors).join(' ')}`;
    this.status = 'error';
    return null;
  }

  /** Builds a knowledge base from `source` with the form's name, title and settings. */
  async start(source: BuildSource): Promise<void> {
    if (this.status === 'building') return;
    this.asked = source.kind;
    // A title the source's form already suggested (e.g. "scifact" at Inspect) stays; an empty one gets a default.
    if ((source.kind === 'hub-dataset' || source.kind === 'arxiv' || source.kind === 'web') && !this.form.title.trim()) this.suggestTitle(titleForSource(source));
    const check = this.validate(source);
    if (check) await this.run(check, source.kind, async () => source);
  }

  private async run(check: Extract<ReturnType<typeof checkBuildForm>, { ok: true }>, kind: BuildSource['kind'], source: () => Promise<BuildSource>): Promise<void> {
    const persisted = requestPersistentStorage(); // before the worker's first save
    const worker = startBuildWorker();
    this.worker = worker;
    this.status = 'building';
    this.running = { name: check.name, title: check.title, source: kind, stages: stagesFor(kind, check.settings.embed) };
    this.progress = null;
    this.summary = null;
    this.error = null;
    try {
      if (check.settings.embed) {
        const port = this.deps.modelsPort();
        if (!port) throw new Error('The models worker is not running: load the embedder again, or build without vectors.');
        await worker.api.attachModels(Comlink.transfer(port, [port]));
      }
      const src = await source();
      if (this.worker !== worker) return; // cancelled while the files were read
      const request: BuildRequest = { name: check.name, title: check.title, description: check.description, source: src, settings: check.settings };
      const buffers = src.kind === 'files' ? [...new Set(src.files.map((f) => f.bytes.buffer as ArrayBuffer))] : [];
      const summary = await worker.api.build(Comlink.transfer(request, buffers), Comlink.proxy((p: BuildProgress) => {
        if (this.worker === worker) this.progress = p;
      }));
      if (this.worker !== worker) return;
      this.persistent = await persisted;
      await this.locals.reload(); // first: the summary is shown while its knowledge base is in the list
      this.summary = summary;
      this.status = 'done';
      this.form.replace = false;
      this.deps.saved(summary.name);
    } catch (e) {
      if (this.worker !== worker) return; // cancelled
      this.error = `The build failed: ${message(e).replace(/[.\s]*$/, '.')} The knowledge bases saved before are unchanged.`;
      this.status = 'error';
    } finally {
      if (this.worker === worker) {
        worker.terminate();
        this.worker = null;
      }
    }
  }

  /** Stops the build: the worker is terminated before it saves, so nothing is written. */
  cancel(): void {
    if (!this.worker) return;
    this.worker.terminate();
    this.worker = null;
    this.status = 'cancelled';
    this.progress = null;
  }

  /** A saved knowledge base as a .zip of its artifact folder (null when it failed: `actionError` says why). */
  async exportZip(name: string): Promise<Uint8Array | null> {
    const worker = startBuildWorker();
    this.exporting = name;
    this.actionError = null;
    this.exported = null;
    try {
      const bytes = await worker.api.exportZip(name);
      this.exported = name;
      return bytes;
    } catch (e) {
      this.actionError = `${name} could not be exported: ${message(e)}`;
      return null;
    } finally {
      worker.terminate();
      this.exporting = null;
    }
  }
}
