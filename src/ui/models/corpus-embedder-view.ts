/**
 * What the tab says about corpus-trained embedders (docs/corpus-embedder.md "In the tab"): the button and its
 * one-line explanation, the training stages, the label a trained model is shown with wherever its id is shown
 * (always "corpus-trained", never as a pretrained model) and the line after a run. Pure, unit-tested.
 */
import type { TrainEmbedderProgress } from '../../lib/kb-build/train-embedder.ts';
import { isTrainedModelId } from '../../lib/models/trained-ids.ts';
import type { EmbedderChoice } from '../../lib/models/kb-embedder.ts';
import type { TrainedModelMeta } from '../../lib/store/trained-models.ts';

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

export { trainedSpec } from '../../lib/models/kb-embedder.ts';

/** The dimension a trained id names (`corpus/x-lsi256` → 256): what was asked for; null if none. */
function askedDim(id: string): number | null {
  const m = /-lsi(\d+)$/.exec(id);
  return m ? Number(m[1]) : null;
}

/**
 * "Trained corpus/sotu-lsi256 on 1,234 chunks (5,678 terms, 256-d) in 3.2 s; it is State of the Union's embedder
 * (dense search here uses it)." A model smaller than asked says so. It is attached to its knowledge base only
 * (models/kb-embedder.ts): never selected for every corpus.
 */
export function trainedResultText(meta: TrainedModelMeta, enabledHere: boolean): string {
  const s = Number.isFinite(meta.seconds) ? meta.seconds.toFixed(1) : '?';
  const asked = askedDim(meta.id);
  const dim = asked !== null && asked > meta.dim ? `${meta.dim}-d: ${asked} asked, this knowledge base allows ${meta.dim}` : `${meta.dim}-d`;
  const head = `Trained ${meta.id} on ${meta.documents.toLocaleString('en')} chunks (${meta.vocabulary.toLocaleString('en')} terms, ${dim}) in ${s} s; it is ${meta.kbTitle}’s embedder`;
  return enabledHere ? `${head}, dense search here uses it.` : `${head} (other knowledge bases keep theirs): open it in Search to use it for dense search.`;
}

/** How the open knowledge base's embedder is described beside the models panel's picker. */
export function choiceText(choice: EmbedderChoice, named: (id: string) => string): string {
  if (!choice.spec) return choice.note ?? 'None: BM25 only.';
  const name = named(choice.spec.id);
  if (choice.source === 'own') return `${name}: trained on this knowledge base.`;
  if (choice.source === 'pretrained') return `${name}: the pretrained embedder chosen in Settings (no model trained on this knowledge base).`;
  return choice.foreign ? `${name}: picked for this knowledge base, although trained on another corpus (${choice.trainedOn}).` : `${name}: picked for this knowledge base.`;
}

/** The combined Enable button's words: what it loads (the embedder of this knowledge base; the cross-encoder when offered). */
export function enableLabel(embedder: string | null, crossEncoder: string | null): string | null {
  if (embedder && crossEncoder) return `Enable dense search and reranking (${embedder}; ${crossEncoder})`;
  if (embedder) return `Enable dense search (${embedder})`;
  return crossEncoder ? `Enable reranking (${crossEncoder})` : null;
}
