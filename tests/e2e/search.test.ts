/**
 * The built site in headless Chromium: the embedded corpus opens from the BM25 artifact the build ships (no indexing)
 * and search works and is a shareable URL; a reload reads the artifact from the cache, corrupted cached files are
 * detected and downloaded again. On a host without that artifact (corpora/index_config.json answered 404)
 * the corpus indexes in the tab with visible progress, with the same rankings, a reload loads the index from
 * IndexedDB, and a corrupted cache is detected and rebuilt.
 */
import { mkdirSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, inject, test } from 'vitest';
import type { Page } from 'playwright-core';
import { launchBrowser, type Browser } from '../helpers/browser.ts';

const site = inject('siteUrl');
let browser: Browser;
let page: Page;

beforeAll(async () => {
  browser = await launchBrowser();
  page = await browser.context.newPage();
});
afterAll(async () => { await browser?.close(); });

/** Polls the progress panel until the index is ready; returns the stage labels seen. */
async function waitForIndex(p: Page): Promise<{ stages: string[]; source: string | null }> {
  const stages = new Set<string>();
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    const stage = await p.locator('[data-testid=load-stage]').textContent({ timeout: 50 }).catch(() => null);
    if (stage) stages.add(stage);
    if (await p.locator('[data-testid=kb-info]').count()) break;
    if (await p.locator('[data-testid=load-error]').count()) throw new Error(await p.locator('[data-testid=load-error]').innerText());
    await p.waitForTimeout(30);
  }
  return { stages: [...stages], source: await p.locator('[data-testid=kb-info]').getAttribute('data-source') };
}

async function searchFor(p: Page, q: string) {
  await p.locator('[data-testid=query]').fill(q);
  await p.waitForFunction((q) => document.querySelector('[data-testid=results]')?.getAttribute('data-query') === q, q);
}

