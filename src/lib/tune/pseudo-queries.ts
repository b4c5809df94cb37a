/**
 * Pseudo-queries from the corpus text alone (no model, offline): a seeded sample of documents (without replacement),
 * one sentence of each (5–40 words; the document's first 40 words when none is) as the query, the document its one
 * judged answer (relevance 1). A smoke test only: the query is the document's own words, so pseudo-queries favour
 * lexical matching; measured here they ranked 31 settings at Kendall τ −0.52 against real queries on one collection
 * (docs/tuning.md). A tune on them is labelled, and its winner is not for adopting unless the agreement check with
 * labelled queries passes (agreement.ts).
 */
import type { BeirQuery, Qrels } from '../data/beir.ts';
import { seededRandom } from '../random.ts';
import { splitSentences } from '../retrieval/chunk.ts';
import type { SourceDocument } from '../retrieval/document.ts';

export const PSEUDO_LABEL = 'pseudo-queries: biased toward lexical matching';
/** Query ids are `pseudo:<document id>`, apart from any real test set's. */
export const PSEUDO_PREFIX = 'pseudo:';

const words = (s: string) => s.split(/\s+/).filter(Boolean);

export function pseudoQueries(docs: readonly SourceDocument[], n: number, seed: number): { queries: BeirQuery[]; qrels: Qrels; notes: string[] } {
  if (!(Number.isInteger(n) && n >= 1)) throw new RangeError(`pseudo-queries: ask for at least 1, got ${n}`);
  const rand = seededRandom(seed);
  const order = docs.map((_, i) => i);
  for (let i = order.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [order[i], order[j]] = [order[j]!, order[i]!];
  }
  const queries: BeirQuery[] = [];
  const qrels: Qrels = new Map();
  for (const d of order) {
    if (queries.length >= n) break;
    const doc = docs[d]!;
    const fit = splitSentences(doc.text).map((s) => words(s.text)).filter((w) => w.length >= 5 && w.length <= 40);
    const chosen = fit.length ? fit[Math.floor(rand() * fit.length)]! : words(doc.text).slice(0, 40);
    if (chosen.length === 0) continue;
    const id = `${PSEUDO_PREFIX}${doc.id}`;
    queries.push({ id, text: chosen.join(' ') });
    qrels.set(id, new Map([[doc.id, 1]]));
  }
  return { queries, qrels, notes: queries.length < n ? [`${queries.length} pseudo-queries: the documents with text are fewer than ${n}`] : [] };
}
