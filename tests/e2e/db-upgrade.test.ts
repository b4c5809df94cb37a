/**
 * An open RAG Lab tab yields its IndexedDB connections (held in the search worker) to a newer build's upgrade
 * instead of blocking it forever, and then says the storage was upgraded.
 */
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
});
