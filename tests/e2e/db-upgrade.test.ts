/**
 * An open RAG Lab tab yields its IndexedDB connections (held in the search worker) to a newer build's upgrade
 * instead of blocking it forever, and then says the storage was upgraded.
 */
import { afterAll, beforeAll, describe, expect, inject, test } from 'vitest';
import type { Page } from 'playwright-core';
import { launchBrowser, type Browser } from '../helpers/browser.ts';
import { DB_VERSION } from '../../src/lib/store/db.ts';

const site = inject('siteUrl');
let browser: Browser;
let page: Page;

beforeAll(async () => {
  browser = await launchBrowser();
  page = await browser.context.newPage();
});
afterAll(async () => {
  await browser?.close();
});

describe('IndexedDB upgrades across tabs', () => {
  test('a later open at a higher version is not blocked by the open app; the app then asks for a reload', async () => {
    await page.goto(site);
    await page.locator('[data-testid=kb-info]').waitFor({ timeout: 120_000 });
    // What a newer build does on start: open the database at a higher version.
    const outcome = await page.evaluate(() => new Promise<string>((resolve) => {
      const r = indexedDB.open('rag-lab', 99);
      r.onblocked = () => resolve('blocked');
      r.onsuccess = () => { r.result.close(); resolve('opened'); };
      r.onerror = () => resolve(`error ${r.error?.name}`);
    }));
    expect(outcome).toBe('opened');
    await page.reload();
    await page.locator('[data-testid=kb-info]').waitFor({ timeout: 120_000 });
    await expect.poll(() => page.locator('[data-testid=cache-note]').innerText().catch(() => ''), { timeout: 60_000 }).toMatch(/newer version of RAG Lab .* reload this tab/);
  });

  test('the upgrade from version 5 (before saved reports) keeps what was stored and adds the report, local knowledge-base, retrieval-row and RAGBench-file stores', async () => {
    const fresh = await launchBrowser();
    try {
      const p = await fresh.context.newPage();
      // A page of the site's origin that does not run the app, to write the database as version 5 left it.
      const blank = new URL('blank-for-upgrade.html', site).href;
      await p.route(blank, (r) => r.fulfill({ contentType: 'text/html', body: '<!doctype html><title>blank</title>' }));
      await p.goto(blank);
      await p.evaluate(() => new Promise<void>((resolve, reject) => {
        const r = indexedDB.open('rag-lab', 5);
        r.onupgradeneeded = () => {
          for (const s of ['indexes', 'vectors', 'vector-indexes', 'results', 'transforms', 'artifacts']) r.result.createObjectStore(s, { keyPath: 'key' });
        };
        r.onsuccess = () => {
          const tx = r.result.transaction(['results', 'transforms'], 'readwrite');
          tx.objectStore('results').put({ key: 'h|row-1', kept: 'result' });
          tx.objectStore('transforms').put({ key: 't1', kept: 'transform' });
          tx.oncomplete = () => { r.result.close(); resolve(); };
          tx.onerror = () => reject(tx.error);
        };
        r.onerror = () => reject(r.error);
      }));
      await p.unroute(blank);
      await p.goto(`${site}?tab=reports`);
      await p.locator('[data-testid=reports-drop][data-status=ready]').waitFor({ timeout: 120_000 });
      expect(await p.locator('[data-testid=reports-error]').count()).toBe(0);
      const after = await p.evaluate(() => new Promise<{ version: number; stores: string[]; kept: unknown[] }>((resolve, reject) => {
        const r = indexedDB.open('rag-lab');
        r.onsuccess = () => {
          const d = r.result;
          const tx = d.transaction(['results', 'transforms']);
          const a = tx.objectStore('results').get('h|row-1');
          const b = tx.objectStore('transforms').get('t1');
          tx.oncomplete = () => { d.close(); resolve({ version: d.version, stores: [...d.objectStoreNames], kept: [a.result?.kept, b.result?.kept] }); };
        };
        r.onerror = () => reject(r.error);
      }));
      expect(after.version).toBe(DB_VERSION);
      expect(after.stores).toEqual(expect.arrayContaining(['results', 'transforms', 'artifacts', 'reports', 'report-bodies', 'report-texts', 'deleted-reports', 'deleted-report-bodies', 'local-kbs', 'local-kb-files', 'retrieval-rows', 'ragbench-files', 'test-sets', 'test-set-replies']));
      expect(after.kept).toEqual(['result', 'transform']);
    } finally {
      await fresh.close();
    }
  });
});
