/**
 * The find boxes of the Reports list and of every per-question table (minisearch: prefix and typo-tolerant
 * matching, every word of the query must match, fuzzy 0.2 = up to one edit per five characters of a word).
 *
 *   `rowFinder(rows)`: which rows of one report match (question, answer); the index is built on the first
 *     non-empty query, so opening a 3,000-row report costs nothing until the user searches.
 *   `ReportFinder`: which saved reports match, and why (title, notes, questions, answers), over list entries and
 *     the rows of the reports loaded for it.
 */
import MiniSearch, { type SearchOptions } from 'minisearch';
import type { ReportRow } from './format.ts';

export const FIND_OPTIONS = { prefix: true, fuzzy: 0.2, combineWith: 'AND' } as const satisfies SearchOptions;
export type FindField = 'title' | 'notes' | 'question' | 'answer';
export const FIND_FIELD_LABEL: Record<FindField, string> = { title: 'title', notes: 'notes', question: 'question', answer: 'answer' };

/** The fields a result matched in, in FindField order. */
function matchedFields(match: Record<string, string[]>): FindField[] {
  const seen = new Set<string>();
  for (const fields of Object.values(match)) for (const f of fields) seen.add(f);
  return (['title', 'notes', 'question', 'answer'] as const).filter((f) => seen.has(f));
}

type RowDoc = { i: number; question: string; answer: string };

/**
 * A finder over `rows`: `(query)` gives the keys of matching rows, or null for an empty query (no filter).
 * The index is built once, on the first non-empty query.
 */
export function rowFinder(rows: readonly Pick<ReportRow, 'key' | 'question' | 'answer'>[]): (query: string) => Set<string> | null {
  let index: MiniSearch<RowDoc> | null = null;
  return (query) => {
    if (!query.trim()) return null;
    if (!index) {
      index = new MiniSearch<RowDoc>({ idField: 'i', fields: ['question', 'answer'], searchOptions: FIND_OPTIONS });
      index.addAll(rows.map((r, i) => ({ i, question: r.question, answer: r.answer })));
    }
    return new Set(index.search(query).map((hit) => rows[hit.id as number]!.key));
  };
}

/** What the Reports list find matched in one report. */
export interface ReportMatch {
  id: string;
  /** The fields that matched, over the report's entry and all its rows. */
  fields: FindField[];
  /** How many of its rows matched (question or answer). */
  rows: number;
}

type ReportDoc = { i: number; report: string; title?: string; notes?: string; question?: string; answer?: string };

/**
 * The Reports list's index: `set(id, entry, rows)` adds or replaces a report (rows may come later: null indexes the
 * title and notes only), `find(query)` gives the matching reports in match order.
 */
export class ReportFinder {
  private index = new MiniSearch<ReportDoc>({ idField: 'i', fields: ['title', 'notes', 'question', 'answer'], storeFields: ['report'], searchOptions: FIND_OPTIONS });
  private docs = new Map<string, number[]>();
  private next = 0;

  has(id: string): boolean {
    return this.docs.has(id);
  }

  set(id: string, entry: { title: string; notes: string }, rows: readonly Pick<ReportRow, 'question' | 'answer'>[] | null): void {
    this.delete(id);
    const docs: ReportDoc[] = [{ i: this.next++, report: id, title: entry.title, notes: entry.notes }];
    for (const r of rows ?? []) docs.push({ i: this.next++, report: id, question: r.question, answer: r.answer });
    this.index.addAll(docs);
    this.docs.set(id, docs.map((d) => d.i));
  }

  delete(id: string): void {
    const ids = this.docs.get(id);
    if (!ids) return;
    this.index.discardAll(ids);
    this.docs.delete(id);
  }

  /** Reports matching `query`, best first; empty for an empty query. */
  find(query: string): ReportMatch[] {
    if (!query.trim()) return [];
    const out = new Map<string, { fields: Set<FindField>; rows: number }>();
    for (const hit of this.index.search(query)) {
      const id = hit['report'] as string;
      const m = out.get(id) ?? { fields: new Set<FindField>(), rows: 0 };
      const fields = matchedFields(hit.match);
      for (const f of fields) m.fields.add(f);
      if (fields.includes('question') || fields.includes('answer')) m.rows++;
      out.set(id, m);
    }
    return [...out].map(([id, m]) => ({ id, fields: (['title', 'notes', 'question', 'answer'] as const).filter((f) => m.fields.has(f)), rows: m.rows }));
  }
}
