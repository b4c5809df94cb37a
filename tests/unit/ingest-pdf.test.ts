/**
 * PDF ingestion (pdfjs-dist legacy build, same-thread): PDFs made by the test (pages of known text, a two-column
 * page, Unicode through a ToUnicode CMap, each fault case) and the two real PDFs in ../shared/data/pdfs, whose
 * pages are compared with `pdftotext` when poppler-utils is installed.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { extractDocuments, NO_TEXT_LAYER_REASON } from '../../src/lib/ingest/extract.ts';
import { ENCRYPTED_REASON, meaningfulTitle, NO_PAGES_REASON, pdfText } from '../../src/lib/ingest/pdf-text.ts';
import { corruptPdf, makePdf, textPage, textPdf, twoColumnPage, wrap } from '../helpers/make-pdf.ts';

const PDFS = resolve(import.meta.dirname, '../../../shared/data/pdfs');
const extracted = new Map<string, ReturnType<typeof extractDocuments>>();
/** A real PDF's documents (extracted once per test file). */
function realPdf(name: string) {
  if (!extracted.has(name)) extracted.set(name, extractDocuments([{ path: name, bytes: new Uint8Array(readFileSync(join(PDFS, name))) }]));
  return extracted.get(name)!;
}

const PAGES = [
  'The first page talks about lighthouses on the northern coast.',
  'The second page explains tidal charts.\n\nA second paragraph on the same page mentions the harbour master.',
  'The third page lists the ferry timetable for the winter months.',
];

const words = (s: string) => s.split(/\s+/).filter(Boolean);

describe('PDF → one document per page', () => {
  it('a multi-page PDF: ids <path>#p<N>, titles "<title>, p. N", meta file/page/format, the text of each page', async () => {
    const got = await extractDocuments([{ path: 'docs/guide.pdf', bytes: textPdf(PAGES, { title: 'Coastal Guide' }) }]);
    expect(got.docs.map((d) => d.id)).toEqual(['docs/guide.pdf#p1', 'docs/guide.pdf#p2', 'docs/guide.pdf#p3']);
    expect(got.docs.map((d) => d.title)).toEqual(['Coastal Guide, p. 1', 'Coastal Guide, p. 2', 'Coastal Guide, p. 3']);
    expect(got.docs[1]!.meta).toEqual({ file: 'docs/guide.pdf', page: 2, format: 'pdf' });
    expect(got.docs.map((d) => d.text)).toEqual(PAGES);
    expect(got.pages).toBe(3);
    expect(got.fields).toEqual([
      { name: 'file', label: 'File', type: 'string' },
      { name: 'page', label: 'Page', type: 'number', facet: false },
      { name: 'format', label: 'Format', type: 'string' },
    ]);
    expect(got.skipped).toEqual([]);
    expect(got.origin).toEqual({ kind: 'files', files: 1, bytes: expect.any(Number) });
  });

  it('the title is the file name when the document information has no meaningful Title', async () => {
    for (const title of [undefined, '', 'untitled', 'Microsoft Word - notes.docx', 'report.pdf']) {
      const got = await extractDocuments([{ path: 'Annual Report.pdf', bytes: textPdf(['Some text.'], title === undefined ? {} : { title }) }]);
      expect(got.docs[0]!.title, String(title)).toBe('Annual Report, p. 1');
    }
    expect(meaningfulTitle('  The Shared   MIME-info Database ')).toBe('The Shared MIME-info Database');
    expect(meaningfulTitle(42)).toBeNull();
  });

  it('pages without a text layer are counted in a note and left out; the others are documents', async () => {
    const bytes = makePdf([textPage('Page one has words.'), { image: true }, textPage('Page three has words too.')]);
    const got = await extractDocuments([{ path: 'mixed.pdf', bytes }]);
    expect(got.docs.map((d) => d.id)).toEqual(['mixed.pdf#p1', 'mixed.pdf#p3']);
    expect(got.pages).toBe(3);
    expect(got.notes.join('\n')).toMatch(/mixed\.pdf: 1 of 3 pages have no text layer/);
  });

  it('a two-column page written row by row is read column by column, the title and footer in place', async () => {
    const left = 'Alpha bravo charlie delta echo foxtrot golf hotel india juliett kilo lima mike november oscar papa quebec romeo sierra tango. Left column ends.';
    const right = 'One two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen. Right column ends.';
    for (const order of ['rows', 'columns'] as const) {
      const got = await extractDocuments([{ path: `${order}.pdf`, bytes: makePdf([twoColumnPage('A Two Column Title', left, right, 'Page footer', order)]) }]);
      const text = got.docs[0]!.text;
      // Each column's lines, in order, as one run of text: no line of one column between two lines of the other.
      const flat = text.replace(/\s+/g, ' ');
      expect(flat, order).toContain(wrap(left, 45).join(' '));
      expect(flat, order).toContain(wrap(right, 45).join(' '));
      expect(flat.indexOf('A Two Column Title'), order).toBe(0);
      expect(flat.indexOf('Left column ends.'), order).toBeLessThan(flat.indexOf('One two three'));
      expect(flat.endsWith('Page footer'), order).toBe(true);
    }
  });

  it('Unicode text through a Type0 font and its ToUnicode CMap round-trips', async () => {
    const text = 'Grüße, naïve café — 日本語 𝔘𝔫𝔦𝔠𝔬𝔡𝔢';
    const got = await extractDocuments([{ path: 'unicode.pdf', bytes: makePdf([{ unicode: [{ x: 50, y: 700, text }] }]) }]);
    expect(got.docs[0]!.text).toBe(text);
  });

  it('faults: image-only, zero pages, encrypted, corrupt and not-a-PDF are skipped with their reasons; the rest is used', async () => {
    const got = await extractDocuments([
      { path: 'scan.pdf', bytes: makePdf([{ image: true }, { image: true }]) },
      { path: 'empty.pdf', bytes: makePdf([]) },
      { path: 'locked.pdf', bytes: makePdf([textPage('Secret words.')], { encrypted: true }) },
      { path: 'broken.pdf', bytes: corruptPdf() },
      { path: 'fake.pdf', bytes: new TextEncoder().encode('just some text named .pdf') },
      { path: 'good.pdf', bytes: textPdf(['Usable words.']) },
    ]);
    expect(got.docs.map((d) => d.id)).toEqual(['good.pdf#p1']);
    const reasons = Object.fromEntries(got.skipped.map((s) => [s.path, s.reason]));
    expect(reasons['scan.pdf']).toBe(NO_TEXT_LAYER_REASON);
    expect(reasons['empty.pdf']).toBe(NO_PAGES_REASON);
    expect(reasons['locked.pdf']).toBe(ENCRYPTED_REASON);
    expect(reasons['broken.pdf']).toMatch(/^not a readable PDF \(.+\)$/);
    expect(reasons['fake.pdf']).toMatch(/^not a readable PDF \(.+\)$/);
    expect(got.skipped.map((s) => s.path)).toEqual(['broken.pdf', 'empty.pdf', 'fake.pdf', 'locked.pdf', 'scan.pdf']);
    expect(got.pages).toBe(1);
  });

  it('does not take ownership of the bytes it is given (they can be read again)', async () => {
    const bytes = textPdf(['Read twice.']);
    const a = await pdfText(bytes);
    const b = await pdfText(bytes);
    expect(bytes.byteLength).toBeGreaterThan(0);
    expect(b.pages).toEqual(a.pages);
  });

  it('progress per page and abort between pages', async () => {
    const bytes = textPdf(Array.from({ length: 6 }, (_, i) => `Page number ${i + 1}.`));
    const items: string[] = [];
    await extractDocuments([{ path: 'p.pdf', bytes }], { onProgress: (p) => { if (p.item) items.push(p.item); } });
    expect(items).toEqual(['p.pdf', ...Array.from({ length: 6 }, (_, i) => `p.pdf, p. ${i + 1} of 6`)]);
    const ac = new AbortController();
    const run = extractDocuments([{ path: 'p.pdf', bytes }], { signal: ac.signal, onProgress: (p) => { if (p.item?.includes('p. 2 of')) ac.abort(); } });
    await expect(run).rejects.toMatchObject({ name: 'AbortError' });
  });
});

