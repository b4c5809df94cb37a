/**
 * The Build tab in the built site: files picked (the real libtasn1.pdf, TXT/MD/HTML, an empty and a binary .txt, a
 * duplicate) plus one real drop of a DataTransfer built in the page; progress reaches the summary, skipped files are
 * listed with reasons; "Open in Search" finds asn1_array2tree on p. 12; a reload keeps the knowledge base in the
 * picker and a kb=local: link opens it, one that is not here warns and opens SOTU; rename; a cancelled build leaves
 * the saved one untouched; vectors embedded for it in the tab are cached and a build can embed with the loaded
 * embedder; a folder pick keeps its paths; rebuild with other settings; export .zip; delete removes it from the list, the picker and IndexedDB (its vectors too). Prints the in-browser build
 * time of libtasn1.pdf (36 pages) and of a generated 100-page PDF (no timed assertions).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, test } from 'vitest';
import type { Page } from 'playwright-core';
import { unzipSync } from 'fflate';
import { downloadBytes, launchBrowser, type Browser } from '../helpers/browser.ts';
import { textPdf } from '../helpers/make-pdf.ts';

const site = inject('siteUrl');
const hubUrl = inject('hubUrl');
const PDF = resolve(import.meta.dirname, '../../../shared/data/pdfs/libtasn1.pdf');
let browser: Browser;
let page: Page;
let dir: string;

function file(name: string, content: string | Uint8Array): string {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
}

const listed = () => page.locator('[data-testid=local-kb]');
const entry = (name: string) => page.locator(`[data-testid=local-kb][data-name="${name}"]`);
const pickerOptions = () => page.locator('[data-testid=kb-select] option').allInnerTexts();
// The picker's own entries, without the fixed RAGBench optgroup.
const kbOptions = () => page.locator('[data-testid=kb-select] > option').allInnerTexts();
const kbReady = (p: Page) => p.locator('[data-testid=kb-info]').waitFor({ timeout: 150_000 });

async function gotoBuild(query = '') {
  await page.goto(`${site}?tab=build${query}`);
  await page.locator('[data-testid=local-kbs][data-status=ready]').waitFor();
}

async function searchFor(q: string) {
  await page.locator('[data-testid=query]').fill(q);
  await page.waitForFunction((q) => document.querySelector('[data-testid=results]')?.getAttribute('data-query') === q && !document.querySelector('[data-testid=rerank-pending]'), q);
}

/** Records every stage the progress panel shows (a MutationObserver in the page), read back by `stagesSeen`. */
async function watchStages() {
  await page.evaluate(() => {
    const w = window as unknown as { __stages: string[] };
    w.__stages = [];
    const note = () => {
      const s = document.querySelector('[data-testid=build-progress]')?.getAttribute('data-stage');
      if (s && w.__stages.at(-1) !== s) w.__stages.push(s);
    };
    new MutationObserver(note).observe(document.body, { subtree: true, childList: true, attributes: true, attributeFilter: ['data-stage'] });
  });
}
const stagesSeen = () => page.evaluate(() => (window as unknown as { __stages: string[] }).__stages);

/** Keys in each IndexedDB store of the app that belong to the local knowledge base `name`. */
function keysOf(name: string): Promise<Record<string, number>> {
  return page.evaluate(async (name) => {
    const db = await new Promise<IDBDatabase>((ok, fail) => { const r = indexedDB.open('rag-lab'); r.onsuccess = () => ok(r.result); r.onerror = () => fail(r.error); });
    const out: Record<string, number> = {};
    for (const s of [...db.objectStoreNames]) {
      const keys = await new Promise<IDBValidKey[]>((ok, fail) => { const r = db.transaction(s).objectStore(s).getAllKeys(); r.onsuccess = () => ok(r.result); r.onerror = () => fail(r.error); });
      out[s] = keys.filter((k) => typeof k === 'string' && (k === name || k.startsWith(`local:${name}:`) || k.startsWith(`local:${name}#`))).length;
    }
    db.close();
    return out;
  }, name);
}

