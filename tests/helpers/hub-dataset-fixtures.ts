/**
 * Hub datasets for tests and the bench, made from the shared SciFact (../shared/data/scifact, read by path) as parquet
 * with hyparquet-writer, in memory or in a temp dir: never written into the repo. `addBeirScifact` lays them out as
 * BeIR/scifact does on the Hub: the repo's own files are not parquet, the Hub's conversion (`refs/convert/parquet`)
 * has `corpus/corpus/0000.parquet` and `queries/queries/0000.parquet`, and the sibling repo `<name>-qrels` has
 * `default/test/0000.parquet` (query-id, corpus-id, score as int64, as the Hub converts the TSV).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parquetWriteBuffer, type ColumnSource } from 'hyparquet-writer';
import { SCIFACT } from './beir-subset.ts';
import type { HubRepoServer } from './hub-repo-server.ts';

export interface ScifactDoc { _id: string; title: string; text: string }

export function scifactCorpus(): ScifactDoc[] {
  return readFileSync(join(SCIFACT, 'corpus.jsonl'), 'utf8').trim().split('\n').map((l) => {
    const d = JSON.parse(l) as ScifactDoc;
    return { _id: String(d._id), title: d.title ?? '', text: d.text };
  });
}

export function scifactQueries(): Array<{ _id: string; text: string }> {
  return readFileSync(join(SCIFACT, 'queries.jsonl'), 'utf8').trim().split('\n').map((l) => {
    const q = JSON.parse(l) as { _id: string; text: string };
    return { _id: String(q._id), text: q.text };
  });
}

export function scifactQrels(): Array<[number, number, number]> {
  return readFileSync(join(SCIFACT, 'qrels/test.tsv'), 'utf8').trim().split('\n').slice(1)
    .map((l) => l.split('\t').map(Number) as [number, number, number]);
}

export function parquet(columnData: ColumnSource[], rowGroupSize = 1000): Uint8Array {
  return new Uint8Array(parquetWriteBuffer({ columnData, rowGroupSize }));
}

/** The corpus as BeIR/scifact's converted parquet has it (`_id`, `title`, `text`), repeated to `rows` with new ids. */
export function corpusParquet(docs: readonly ScifactDoc[], rows = docs.length, rowGroupSize = 1000): Uint8Array {
  const ids: string[] = [], titles: string[] = [], texts: string[] = [];
  for (let i = 0; i < rows; i++) {
    const d = docs[i % docs.length]!;
    const round = Math.floor(i / docs.length);
    ids.push(round === 0 ? d._id : `${d._id}-r${round}`);
    titles.push(d.title);
    texts.push(d.text);
  }
  return parquet([
    { name: '_id', type: 'STRING', data: ids },
    { name: 'title', type: 'STRING', data: titles },
    { name: 'text', type: 'STRING', data: texts },
  ], rowGroupSize);
}

/** Adds `name` (BEIR layout, the conversion only) and `name-qrels` to the server; returns the conversion's sha. */
export function addBeirScifact(hub: HubRepoServer, name = 'BeIR/scifact', opts: { rows?: number; private?: boolean } = {}): string {
  const docs = scifactCorpus();
  const queries = scifactQueries();
  const qrels = scifactQrels();
  hub.addRepo(name, new Map([['README.md', new TextEncoder().encode('# scifact\n')], ['corpus.jsonl.gz', new Uint8Array([31, 139, 8, 0])]]), opts);
  const sha = hub.setRef(name, 'refs/convert/parquet', new Map([
    ['corpus/corpus/0000.parquet', corpusParquet(docs, opts.rows ?? docs.length)],
    ['queries/queries/0000.parquet', parquet([
      { name: '_id', type: 'STRING', data: queries.map((q) => q._id) },
      { name: 'title', type: 'STRING', data: queries.map(() => '') },
      { name: 'text', type: 'STRING', data: queries.map((q) => q.text) },
    ])],
  ]));
  hub.addRepo(`${name}-qrels`, new Map([['test.tsv', new TextEncoder().encode('query-id\tcorpus-id\tscore\n')]]), opts);
  hub.setRef(`${name}-qrels`, 'refs/convert/parquet', new Map([['default/test/0000.parquet', parquet([
    { name: 'query-id', type: 'INT64', data: qrels.map((r) => BigInt(r[0])) },
    { name: 'corpus-id', type: 'INT64', data: qrels.map((r) => BigInt(r[1])) },
    { name: 'score', type: 'INT64', data: qrels.map((r) => BigInt(r[2])) },
  ])]]));
  return sha;
}