const HAS_PDFTOTEXT = (() => {
  try { execFileSync('pdftotext', ['-v'], { stdio: 'ignore' }); return true; } catch { return false; }
})();

describe('the real PDFs in ../shared/data/pdfs', () => {
  it('libtasn1.pdf: 36 pages; page 12 holds asn1_array2tree and its signature', async () => {
    expect(existsSync(join(PDFS, 'libtasn1.pdf')), `not found: ${PDFS}/libtasn1.pdf`).toBe(true);
    const got = await realPdf('libtasn1.pdf');
    expect(got.pages).toBe(36);
    const p12 = got.docs.find((d) => d.id === 'libtasn1.pdf#p12')!;
    expect(p12.title).toBe('libtasn1, p. 12');
    expect(p12.text).toContain('int asn1_array2tree (const asn1 static node * array, asn1 node *\ndefinitions, char * errorDescription)');
    expect(got.docs.filter((d) => d.text.includes('asn1_array2tree (const')).map((d) => d.meta?.page)).toEqual([12]);
  });

  it('shared-mime-info-spec.pdf: page 5 says audio/midi has an alias of audio/x-midi', async () => {
    const got = await realPdf('shared-mime-info-spec.pdf');
    expect(got.pages).toBe(17);
    const hits = got.docs.filter((d) => /audio\/midi has an alias of audio\/x-midi/.test(d.text));
    expect(hits.map((d) => d.id)).toEqual(['shared-mime-info-spec.pdf#p5']);
  });

  it.skipIf(!HAS_PDFTOTEXT)('each page has the words pdftotext finds on it (poppler-utils as an independent reference)', async () => {
    for (const [name, page] of [['libtasn1.pdf', 12], ['shared-mime-info-spec.pdf', 5], ['libtasn1.pdf', 1]] as const) {
      const ref = words(execFileSync('pdftotext', ['-f', String(page), '-l', String(page), join(PDFS, name), '-'], { encoding: 'utf8' }));
      const got = await realPdf(name);
      const ours = new Set(words(got.docs.find((d) => d.meta?.page === page)!.text));
      const found = ref.filter((w) => ours.has(w)).length;
      expect(found / ref.length, `${name} p. ${page}`).toBeGreaterThan(0.9);
    }
  });
});
