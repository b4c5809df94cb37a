/** A picked BEIR folder (src/lib/data/beir-folder.ts): found under its folder name, parsed, counted; errors name the file. */
import { readFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseCorpus, parseQrels, parseQueries } from '../../src/lib/data/beir.ts';
import { beirFolderCounts, readBeirFolder, type BeirFileEntry } from '../../src/lib/data/beir-folder.ts';
import { scifactSubset } from '../helpers/beir-subset.ts';

const entries = (files: Record<string, string>): BeirFileEntry[] => Object.entries(files).map(([path, text]) => ({ path, read: async () => text }));
const corpus = ['{"_id":"d1","title":"A","text":"alpha"}', '{"_id":"d2","title":"B","text":"beta"}'].join('\n');
const queries = ['{"_id":"q1","text":"alpha?"}', '{"_id":"q2","text":"beta?"}', '{"_id":"q3","text":"gamma?"}'].join('\n');

describe('readBeirFolder', () => {
  it('reads the folder under its name, every qrels split, and counts the judged queries of a split', async () => {
    const f = await readBeirFolder(entries({
      'toy/corpus.jsonl': corpus, 'toy/queries.jsonl': queries,
      'toy/qrels/test.tsv': 'query-id\tcorpus-id\tscore\nq1\td1\t1\nq2\td2\t2\nq9\td1\t1\n',
      'toy/qrels/dev.tsv': 'q3\td3\t1\n', 'toy/README.md': 'ignored', 'toy/qrels/notes.txt': 'ignored',
    }));
    expect(f.name).toBe('toy');
    expect(f.docs.map((d) => d.id)).toEqual(['d1', 'd2']);
    expect([...f.qrels.keys()].sort()).toEqual(['dev', 'test']);
    const c = beirFolderCounts(f, 'test');
    // q1 and q2 are judged and in queries.jsonl; q9 is judged but missing from queries.jsonl
    expect(c).toMatchObject({ documents: 2, queries: 3, judged: 2 });
    expect(c.issues).toEqual(['1 query judged in qrels/test.tsv is not in queries.jsonl']);
    // dev judges q3 against d3, which the corpus lacks
    expect(beirFolderCounts(f, 'dev')).toMatchObject({ judged: 1, issues: ['1 judged document is not in corpus.jsonl'] });
    expect(beirFolderCounts(f, 'train')).toMatchObject({ judged: 0, issues: ['qrels/train.tsv is not in the folder (it has qrels/dev.tsv, qrels/test.tsv)'] });
  });

  it('takes the shallowest corpus.jsonl as the folder (files picked without a folder name too)', async () => {
    const f = await readBeirFolder(entries({
      'corpus.jsonl': corpus, 'queries.jsonl': queries, 'qrels/test.tsv': 'q1\td1\t1\n',
      'old/corpus.jsonl': '{"_id":"x","text":"other"}',
    }));
    expect(f.name).toBe('beir');
    expect(f.docs).toHaveLength(2);
  });

  it('names the missing or broken file', async () => {
    await expect(readBeirFolder(entries({ 'toy/queries.jsonl': queries }))).rejects.toThrow(/^corpus\.jsonl: not among the 1 picked files: pick a BEIR folder/);
    await expect(readBeirFolder(entries({ 'toy/corpus.jsonl': corpus }))).rejects.toThrow(/^toy\/queries\.jsonl: missing next to toy\/corpus\.jsonl/);
    await expect(readBeirFolder(entries({ 'toy/corpus.jsonl': corpus, 'toy/queries.jsonl': queries }))).rejects.toThrow(/^toy\/qrels\/test\.tsv: missing/);
    await expect(readBeirFolder(entries({ 'toy/corpus.jsonl': `${corpus}\n{bad`, 'toy/queries.jsonl': queries, 'toy/qrels/test.tsv': 'q1\td1\t1' })))
      .rejects.toThrow(/^toy\/corpus\.jsonl:3: not valid JSON/);
    await expect(readBeirFolder(entries({ 'toy/corpus.jsonl': corpus, 'toy/queries.jsonl': queries, 'toy/qrels/test.tsv': 'q1\td1\tx' })))
      .rejects.toThrow(/^toy\/qrels\/test\.tsv:1: score "x" is not an integer/);
  });

  const dir = scifactSubset({ queries: 12, others: 40 });
  afterAll(() => rmSync(dirname(dir), { recursive: true, force: true }));
  it('gives what the CLI parsers give on a SciFact subset', async () => {
    const name = 'scifact-subset';
    const read = (rel: string) => readFileSync(join(dir, rel), 'utf8');
    const f = await readBeirFolder(['corpus.jsonl', 'queries.jsonl', 'qrels/test.tsv'].map((rel) => ({ path: `${name}/${rel}`, read: async () => read(rel) })));
    expect(f.docs).toEqual(parseCorpus(read('corpus.jsonl')));
    expect(f.queries).toEqual(parseQueries(read('queries.jsonl')));
    expect(f.qrels.get('test')).toEqual(parseQrels(read('qrels/test.tsv')));
    expect(f.corpusText).toBe(read('corpus.jsonl'));
    expect(beirFolderCounts(f, 'test')).toMatchObject({ judged: 12, issues: [] });
  });
});
