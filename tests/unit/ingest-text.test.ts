/**
 * TXT / MD / HTML ingestion and what every file goes through: charset decoding (strict UTF-8, BOMs, UTF-16,
 * Windows-1252 with a note, binary), empty and unknown files, limits, duplicate paths, order, progress, abort, and
 * 5,000 small files at once.
 */
import { describe, expect, it } from 'vitest';
import type { InputFile } from '../../src/lib/data/source-documents.ts';
import { textFolderDocuments } from '../../src/lib/data/text-folder.ts';
import { BINARY_REASON, decodeText } from '../../src/lib/ingest/decode.ts';
import { EMPTY_REASON, extractDocuments } from '../../src/lib/ingest/extract.ts';
import { UNKNOWN_FORMAT } from '../../src/lib/ingest/formats.ts';
import { htmlToText } from '../../src/lib/ingest/html-text.ts';
import { DEFAULT_INGEST_LIMITS, sizeLimitReason } from '../../src/lib/ingest/limits.ts';
import { normaliseText } from '../../src/lib/ingest/text-normalise.ts';
import { textPdf } from '../helpers/make-pdf.ts';

const utf8 = (s: string) => new TextEncoder().encode(s);
const file = (path: string, text: string | Uint8Array): InputFile => ({ path, bytes: typeof text === 'string' ? utf8(text) : text });

describe('decodeText', () => {
  it('UTF-8 with and without a BOM; UTF-16 LE and BE by their BOMs', () => {
    const s = 'Grüße, naïve café — 日本語';
    expect(decodeText(utf8(s))).toEqual({ kind: 'text', text: s, encoding: 'utf-8', guessed: false });
    expect(decodeText(new Uint8Array([0xef, 0xbb, 0xbf, ...utf8(s)]))).toMatchObject({ text: s, guessed: false });
    const le = new Uint8Array([0xff, 0xfe, ...new Uint8Array(Uint16Array.from(s, (c) => c.charCodeAt(0)).buffer)]);
    expect(decodeText(le)).toMatchObject({ text: s, encoding: 'utf-16le' });
    const be = new Uint8Array(2 + s.length * 2);
    be.set([0xfe, 0xff]);
    [...s].forEach((c, i) => { be[2 + 2 * i] = c.charCodeAt(0) >> 8; be[3 + 2 * i] = c.charCodeAt(0) & 0xff; });
    expect(decodeText(be)).toMatchObject({ text: s, encoding: 'utf-16be' });
  });

  it('bytes that are not UTF-8 are read as Windows-1252 (guessed)', () => {
    // "Café – 50 €" in Windows-1252: é = E9, en dash = 96, euro = 80.
    const bytes = new Uint8Array([0x43, 0x61, 0x66, 0xe9, 0x20, 0x96, 0x20, 0x35, 0x30, 0x20, 0x80]);
    expect(decodeText(bytes)).toEqual({ kind: 'text', text: 'Café – 50 €', encoding: 'windows-1252', guessed: true });
  });

  it('binary: a NUL byte, or many control characters', () => {
    expect(decodeText(new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]))).toEqual({ kind: 'binary' });
    expect(decodeText(Uint8Array.from({ length: 400 }, (_, i) => (i % 10 === 0 ? 0x01 : 0x61)))).toEqual({ kind: 'binary' });
    // Tabs, form feeds and line breaks are text.
    expect(decodeText(utf8('a\tb\fc\r\nd'))).toMatchObject({ kind: 'text' });
  });
});

describe('htmlToText', () => {
  it('skips script/style/noscript/template, breaks lines at blocks, decodes entities, keeps <pre> lines', () => {
    const html = `<!doctype html><html><head><title> The  Page &amp; Title </title><style>p{color:red}</style>
      <script>var x = "<p>not text</p>";</script></head><body><noscript>enable JS</noscript><template><p>hidden</p></template>
      <h1>Main heading</h1><p>First   paragraph with <b>bold</b> and&nbsp;an entity: caf&eacute; &lt;tag&gt; &#8212; done.</p>
      <ul><li>one</li><li>two</li></ul><div>a div<br>after a break</div><pre>line 1
line 2</pre><table><tr><td>cell a</td><td>cell b</td></tr></table></body></html>`;
    const got = htmlToText(html);
    expect(got.title).toBe('The Page & Title');
    expect(got.text).toBe('Main heading\n\nFirst paragraph with bold and an entity: café <tag> — done.\n\none\ntwo\n\na div\nafter a break\n\nline 1\nline 2\n\ncell a cell b');
  });

  it('the title is the first <h1> without a <title>, else null', () => {
    expect(htmlToText('<body><h2>Sub</h2><h1>First <i>one</i></h1><h1>Second</h1></body>').title).toBe('First one');
    expect(htmlToText('<p>no heading</p>').title).toBeNull();
  });
});

