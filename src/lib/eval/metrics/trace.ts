/**
 * TRACe (RAGBench): relevance, utilization, adherence and completeness of one RAG answer, each in [0, 1] or NaN
 * (undefined for that row). Documents are split into sentences keyed `{doc}{letter}` ('0a', '1c', …), as in
 * RAGBench's `documents_sentences`; an evaluator names the relevant and the utilized keys, and the scores follow:
 *
 *   relevance    = |relevant ∩ V| / |V|          share of the context that is relevant to the question
 *   utilization  = |utilized ∩ V| / |V|          share of the context the answer uses
 *   completeness = |relevant ∩ utilized ∩ V| / |relevant ∩ V|   share of the relevant context the answer uses
 *   adherence    = 1 when every answer sentence is supported by the context, else 0
 *
 * V = the valid document sentence keys. Completeness is NaN when nothing is relevant: "how much of the relevant
 * information was used" has no answer then (RAGBench's own labels disagree with each other on such rows: mostly 1,
 * sometimes other values), and NaN rows are left out of RMSE instead of counting an arbitrary 0 or 1.
 */

export interface TraceScores {
  relevance: number;
  utilization: number;
  adherence: number;
  completeness: number;
}

/** The parts of a judge's reply that TRACe needs (RAGBench's annotation schema). */
export interface TraceKeys {
  overall_supported: boolean;
  all_relevant_sentence_keys: readonly string[];
  all_utilized_sentence_keys: readonly string[];
}

export const clip01 = (x: number): number => (Number.isNaN(x) ? NaN : Math.min(1, Math.max(0, x)));

/** The keys of RAGBench's `documents_sentences` ([[[key, text], …] per document]). */
export function documentSentenceKeys(documentsSentences: readonly (readonly (readonly [string, string])[])[]): string[] {
  return documentsSentences.flatMap((doc) => doc.map(([key]) => key));
}

/** TRACe scores from the keys a judge named; keys not in `documentKeys` are dropped; NaN everywhere when V is empty. */
export function traceFromKeys(documentKeys: readonly string[], reply: Partial<TraceKeys>): TraceScores {
  const valid = new Set(documentKeys);
  const relevant = new Set((reply.all_relevant_sentence_keys ?? []).filter((k) => valid.has(k)));
  const utilized = new Set((reply.all_utilized_sentence_keys ?? []).filter((k) => valid.has(k)));
  const adherence = reply.overall_supported === true ? 1 : 0;
  if (valid.size === 0) return { relevance: NaN, utilization: NaN, adherence, completeness: NaN };
  let both = 0;
  for (const k of relevant) if (utilized.has(k)) both++;
  return {
    relevance: clip01(relevant.size / valid.size),
    utilization: clip01(utilized.size / valid.size),
    adherence,
    completeness: relevant.size === 0 ? NaN : clip01(both / relevant.size),
  };
}
