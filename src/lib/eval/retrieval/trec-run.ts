/** TREC run format: `qid Q0 docid rank score tag`, one line per retrieved document (for trec_eval, ranx). */
export function trecRunLines(queryId: string, ranked: ReadonlyArray<{ id: string; score: number }>, tag: string): string[] {
  return ranked.map((r, i) => `${queryId} Q0 ${r.id} ${i + 1} ${r.score.toPrecision(8)} ${tag}`);
}
