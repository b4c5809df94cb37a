/**
 * The one wording for "this needs an embedding model" (dense vectors, a dense mode, embedding a build), and where
 * the page loads one: Settings → Models (also the Search tab's models panel, which is the same ModelStatus).
 */

/** The need and the remedy, without a subject: "needs an embedding model: load one under Settings → Models". */
export const NEEDS_EMBEDDER = 'needs an embedding model: load one under Settings → Models';

/** "<what> needs an embedding model: load one under Settings → Models[, or <otherwise>]." */
export function needsEmbedder(what: string, otherwise?: string): string {
  return `${what} ${NEEDS_EMBEDDER}${otherwise ? `, or ${otherwise}` : ''}.`;
}
