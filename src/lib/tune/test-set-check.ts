/**
 * A tune's test set checked against the knowledge base it tunes (tune-session.ts): ids given twice, empty queries and
 * judgements of documents it does not hold counted in notes; a test set of other documents, or too few queries,
 * refused (TuneError).
 */
import type { BeirQuery, Qrels } from '../data/beir.ts';
import type { KnowledgeBase } from '../retrieval/knowledge-base.ts';

export class TuneError extends Error {
  constructor(message: string) { super(message); this.name = 'TuneError'; }
}

/**
 * The judged queries a tune runs on, checked against the knowledge base: a query id given twice counts once, an empty
 * query is left out, and judged documents the knowledge base does not hold are counted in a note (all of them missing:
 * the test set belongs to other documents, an error). At least 2 must remain.
 */
export function testSetQueries(queries: readonly BeirQuery[], qrels: Qrels, kb: KnowledgeBase, notes: string[]): BeirQuery[] {
  const seen = new Set<string>();
  let empty = 0, twice = 0;
  const judged = queries.filter((q) => {
    if (!qrels.has(q.id)) return false;
    if (seen.has(q.id)) { twice++; return false; }
    seen.add(q.id);
    if (q.text.trim() === '') { empty++; return false; }
    return true;
  });
  const ids = new Set(kb.docs.map((d) => d.id));
  let pairs = 0, missing = 0;
  for (const q of judged) for (const [doc, rel] of qrels.get(q.id)!) if (rel > 0) { pairs++; if (!ids.has(doc)) missing++; }
  if (pairs > 0 && missing === pairs) throw new TuneError(`none of the test set's ${pairs} relevant (query, document) judgements names a document of the knowledge base (${kb.docs.length} documents): the test set belongs to other documents`);
  if (missing) notes.push(`${missing} of the test set's ${pairs} relevant (query, document) judgements name documents the knowledge base does not hold: they can never be met`);
  if (twice) notes.push(`${twice} quer${twice === 1 ? 'y id was' : 'y ids were'} given again: each counted once`);
  if (empty) notes.push(`${empty} empty quer${empty === 1 ? 'y was' : 'ies were'} left out`);
  if (judged.length < 2) throw new TuneError(`a tune needs at least 2 judged queries, the test set has ${judged.length}`);
  return judged;
}