describe('normaliseText', () => {
  it('trims lines, collapses spaces and blank lines, keeps one paragraph break', () => {
    expect(normaliseText('  a \t b  \r\n\n\n\n  c\u2028d\f ')).toBe('a b\n\nc\nd');
  });
});

describe('extractDocuments: text files', () => {
  it('TXT / MD / HTML: one document each, titles by the text-folder rules, meta file and format', async () => {
    const got = await extractDocuments([
      file('notes/b.md', 'Intro line\n\n## Second Heading\n\ntext'),
      file('a.txt', 'Plain words.\n'),
      file('web/page.htm', '<title>Web Page</title><p>Hello &amp; welcome.</p>'),
      file('web/untitled.html', '<p>No title here.</p>'),
    ]);
    expect(got.docs).toEqual([
      { id: 'a.txt', title: 'a', text: 'Plain words.\n', meta: { file: 'a.txt', format: 'txt' } },
      { id: 'notes/b.md', title: 'Second Heading', text: 'Intro line\n\n## Second Heading\n\ntext', meta: { file: 'notes/b.md', format: 'md' } },
      { id: 'web/page.htm', title: 'Web Page', text: 'Hello & welcome.', meta: { file: 'web/page.htm', format: 'html' } },
      { id: 'web/untitled.html', title: 'untitled', text: 'No title here.', meta: { file: 'web/untitled.html', format: 'html' } },
    ]);
    expect(got.pages).toBe(0);
    expect(got.fields.map((f) => f.name)).toEqual(['file', 'format']);
  });

  it('a folder of .txt / .md gives the documents textFolderDocuments gives (ids, titles, texts; meta adds the file)', async () => {
    const files = [file('z.md', 'Title\n=====\n\nbody'), file('sub/x.txt', 'x'), file('c.markdown', '```\n# not a title\n```\n# Real')];
    const old = textFolderDocuments(files.map((f) => ({ path: f.path, text: new TextDecoder().decode(f.bytes) }))).docs;
    const got = (await extractDocuments(files)).docs;
    expect(got.map(({ id, title, text }) => ({ id, title, text }))).toEqual(old.map(({ id, title, text }) => ({ id, title, text })));
    expect(got.map((d) => d.meta)).toEqual(old.map((d) => ({ file: d.id, ...d.meta })));
  });

  it('non-UTF-8 text is read as Windows-1252 with a note naming the file; binary, empty and unknown files are skipped', async () => {
    const got = await extractDocuments([
      file('latin.txt', new Uint8Array([0x4e, 0x61, 0xef, 0x76, 0x65, 0x20, 0x63, 0x61, 0x66, 0xe9])),
      file('image.txt', new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 0x0d, 0x49, 0x48, 0x44, 0x52])),
      file('blank.md', ' \n\t\n'),
      file('zero.txt', new Uint8Array()),
      file('scripts.html', '<script>only()</script>'),
      file('data.csv', 'a,b'),
      file('noext', 'words'),
    ]);
    expect(got.docs.map((d) => [d.id, d.text])).toEqual([['latin.txt', 'Naïve café']]);
    expect(got.notes.join('\n')).toMatch(/not UTF-8, read as Windows-1252: latin\.txt/);
    expect(got.skipped).toEqual([
      { path: 'blank.md', reason: EMPTY_REASON },
      { path: 'data.csv', reason: UNKNOWN_FORMAT },
      { path: 'image.txt', reason: BINARY_REASON },
      { path: 'noext', reason: UNKNOWN_FORMAT },
      { path: 'scripts.html', reason: `${EMPTY_REASON} (the HTML has no visible text)` },
      { path: 'zero.txt', reason: EMPTY_REASON },
    ]);
    expect(got.origin).toEqual({ kind: 'files', files: 7, bytes: 10 + 12 + 4 + 0 + 23 + 3 + 5 });
  });

  it('duplicate paths: both kept, the second named "<path> (2)" with a note; never another file\'s name', async () => {
    const got = await extractDocuments([
      file('a.txt', 'first'), file('./a.txt', 'second'), file('a.txt (2)', 'a real file named so'), file('a.txt', 'third'),
      file('r.pdf', textPdf(['one'])), file('r.pdf', textPdf(['two'])),
    ]);
    expect(got.docs.map((d) => [d.id, d.text.trim()])).toEqual([
      ['a.txt', 'first'], ['a.txt (3)', 'second'], ['a.txt (4)', 'third'], ['r.pdf#p1', 'one'], ['r.pdf (2)#p1', 'two'],
    ]);
    // The file really named "a.txt (2)" keeps its name (and, not ending in .txt, is not one of ours).
    expect(got.skipped).toEqual([{ path: 'a.txt (2)', reason: UNKNOWN_FORMAT }]);
    expect(got.docs.at(-1)!.meta).toEqual({ file: 'r.pdf (2)', page: 1, format: 'pdf' });
    expect(got.notes.join('\n')).toMatch(/same path.*"a\.txt \(3\)", "a\.txt \(4\)", "r\.pdf \(2\)"/);
  });

  it('limits: a file over its size limit, files past the total and past the count are skipped saying the limit', async () => {
    const limits = { maxTextBytes: 10, maxPdfBytes: 100_000, maxTotalBytes: 14, maxFiles: 2 };
    const got = await extractDocuments([file('a.txt', '12345678'), file('b.txt', 'this is too large'), file('c.txt', '1234567'), file('d.txt', '12'), file('e.txt', '1')], { limits });
    expect(got.docs.map((d) => d.id)).toEqual(['a.txt', 'd.txt']);
    expect(Object.fromEntries(got.skipped.map((s) => [s.path, s.reason]))).toEqual({
      'b.txt': 'too large: 17 B, the limit for a text or HTML file is 10 B (split the file)',
      'c.txt': expect.stringMatching(/^over the total size limit: .*14 B/),
      'e.txt': expect.stringMatching(/^over the file count limit: a build takes 2 files/),
    });
    expect(sizeLimitReason('pdf', DEFAULT_INGEST_LIMITS.maxPdfBytes + 1)).toMatch(/the limit for a PDF is 100 MB/);
    expect(sizeLimitReason('md', DEFAULT_INGEST_LIMITS.maxTextBytes)).toBeNull();
  });

  it('output is in path order whatever the input order', async () => {
    const names = ['b/2.txt', 'a.txt', 'B.txt', 'b/10.txt', 'é.txt'];
    const a = await extractDocuments(names.map((n) => file(n, n)));
    const b = await extractDocuments([...names].reverse().map((n) => file(n, n)));
    expect(a.docs.map((d) => d.id)).toEqual(['B.txt', 'a.txt', 'b/10.txt', 'b/2.txt', 'é.txt']);
    expect(b.docs).toEqual(a.docs);
  });

  it('5,000 small files at once: every one a document, progress for each, in order', async () => {
    const files = Array.from({ length: 5000 }, (_, i) => file(`f/${String(4999 - i).padStart(4, '0')}.txt`, `note number ${4999 - i}`));
    const progress: number[] = [];
    const got = await extractDocuments(files, { onProgress: (p) => { expect(p.stage).toBe('extract'); expect(p.total).toBe(5000); progress.push(p.done); } });
    expect(got.docs).toHaveLength(5000);
    expect(got.docs[0]!.id).toBe('f/0000.txt');
    expect(got.docs[4999]!.text).toBe('note number 4999');
    expect(progress).toEqual(Array.from({ length: 5001 }, (_, i) => i));
  });

  it('aborts between files with an AbortError', async () => {
    const ac = new AbortController();
    const files = Array.from({ length: 50 }, (_, i) => file(`${i}.txt`, 'x'));
    const run = extractDocuments(files, { signal: ac.signal, onProgress: (p) => { if (p.done === 10) ac.abort(); } });
    await expect(run).rejects.toMatchObject({ name: 'AbortError' });
    const pre = new AbortController();
    pre.abort();
    await expect(extractDocuments(files, { signal: pre.signal })).rejects.toMatchObject({ name: 'AbortError' });
  });
});
