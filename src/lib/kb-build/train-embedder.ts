/**
 * Training a corpus-trained embedder for a knowledge base in the tab (the build worker's `trainEmbedder`): the
 * knowledge base's chunk texts (title line and chunk, as BM25 indexes them) — given by the page for the open one
 * (the search worker's `trainingTexts`), or read here from a knowledge base built in this browser — go to
 * `trainCorpusEmbedder` (LSI, docs/corpus-embedder.md), and its files are saved in the trained-model store under
 * `corpus/<name>-lsi<dim>`, from where the models worker loads it like any model. Progress per stage; the page
 * cancels by terminating the worker (nothing is saved before the last stage).
 */
import { memorySource } from '../artifact/memory-source.ts';
import { openArtifact } from '../artifact/read.ts';
import { CorpusEmbedderError, TRAIN_DEFAULTS, trainCorpusEmbedder, type TrainedModel, type TrainOptions, type TrainStage } from '../models/corpus-embedder/train.ts';
import { kbTrainingTexts } from '../models/corpus-embedder/corpus-hash.ts';
import { trainedModelId } from '../models/trained-ids.ts';
import { localKbId } from '../data/kb-registry.ts';
import { missingMessage, type LocalKbStore } from '../store/local-kb-store.ts';
import type { NewTrainedModel, TrainedModelMeta } from '../store/trained-models.ts';

export type TrainEmbedderStage = 'read' | TrainStage | 'save';

export interface TrainEmbedderProgress {
  stage: TrainEmbedderStage;
  done: number;
  total: number;
}

export interface TrainEmbedderRequest {
  /** The open knowledge base's chunk texts (`kbTrainingTexts`), or a knowledge base built here, read by name. */
  source: { kind: 'texts'; texts: string[] } | { kind: 'local'; name: string };
  /** Its id (`sotu`, `local:<name>`, `hub:…`): names the model. */
  kbId: string;
  /** Its title, recorded with the model ("trained on …"). */
  kbTitle: string;
  /** Embedding size (default 256). */
  dim?: number;
}

/** At most this many texts and characters are trained on (a bound on the worker's memory, not a typical size). */
export const MAX_TRAIN_TEXTS = 500_000;
export const MAX_TRAIN_CHARS = 400_000_000;
export const MAX_TRAIN_DIM = 1024;

/**
 * The smallest corpus a corpus embedder is trained on (docs/corpus-embedder.md "Too small a corpus"): LSI has at
 * most min(terms, chunks) − 1 dimensions, and a model of very few dimensions maps most texts of any other corpus to
 * the same few directions or to zero (a 3-chunk knowledge base gave a 2-d model that left 7,029 of 16,564 rows of
 * another corpus unusable). Fewer chunks than this are refused before training; a model with fewer dimensions than
 * MIN_TRAIN_DIM (or than asked, when less was asked) is refused after the SVD; one with fewer than asked is kept and
 * says so.
 */
export const MIN_TRAIN_CHUNKS = 32;
export const MIN_TRAIN_DIM = 16;

/** A request the trainer refuses; the message is for the user. */
export class TrainEmbedderError extends Error {
  override name = 'TrainEmbedderError';
}

/**
 * The training session of the tab and of `rag-lab train-embedder`: training texts → an LSI model (its files in Hub
 * layout and a summary), progress per stage; a corpus it cannot learn from is a TrainEmbedderError, `cannot(why)`.
 */
export async function trainOnTexts(texts: readonly string[], opts: TrainOptions, cannot: (why: string) => string): Promise<TrainedModel> {
  const small = 'too small for a corpus embedder (use BM25, or a pretrained embedder, on it)';
  if (texts.length < MIN_TRAIN_CHUNKS) {
    throw new TrainEmbedderError(cannot(`training needs at least ${MIN_TRAIN_CHUNKS} chunks (documents), got ${texts.length}: ${small}`));
  }
  let trained: TrainedModel;
  try {
    trained = await trainCorpusEmbedder(texts, opts);
  } catch (e) {
    if (e instanceof CorpusEmbedderError) throw new TrainEmbedderError(cannot(e.message));
    throw e;
  }
  const floor = Math.min(MIN_TRAIN_DIM, trained.summary.requestedDim);
  if (trained.summary.dim < floor) {
    throw new TrainEmbedderError(cannot(`its text allows only ${trained.summary.dim} dimensions (at least ${floor} are needed; ${trained.summary.notes.join('; ')}): ${small}`));
  }
  return trained;
}

