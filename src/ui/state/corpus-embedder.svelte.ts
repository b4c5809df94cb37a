/**
 * Corpus-trained embedders in the tab: the one owner of the list of trained models in this browser (read from the
 * trained-model store) and of the training run. A run starts a fresh build worker (`trainEmbedder`), which trains
 * on the open knowledge base's chunk texts (from the search worker, KbState.trainingTexts) or on a knowledge base
 * built here (read by name in the worker); Cancel terminates it. A trained model belongs to the corpus it was
 * trained on (its corpus hash; models/kb-embedder.ts): it becomes that knowledge base's embedder only, never the
 * embedder of every corpus; when that knowledge base is open, dense search is enabled with it (ModelsState.enableDense).
 * Deleting a knowledge base here can delete its models too (`forgetKb`). Text in corpus-embedder-view.ts.
 */
import * as Comlink from 'comlink';
import type { TrainEmbedderProgress, TrainEmbedderRequest } from '../../lib/kb-build/train-embedder.ts';
import { IndexedDbTrainedModelStore, type TrainedModelMeta } from '../../lib/store/trained-models.ts';
import { startBuildWorker } from '../clients/build-client.ts';
import { trainedLabel } from '../models/corpus-embedder-view.ts';
import { withKbPick } from '../app/settings.ts';
import type { KbState } from './kb.svelte.ts';
import type { ModelsState } from './models.svelte.ts';

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
  /** The trained models in this browser, newest first. */
  trained = $state.raw<TrainedModelMeta[]>([]);
  /** The run in progress (one at a time). */
  run = $state.raw<{ kbId: string; progress: TrainEmbedderProgress | null } | null>(null);
  /** The last run's outcome, per knowledge base. */
  result = $state.raw<{ kbId: string; meta: TrainedModelMeta; enabledHere: boolean } | null>(null);
  error = $state.raw<{ kbId: string | null; message: string } | null>(null);
  private worker: ReturnType<typeof startBuildWorker> | null = null;
  private stop: (() => void) | null = null;
  private readonly store = new IndexedDbTrainedModelStore();
  /** Resolves once the list was read the first time (read or not: see `error`). */
  readonly ready: Promise<void>;

  constructor(private readonly kb: KbState, private readonly models: ModelsState) {
    this.ready = this.refresh();
    models.embedders.trainedList = () => this.trained;
    models.embedders.trainedReady = () => this.ready;
    kb.modelLabel = (id) => this.labelOf(id);
  }

  /** The models trained on the knowledge base `kbId` (by the id it had when trained: `local:<name>` for one built here). */
  trainedOn(kbId: string): TrainedModelMeta[] {
    return this.trained.filter((m) => m.kbId === kbId);
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
        await this.store.remove(id);
      } catch (e) {
        this.error = { kbId: null, message: (e as Error).message || String(e) };
      }
    }
    await this.refresh();
  }

  async refresh(): Promise<void> {
    try {
      this.trained = await this.store.list();
    } catch (e) {
      this.error = { kbId: null, message: `The corpus-trained models of this browser cannot be read: ${(e as Error).message || String(e)}` };
    }
  }

  /** "corpus-trained (LSI, 256-d, trained on …)" for a trained id, null for any other. */
  labelOf(id: string): string | null {
    return trainedLabel(id, this.trained.find((m) => m.id === id));
  }

  async train(target: TrainTarget): Promise<void> {
    if (this.run) return;
    this.cancel();
    const worker = startBuildWorker();
    this.worker = worker;
    this.run = { kbId: target.kbId, progress: null };
    this.error = null;
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
      await this.refresh();
      if (target.select === false) { this.result = { kbId: target.kbId, meta, enabledHere: false }; return; }
      // Its own knowledge base's embedder from now on (by content: the open one when the hashes agree), no other's.
      const hash = this.kb.info?.corpusHash;
      const here = this.kb.status === 'ready' && hash !== undefined && hash === meta.corpusHash;
      if (here && hash && this.models.settings.kbEmbedders[hash]) this.models.save(withKbPick(this.models.settings, hash, null));
      this.result = { kbId: target.kbId, meta, enabledHere: here };
      if (here) await this.models.enableDense();
    } catch (e) {
      if (!mine()) return;
      this.finish(worker);
      this.error = { kbId: target.kbId, message: `Training the corpus embedder failed: ${(e as Error).message || String(e)}` };
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
      await this.store.remove(id);
    } catch (e) {
      this.error = { kbId: null, message: (e as Error).message || String(e) };
    }
    await this.refresh();
  }
}
