/**
 * The build worker in the built app, in headless Chromium: a 100-page text PDF (made here, ~1,500 characters a page,
 * one known sentence on p. 42) dropped into the Build tab, built (extract → chunk → index → calibrate → save into
 * IndexedDB) with the default settings, then opened in Search where BM25 must find the sentence on p. 42. Prints the
 * wall time from the Build click to the summary, and the worker's own time per stage (the summary's line).
 *
 *   npm run build && npx tsx scripts/bench-build-browser.ts [--reps 3] [--pages 100]
 *
 * Each rep is a fresh Chromium profile (so pdf.js is loaded and IndexedDB is empty every time).
 */
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { launchBrowser } from '../tests/helpers/browser.ts';
import { textPdf } from '../tests/helpers/make-pdf.ts';
import { serveStatic } from '../tests/helpers/static-server.ts';

const { values } = parseArgs({ options: { reps: { type: 'string', default: '3' }, pages: { type: 'string', default: '100' } } });
const reps = Number(values.reps), pageCount = Number(values.pages);
const KNOWN = 'The lighthouse keeper counted forty seven ships before dawn on the northern cape.';
const filler = (p: number) => Array.from({ length: 12 }, (_, s) => `Page ${p} line ${s}: tides, winds and cargo manifests were recorded with care by the harbour clerk on duty.`).join(' ');
const pdf = textPdf(Array.from({ length: pageCount }, (_, i) => (i === 41 ? `${KNOWN} ${filler(i + 1)}` : filler(i + 1))), { title: 'Harbour Log' });

const site = await serveStatic(resolve('dist'), '/');
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const walls: number[] = [];
try {
  console.log(`${pageCount}-page PDF, ${(pdf.byteLength / 1024).toFixed(0)} KiB; ${reps} reps`);
  for (let r = 0; r < reps; r++) {
    const b = await launchBrowser();
    try {
      const page = await b.context.newPage();
      await page.addInitScript(() => localStorage.setItem('rag-lab:settings', JSON.stringify({ autoLoadModels: false })));
      await page.goto(`${site.url}?tab=build`);
      await page.locator('[data-testid=build-title]').fill('Harbour log');
      await page.locator('[data-testid=build-file-input]').setInputFiles([{ name: 'harbour-log.pdf', mimeType: 'application/pdf', buffer: Buffer.from(pdf) }]);
      const t0 = Date.now();
      await page.locator('[data-testid=build-start]').click();
      await page.locator('[data-testid=build-summary], [data-testid=build-error]').first().waitFor({ timeout: 300_000 });
      const wall = Date.now() - t0;
      if (await page.locator('[data-testid=build-error]').count()) throw new Error(await page.locator('[data-testid=build-error]').innerText());
      walls.push(wall);
      const lines = await page.locator('[data-testid=build-summary-line]').allInnerTexts();
      await page.locator('[data-testid=build-open-search]').click();
      // The open knowledge base (SOTU) keeps answering until the new one is ready: wait for the switch.
      await page.waitForFunction(() => new URL(location.href).searchParams.get('kb') === 'local:harbour-log', null, { timeout: 120_000 });
      await page.locator('[data-testid=kb-pending]').waitFor({ state: 'detached', timeout: 120_000 });
      await page.locator('[data-testid=kb-info]').waitFor({ timeout: 120_000 });
      await page.locator('[data-testid=query]').fill('lighthouse keeper forty seven ships');
      await page.locator('[data-testid=search-button]').click();
      const hit = page.locator('[data-testid=hit]').first();
      await hit.waitFor({ timeout: 60_000 });
      const title = await hit.locator('[data-testid=hit-title]').innerText();
      if (title !== 'Harbour Log, p. 42') throw new Error(`the known sentence is on p. 42, the top hit is "${title}"`);
      console.log(`rep ${r + 1}: click → summary ${wall} ms | ${lines[0]} | ${lines.find((l) => l.startsWith('Time per stage')) ?? ''} | top hit: ${title}`);
    } finally {
      await b.close();
    }
  }
  console.log(`median click → summary: ${median(walls)} ms (min ${Math.min(...walls)}, max ${Math.max(...walls)})`);
} finally {
  await site.close();
}
