/**
 * The search's one confidence figure as the top hit's card shows it: the same number, through the same
 * `formatConfidence`, that the rejection banner quotes (the reason from `checkConfidence`), labelled so the card's
 * per-retriever ranking scores are not taken for it.
 */
import { formatConfidence } from '../lib/retrieval/rejection.ts';

/** "confidence 0.268"; "confidence n/a" when the mode has none for this search. */
export function confidenceLabel(confidence: number | null): string {
  return `confidence ${confidence === null ? 'n/a' : formatConfidence(confidence)}`;
}

/** The short line after the figure: what it is compared with, and its limit (or why there is none). */
export function confidenceBasis(confidence: number | null, note?: string): string {
  return confidence === null
    ? `no confidence for this search (${note ?? 'none for this mode'}): nothing is rejected`
    : 'the search’s, compared with “Reject below”; it counts the query’s words, not their meaning';
}

/** What the figure is, and what it cannot tell (shown with it). */
export const CONFIDENCE_HELP =
  'The search’s confidence, given on its top result and compared with “Reject below”: the share of the query’s word ' +
  'weight (idf) that the best BM25 match holds, and in modes with a model the smaller of that and the model’s score ' +
  'for the top hit. It counts words, not meaning: an off-topic query that shares a few words with the knowledge base ' +
  'can pass. The ranking scores below it only order the hits.';
