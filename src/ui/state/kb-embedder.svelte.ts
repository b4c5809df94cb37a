/**
 * Which embedder the open knowledge base uses: the page's one owner of that fact. models/kb-embedder.ts decides it
 * from the knowledge base's corpus hash, the corpus-trained models of this browser (CorpusEmbedderState's list), the
 * embedder chosen in Settings and the user's pick for this knowledge base (Settings `kbEmbedders`, by hash; AppSettingsState). The
 * search worker is given the loaded list without an embedder that is not this choice (`usable`), so no other
 * corpus's model answers here, and the dense modes say why (`denseNote`). Loading stays with ModelsState.
 */
import { chooseEmbedder, foreignLoadedNote, sameModel, type EmbedderChoice, type TrainedRef } from '../../lib/models/kb-embedder.ts';
import { isTrainedModelId } from '../../lib/models/trained-ids.ts';
import type { LoadedModel } from '../../../workers/models-api.ts';
import type { ModelSpec } from '../../lib/models/types.ts';
import { withKbPick, withoutModels } from '../app/settings.ts';
import type { AppSettingsState } from './app-settings.svelte.ts';
import type { KbState } from './kb.svelte.ts';

/** What this needs of ModelsState (which loads the models): its loaded list and loading steps. */
export interface EmbedderLoader {
  readonly loaded: LoadedModel[];
  buildDense(): Promise<void>;
  enableDense(spec?: ModelSpec | null): Promise<void>;
  enableAll(): Promise<void>;
  /** Dense search off (no dense side for this knowledge base). */
  denseOff(): void;
}

/** Set while dense search runs with a corpus-trained embedder (no download): it is loaded again after a reload. */
export const DENSE_ON_KEY = 'rag-lab:dense-on';

/** The corpus-trained models of this browser (TrainedModelsState owns the list) and when it was first read. */
export interface TrainedList {
  readonly list: readonly TrainedRef[];
  readonly ready: Promise<void>;
}

export class KbEmbedderState {
  constructor(private readonly kb: KbState, private readonly models: EmbedderLoader, private readonly settings: AppSettingsState, private readonly trained: TrainedList) {}

  /** The corpus-trained models of this browser. */
  trainedList(): readonly TrainedRef[] {
    return this.trained.list;
  }

  /** Resolves once the trained list was first read. */
  trainedReady(): Promise<void> {
    return this.trained.ready;
  }

  /** The open knowledge base's corpus hash (null before one is open). */
  readonly kbHash = $derived.by(() => this.kb.info?.corpusHash ?? null);
  readonly choice = $derived.by((): EmbedderChoice => {
    const hash = this.kbHash;
    const settings = this.settings.value;
    return chooseEmbedder({ kbHash: hash, trained: this.trainedList(), settingsEmbedder: settings.embedder, pick: hash ? settings.kbEmbedders[hash] ?? null : null });
  });
  readonly loadedEmbedder = $derived.by((): LoadedModel | null => this.models.loaded.find((m) => m.task === 'embedder') ?? null);
  /** Whether the loaded embedder is this knowledge base's choice. */
  readonly loadedIsChoice = $derived.by(() => this.loadedEmbedder !== null && this.choice.spec !== null && sameModel(this.loadedEmbedder.spec, this.choice.spec));
  /** The loaded list as the open knowledge base may use it: an embedder that is not its choice is left out. */
  readonly usable = $derived.by(() => (this.loadedEmbedder && !this.loadedIsChoice ? this.models.loaded.filter((m) => m.task !== 'embedder') : this.models.loaded));
  /** Why dense modes are off here beyond "no model loaded" (none chosen, or another corpus's model loaded). */
  readonly denseNote = $derived.by(() => (this.choice.spec ? foreignLoadedNote(this.loadedEmbedder?.spec ?? null, this.choice, this.trainedList()) : this.choice.note));

  /**
   * Picks the open knowledge base's embedder (a trained id, 'pretrained', 'none'; null: back to the default), kept
   * per corpus hash in Settings. With dense search on, it follows the pick at once.
   */
  async pick(pick: string | null): Promise<void> {
    const hash = this.kbHash;
    if (!hash) return;
    const on = this.loadedEmbedder !== null;
    this.settings.save(withKbPick(this.settings.value, hash, pick));
    if (!on) return;
    if (!this.choice.spec) this.models.denseOff();
    else if (this.loadedIsChoice) await this.models.buildDense();
    else await this.models.enableDense(this.choice.spec);
  }

  /** No pick or Settings embedder names any of `ids` any more (their knowledge base or the models were deleted). */
  forgetModels(ids: readonly string[]): void {
    if (ids.length) this.settings.save(withoutModels(this.settings.value, ids));
  }

  /**
   * After the first knowledge base opened: the models load when Settings say so; else its corpus-trained embedder
   * (no download) loads again when dense search ran with one before the reload.
   */
  async afterFirstOpen(): Promise<void> {
    await this.trainedReady().catch(() => {});
    if (this.settings.value.autoLoadModels) return this.models.enableAll();
    const spec = this.choice.spec;
    if (spec && isTrainedModelId(spec.id) && localStorage.getItem(DENSE_ON_KEY) === '1') await this.models.enableDense(spec);
  }

  /**
   * Another knowledge base opened while dense search was on: the loaded embedder builds its dense side when it is
   * this knowledge base's, else its own corpus-trained one loads (no download); a model trained on another corpus
   * that was not picked for it never embeds it (the dense modes say why).
   */
  async afterSwitch(): Promise<void> {
    await this.trainedReady().catch(() => {});
    const spec = this.choice.spec;
    if (this.loadedIsChoice) await this.models.buildDense();
    else if (this.loadedEmbedder && spec && isTrainedModelId(spec.id)) await this.models.enableDense(spec);
    else this.models.denseOff();
  }
}
