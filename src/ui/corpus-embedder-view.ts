/**
 * What the tab says about corpus-trained embedders (docs/corpus-embedder.md "In the tab"): the button and its
 * one-line explanation, the training stages, the label a trained model is shown with wherever its id is shown
 * (always "corpus-trained", never as a pretrained model) and the line after a run. Pure, unit-tested.
 */
import type { TrainEmbedderProgress } from '../lib/kb-build/train-embedder.ts';
import { isTrainedModelId } from '../lib/models/trained-ids.ts';
import type { ModelSpec } from '../lib/models/types.ts';
import type { TrainedModelMeta } from '../lib/store/trained-models.ts';

export const TRAIN_BUTTON = 'Train a corpus embedder (no download)';
export const TRAIN_EXPLANATION = 'Learns word vectors from this knowledge base’s own text (LSI: a truncated SVD of its tf-idf matrix) in this tab, in seconds to a minute; weaker than a pretrained model such as MiniLM, but nothing is downloaded.';

const STAGES: Record<TrainEmbedderProgress['stage'], string> = {
  read: 'Reading the knowledge base’s text',
  tokenize: 'Tokenizing the chunks',
  vocabulary: 'Choosing the vocabulary',
  matrix: 'Weighting terms (tf-idf)',
  svd: 'Truncated SVD',
  write: 'Writing the model',
  save: 'Saving it in this browser',
};

/** "Truncated SVD (3 / 8)"; "Starting…" before the first report. */
export function trainStageText(p: TrainEmbedderProgress | null): string {
  if (!p) return 'Starting…';
  const label = STAGES[p.stage] ?? p.stage;
  return p.total > 1 ? `${label} (${p.done.toLocaleString('en')} / ${p.total.toLocaleString('en')})` : label;
}

/** "corpus-trained (LSI, 256-d, trained on State of the Union)"; null for an id that is not corpus-trained. */
export function trainedLabel(id: string, meta: TrainedModelMeta | undefined | null): string | null {
  if (!isTrainedModelId(id)) return null;
  if (!meta) return 'corpus-trained (LSI; not in this browser: train it again)';
  return `corpus-trained (LSI, ${meta.dim}-d, trained on ${meta.kbTitle})`;
}

/** The id followed by its label when it is corpus-trained: "corpus/sotu-lsi256, corpus-trained (…)". */
export function modelName(id: string, label: string | null): string {
  return label ? `${id}, ${label}` : id;
}

/** The spec a trained model is selected with: q8 on WASM (its int8 graph; no GPU needed for a lookup table). */
export function trainedSpec(meta: Pick<TrainedModelMeta, 'id'>): ModelSpec & { dtype: 'q8'; device: 'wasm' } {
  return { id: meta.id, dtype: 'q8', device: 'wasm' };
}

/** "Trained corpus/sotu-lsi256 on 1,234 chunks (5,678 terms, 256-d) in 3.2 s; selected as the embedder." */
export function trainedResultText(meta: TrainedModelMeta, enabledHere: boolean): string {
  const s = Number.isFinite(meta.seconds) ? meta.seconds.toFixed(1) : '?';
  const head = `Trained ${meta.id} on ${meta.documents.toLocaleString('en')} chunks (${meta.vocabulary.toLocaleString('en')} terms, ${meta.dim}-d) in ${s} s; selected as the embedder`;
  return enabledHere ? `${head}, dense search uses it.` : `${head}: open this knowledge base in Search to use it for dense search.`;
}
