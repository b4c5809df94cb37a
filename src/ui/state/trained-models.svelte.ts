/**
 * The corpus-trained models of this browser (the trained-model store, IndexedDB): the page's one owner of their list.
 * KbEmbedderState chooses an open knowledge base's embedder among them; CorpusEmbedderState trains and deletes them.
 */
import { IndexedDbTrainedModelStore, type TrainedModelMeta } from '../../lib/store/trained-models.ts';
import { trainedLabel } from '../models/corpus-embedder-view.ts';

export class TrainedModelsState {
  /** Newest first. */
  list = $state.raw<TrainedModelMeta[]>([]);
  /** Why the list could not be read (null once a read succeeds). */
  error = $state<string | null>(null);
  /** Resolves once the list was read the first time (read or not: see `error`). */
  readonly ready: Promise<void>;

  constructor(readonly store = new IndexedDbTrainedModelStore()) {
    this.ready = this.refresh();
  }

  async refresh(): Promise<void> {
    try {
      this.list = await this.store.list();
      this.error = null;
    } catch (e) {
      this.error = `The corpus-trained models of this browser cannot be read: ${(e as Error).message || String(e)}`;
    }
  }

  /** The models trained on the knowledge base `kbId` (by the id it had when trained: `local:<name>` for one built here). */
  trainedOn(kbId: string): TrainedModelMeta[] {
    return this.list.filter((m) => m.kbId === kbId);
  }

  /** "corpus-trained (LSI, 256-d, trained on …)" for a trained id, null for any other. */
  labelOf(id: string): string | null {
    return trainedLabel(id, this.list.find((m) => m.id === id));
  }
}
