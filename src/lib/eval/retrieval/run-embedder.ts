/**
 * Which embedder a retrieval benchmark run may use ("a model belongs to what it was trained on", issue 32). A
 * corpus-trained embedder belongs to the corpus whose training texts hash to its `corpusHash` (corpus-hash.ts); a
 * dataset's training texts are the items of the knowledge base the run builds of it (`datasetTrainingTexts`: whole
 * documents by default, seed B's chunks under its protocol, an artifact's own chunks), the same texts the Benchmark's
 * "Train a corpus embedder on this dataset" and `eval-beir --train-embedder` train on, so the two hashes meet.
 *
 * The rule (`chooseRunEmbedder`), for the tab where the models worker holds one embedder for every tab:
 *   automatic: the loaded embedder when it is pretrained or was trained on this dataset; else a model of this
 *     browser trained on this dataset (loaded for the run); else none, the dense modes skipped with the reason;
 *   a model picked by id: that model, whatever it was trained on ("trained on <corpus>" in the tab and report).
 */
import { corpusHashOf, kbTrainingTexts } from '../../models/corpus-embedder/corpus-hash.ts';
import { TRAIN_DEFAULTS, type TrainOptions, type TrainSummary } from '../../models/corpus-embedder/train.ts';
import { trainOnTexts } from '../../kb-build/train-embedder.ts';
import { isTrainedModelId, trainedModelId } from '../../models/trained-ids.ts';
import type { TrainedFileSource } from '../../models/trained-cache.ts';
import type { KnowledgeBase } from '../../retrieval/knowledge-base.ts';

/** The texts a corpus embedder of this run's dataset trains on: its knowledge base's items as BM25 indexes them. */
export const datasetTrainingTexts = (kb: KnowledgeBase): string[] => kbTrainingTexts(kb);

/** SHA-256 of the dataset's training texts: equal to a trained model's `corpusHash` when it was trained on them. */
export const datasetCorpusHash = (kb: KnowledgeBase): Promise<string> => corpusHashOf(datasetTrainingTexts(kb));

/** A corpus-trained model as the run knows it (the trained-model store's meta, or a model folder's config.json). */
export interface TrainedRef { id: string; kbTitle: string; corpusHash?: string | undefined }

/** What the embedder of a run was trained on; null for a pretrained one. */
export interface EmbedderCorpus {
  /** The training corpus's title ("Holdout manuals"). */
  title: string;
  /** SHA-256 of its training texts; null when the model did not record it. */
  corpusHash: string | null;
  /** Whether that is this run's dataset (the hashes are equal). */
  thisDataset: boolean;
}

/** 'auto' (the rule above) or a model id the user chose. */
export type EmbedderPick = 'auto' | { id: string };

export type EmbedderChoice =
  /** The loaded embedder runs. */
  | { kind: 'loaded'; id: string; corpus: EmbedderCorpus | null }
  /** This trained model is loaded for the run, then runs. */
  | { kind: 'load'; id: string; corpus: EmbedderCorpus }
  /** No embedder: the dense modes are skipped for `reason`. */
  | { kind: 'none'; reason: string };

/** The corpus `id` was trained on (null: a pretrained id); `meta` its record, if known. */
export function embedderCorpus(id: string, meta: TrainedRef | undefined, datasetHash: string): EmbedderCorpus | null {
  if (!isTrainedModelId(id) && !meta) return null;
  if (!meta) return { title: 'an unknown corpus (the model is not in this browser)', corpusHash: null, thisDataset: false };
  const hash = meta.corpusHash ?? null;
  return { title: meta.kbTitle || meta.id, corpusHash: hash, thisDataset: hash !== null && hash === datasetHash };
}

/**
 * What each embedder id was trained on, against `kb`'s training texts (their hash taken once, and only when a trained
 * model asks): the tab's tune names it for the loaded embedder and each other one, as a benchmark run does.
 */
export function corpusLookup(kb: KnowledgeBase, trained: () => Promise<readonly TrainedRef[]>): (id: string) => Promise<EmbedderCorpus | null> {
  let hash: Promise<string> | null = null, refs: Promise<readonly TrainedRef[]> | null = null;
  return async (id) => {
    const meta = (await (refs ??= trained())).find((r) => r.id === id);
    if (!isTrainedModelId(id) && !meta) return null;
    return embedderCorpus(id, meta, await (hash ??= datasetCorpusHash(kb)));
  };
}

/** "trained on Holdout manuals, another corpus" / "trained on this dataset" / null (pretrained). */
export function corpusText(c: EmbedderCorpus | null): string | null {
  if (!c) return null;
  return c.thisDataset ? `trained on this dataset (${c.title})` : `trained on ${c.title}, another corpus than this dataset`;
}

export const TRAIN_HINT = 'train a corpus embedder on this dataset, or load a pretrained embedder under Settings → Models';

