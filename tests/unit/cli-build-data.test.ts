/** What `build-index --data` reads: the data kind told from what the path holds, and the faults named. */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CliError } from '../../cli/args.ts';
import { idOf } from '../../src/lib/kb-build/collect-data.ts';
import { loadBuildData } from '../../cli/build-data.ts';
import { textPdf } from '../helpers/make-pdf.ts';

const RAGBENCH = resolve(import.meta.dirname, '../../../shared/data/ragbench/test');
const temps: string[] = [];
function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'rag-lab-build-data-'));
  temps.push(d);
  return d;
}
afterAll(() => { for (const d of temps) rmSync(d, { recursive: true, force: true }); });

const ragbenchLines = (subset: string, n: number) => readFileSync(join(RAGBENCH, `${subset}.jsonl`), 'utf8').trim().split('\n').slice(0, n);

async function cliError(p: Promise<unknown>): Promise<string> {
  try { await p; } catch (e) { expect(e).toBeInstanceOf(CliError); return (e as Error).message; }
  throw new Error('expected a CliError');
}

describe('loadBuildData', () => {
  it('a BEIR folder: documents, queries and the qrels of the split', async () => {
    const dir = join(tempDir(), 'My Set');
    mkdirSync(join(dir, 'qrels'), { recursive: true });
    writeFileSync(join(dir, 'corpus.jsonl'), '{"_id":"d1","title":"A","text":"alpha"}\n{"_id":"d2","title":"","text":"beta"}\n');
    writeFileSync(join(dir, 'queries.jsonl'), '{"_id":"q1","text":"alpha?"}\n');
    writeFileSync(join(dir, 'qrels/test.tsv'), 'query-id\tcorpus-id\tscore\nq1\td1\t2\n');
    const got = await loadBuildData(dir);
    expect(got.kind).toBe('beir');
    expect(got.id).toBe('my-set');
    expect(got.docs.map((d) => d.id)).toEqual(['d1', 'd2']);
    expect(got.queries).toEqual([{ id: 'q1', text: 'alpha?' }]);
    expect(got.qrels?.get('q1')?.get('d1')).toBe(2);
    expect(got.summary).toMatch(/^BEIR folder .* \(2 documents, 1 queries, qrels\/test\.tsv\)$/);
    // Without the split's qrels the artifact carries no queries, and says so.
    const other = await loadBuildData(dir, 'dev');
    expect(other.queries).toBeNull();
    expect(other.notes.join(' ')).toMatch(/qrels\/dev\.tsv/);
  });

  it('a RAGBench .jsonl file: pooled, deduplicated documents named d0, d1, …', async () => {
    const dir = tempDir();
    const lines = ragbenchLines('emanual', 5);
    writeFileSync(join(dir, 'emanual.jsonl'), lines.join('\n') + '\n');
    const got = await loadBuildData(join(dir, 'emanual.jsonl'));
    expect(got.kind).toBe('ragbench');
    expect(got.id).toBe('emanual');
    const texts = new Set(lines.flatMap((l) => (JSON.parse(l) as { documents: string[] }).documents.map((t) => t.trim().replace(/\s+/g, ' '))));
    expect(got.docs).toHaveLength(texts.size);
    expect(got.docs[0]!.id).toBe('d0');
    expect(got.summary).toMatch(/RAGBench subset emanual .*5 rows/);
  });

  it('a folder of one subset\'s files is that subset; rows of two subsets are refused', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'part-1.jsonl'), ragbenchLines('covidqa', 2).join('\n'));
    writeFileSync(join(dir, 'part-2.jsonl'), ragbenchLines('covidqa', 4).slice(2).join('\n'));
    expect((await loadBuildData(dir)).id).toBe('covidqa');
    writeFileSync(join(dir, 'other.jsonl'), ragbenchLines('emanual', 1).join('\n'));
    expect(await cliError(loadBuildData(dir))).toMatch(/rows of 2 RAGBench subsets \((covidqa, emanual|emanual, covidqa)\).*give one subset/);
  });

  it('a folder of .txt / .md files, in subfolders too, skipping dot-folders', async () => {
    const dir = join(tempDir(), 'notes');
    mkdirSync(join(dir, 'sub'), { recursive: true });
    mkdirSync(join(dir, '.git'));
    writeFileSync(join(dir, 'a.md'), '# Alpha\ntext');
    writeFileSync(join(dir, 'sub/b.txt'), 'plain');
    writeFileSync(join(dir, '.git/c.txt'), 'hidden');
    writeFileSync(join(dir, 'data.csv'), 'x,y');
    const got = await loadBuildData(dir);
    expect(got.kind).toBe('files');
    expect(got.docs.map((d) => [d.id, d.title])).toEqual([['a.md', 'Alpha'], ['sub/b.txt', 'b']]);
    expect(got.fields.map((f) => f.name)).toEqual(['file', 'format']);
    expect(got.notes.join(' ')).toMatch(/ignored 1 files/);
  });

  it('symbolic links to files and folders are followed (once, a loop ends); FIFOs and broken links are named, never read', async () => {
    const papers = join(tempDir(), 'papers');
    mkdirSync(join(papers, 'more'), { recursive: true });
    writeFileSync(join(papers, 'one.pdf'), textPdf(['Boilers heat the water of the house.']));
    writeFileSync(join(papers, 'more/two.pdf'), textPdf(['Radiators give the heat to the rooms.']));
    const dir = join(tempDir(), 'links');
    mkdirSync(dir);
    symlinkSync(join(papers, 'one.pdf'), join(dir, 'one.pdf'));
    symlinkSync(join(papers, 'more'), join(dir, 'more'));
    symlinkSync(dir, join(dir, 'loop'));
    symlinkSync(join(papers, 'gone.pdf'), join(dir, 'gone.pdf'));
    execFileSync('mkfifo', [join(dir, 'pipe.txt')]);
    const got = await loadBuildData(dir);
    expect(got.kind).toBe('files');
    expect(got.docs.map((d) => d.meta?.file)).toEqual(['more/two.pdf', 'one.pdf']);
    expect(got.notes.join('\n')).toMatch(/passed over 2 entries that are not regular files \(never read\): gone\.pdf \(a broken link\), pipe\.txt \(a FIFO \(named pipe\)\)/);
    // A folder of nothing but links that lead nowhere says so, not "the folder is empty".
    const broken = join(tempDir(), 'broken');
    mkdirSync(broken);
    symlinkSync(join(papers, 'gone.pdf'), join(broken, 'gone.pdf'));
    expect(await cliError(loadBuildData(broken))).toMatch(/it holds no regular file \(passed over: gone\.pdf \(a broken link\)\)/);
  });

  it('unknown data kinds and missing paths are one-line errors naming the path and what was expected', async () => {
    const dir = tempDir();
    expect(await cliError(loadBuildData(dir))).toMatch(/unknown data kind: the folder is empty \(expected a BEIR folder/);
    writeFileSync(join(dir, 'x.csv'), 'a');
    expect(await cliError(loadBuildData(dir))).toMatch(/unknown data kind: none of its 1 files is corpus\.jsonl/);
    expect(await cliError(loadBuildData(join(dir, 'x.csv')))).toMatch(/unknown data kind: a file that is not \.jsonl or \.parquet/);
    expect(await cliError(loadBuildData(join(dir, 'missing')))).toMatch(/missing: not found/);
    writeFileSync(join(dir, 'bad.jsonl'), '{"not": "ragbench"}\n');
    expect(await cliError(loadBuildData(join(dir, 'bad.jsonl')))).toContain('bad.jsonl');
  });

  it('idOf makes a folder or subset name an index id', () => {
    expect(['SciFact', 'My Notes', 'covidqa.jsonl', '***'].map(idOf)).toEqual(['scifact', 'my-notes', 'covidqa', 'index']);
  });
});
