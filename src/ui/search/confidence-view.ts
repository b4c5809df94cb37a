/**
 * The search's one confidence figure as the top hit's card shows it: the same number, through the same
 * `formatConfidence`, that the rejection banner quotes (the reason from `checkConfidence`), labelled so the card's
 * per-retriever ranking scores are not taken for it.
 */
import { MODES, type RetrievalMode } from '../../lib/retrieval/modes.ts';
import { formatConfidence } from '../../lib/retrieval/rejection.ts';

/** "confidence 0.268"; "confidence n/a" when the mode has none for this search. */
export function confidenceLabel(confidence: number | null): string {
  return `confidence ${confidence === null ? 'n/a' : formatConfidence(confidence)}`;
}

/** Whether a mode's confidence is the lexical evidence alone (BM25), with no model's score in it. */
const lexicalOnly = (mode: RetrievalMode) => !MODES[mode].needsDense && !MODES[mode].needsReranker;

/**
 * The short line after the figure: what it is compared with, and its limit (or why there is none). Only a lexical
 * search's confidence is the query's words alone; a mode with a model takes the smaller of that and the model's score.
 */
export function confidenceBasis(confidence: number | null, mode: RetrievalMode, note?: string): string {
  if (confidence === null) return `no confidence for this search (${note ?? 'none for this mode'}): nothing is rejected`;
  return lexicalOnly(mode)
    ? 'the search’s, compared with “Reject below”; it counts the query’s words, not their meaning'
    : 'the search’s, compared with “Reject below”: the smaller of the query’s word match (BM25) and the model’s score for this hit';
}

/** What the figure is, and what it cannot tell (shown with it). */
export function confidenceHelp(mode: RetrievalMode): string {
  const head = 'The search’s confidence, given on its top result and compared with “Reject below”: ';
  const tail = ' The ranking scores below it only order the hits.';
  return lexicalOnly(mode)
    ? `${head}the share of the query’s word weight (idf) that the best BM25 match holds. It counts words, not meaning: an off-topic query that shares a few words with the knowledge base can pass.${tail}`
    : `${head}the smaller of the share of the query’s word weight (idf) that the best BM25 match holds and the model’s score for the top hit (its cosine, or the reranker’s): both the words and the model must support it.${tail}`;
}