/** The embedder a run uses (see the module comment): `loaded` is the id of the loaded embedder, if any. */
export function chooseRunEmbedder(input: { loaded: string | null; trained: readonly TrainedRef[]; datasetHash: string; pick: EmbedderPick }): EmbedderChoice {
  const { loaded, trained, datasetHash, pick } = input;
  const meta = (id: string) => trained.find((m) => m.id === id);
  if (pick !== 'auto') {
    if (loaded === pick.id) return { kind: 'loaded', id: loaded, corpus: embedderCorpus(loaded, meta(loaded), datasetHash) };
    const m = meta(pick.id);
    if (m) return { kind: 'load', id: m.id, corpus: embedderCorpus(m.id, m, datasetHash)! };
    return { kind: 'none', reason: `the chosen embedder ${pick.id} is not loaded and not a corpus-trained model of this browser: load it under Settings → Models` };
  }
  if (loaded !== null) {
    const c = embedderCorpus(loaded, meta(loaded), datasetHash);
    if (c === null || c.thisDataset) return { kind: 'loaded', id: loaded, corpus: c };
  }
  const own = trained.find((m) => m.corpusHash !== undefined && m.corpusHash === datasetHash);
  if (own) return { kind: 'load', id: own.id, corpus: embedderCorpus(own.id, own, datasetHash)! };
  if (loaded !== null) {
    const c = embedderCorpus(loaded, meta(loaded), datasetHash)!;
    return { kind: 'none', reason: `the loaded embedder ${loaded} was trained on ${c.title}, not on this dataset, so it is not used: ${TRAIN_HINT}, or choose ${loaded} explicitly as the embedder` };
  }
  // Nothing usable is loaded; models of this browser trained on other corpora are named, so the user knows why they sat out.
  const others = trained.filter((m) => m.corpusHash !== datasetHash).slice(0, 3);
  if (others.length > 0) {
    const named = others.map((m) => `${m.id} was trained on ${m.kbTitle || m.id}`).join('; ');
    return { kind: 'none', reason: `no embedding model is loaded; ${named}, not on this dataset, so it is not used: ${TRAIN_HINT}, or choose one explicitly as the embedder` };
  }
  return { kind: 'none', reason: `no embedding model is loaded and none was trained on this dataset: ${TRAIN_HINT}` };
}

/**
 * The knowledge-base id a dataset's trained model is named after (trained-ids.ts): the artifact's own id, else
 * `bench:<dataset>`, with `:c<size>-<overlap>` when the run chunks the documents (seed B's chunks are another corpus).
 */
export function datasetModelKbId(data: { kbId: string | null; dataset: string; kb: KnowledgeBase }): string {
  const c = data.kb.options.chunking;
  return `${data.kbId ?? `bench:${data.dataset}`}${data.kbId === null && c !== false ? `:c${c.chunkSize}-${c.overlap}` : ''}`;
}

/** What a model folder's config.json says it was trained on (`corpus_embedder`), as this run's `EmbedderCorpus`; null: not corpus-trained. */
export function corpusOfConfig(configText: string, datasetHash: string): EmbedderCorpus | null {
  let info: unknown;
  try { info = (JSON.parse(configText) as { corpus_embedder?: unknown }).corpus_embedder; } catch { return null; }
  if (!info || typeof info !== 'object') return null;
  const o = info as { trained_on?: unknown; corpus_sha256?: unknown };
  const hash = typeof o.corpus_sha256 === 'string' && /^[0-9a-f]{64}$/.test(o.corpus_sha256) ? o.corpus_sha256 : null;
  return { title: typeof o.trained_on === 'string' && o.trained_on ? o.trained_on.slice(0, 200) : 'an unnamed corpus', corpusHash: hash, thisDataset: hash !== null && hash === datasetHash };
}

/** A corpus embedder trained on a run's dataset, in memory: its id, what it was trained on, and its files to load it from. */
export interface DatasetEmbedder { id: string; corpus: EmbedderCorpus; summary: TrainSummary; files: TrainedFileSource }

/**
 * Trains a corpus embedder on the dataset's training texts (`eval-beir --train-embedder`: the same texts and trainer
 * as the tab's "Train a corpus embedder on this dataset"), kept in memory for the run.
 */
export async function trainDatasetEmbedder(
  data: { kbId: string | null; dataset: string; kb: KnowledgeBase }, opts: Pick<TrainOptions, 'dim' | 'onProgress' | 'signal'> = {},
): Promise<DatasetEmbedder> {
  const texts = datasetTrainingTexts(data.kb);
  const model = await trainOnTexts(texts, { ...opts, trainedOn: data.dataset }, (why) => `a corpus embedder cannot be trained on ${data.dataset}: ${why}`);
  const id = trainedModelId(datasetModelKbId(data), opts.dim ?? TRAIN_DEFAULTS.dim);
  const files: TrainedFileSource = { readFile: async (model2, path) => (model2 === id ? model.files[path] ?? null : null) };
  return { id, corpus: { title: data.dataset, corpusHash: model.summary.corpusHash, thisDataset: true }, summary: model.summary, files };
}
