/**
 * What the Build tab says around a build's result (unit-tested in tests/unit/build-result-view.test.ts): whether the
 * form's title names a knowledge base already here (not the one just built), where the progress and summary stand
 * (under the button that started the build), and what an exported .zip holds and why it holds no more.
 */
import type { BuildSummary, LocalKbMeta } from '../../lib/data/local-kb-meta.ts';
import { isTrainedModelId } from '../../lib/models/trained-ids.ts';
import { nameFromTitle } from './build-view.ts';

/**
 * What the form says about its title's name: `none` (no title, or a new name), `just-built` (the knowledge base the
 * last build saved, shown in its summary: no warning), or `taken` (another knowledge base here has that name).
 */
export type NameNotice = 'none' | 'just-built' | 'taken';

export function nameNotice(title: string, opts: { taken: readonly string[]; justBuilt: string | null }): NameNotice {
  if (title.trim() === '') return 'none';
  const name = nameFromTitle(title);
  if (!opts.taken.includes(name)) return 'none';
  return name === opts.justBuilt ? 'just-built' : 'taken';
}

/** The panels a build can be started from; the progress and the summary stand right after the one used. */
export type BuildSlot = 'files' | 'hub-dataset' | 'arxiv' | 'web' | 'list';

/** Where the progress and summary of a build asked for from `source` are shown (a rebuild: beside the list it was asked from). */
export function buildSlot(source: 'files' | 'hub-dataset' | 'arxiv' | 'web' | 'rebuild' | null): BuildSlot {
  return source === null || source === 'rebuild' ? 'list' : source;
}

/**
 * What `<name>.zip` holds, and what it leaves out and why: the artifact folder (documents, chunks, BM25 index, and
 * the vectors when the knowledge base was built with them, with the record of their embedder), never model weights.
 */
export function exportNote(m: Pick<LocalKbMeta, 'name'> & { summary: Pick<BuildSummary, 'embedder'> }): string {
  const e = m.summary.embedder;
  const zip = `${m.name}.zip`;
  if (!e) {
    return `${zip} holds the documents, chunks and BM25 index, and no vectors: this knowledge base was built without them (vectors the Search tab computes for it stay in this browser's cache, outside the knowledge base). To export vectors, load the embedder, tick “Embed chunks” above and Rebuild it.`;
  }
  const base = `${zip} holds the documents, chunks, BM25 index and the vectors by ${e.id} (${e.dtype}, ${e.dim} dimensions).`;
  if (!isTrainedModelId(e.id)) return `${base} The model is named in it, not included: to search the vectors where the .zip is opened, ${e.id} is loaded there (from the Hub, or rag-lab's --models-dir).`;
  return `${base} ${e.id} was trained in this browser and is not in the .zip (the artifact format names the embedder but carries no model files): elsewhere, dense search needs it trained again on these documents (Build tab, or rag-lab train-embedder --data ${zip}); BM25 works as is.`;
}
