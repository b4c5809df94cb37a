/**
 * The ingest code in a module Web Worker in Chromium, bundled by Vite as the app's workers are (no DOM there; pdf.js
 * with its worker code in the same thread, under the app's CSP): generated PDFs, the real libtasn1.pdf and HTML
 * become the same documents as in Node, faults are skipped with their reasons, and pdf.js's worker code sends the
 * page no stray message.
 */
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { extractDocuments } from '../../src/lib/ingest/extract.ts';
import { launchBrowser, type Browser } from '../helpers/browser.ts';
import { buildIngestSite, ingestInWorker } from '../helpers/ingest-worker-site.ts';
import { corruptPdf, makePdf, textPdf } from '../helpers/make-pdf.ts';
import { serveStatic, type StaticServer } from '../helpers/static-server.ts';

const REAL = resolve(import.meta.dirname, '../../../shared/data/pdfs/libtasn1.pdf');
let dir: string, dist: string, server: StaticServer, browser: Browser;
const FILES: Record<string, Uint8Array | string> = {
  'guide.pdf': textPdf(['Worker page one mentions lighthouses.', 'Worker page two mentions ferries.'], { title: 'Worker Guide' }),
  'unicode.pdf': makePdf([{ unicode: [{ x: 50, y: 700, text: 'Grüße, naïve café — 日本語' }] }]),
  'locked.pdf': makePdf([{ texts: [{ x: 50, y: 700, text: 'secret' }] }], { encrypted: true }),
  'broken.pdf': corruptPdf(),
  'page.html': '<title>Web</title><script>x()</script><p>Visible &amp; decoded.</p>',
};

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'rag-lab-ingest-site-'));
  dist = await buildIngestSite(dir);
  for (const [name, body] of Object.entries(FILES)) writeFileSync(join(dist, name), body);
  copyFileSync(REAL, join(dist, 'libtasn1.pdf'));
  server = await serveStatic(dist, '/');
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('extractDocuments in a module worker', () => {
  it('gives the documents Node gives, skips faults with their reasons, touches no DOM', async () => {
    const page = await browser.context.newPage();
    const stray: unknown[] = [];
    await page.exposeFunction('strayMessage', (m: unknown) => { stray.push(m); });
    await page.goto(server.url);
    // Anything the worker posts besides the answer (pdf.js's "ready" would be one) is recorded.
    await page.evaluate(`(() => { const W = window.Worker; window.Worker = class extends W { constructor(...a) { super(...a); this.addEventListener('message', (e) => { if (!('ok' in (e.data ?? {}))) window.strayMessage(JSON.stringify(e.data)); }); } }; })()`);
    const names = [...Object.keys(FILES), 'libtasn1.pdf'];
    const got = await ingestInWorker(page, names, { build: true, fresh: true });
    expect(got.error).toBeUndefined();
    expect(got.ok).toBe(true);
    expect(got.hasDocument).toBe(false);
    const node = await extractDocuments(names.map((n) => ({ path: n, bytes: new Uint8Array(readFileSync(join(dist, n))) })));
    expect(got.docs).toEqual(node.docs.map(({ id, title, text }) => ({ id, title, text })));
    expect(got.docs.find((d) => d.id === 'libtasn1.pdf#p12')!.text).toContain('int asn1_array2tree');
    expect(got.docs.find((d) => d.id === 'unicode.pdf#p1')!.text).toBe('Grüße, naïve café — 日本語');
    expect(got.skipped).toEqual(node.skipped);
    expect(got.skipped.map((s) => s.path)).toEqual(['broken.pdf', 'locked.pdf']);
    expect(got.pages).toBe(2 + 1 + 36);
    expect(got.chunks).toBeGreaterThan(got.docs.length);
    expect(stray).toEqual([]);
    expect(browser.errors.filter((e) => !/Failed to load resource|favicon/.test(e))).toEqual([]);
    await page.close();
  });
});
