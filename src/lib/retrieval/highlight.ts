/** Character spans of the words in `text` whose index term is one of the query's terms. */
import type { Analyzer } from './tokenize.ts';
import { wordSpans } from './tokenize.ts';

export function highlightSpans(text: string, queryTerms: readonly string[], analyzer: Analyzer): Array<[number, number]> {
  if (queryTerms.length === 0) return [];
  const wanted = new Set(queryTerms);
  const out: Array<[number, number]> = [];
  for (const w of wordSpans(text)) {
    const t = analyzer.term(w.token);
    if (t !== null && wanted.has(t)) out.push([w.start, w.end]);
  }
  return out;
}
