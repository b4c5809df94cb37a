/**
 * A small BEIR folder written to a temp dir from the shared SciFact (never into the repo): the first `queries` judged
 * test queries, their judged documents and the first `others` documents of the corpus.
 */
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

export const SCIFACT = process.env.RAG_LAB_SCIFACT ?? resolve(import.meta.dirname, '../../../shared/data/scifact');

/** Writes the subset under a new temp folder (`<tmp>/<name>`) and returns its path; the caller removes `dirname`. */
export function scifactSubset(opts: { queries: number; others: number; name?: string; parent?: string }): string {
  const parent = opts.parent ?? mkdtempSync(join(tmpdir(), 'rag-lab-scifact-'));
  const dir = join(parent, opts.name ?? 'scifact-subset');
  mkdirSync(join(dir, 'qrels'), { recursive: true });
  const qrelLines = readFileSync(join(SCIFACT, 'qrels/test.tsv'), 'utf8').trim().split('\n').slice(1);
  const queryIds = [...new Set(qrelLines.map((l) => l.split('\t')[0]!))].slice(0, opts.queries);
  const kept = qrelLines.filter((l) => queryIds.includes(l.split('\t')[0]!));
  const docIds = new Set(kept.map((l) => l.split('\t')[1]!));
  const corpus = readFileSync(join(SCIFACT, 'corpus.jsonl'), 'utf8').trim().split('\n');
  writeFileSync(join(dir, 'corpus.jsonl'), corpus.filter((l, i) => i < opts.others || docIds.has(JSON.parse(l)._id)).join('\n') + '\n');
  const queries = readFileSync(join(SCIFACT, 'queries.jsonl'), 'utf8').trim().split('\n').filter((l) => queryIds.includes(JSON.parse(l)._id));
  writeFileSync(join(dir, 'queries.jsonl'), queries.join('\n') + '\n');
  writeFileSync(join(dir, 'qrels/test.tsv'), ['query-id\tcorpus-id\tscore', ...kept].join('\n') + '\n');
  return dir;
}