function checkTexts(texts: unknown): string[] {
  if (!Array.isArray(texts) || texts.some((t) => typeof t !== 'string')) throw new TrainEmbedderError('The knowledge base gave no texts to train on.');
  if (texts.length > MAX_TRAIN_TEXTS) throw new TrainEmbedderError(`The knowledge base has ${texts.length.toLocaleString('en')} chunks; a corpus embedder trains on at most ${MAX_TRAIN_TEXTS.toLocaleString('en')} in the tab (use rag-lab train-embedder).`);
  let chars = 0;
  for (const t of texts as string[]) chars += t.length;
  if (chars > MAX_TRAIN_CHARS) throw new TrainEmbedderError(`The knowledge base has ${(chars / 1e6).toFixed(0)} million characters; a corpus embedder trains on at most ${MAX_TRAIN_CHARS / 1e6} million in the tab (use rag-lab train-embedder).`);
  return texts as string[];
}

async function localTexts(store: LocalKbStore, name: string, signal?: AbortSignal): Promise<string[]> {
  const record = await store.get(name);
  if (!record) throw new TrainEmbedderError(missingMessage(name));
  const opened = await openArtifact(memorySource(record.files, localKbId(name)), '', { dense: 'none', ...(signal ? { signal } : {}) });
  return kbTrainingTexts(opened.kb);
}

export interface TrainEmbedderDeps {
  store: { put(model: NewTrainedModel): Promise<TrainedModelMeta> };
  localKbs: LocalKbStore;
  onProgress?: (p: TrainEmbedderProgress) => void;
  signal?: AbortSignal;
}

/** Trains the knowledge base's corpus embedder and saves it; resolves with the stored model's description. */
export async function trainKbEmbedder(req: TrainEmbedderRequest, deps: TrainEmbedderDeps): Promise<TrainedModelMeta> {
  const dim = req.dim ?? TRAIN_DEFAULTS.dim;
  if (!Number.isInteger(dim) || dim < 1 || dim > MAX_TRAIN_DIM) throw new TrainEmbedderError(`The embedding size must be a whole number from 1 to ${MAX_TRAIN_DIM}, got ${String(req.dim)}.`);
  if (typeof req.kbId !== 'string' || req.kbId.length === 0 || req.kbId.length > 400) throw new TrainEmbedderError('The knowledge base to train on has no id.');
  const kbTitle = String(req.kbTitle ?? '').trim().slice(0, 200) || req.kbId;
  const { onProgress, signal } = deps;
  onProgress?.({ stage: 'read', done: 0, total: 1 });
  const texts = checkTexts(req.source?.kind === 'local' ? await localTexts(deps.localKbs, req.source.name, signal) : req.source?.texts);
  onProgress?.({ stage: 'read', done: 1, total: 1 });
  const trained = await trainOnTexts(texts, { dim, trainedOn: kbTitle, ...(onProgress ? { onProgress } : {}), ...(signal ? { signal } : {}) },
    (why) => `A corpus embedder cannot be trained on ${kbTitle}: ${why}.`);
  signal?.throwIfAborted();
  const s = trained.summary;
  onProgress?.({ stage: 'save', done: 0, total: 1 });
  // The id names the dimension asked for (corpus/sotu-lsi256), the meta the one used (clamped on a small corpus).
  const meta = await deps.store.put({
    meta: {
      id: trainedModelId(req.kbId, dim), kbId: req.kbId, kbTitle, method: 'lsi', dim: s.dim, documents: s.documents,
      vocabulary: s.vocabulary, seconds: s.seconds, created: new Date().toISOString(), notes: s.notes.slice(0, 20), corpusHash: s.corpusHash,
    },
    files: trained.files,
  });
  onProgress?.({ stage: 'save', done: 1, total: 1 });
  return meta;
}
