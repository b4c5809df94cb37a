/**
 * An embedder a tune tries besides the current one (`rag-lab tune --embedders`, the panel's "other embedders"): how
 * the run names it, its query encoder, and its dense side attached to a copy of each knowledge base the tune builds.
 */
import type { RunIdentity } from '../eval/retrieval/retrieval-session.ts';
import type { KnowledgeBase } from '../retrieval/knowledge-base.ts';
import type { QueryEncoder } from '../retrieval/search-types.ts';

/** An embedder a tune may try besides the current one. */
export interface TuneEmbedder {
  /** As a run's identity names it (`id@dtype`) and what it was trained on. */
  identity: Pick<RunIdentity, 'embedder' | 'embedderCorpus'>;
  /** How a command names it (`--embedder <flag>`): a trial's label, the winner's settings file. */
  flag: string;
  encoder: QueryEncoder;
  /** A copy of `kb` (any chunking this tune built) with this embedder's dense side; `kb` keeps its own. */
  attach(kb: KnowledgeBase): Promise<KnowledgeBase>;
}

/** `kb`'s items and postings with a dense side of their own: a copy (`kb` keeps its own) given to `attach` (another embedder's vectors). */
export async function denseCopy(kb: KnowledgeBase, attach: (copy: KnowledgeBase) => Promise<unknown>): Promise<KnowledgeBase> {
  const copy = kb.withoutDense();
  await attach(copy);
  return copy;
}