async function summaryTimes(): Promise<{ totalMs: number; stageMs: Record<string, number> }> {
  const s = page.locator('[data-testid=build-summary]');
  return { totalMs: Number(await s.getAttribute('data-total-ms')), stageMs: JSON.parse((await s.getAttribute('data-stage-ms')) ?? '{}') };
}

async function buildAndWait() {
  await page.locator('[data-testid=build-start]').click();
  await page.locator('[data-testid=build-summary], [data-testid=build-error]').first().waitFor({ timeout: 150_000 });
  const error = page.locator('[data-testid=build-error]');
  if (await error.count()) throw new Error(await error.innerText());
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'rag-lab-e2e-build-'));
  browser = await launchBrowser();
  page = await browser.context.newPage();
  // The fixture models on the local Hub, loaded only when asked (Search tab → enable).
  await page.addInitScript((s) => { if (!localStorage.getItem('rag-lab:settings')) localStorage.setItem('rag-lab:settings', s); }, JSON.stringify({
    remoteHost: hubUrl, embedder: { id: 'rag-lab/tiny-embedder', dtype: 'q8', device: 'wasm' },
    crossEncoder: { id: 'rag-lab/tiny-cross-encoder', dtype: 'q8', device: 'wasm' }, autoLoadModels: false,
  }));
});
afterAll(async () => {
  await browser?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('Build tab', () => {
  test('files and a drop become a knowledge base: progress, summary with skipped files, search finds p. 12', async () => {
    await gotoBuild();
    expect(await page.locator('[data-testid=local-kbs-none]').count()).toBe(1);
    // No embedder loaded: embedding is disabled and says why.
    expect(await page.locator('[data-testid=build-embed]').isDisabled()).toBe(true);
    expect(await page.locator('[data-testid=build-embed-hint]').innerText()).toMatch(/needs an embedding model: load one under Settings → Models/);

    const notes = file('notes.txt', 'The quartz lantern of Aldebaran hums at dusk.\n\nA second paragraph about tide tables.');
    const files = [
      PDF, notes,
      file('guide.md', '# Field guide\n\nThe marsh heron nests in reed beds near brackish water.'),
      file('page.html', '<html><head><title>Kiln notes</title><script>var hidden = "script text";</script></head><body><p>Glaze fired at cone six turns celadon.</p></body></html>'),
      file('empty.txt', ''),
      file('binary.txt', Uint8Array.from({ length: 2048 }, (_, i) => (i * 37) % 256)),
    ];
    await page.locator('[data-testid=build-file-input]').setInputFiles(files);
    await page.locator('[data-testid=build-file-input]').setInputFiles([notes]); // the same file again: kept, renamed
    // One real drop: a DataTransfer built in the page, dropped on the zone.
    await page.evaluate(() => {
      const dt = new DataTransfer();
      dt.items.add(new File(['Dropped notes: the copper kettle whistles in B flat.'], 'dropped.md', { type: 'text/markdown' }));
      const zone = document.querySelector('[data-testid=build-drop]')!;
      zone.dispatchEvent(new DragEvent('dragover', { dataTransfer: dt, bubbles: true, cancelable: true }));
      zone.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
    });
    await expect.poll(() => page.locator('[data-testid=build-picked]').getAttribute('data-count')).toBe('8');
    expect(await page.locator('[data-testid=build-picked]').innerText()).toMatch(/^8 files, \d+(\.\d)? (kB|MB) picked$/);
    // The title is suggested from the files until the user types one.
    expect(await page.locator('[data-testid=build-title]').inputValue()).toBe('libtasn1 and 7 more');
    await page.locator('[data-testid=build-title]').fill('Test manuals');
    expect(await page.locator('[data-testid=build-name]').innerText()).toBe('Saved as local:test-manuals');

    await watchStages();
    await buildAndWait();
    const stages = await stagesSeen();
    expect(stages[0]).toBe('extract');
    expect(stages).toEqual(expect.arrayContaining(['extract', 'save']));

    const summary = page.locator('[data-testid=build-summary]');
    expect(await summary.getAttribute('data-name')).toBe('test-manuals');
    // Under the files' Build button, and the form does not warn about the knowledge base it just built (issue 32).
    expect(await page.locator('[data-testid=build-files] + [data-testid=build-summary]').count()).toBe(1);
    expect(await page.locator('[data-testid=build-taken]').count()).toBe(0);
    expect(await page.locator('[data-testid=build-just-built]').innerText()).toMatch(/^Just built as local:test-manuals/);
    const lines = await page.locator('[data-testid=build-summary-line]').allInnerTexts();
    // The PDF (36 pages, one document each inside) + notes.txt twice + guide.md + page.html + dropped.md: counted as
    // the 6 files and 36 pages they are, not as 41 "documents" (issue 21, point 8).
    expect(lines[0]).toMatch(/^6 files · 36 pages · \d+ chunks · built in .+ · .+$/);
    const counts = /^(6 files · 36 pages · \d+ chunks)/.exec(lines[0]!)![1]!;
    expect(lines[1]).toMatch(/^From 8 files, .+ read\.$/);
    expect(lines).toContain('BM25 only (no vectors).');
    expect(await page.locator('[data-testid=build-persistence]').innerText()).toMatch(/^(Storage is persistent|Storage is not persistent)/);
    expect(await page.locator('[data-testid=build-skipped-heading]').innerText()).toBe('2 files skipped');
    const skipped = Object.fromEntries(await page.locator('[data-testid=build-skipped-item]').evaluateAll((els) => els.map((e) => [e.getAttribute('data-path'), e.textContent ?? ''])));
    expect(Object.keys(skipped).sort()).toEqual(['binary.txt', 'empty.txt']);
    expect(skipped['empty.txt']).toMatch(/empty\.txt: empty file/);
    expect(skipped['binary.txt']).toMatch(/binary\.txt: \S+/);
    expect((await page.locator('[data-testid=build-note]').allInnerTexts()).join('\n')).toMatch(/notes\.txt \(2\)/);
    const t = await summaryTimes();
    console.log(`[build e2e] 8 files incl. libtasn1.pdf (36 pages): ${t.totalMs.toFixed(0)} ms in the build worker (${JSON.stringify(Object.fromEntries(Object.entries(t.stageMs).map(([k, v]) => [k, Math.round(v)])))})`);
    // Picked files are cleared once built; the list has it.
    expect(await page.locator('[data-testid=build-picked]').count()).toBe(0);
    expect(await listed().count()).toBe(1);
    expect(await entry('test-manuals').locator('[data-testid=local-kb-title]').innerText()).toBe('Test manuals');

    await page.locator('[data-testid=build-open-search]').click();
    // SOTU stays open (and ready) until the new one is: wait for the switch.
    await expect.poll(() => page.locator('[data-testid=kb-select] option:checked').innerText(), { timeout: 60_000 }).toBe('Test manuals');
    await page.locator('[data-testid=kb-pending]').waitFor({ state: 'detached' });
    await kbReady(page);
    await expect.poll(() => new URL(page.url()).searchParams.get('kb')).toBe('local:test-manuals');
    // The picker and the status line count it as the summary does.
    expect(await page.locator('[data-testid=kb-description] .kb-counts').innerText()).toBe(counts);
    expect(await page.locator('[data-testid=kb-info]').innerText()).toMatch(new RegExp(`^Test manuals: ${counts.replaceAll(' · ', ', ')} · `));
    await searchFor('asn1_array2tree');
    const title = await page.locator('[data-testid=hit] h3').first().innerText();
    expect(title).toMatch(/, p\. 12$/);
    await searchFor('quartz lantern Aldebaran');
    expect(await page.locator('[data-testid=hit] h3').first().innerText()).toMatch(/^notes/);
  });

  test('a reload keeps it in the picker; a kb=local: link opens it, one that is not here warns and opens SOTU', async () => {
    await page.goto(site);
    await kbReady(page);
    expect(await kbOptions()).toEqual(['State of the Union addresses', 'Test manuals']);
    await page.goto(`${site}?kb=local:test-manuals`);
    await kbReady(page);
    expect(await page.locator('[data-testid=kb-select] option:checked').innerText()).toBe('Test manuals');
    await searchFor('asn1_array2tree');
    expect(await page.locator('[data-testid=hit] h3').first().innerText()).toMatch(/, p\. 12$/);

    await page.goto(`${site}?kb=local:not-here`);
    await kbReady(page);
    expect(await page.locator('[data-testid=kb-switch-error]').innerText()).toMatch(/^not-here could not be opened: it is not in this browser .+ Opened State of the Union addresses instead\.$/);
    expect(await page.locator('[data-testid=kb-select] option:checked').innerText()).toBe('State of the Union addresses');
  });

  test('rename changes the title in the list, the picker, the status line and the placeholders, not the name', async () => {
    await gotoBuild('&kb=local:test-manuals');
    await kbReady(page);
    await entry('test-manuals').locator('[data-testid=local-kb-rename]').click();
    await page.locator('[data-testid=local-kb-title-input]').fill('Renamed manuals');
    await page.locator('[data-testid=local-kb-rename-save]').click();
    await expect.poll(() => entry('test-manuals').locator('[data-testid=local-kb-title]').innerText()).toBe('Renamed manuals');
    // Open while renamed: every view reads the one title (issue 21, point 8), no reload needed.
    expect(await page.locator('[data-testid=kb-info]').innerText()).toMatch(/^Renamed manuals: /);
    await page.locator('[data-testid=tab-ask]').click();
    expect(await page.locator('textarea[aria-label=Question]').getAttribute('placeholder')).toBe('Ask a question about Renamed manuals');
    expect(await page.locator('[data-testid=kb-select] option:checked').innerText()).toBe('Renamed manuals');
    await page.locator('[data-testid=tab-search]').click();
    expect(await page.locator('[data-testid=query]').getAttribute('placeholder')).toBe('Search Renamed manuals');
    await page.locator('[data-testid=tab-build]').click();
    await page.reload();
    await page.locator('[data-testid=local-kbs][data-status=ready]').waitFor();
    expect(await entry('test-manuals').locator('[data-testid=local-kb-title]').innerText()).toBe('Renamed manuals');
    await page.locator('[data-testid=tab-search]').click();
    await kbReady(page);
    expect(await pickerOptions()).toContain('Renamed manuals');
  });

  test('a cancelled build saves nothing and leaves the saved knowledge base untouched', async () => {
    await gotoBuild();
    const before = await entry('test-manuals').locator('[data-testid=local-kb-line]').allInnerTexts();
    const keysBefore = await keysOf('test-manuals');
    // Replace it with the PDF alone, and cancel while that runs.
    await page.locator('[data-testid=build-file-input]').setInputFiles([PDF]);
    await page.locator('[data-testid=build-title]').fill('Test manuals');
    await expect.poll(() => page.locator('[data-testid=build-taken]').count()).toBe(1);
    await page.locator('[data-testid=build-start]').click();
    expect(await page.locator('[data-testid=build-error-name]').innerText()).toMatch(/“test-manuals” is already in this browser/);
    await page.locator('[data-testid=build-replace]').check();
    await page.locator('[data-testid=build-start]').click();
    await page.locator('[data-testid=build-progress][data-stage=extract]').waitFor();
    await page.locator('[data-testid=build-cancel]').click();
    await page.locator('[data-testid=build-cancelled]').waitFor();
    await page.waitForTimeout(500); // a worker that was not stopped would save now
    await page.reload();
    await page.locator('[data-testid=local-kbs][data-status=ready]').waitFor();
    expect(await listed().count()).toBe(1);
    expect(await entry('test-manuals').locator('[data-testid=local-kb-line]').allInnerTexts()).toEqual(before);
    expect(await keysOf('test-manuals')).toEqual(keysBefore);
    await entry('test-manuals').locator('[data-testid=local-kb-open]').click();
    await expect.poll(() => page.locator('[data-testid=kb-select] option:checked').innerText(), { timeout: 60_000 }).toBe('Renamed manuals');
    await page.locator('[data-testid=kb-pending]').waitFor({ state: 'detached' });
    await searchFor('quartz lantern Aldebaran');
    expect(await page.locator('[data-testid=hit]').count()).toBeGreaterThan(0);
  });

  test('vectors embedded for it in the tab are cached; a build embeds with the loaded embedder', async () => {
    await page.goto(`${site}?kb=local:test-manuals`);
    await kbReady(page);
    await page.click('[data-testid=enable-models]');
    await page.locator('[data-testid=dense-info]').waitFor({ timeout: 150_000 });
    await expect.poll(async () => (await keysOf('test-manuals')).vectors ?? 0).toBeGreaterThan(0);

    await page.locator('[data-testid=tab-build]').click();
    await page.locator('[data-testid=build-file-input]').setInputFiles([file('small.md', '# Small\n\nThe pewter owl guards the archive of maps.')]);
    await page.locator('[data-testid=build-title]').fill('Small embedded');
    expect(await page.locator('[data-testid=build-embed]').isDisabled()).toBe(false);
    await page.locator('[data-testid=build-embed]').check();
    await watchStages();
    await buildAndWait();
    expect(await stagesSeen()).toContain('embed');
    expect(await page.locator('[data-testid=build-summary-line]').allInnerTexts()).toContain('Vectors: rag-lab/tiny-embedder (q8, 16 dimensions).');
    expect(await entry('small-embedded').locator('[data-testid=local-kb-line]').nth(1).innerText()).toMatch(/vectors: rag-lab\/tiny-embedder/);
  });

  test('a folder pick keeps the folder paths; rebuild with other settings; export .zip', async () => {
    await gotoBuild();
    mkdirSync(join(dir, 'field-notes/sub'), { recursive: true });
    file('field-notes/a.md', '# A\n\nalpha');
    file('field-notes/sub/b.txt', 'beta');
    await page.locator('[data-testid=build-folder-input]').setInputFiles(join(dir, 'field-notes'));
    await expect.poll(() => page.locator('[data-testid=build-picked]').getAttribute('data-count')).toBe('2');
    expect((await page.locator('.picked-list li').allTextContents()).sort()).toEqual(['field-notes/a.md', 'field-notes/sub/b.txt']);
    expect(await page.locator('[data-testid=build-title]').inputValue()).toBe('field-notes');
    await page.locator('[data-testid=build-clear]').click();
    expect(await page.locator('[data-testid=build-picked]').count()).toBe(0);

    const line = () => entry('test-manuals').locator('[data-testid=local-kb-line]');
    const chunks = async () => Number(/(\d+) chunks/.exec(await line().first().innerText())![1]);
    const before = await chunks();
    expect(await line().nth(1).innerText()).toBe('chunks of 800 characters, 120 overlap · BM25 k1 0.9, b 0.4 · BM25 only (no vectors)');
    await page.locator('[data-testid=build-chunk-size]').fill('300');
    await page.locator('[data-testid=build-overlap]').fill('30');
    await page.locator('[data-testid=build-k1]').fill('1.2');
    await entry('test-manuals').locator('[data-testid=local-kb-rebuild]').click();
    await page.locator('[data-testid=build-summary][data-name=test-manuals]').waitFor({ timeout: 150_000 });
    await expect.poll(() => line().nth(1).innerText()).toBe('chunks of 300 characters, 30 overlap · BM25 k1 1.2, b 0.4 · BM25 only (no vectors)');
    expect(await chunks()).toBeGreaterThan(before);
    expect(await entry('test-manuals').locator('[data-testid=local-kb-title]').innerText()).toBe('Renamed manuals');

    const [download] = await Promise.all([page.waitForEvent('download'), entry('test-manuals').locator('[data-testid=local-kb-export]').click()]);
    expect(download.suggestedFilename()).toBe('test-manuals.zip');
    expect(await entry('test-manuals').locator('[data-testid=local-kb-export-note]').innerText()).toMatch(/^test-manuals\.zip holds the documents, chunks and BM25 index, and no vectors: /);
    const zip = unzipSync(await downloadBytes(download));
    expect(Object.keys(zip)).toEqual(expect.arrayContaining(['index_config.json', 'test-manuals/meta.json']));
    const json = (p: string) => JSON.parse(new TextDecoder().decode(zip[p]!));
    expect(json('index_config.json').indexes.map((x: { path: string; title: string }) => [x.path, x.title])).toEqual([['test-manuals', 'Renamed manuals']]);
    // Rebuilt after the rename: its own files carry the new title.
    expect(json('test-manuals/meta.json').title).toBe('Renamed manuals');
  });

  test('delete (confirmed) removes it from the list, the summary, the picker and IndexedDB; Search opens the default', async () => {
    // The rebuild's summary above is of this knowledge base: open it from there, then delete it.
    await page.locator('[data-testid=build-summary][data-name=test-manuals] [data-testid=build-open-search]').click();
    await expect.poll(() => page.locator('[data-testid=kb-select] option:checked').innerText(), { timeout: 60_000 }).toBe('Renamed manuals');
    await page.locator('[data-testid=kb-pending]').waitFor({ state: 'detached' });
    await page.locator('[data-testid=tab-build]').click();
    expect(await page.locator('[data-testid=build-summary] h3').innerText()).toMatch(/^Built “Renamed manuals”/);
    await entry('test-manuals').locator('[data-testid=local-kb-delete]').click();
    await entry('test-manuals').locator('[data-testid=local-kb-delete-confirm]').click();
    await expect.poll(() => entry('test-manuals').count()).toBe(0);
    // Its "Built …" card goes with it: no dead "Open in Search" (issue 21, point 8).
    expect(await page.locator('[data-testid=build-summary], [data-testid=build-open-search]').count()).toBe(0);
    expect(await keysOf('test-manuals')).toEqual(expect.objectContaining({ 'local-kbs': 0, 'local-kb-files': 0, vectors: 0 }));
    expect(Object.values(await keysOf('test-manuals')).every((n) => n === 0)).toBe(true);
    await page.locator('[data-testid=tab-search]').click();
    await expect.poll(() => page.locator('[data-testid=kb-select] option:checked').innerText()).toBe('State of the Union addresses');
    expect(await pickerOptions()).not.toContain('Renamed manuals');
    // The other one stays.
    expect(await pickerOptions()).toContain('Small embedded');
  });

  test('timing: a generated 100-page PDF and libtasn1.pdf alone (printed, not asserted)', async () => {
    await gotoBuild();
    const words = 'retrieval augmented generation measures lexical overlap between queries and passages of technical manuals'.split(' ');
    const pages = Array.from({ length: 100 }, (_, p) => Array.from({ length: 350 }, (_, i) => words[(i * 7 + p) % words.length]).join(' ') + ` Page marker ${p + 1}.`);
    for (const [label, path] of [['generated 100-page PDF', file('hundred.pdf', textPdf(pages))], ['libtasn1.pdf (36 pages)', PDF]] as const) {
      await page.locator('[data-testid=build-file-input]').setInputFiles([path]);
      await page.locator('[data-testid=build-title]').fill(`Timing ${label}`);
      await buildAndWait();
      const t = await summaryTimes();
      const eci = (t.stageMs.extract ?? 0) + (t.stageMs.chunk ?? 0) + (t.stageMs.index ?? 0);
      console.log(`[build e2e] ${label}: extract+chunk+index ${eci.toFixed(0)} ms, total ${t.totalMs.toFixed(0)} ms (${JSON.stringify(Object.fromEntries(Object.entries(t.stageMs).map(([k, v]) => [k, Math.round(v)])))})`);
      expect(await page.locator('[data-testid=build-summary-line]').first().innerText()).toMatch(label.startsWith('generated') ? /100 pages/ : /36 pages/);
    }
  });
});
