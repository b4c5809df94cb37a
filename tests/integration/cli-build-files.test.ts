/**
 * `rag-lab build-index --data <folder of PDF/TXT/MD/HTML files>`: the CLI reads the folder through
 * `extractDocuments`, lists the files it could not use with their reasons on stderr, and writes exactly the chunks
 * the Build tab's session builds from the same files (`KnowledgeBase.build(extractDocuments(files).docs,
 * { chunking: DEFAULT_CHUNKING, bm25: DEFAULT_BM25 })`): same item ids, same texts.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { folderSource } from '../../cli/folder-source.ts';
import { openArtifact } from '../../src/lib/artifact/read.ts';
import { extractDocuments } from '../../src/lib/ingest/extract.ts';
import { DEFAULT_BM25 } from '../../src/lib/retrieval/bm25.ts';
import { DEFAULT_CHUNKING } from '../../src/lib/retrieval/chunk.ts';
import { KnowledgeBase } from '../../src/lib/retrieval/knowledge-base.ts';
import { runCli } from '../helpers/cli.ts';
import { makePdf, textPage, textPdf } from '../helpers/make-pdf.ts';

const temps: string[] = [];
afterAll(() => { for (const d of temps) rmSync(d, { recursive: true, force: true }); });
const tempDir = () => { const d = mkdtempSync(join(tmpdir(), 'rag-lab-build-files-')); temps.push(d); return d; };

const long = (topic: string, n: number) => Array.from({ length: n }, (_, i) => `Sentence ${i + 1} about ${topic} and its many details.`).join(' ');

describe('rag-lab build-index --data <folder of files>', () => {
  test('PDF pages, HTML, Markdown and text become the same chunks as extractDocuments + KnowledgeBase.build', async () => {
    const dir = join(tempDir(), 'My Files');
    mkdirSync(join(dir, 'web'), { recursive: true });
    const files: Record<string, Uint8Array | string> = {
      'manual.pdf': textPdf([long('boilers', 40), long('radiators', 3), `${long('valves', 30)}\n\n${long('pipes', 20)}`], { title: 'Heating Manual' }),
      'scan.pdf': makePdf([{ image: true }]),
      'mixed.pdf': makePdf([textPage('Only the first page has words.'), { image: true }]),
      'web/page.html': `<html><head><title>Garden Notes</title><script>skip()</script></head><body><h1>Roses</h1><p>${long('roses', 30)}</p></body></html>`,
      'notes.md': `# Weekly Notes\n\n${long('meetings', 25)}\n`,
      'plain.txt': long('trains', 5),
      'latin.txt': new Uint8Array([0x63, 0x61, 0x66, 0xe9, 0x20, 0x6e, 0x6f, 0x74, 0x65, 0x73]),
      'empty.txt': '  \n',
      'image.png': new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0, 0, 0]),
    };
    for (const [path, body] of Object.entries(files)) writeFileSync(join(dir, path), body);
    const out = tempDir();
    const r = await runCli(['build-index', '--data', dir, '--out', out, '--id', 'files']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/data: text folder .*My Files \(\d+ documents: 4 PDF pages from 2 PDFs, 1 HTML, 1 Markdown, 2 plain text\)/);
    expect(r.stderr).toMatch(/ignored 1 files that are not PDF, TXT, MD or HTML files: image\.png/);
    expect(r.stderr).toMatch(/skipped 2 files:\n.*empty\.txt: empty file\n.*scan\.pdf: no text layer \(scanned or image-only PDF; RAG Lab does no OCR\)/);
    expect(r.stderr).toMatch(/mixed\.pdf: 1 of 2 pages have no text layer/);
    expect(r.stderr).toMatch(/not UTF-8, read as Windows-1252: latin\.txt/);

    const opened = await openArtifact(folderSource(out), 'files');
    const inputs = Object.keys(files).map((path) => ({ path, bytes: new Uint8Array(readFileSync(join(dir, path))) }));
    const kb = KnowledgeBase.build((await extractDocuments(inputs)).docs, { chunking: DEFAULT_CHUNKING, bm25: DEFAULT_BM25 });
    const items = (k: KnowledgeBase) => Array.from({ length: k.size }, (_, i) => [k.itemId(i), k.itemText(i)]);
    expect(opened.kb.size).toBeGreaterThan(8); // the long pages are cut into several chunks
    expect(items(opened.kb)).toEqual(items(kb));
    expect(opened.descriptor.fields.map((f) => f.name)).toEqual(['file', 'page', 'format']);
    const p1 = opened.kb.docs.find((d) => d.id === 'manual.pdf#p1')!;
    expect(p1).toMatchObject({ title: 'Heating Manual, p. 1', meta: { file: 'manual.pdf', page: 1, format: 'pdf' } });

    // The page is searchable: a query for the valves page finds p. 3 first.
    const s = await runCli(['search', '--kb', join(out, 'files'), '--json', 'valves details']);
    expect(s.code, s.stderr).toBe(0);
    expect(JSON.parse(s.stdout.trim().split('\n').at(-1)!).results[0].hits[0].docId).toBe('manual.pdf#p3');
  });

  test('a folder whose files are all unusable is a one-line error naming the reasons', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'scan.pdf'), makePdf([{ image: true }]));
    writeFileSync(join(dir, 'blank.md'), '\n');
    const r = await runCli(['build-index', '--data', dir, '--out', tempDir()]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/none of its 2 PDF, TXT, MD or HTML files could be used \(blank\.md: empty file; scan\.pdf: no text layer/);
  });
});
