/**
 * A test set written by hand, as CSV (a header row) or JSONL (one object a line): a question per row and what answers
 * it, by `doc_id` (a document id), `chunk_id` (an item id as the knowledge base names it, `docId#n` for chunks: judged
 * as its document, since a run ranks documents) or `answer` (text: every item whose text holds it, case and white
 * space folded, judges its document). A cell may name several ids separated by `|`; a row may carry an `id`
 * (else `row-<n>`). Rows that judge nothing (unknown ids, an answer found nowhere, an empty question) are counted in
 * the notes, not kept. Bounded: 2 MB of text and 10,000 rows. CSV is read by papaparse.
 */
import Papa from 'papaparse';
import type { BeirQuery, Qrels } from '../data/beir.ts';
import type { KnowledgeBase } from '../retrieval/knowledge-base.ts';
import { TEST_SET_LIMITS } from './tune-tab-types.ts';

export { TEST_SET_LIMITS };

export class TestSetFileError extends Error {
  constructor(message: string) { super(message); this.name = 'TestSetFileError'; }
}

type Row = Record<string, unknown>;
const fold = (s: string) => s.toLowerCase().replace(/\s+/g, ' ').trim();
const cell = (x: unknown) => (typeof x === 'string' ? x.trim() : typeof x === 'number' ? String(x) : '');

function rowsOf(text: string, format: 'csv' | 'jsonl'): Row[] {
  if (format === 'jsonl') {
    return text.split('\n').map((l, i) => ({ l: l.trim(), i })).filter(({ l }) => l !== '').map(({ l, i }) => {
      let v: unknown;
      try { v = JSON.parse(l); } catch { throw new TestSetFileError(`line ${i + 1} is not JSON`); }
      if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new TestSetFileError(`line ${i + 1} is not an object`);
      return v as Row;
    });
  }
  const r = Papa.parse<Row>(text, { header: true, skipEmptyLines: 'greedy', transformHeader: (h) => h.trim().toLowerCase() });
  const bad = r.errors.find((e) => e.type !== 'FieldMismatch');
  if (bad) throw new TestSetFileError(`CSV row ${(bad.row ?? 0) + 2}: ${bad.message}`);
  return r.data;
}

/** The file's questions and judgements against the knowledge base, and what was left out. */
export function parseTestSetFile(text: string, format: 'csv' | 'jsonl', kb: KnowledgeBase): { queries: BeirQuery[]; qrels: Qrels; notes: string[] } {
  if (text.length > TEST_SET_LIMITS.bytes) throw new TestSetFileError(`the test set is over ${TEST_SET_LIMITS.bytes / 1024 / 1024} MB`);
  const rows = rowsOf(text, format);
  if (rows.length > TEST_SET_LIMITS.rows) throw new TestSetFileError(`the test set has ${rows.length.toLocaleString('en')} rows, more than ${TEST_SET_LIMITS.rows.toLocaleString('en')}`);
  const question = (r: Row) => cell(r['question'] ?? r['query'] ?? r['text']);
  if (rows.length && !rows.some((r) => question(r))) throw new TestSetFileError('no row has a question (a "question" column or key)');
  const docIds = new Set(kb.docs.map((d) => d.id));
  const itemDoc = new Map(Array.from({ length: kb.size }, (_, i) => [kb.itemId(i), kb.docOf(i).id]));
  let folded: string[] | null = null; // the items' texts folded, once, when a row first judges by answer text
  const answerDocs = (answer: string) => {
    const a = fold(answer), out = new Set<string>();
    folded ??= Array.from({ length: kb.size }, (_, i) => fold(kb.itemText(i)));
    if (a) folded.forEach((t, i) => { if (t.includes(a)) out.add(kb.docOf(i).id); });
    return out;
  };
  const queries: BeirQuery[] = [], qrels: Qrels = new Map();
  const left = { question: 0, nothing: 0, twice: 0 };
  rows.forEach((r, n) => {
    const q = question(r);
    if (!q) { left.question++; return; }
    const id = cell(r['id']) || `row-${n + 1}`;
    if (qrels.has(id)) { left.twice++; return; }
    const split = (x: unknown) => cell(x).split('|').map((s) => s.trim()).filter(Boolean);
    const judged = new Set<string>([
      ...split(r['doc_id']).filter((d) => docIds.has(d)),
      ...split(r['chunk_id']).flatMap((c) => (itemDoc.has(c) ? [itemDoc.get(c)!] : [])),
      ...(cell(r['answer']) ? answerDocs(cell(r['answer'])) : []),
    ]);
    if (judged.size === 0) { left.nothing++; return; }
    queries.push({ id, text: q });
    qrels.set(id, new Map([...judged].map((d) => [d, 1])));
  });
  const notes = [
    ...(left.nothing ? [`${left.nothing} row${left.nothing === 1 ? '' : 's'} judged nothing in the knowledge base (unknown ids, or an answer no item holds): left out`] : []),
    ...(left.question ? [`${left.question} row${left.question === 1 ? '' : 's'} without a question: left out`] : []),
    ...(left.twice ? [`${left.twice} row id${left.twice === 1 ? '' : 's'} given again: the first kept`] : []),
  ];
  return { queries, qrels, notes };
}
