/**
 * Which embedder a knowledge base uses: the one owner of that decision (docs/corpus-embedder.md "Whose model is
 * it"). A corpus-trained model belongs to the corpus whose training texts hash to its `corpusHash` (corpusHashOf),
 * whatever either is called. In order: the user's explicit pick for this knowledge base (by its hash), else its own
 * trained model (the newest whose hash matches), else the pretrained model chosen in Settings, else none (BM25 only,
 * with the reason). A model trained on another corpus is used only when picked for this knowledge base explicitly,
 * and is then named "trained on <its corpus>". Pure: the page's ModelsState asks it each time (no stored flag).
 */
import { isTrainedModelId } from './trained-ids.ts';
import type { ModelSpec } from './types.ts';

/** What the decision needs of a trained model (TrainedModelMeta has at least this). */
export interface TrainedRef {
  id: string;
  kbTitle: string;
  /** SHA-256 of its training texts; absent on models trained before it was recorded (never attached by default). */
  corpusHash?: string | undefined;
  created: string;
}

/** An explicit pick for one knowledge base: a trained model's id, the Settings pretrained model, or BM25 only. */
export const PICK_PRETRAINED = 'pretrained';
export const PICK_NONE = 'none';
export type EmbedderPick = string;

export interface EmbedderChoice {
  /** The model to load for this knowledge base; null: none (dense modes are off, `note` says why). */
  spec: ModelSpec | null;
  /** own: trained on this corpus; picked: chosen for it explicitly; pretrained: Settings' model; none. */
  source: 'own' | 'picked' | 'pretrained' | 'none';
  /** For a corpus-trained model: the title of the corpus it was trained on ("trained on …"). */
  trainedOn: string | null;
  /** A corpus-trained model of another corpus (only ever picked explicitly). */
  foreign: boolean;
  /** Why dense search is off here (source 'none'); null otherwise. */
  note: string | null;
}

/** The spec a trained model is loaded with: q8 on WASM (its int8 graph; no GPU needed for a lookup table). */
export function trainedSpec(meta: Pick<TrainedRef, 'id'>): ModelSpec & { dtype: 'q8'; device: 'wasm' } {
  return { id: meta.id, dtype: 'q8', device: 'wasm' };
}

export interface ChoiceInput {
  /** The open knowledge base's corpus hash (null: not known, e.g. nothing open). */
  kbHash: string | null;
  trained: readonly TrainedRef[];
  /** The embedder chosen in Settings (a pretrained one; a trained id there is not a pick for every corpus). */
  settingsEmbedder: ModelSpec;
  /** The explicit pick for this knowledge base, or null. */
  pick: EmbedderPick | null;
}

const none = (note: string): EmbedderChoice => ({ spec: null, source: 'none', trainedOn: null, foreign: false, note });
const trainedChoice = (m: TrainedRef, source: 'own' | 'picked', kbHash: string | null): EmbedderChoice => ({
  spec: trainedSpec(m), source, trainedOn: m.kbTitle, foreign: !kbHash || m.corpusHash !== kbHash, note: null,
});

/** The models trained on the corpus with hash `kbHash`, newest first. */
export function ownModels<T extends TrainedRef>(kbHash: string | null, trained: readonly T[]): T[] {
  if (!kbHash) return [];
  return trained.filter((m) => m.corpusHash === kbHash).sort((a, b) => b.created.localeCompare(a.created));
}

export function chooseEmbedder(input: ChoiceInput): EmbedderChoice {
  const { kbHash, trained, settingsEmbedder, pick } = input;
  if (pick === PICK_NONE) return none('You chose BM25 only for this knowledge base (no embedder): pick an embedder for it to turn dense search on.');
  const picked = pick && isTrainedModelId(pick) ? trained.find((m) => m.id === pick) : undefined;
  if (picked) return trainedChoice(picked, 'picked', kbHash);
  const settingsTrained = isTrainedModelId(settingsEmbedder.id);
  if (pick === PICK_PRETRAINED && !settingsTrained) return { spec: settingsEmbedder, source: 'picked', trainedOn: null, foreign: false, note: null };
  const own = ownModels(kbHash, trained)[0];
  if (own) return trainedChoice(own, 'own', kbHash);
  if (!settingsTrained) return { spec: settingsEmbedder, source: 'pretrained', trainedOn: null, foreign: false, note: null };
  const meta = trained.find((m) => m.id === settingsEmbedder.id);
  return none(`${settingsEmbedder.id} (Settings) is corpus-trained${meta ? ` on ${meta.kbTitle}` : ''}, not on this knowledge base, so dense search is off here: `
    + 'train a corpus embedder for this knowledge base, choose a pretrained model under Settings → Models, or pick that model for this knowledge base explicitly.');
}

/**
 * Why a loaded embedder that is not this knowledge base's choice is not used for it (null when it is, or none is
 * loaded): "corpus/notes-lsi256 was trained on Notes, not on this knowledge base…".
 */
export function foreignLoadedNote(loaded: ModelSpec | null, choice: EmbedderChoice, trained: readonly TrainedRef[]): string | null {
  if (!loaded || (choice.spec && sameModel(loaded, choice.spec))) return null;
  const meta = isTrainedModelId(loaded.id) ? trained.find((m) => m.id === loaded.id) : undefined;
  const what = meta ? `${loaded.id} was trained on ${meta.kbTitle}, not on this knowledge base` : `${loaded.id} is not this knowledge base's embedder`;
  const use = choice.spec ? `its embedder is ${choice.spec.id}${choice.trainedOn ? ` (trained on ${choice.trainedOn})` : ''}: enable dense search to load it` : (choice.note ?? 'it has none');
  return `Dense search is off: ${what}; ${use}, or pick ${loaded.id} for this knowledge base explicitly.`;
}

/** The same model (by id: a WebGPU model that fell back to WASM is still the one chosen). */
export function sameModel(a: Pick<ModelSpec, 'id'>, b: Pick<ModelSpec, 'id'>): boolean {
  return a.id === b.id;
}