describe('Search tab on the embedded State of the Union corpus', () => {
  test('first open reads the shipped index artifact without indexing, then searching finds Lincoln', async () => {
    const requested: string[] = [];
    const onRequest = (r: { url(): string }) => { requested.push(new URL(r.url()).pathname); };
    browser.context.on('request', onRequest);
    await page.goto(site);
    const { stages, source } = await waitForIndex(page);
    browser.context.off('request', onRequest);
    expect(source).toBe('artifact');
    expect(stages).not.toContain('Building the BM25 index');
    expect(requested.some((p) => p.endsWith('/corpora/sotu/meta.json'))).toBe(true);
    expect(requested.some((p) => p.endsWith('/corpora/sotu.json'))).toBe(false);
    const info = await page.locator('[data-testid=kb-info]').innerText();
    expect(info).toMatch(/233 documents, 16,\d{3} chunks/);

    await searchFor(page, 'emancipation of slaves');
    await expect.poll(() => page.locator('[data-testid=hit]').count()).toBeGreaterThan(2);
    const top3 = await page.locator('[data-testid=hit-title]').allInnerTexts();
    expect(top3.slice(0, 3).some((t) => t.includes('Abraham Lincoln'))).toBe(true);
    // Matched terms are highlighted, every score is shown, and telemetry names the stages.
    expect(await page.locator('[data-testid=hit] mark').count()).toBeGreaterThan(0);
    expect(await page.locator('[data-testid=telemetry-mode]').innerText()).toBe('sparse');
    expect(await page.locator('[data-testid=stage-sparse]').count()).toBe(1);
    expect(new URL(page.url()).searchParams.get('q')).toBe('emancipation of slaves');
    mkdirSync('test-results', { recursive: true });
    await page.screenshot({ path: 'test-results/search.png', fullPage: false });
  });

  test('modes without a model are disabled with the reason; a link asking for one runs with BM25 and says why', async () => {
    const rrf = page.locator('[data-testid=mode] option[value=rrf]');
    expect(await rrf.isDisabled()).toBe(true);
    expect(await rrf.getAttribute('title')).toMatch(/embedding model/i);
    await page.goto(`${site}?q=slavery&mode=rrf`);
    await waitForIndex(page);
    // As an example chip does (issue 32): the best mode that runs here, with one line saying why.
    await expect.poll(() => page.locator('[data-testid=example-notice]').innerText().catch(() => '')).toMatch(/^This link asks for .+; it ran with BM25\. Dense search needs an embedding model/);
    expect(await page.locator('[data-testid=mode]').inputValue()).toBe('sparse');
    await expect.poll(() => page.locator('[data-testid=hit]').count()).toBeGreaterThan(0);
  });

  test('filters by year range and party', async () => {
    await page.goto(`${site}?q=slavery&ymin=1861&ymax=1865&party=Republican&k=10`);
    await waitForIndex(page);
    await expect.poll(() => page.locator('[data-testid=hit]').count()).toBeGreaterThan(0);
    const metas = await page.locator('[data-testid=hit] .meta').allInnerTexts();
    for (const m of metas) {
      const year = Number(/Year: (\d{4})/.exec(m)?.[1]);
      expect(year).toBeGreaterThanOrEqual(1861);
      expect(year).toBeLessThanOrEqual(1865);
      expect(m).toContain('Party: Republican');
    }
  });

  test('bad queries get a clear message, never a crash', async () => {
    await page.goto(site);
    await waitForIndex(page);
    await searchFor(page, 'the of and to');
    await expect.poll(() => page.locator('[data-testid=search-message]').innerText().catch(() => '')).toMatch(/no searchable words/);
    await searchFor(page, '🙂🙂🙂');
    await expect.poll(() => page.locator('[data-testid=search-message]').innerText().catch(() => '')).toMatch(/no searchable words/);
    const long = Array.from({ length: 1300 }, (_, i) => ['war', 'peace', 'tax', 'navy', 'union'][i % 5]).join(' ').slice(0, 10_000);
    await page.locator('[data-testid=query]').fill(long);
    await expect.poll(() => page.locator('[data-testid=hit]').count()).toBeGreaterThan(0);
    expect(browser.errors.filter((e) => !/Failed to load resource/.test(e))).toEqual([]);
  });

  test('a reload opens the artifact again without indexing and keeps the search', async () => {
    await page.goto(`${site}?q=tariff&k=3`);
    const { stages, source } = await waitForIndex(page);
    expect(source).toBe('artifact');
    expect(stages).not.toContain('Building the BM25 index');
    expect(await page.locator('[data-testid=query]').inputValue()).toBe('tariff');
    await expect.poll(() => page.locator('[data-testid=hit]').count()).toBe(3);
  });

  test('corrupted cached artifact files are detected and downloaded again; results do not change', async () => {
    await page.goto(`${site}?q=tariff&k=5`);
    await waitForIndex(page);
    await expect.poll(() => page.locator('[data-testid=hit]').count()).toBe(5);
    const before = await page.locator('[data-testid=hit]').evaluateAll((hs) => hs.map((h) => h.getAttribute('data-id')));
    const changed = await page.evaluate(async () => {
      const db = await new Promise<IDBDatabase>((ok, err) => { const r = indexedDB.open('rag-lab'); r.onsuccess = () => ok(r.result); r.onerror = () => err(r.error); });
      const tx = db.transaction('artifacts', 'readwrite');
      const store = tx.objectStore('artifacts');
      const all = await new Promise<Array<[IDBValidKey, Record<string, unknown>]>>((ok) => {
        const out: Array<[IDBValidKey, Record<string, unknown>]> = [];
        const r = store.openCursor();
        r.onsuccess = () => { const c = r.result; if (!c) return ok(out); out.push([c.primaryKey, c.value]); c.continue(); };
      });
      let n = 0;
      for (const [key, rec] of all) {
        for (const v of Object.values(rec)) {
          if (v instanceof Uint8Array && v.byteLength > 0) { v[0] = v[0]! ^ 0xff; n++; }
          else if (v instanceof ArrayBuffer && v.byteLength > 0) { const u = new Uint8Array(v); u[0] = u[0]! ^ 0xff; n++; }
        }
        if (store.keyPath) store.put(rec); else store.put(rec, key);
      }
      await new Promise((ok) => { tx.oncomplete = ok; });
      return n;
    });
    expect(changed).toBeGreaterThan(0);
    await page.reload();
    const { source } = await waitForIndex(page);
    expect(source).toBe('artifact');
    await expect.poll(() => page.locator('[data-testid=hit]').evaluateAll((hs) => hs.map((h) => h.getAttribute('data-id')))).toEqual(before);
  });
});

