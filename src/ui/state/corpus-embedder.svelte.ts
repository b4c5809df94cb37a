/**
 * Corpus-trained embedders in the tab: the training run, and deleting trained models (TrainedModelsState owns their
 * list). A run starts a fresh build worker (`trainEmbedder`), which trains
 * on the open knowledge base's chunk texts (from the search worker, KbState.trainingTexts) or on a knowledge base
 * built here (read by name in the worker); Cancel terminates it. A trained model belongs to the corpus it was
 * trained on (its corpus hash; models/kb-embedder.ts): it becomes that knowledge base's embedder only, never the
 * embedder of every corpus; when that knowledge base is open, dense search is enabled with it (ModelsState.enableDense).
 * Deleting a knowledge base here can delete its models too (`forgetKb`). Text in corpus-embedder-view.ts.
 */
import * as Comlink from 'comlink';
import type { TrainEmbedderProgress, TrainEmbedderRequest } from '../../lib/kb-build/train-embedder.ts';
import type { TrainedModelMeta } from '../../lib/store/trained-models.ts';
import { startBuildWorker } from '../clients/build-client.ts';
import { withKbPick } from '../app/settings.ts';
import type { AppSettingsState } from './app-settings.svelte.ts';
import type { KbState } from './kb.svelte.ts';
import type { ModelsState } from './models.svelte.ts';
import type { TrainedModelsState } from './trained-models.svelte.ts';

/** What to train on: a knowledge base by id and title; `local`: one built here, read in the worker (else the open one). */
export interface TrainTarget {
  kbId: string;
  kbTitle: string;
  local?: string | null;
  /** The texts to train on when they are not a knowledge base's (the Benchmark's dataset: its bench worker gives them). */
  texts?: () => Promise<string[]>;
  /** false: the model is not selected as the embedder in Settings (the Benchmark picks its dataset's own model). */
  select?: boolean;
}

export class CorpusEmbedderState {
  /** The run in progress (one at a time). */
  run = $state.raw<{ kbId: string; progress: TrainEmbedderProgress | null } | null>(null);
  /** The last run's outcome, per knowledge base. */
  result = $state.raw<{ kbId: string; meta: TrainedModelMeta; enabledHere: boolean } | null>(null);
  private runError = $state.raw<{ kbId: string | null; message: string } | null>(null);
  /** The last run's or deletion's failure, else why the trained list could not be read. */
  get error(): { kbId: string | null; message: string } | null {
    return this.runError ?? (this.list.error ? { kbId: null, message: this.list.error } : null);
  }
  private worker: ReturnType<typeof startBuildWorker> | null = null;
  private stop: (() => void) | null = null;

  constructor(private readonly kb: KbState, private readonly models: ModelsState, private readonly settings: AppSettingsState, private readonly list: TrainedModelsState) {}

  /** The trained models in this browser, newest first (TrainedModelsState's list). */
  get trained(): TrainedModelMeta[] {
    return this.list.list;
  }

  /** The models trained on the knowledge base `kbId` (by the id it had when trained: `local:<name>` for one built here). */
  trainedOn(kbId: string): TrainedModelMeta[] {
    return this.list.trainedOn(kbId);
  }

  /**
   * A knowledge base was deleted: no model trained on it stays selected anywhere (Settings, a pick), and with
   * `deleteModels` those models are deleted from this browser too.
   */
  async forgetKb(kbId: string, deleteModels: boolean): Promise<void> {
    const ids = this.trainedOn(kbId).map((m) => m.id);
    this.models.embedders.forgetModels(ids);
    if (!deleteModels) return;
    for (const id of ids) {
      try {
        await this.list.store.remove(id);
      } catch (e) {
        this.runError = { kbId: null, message: (e as Error).message || String(e) };
      }
    }
    await this.list.refresh();
  }

  /** "corpus-trained (LSI, 256-d, trained on …)" for a trained id, null for any other. */
  labelOf(id: string): string | null {
    return this.list.labelOf(id);
  }

  async train(target: TrainTarget): Promise<void> {
    if (this.run) return;
    this.cancel();
    const worker = startBuildWorker();
    this.worker = worker;
    this.run = { kbId: target.kbId, progress: null };
    this.runError = null;
    this.result = null;
    const stopped = new Promise<never>((_, reject) => { this.stop = () => reject(new Error('cancelled')); });
    stopped.catch(() => {});
    const mine = () => this.worker === worker;
    try {
      const source: TrainEmbedderRequest['source'] = target.local ? { kind: 'local', name: target.local } : { kind: 'texts', texts: await Promise.race([target.texts ? target.texts() : this.kb.trainingTexts(), stopped]) };
      const onProgress = (p: TrainEmbedderProgress) => { if (mine()) this.run = { kbId: target.kbId, progress: p }; };
      const meta = await Promise.race([worker.api.trainEmbedder({ source, kbId: target.kbId, kbTitle: target.kbTitle }, Comlink.proxy(onProgress)), stopped]);
      if (!mine()) return;
      this.finish(worker);
      await this.list.refresh();
      if (target.select === false) { this.result = { kbId: target.kbId, meta, enabledHere: false }; return; }
      // Its own knowledge base's embedder from now on (by content: the open one when the hashes agree), no other's.
      const hash = this.kb.info?.corpusHash;
      const here = this.kb.status === 'ready' && hash !== undefined && hash === meta.corpusHash;
      if (here && hash && this.settings.value.kbEmbedders[hash]) this.settings.save(withKbPick(this.settings.value, hash, null));
      this.result = { kbId: target.kbId, meta, enabledHere: here };
      if (here) await this.models.enableDense();
    } catch (e) {
      if (!mine()) return;
      this.finish(worker);
      this.runError = { kbId: target.kbId, message: `Training the corpus embedder failed: ${(e as Error).message || String(e)}` };
    }
  }

  private finish(worker: ReturnType<typeof startBuildWorker>): void {
    worker.terminate();
    if (this.worker === worker) { this.worker = null; this.stop = null; this.run = null; }
  }

  /** Stops the run: its worker is terminated, nothing is saved or selected. */
  cancel(): void {
    const worker = this.worker;
    const stop = this.stop;
    this.worker = null;
    this.stop = null;
    this.run = null;
    worker?.terminate();
    stop?.();
  }

  /** Deletes a trained model from this browser (a loaded copy stays loaded, but no knowledge base uses it any more). */
  async remove(id: string): Promise<void> {
    this.models.embedders.forgetModels([id]);
    try {
      await this.list.store.remove(id);
    } catch (e) {
      this.runError = { kbId: null, message: (e as Error).message || String(e) };
    }
    await this.list.refresh();
  }
}
