/** Local RAGBench files: JSONL (with a BOM) and parquet written at test time from ../shared, subset names, messages. */
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parquetWriteBuffer } from 'hyparquet-writer';
import { formatIssue, parseRagbenchJsonl, RagbenchError } from '../../src/lib/data/ragbench.ts';
import { parseRagbenchFile, subsetOfDatasetName, subsetOfFileName } from '../../src/lib/data/ragbench-files.ts';
import { ragbenchParquet, readJsonlRows } from '../helpers/ragbench-parquet.ts';

const DATA = process.env.RAG_LAB_RAGBENCH ?? resolve(import.meta.dirname, '../../../shared/data/ragbench/test');
const enc = (s: string) => new TextEncoder().encode(s);

describe('subset names', () => {
  it('come from dataset_name without the split suffix, or from the file name', () => {
    expect(subsetOfDatasetName('covidqa_test')).toBe('covidqa');
    expect(subsetOfDatasetName('HotpotQA_validation')).toBe('hotpotqa');
    expect(subsetOfDatasetName('a b')).toBeNull();
    expect(subsetOfFileName('/tmp/x/emanual.jsonl')).toBe('emanual');
    expect(subsetOfFileName('tatqa_test.parquet')).toBe('tatqa');
    expect(subsetOfFileName('My Data.jsonl')).toBeNull();
  });
});

describe('parseRagbenchFile', () => {
  const rows = readJsonlRows(DATA, 'emanual');
  const jsonl = rows.map((r) => JSON.stringify(r)).join('\n');
  const expected = parseRagbenchJsonl(jsonl, 'emanual').rows;

  it('parquet (nested columns, several row groups) gives the same rows as the JSONL, subset from dataset_name', async () => {
    const r = await parseRagbenchFile('upload.parquet', ragbenchParquet(rows));
    expect(r.subset).toBe('emanual');
    expect(r.skipped).toEqual([]);
    expect(r.rows).toHaveLength(132);
    expect(r.rows).toEqual(expected);
  });

  it('is told apart by content: a parquet file named .jsonl still reads as parquet', async () => {
    const r = await parseRagbenchFile('emanual.jsonl', ragbenchParquet(rows.slice(0, 10)));
    expect(r.rows).toEqual(expected.slice(0, 10));
  });

  it('JSONL with a UTF-8 byte order mark reads every row', async () => {
    const r = await parseRagbenchFile('whatever.jsonl', enc('\ufeff' + jsonl));
    expect(r.subset).toBe('emanual');
    expect(r.rows).toEqual(expected);
  });

  it('a bad JSONL line is reported with the file name and line', async () => {
    const lines = jsonl.split('\n');
    const broken = { ...rows[1]! }; delete broken.question;
    const text = [lines[0], JSON.stringify(broken), '{oops', lines[3]].join('\n');
    const r = await parseRagbenchFile('mine.jsonl', enc(text));
    expect(r.rows).toHaveLength(2);
    expect(r.skipped.map(formatIssue)).toEqual([
      'mine.jsonl line 2: question: missing',
      expect.stringMatching(/^mine\.jsonl line 3: not valid JSON/),
    ]);
  });

  it('a bad parquet row is reported with the file name and row index', async () => {
    const bad = rows.slice(0, 3).map((r, i) => (i === 1 ? { ...r, response: null } : r));
    const r = await parseRagbenchFile('subset.parquet', ragbenchParquet(bad));
    expect(r.rows).toHaveLength(2);
    expect(r.skipped.map(formatIssue)).toEqual([expect.stringMatching(/^subset\.parquet row 1: response: /)]);
  });

  it('without a usable dataset_name the file name names the subset; with neither it says so', async () => {
    const anon = rows.slice(0, 2).map((r) => JSON.stringify({ ...r, dataset_name: '?' })).join('\n');
    expect((await parseRagbenchFile('techqa.jsonl', enc(anon))).subset).toBe('techqa');
    await expect(parseRagbenchFile('My rows.jsonl', enc(anon))).rejects.toThrow(/My rows\.jsonl: cannot tell which subset/);
  });

  it('empty, non-UTF-8, unrelated parquet and row-less files fail with a message naming the file', async () => {
    await expect(parseRagbenchFile('e.jsonl', new Uint8Array())).rejects.toThrow('e.jsonl: the file is empty');
    await expect(parseRagbenchFile('latin1.jsonl', new Uint8Array([0x7b, 0xe9, 0xff, 0x7d]))).rejects.toThrow(/latin1\.jsonl: not UTF-8 text/);
    const other = parquetWriteBuffer({ columnData: [{ name: 'id', data: ['a'], type: 'STRING' }, { name: 'question', data: ['q'], type: 'STRING' }] });
    await expect(parseRagbenchFile('other.parquet', other)).rejects.toThrow(/other\.parquet: not a RAGBench file: missing columns documents, response/);
    await expect(parseRagbenchFile('junk.jsonl', enc('[1]\n{"a":1}\n'))).rejects.toBeInstanceOf(RagbenchError);
    await expect(parseRagbenchFile('junk.jsonl', enc('[1]\n'))).rejects.toThrow(/^junk\.jsonl: no valid row in 1 \(first problem: junk\.jsonl line 1: not a JSON object\)/);
  });
});