/** The top-10 hits of a query as shown (chunk id and every score). */
async function top10(p: Page, q: string): Promise<string[]> {
  await p.goto(`${site}?q=${encodeURIComponent(q)}&k=10`);
  await waitForIndex(p);
  await p.waitForFunction((q) => document.querySelector('[data-testid=results]')?.getAttribute('data-query') === q, q);
  await expect.poll(() => p.locator('[data-testid=hit]').count()).toBeGreaterThan(0);
  const hits = p.locator('[data-testid=hit]');
  const out: string[] = [];
  for (let i = 0; i < await hits.count(); i++) out.push(`${await hits.nth(i).getAttribute('data-id')} ${(await hits.nth(i).locator('dd').allInnerTexts()).join(' ')}`);
  return out;
}

describe('on a host without the shipped artifact (corpora/index_config.json is a 404)', () => {
  let other: Browser;
  let plain: Page;
  beforeAll(async () => {
    other = await launchBrowser();
    await other.context.route('**/corpora/index_config.json', (r) => r.fulfill({ status: 404, body: 'not found' }));
    plain = await other.context.newPage();
  });
  afterAll(async () => { await other?.close(); });

  test('the corpus indexes in the tab with visible progress', async () => {
    await plain.goto(site);
    const { stages, source } = await waitForIndex(plain);
    expect(stages).toContain('Building the BM25 index');
    expect(source).toBe('built');
    expect(await plain.locator('[data-testid=kb-info]').innerText()).toMatch(/233 documents, 16,\d{3} chunks/);
  });

  test('the in-tab index ranks exactly as the shipped artifact', async () => {
    for (const q of ['emancipation of slaves', 'tariff on imported goods', 'war on poverty']) {
      const shipped = await top10(page, q), inTab = await top10(plain, q);
      expect(shipped.length, q).toBe(10);
      expect(inTab, q).toEqual(shipped);
    }
    expect(await page.locator('[data-testid=kb-info]').getAttribute('data-source')).toBe('artifact');
    expect(await plain.locator('[data-testid=kb-info]').getAttribute('data-source')).not.toBe('artifact');
  });

  test('a reload loads the index from IndexedDB and keeps the search', async () => {
    await plain.goto(`${site}?q=tariff&k=3`);
    const { stages, source } = await waitForIndex(plain);
    expect(source).toBe('cache');
    expect(stages).not.toContain('Building the BM25 index');
    expect(await plain.locator('[data-testid=query]').inputValue()).toBe('tariff');
    await expect.poll(() => plain.locator('[data-testid=hit]').count()).toBe(3);
  });

  test('a corrupted cache is detected, rebuilt and reported', async () => {
    await plain.evaluate(async () => {
      const db = await new Promise<IDBDatabase>((ok, err) => { const r = indexedDB.open('rag-lab'); r.onsuccess = () => ok(r.result); r.onerror = () => err(r.error); });
      const tx = db.transaction('indexes', 'readwrite');
      const store = tx.objectStore('indexes');
      const all = await new Promise<Array<{ data: { bm25: { tfs: Uint16Array } } }>>((ok) => { const r = store.getAll(); r.onsuccess = () => ok(r.result); });
      for (const rec of all) { rec.data.bm25.tfs[0] = rec.data.bm25.tfs[0]! + 7; store.put(rec); }
      await new Promise((ok) => { tx.oncomplete = ok; });
    });
    await plain.reload();
    const { source } = await waitForIndex(plain);
    expect(source).toBe('built');
    expect(await plain.locator('[data-testid=cache-note]').innerText()).toMatch(/corrupted.*rebuilt/);
    await plain.reload();
    expect((await waitForIndex(plain)).source).toBe('cache');
    });
});
