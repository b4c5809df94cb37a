/**
 * The find boxes of the Reports list and of every per-question table: word-prefix and typo-tolerant matching with
 * minisearch's radix tree (`SearchableMap`: `atPrefix`, `fuzzyGet`). Every word of the
 * query must match (in any field of the same row); a word matches a stored word that starts with it, or one within
 * round(0.2 × its length) edits (minisearch's `fuzzy: 0.2`, at most 6).
 *
 * Why not a full MiniSearch index: a find box needs which rows match, not a ranking, and MiniSearch's per-document
 * scoring made indexing 3,000 RAGBench rows take seconds (scripts/bench-reports.ts). Here each row's distinct words
 * go into one posting list per word (row, fields matched) and the words into the radix tree, which is the part of
 * minisearch that does the prefix and fuzzy matching.
 *
 *   `rowFinder(rows)`: which rows of one report match (question, answer); built on the first non-empty query, so
 *     opening a 3,000-row report costs nothing until the user searches.
 *   `ReportFinder`: which saved reports match, and why (title, notes, questions, answers).
 */
import SearchableMap from 'minisearch/SearchableMap';
import type { ReportRow } from './format.ts';

export const FIND_OPTIONS = { prefix: true, fuzzy: 0.2, maxFuzzy: 6, combineWith: 'AND' } as const;
export const FIND_FIELDS = ['title', 'notes', 'question', 'answer'] as const;
export type FindField = (typeof FIND_FIELDS)[number];

/** Words: runs of letters, digits and combining marks (minisearch's default splits on spaces and punctuation). */
const WORD = /[\p{L}\p{N}\p{M}]+/gu;
/** The words of `text` as the index keeps them, in lower case (one regex pass: 5× faster than minisearch's tokenizer). */
export function findTerms(text: string): string[] {
  return text.toLowerCase().match(WORD) ?? [];
}

interface Postings { docs: number[]; masks: number[] }

/**
 * Documents of up to 31 fields (bit i of a mask = field i): `match(query)` gives each document matching every word
 * of the query, with the fields any word matched in; null for a query with no words.
 */
export class TermIndex {
  private readonly map: SearchableMap<Postings>;

  /** `docs[d][f]`: the text of field f of document d. */
  constructor(docs: Iterable<readonly string[]>) {
    const terms = new Map<string, Postings>();
    let d = 0;
    for (const fields of docs) {
      for (let f = 0; f < fields.length; f++) {
        const text = fields[f];
        if (!text) continue;
        for (const term of findTerms(text)) {
          let p = terms.get(term);
          if (!p) { p = { docs: [], masks: [] }; terms.set(term, p); }
          const last = p.docs.length - 1;
          // Documents are added in order: this document's posting, if any, is the last one.
          if (last >= 0 && p.docs[last] === d) p.masks[last]! |= 1 << f;
          else { p.docs.push(d); p.masks.push(1 << f); }
        }
      }
      d++;
    }
    this.map = SearchableMap.from(terms);
  }

  /** Documents matching one query word: by prefix and within the fuzzy distance. */
  private matchTerm(term: string): Map<number, number> {
    const out = new Map<number, number>();
    const add = (p: Postings) => { for (let i = 0; i < p.docs.length; i++) out.set(p.docs[i]!, (out.get(p.docs[i]!) ?? 0) | p.masks[i]!); };
    for (const [, p] of this.map.atPrefix(term)) add(p);
    const distance = Math.min(FIND_OPTIONS.maxFuzzy, Math.round(term.length * FIND_OPTIONS.fuzzy));
    if (distance > 0) for (const [, [p]] of this.map.fuzzyGet(term, distance)) add(p);
    return out;
  }

  match(query: string): Map<number, number> | null {
    const terms = [...new Set(findTerms(query))];
    if (!terms.length) return null;
    let result: Map<number, number> | null = null;
    for (const term of terms.sort((a, b) => b.length - a.length)) {
      const m = this.matchTerm(term);
      if (result === null) { result = m; continue; }
      const next = new Map<number, number>();
      for (const [d, mask] of result) { const x = m.get(d); if (x !== undefined) next.set(d, mask | x); }
      result = next;
      if (!result.size) break;
    }
    return result;
  }
}

/**
 * A finder over `rows`: `(query)` gives the keys of matching rows, or null for an empty query (no filter).
 * The index is built once, on the first non-empty query.
 */
export function rowFinder(rows: readonly Pick<ReportRow, 'key' | 'question' | 'answer'>[]): (query: string) => Set<string> | null {
  let index: TermIndex | null = null;
  return (query) => {
    if (!findTerms(query).length) return null;
    index ??= new TermIndex(rows.map((r) => [r.question, r.answer]));
    const hits = index.match(query);
    return new Set([...(hits?.keys() ?? [])].sort((a, b) => a - b).map((d) => rows[d]!.key));
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

const fieldsOfMask = (mask: number): FindField[] => FIND_FIELDS.filter((_, i) => mask & (1 << i));

/**
 * The Reports list's index: `set(id, entry, rows)` adds or replaces a report (rows may come later: null indexes the
 * title and notes only), `find(query)` gives the matching reports in the order they were set.
 */
export class ReportFinder {
  private readonly reports = new Map<string, TermIndex>();

  has(id: string): boolean {
    return this.reports.has(id);
  }

  set(id: string, entry: { title: string; notes: string }, rows: readonly Pick<ReportRow, 'question' | 'answer'>[] | null): void {
    const docs: string[][] = [[entry.title, entry.notes]];
    for (const r of rows ?? []) docs.push(['', '', r.question, r.answer]);
    this.reports.set(id, new TermIndex(docs));
  }

  delete(id: string): void {
    this.reports.delete(id);
  }

  /** Reports matching `query`; empty for an empty query. */
  find(query: string): ReportMatch[] {
    const out: ReportMatch[] = [];
    for (const [id, index] of this.reports) {
      const hits = index.match(query);
      if (!hits?.size) continue;
      let mask = 0, rows = 0;
      for (const [d, m] of hits) { mask |= m; if (d > 0) rows++; }
      out.push({ id, fields: fieldsOfMask(mask), rows });
    }
    return out;
  }
}
