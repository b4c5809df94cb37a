/**
 * BEIR dataset parsing: `corpus.jsonl`, `queries.jsonl`, `qrels/<split>.tsv`. Pure functions over file text,
 * so the CLI (files) and the browser (fetch / uploads) share them. Bad input raises `DataError` naming the file
 * and line.
 */
import * as v from 'valibot';
import type { SourceDocument } from '../retrieval/document.ts';

export class DataError extends Error {
  constructor(readonly file: string, readonly line: number | null, message: string) {
    super(`${file}${line !== null ? `:${line}` : ''}: ${message}`);
    this.name = 'DataError';
  }
}

const Id = v.union([v.string(), v.pipe(v.number(), v.transform(String))]);
const CorpusLine = v.object({ _id: Id, title: v.optional(v.nullable(v.string()), ''), text: v.string() });
const QueryLine = v.object({ _id: Id, text: v.string() });

export interface BeirQuery { id: string; text: string }
/** qrels[queryId][docId] = graded relevance. */
export type Qrels = Map<string, Map<string, number>>;

function* jsonLines(file: string, content: string): Generator<{ line: number; value: unknown }> {
  const lines = content.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i]!.trim();
    if (raw === '') continue;
    try {
      yield { line: i + 1, value: JSON.parse(raw) };
    } catch (e) {
      throw new DataError(file, i + 1, `not valid JSON (${(e as Error).message})`);
    }
  }
}

function issueText(issues: v.BaseIssue<unknown>[]): string {
  return issues.map((i) => `${v.getDotPath(i) ?? 'line'}: ${i.message}`).join('; ');
}

export function parseCorpus(content: string, file = 'corpus.jsonl'): SourceDocument[] {
  const docs: SourceDocument[] = [];
  const seen = new Set<string>();
  for (const { line, value } of jsonLines(file, content)) {
    const r = v.safeParse(CorpusLine, value);
    if (!r.success) throw new DataError(file, line, `expected {"_id", "title", "text"}: ${issueText(r.issues)}`);
    if (seen.has(r.output._id)) throw new DataError(file, line, `duplicate _id "${r.output._id}"`);
    seen.add(r.output._id);
    docs.push({ id: r.output._id, title: r.output.title ?? '', text: r.output.text });
  }
  if (docs.length === 0) throw new DataError(file, null, 'no documents');
  return docs;
}

export function parseQueries(content: string, file = 'queries.jsonl'): BeirQuery[] {
  const out: BeirQuery[] = [];
  for (const { line, value } of jsonLines(file, content)) {
    const r = v.safeParse(QueryLine, value);
    if (!r.success) throw new DataError(file, line, `expected {"_id", "text"}: ${issueText(r.issues)}`);
    out.push({ id: r.output._id, text: r.output.text });
  }
  if (out.length === 0) throw new DataError(file, null, 'no queries');
  return out;
}

/** TSV with a header `query-id corpus-id score` (a header-less file is accepted too). */
export function parseQrels(content: string, file = 'qrels/test.tsv'): Qrels {
  const qrels: Qrels = new Map();
  const lines = content.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i]!.replace(/\r$/, '');
    if (raw.trim() === '') continue;
    const cols = raw.split('\t');
    if (i === 0 && cols[0] === 'query-id') continue;
    if (cols.length < 3) throw new DataError(file, i + 1, `expected 3 tab-separated columns (query-id, corpus-id, score), got ${cols.length}`);
    const [q, d, s] = cols as [string, string, string];
    const score = Number(s);
    if (s.trim() === '' || !Number.isInteger(score)) throw new DataError(file, i + 1, `score "${s}" is not an integer`);
    let m = qrels.get(q);
    if (!m) qrels.set(q, (m = new Map()));
    m.set(d, score);
  }
  if (qrels.size === 0) throw new DataError(file, null, 'no judgements');
  return qrels;
}
