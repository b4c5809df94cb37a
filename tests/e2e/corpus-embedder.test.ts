/**
 * "Train a corpus embedder (no download)" on the embedded corpus with no model host at all (the configured one is a
 * closed loopback port): Cancel stops a run (nothing trained or enabled); then the model trains in a build worker,
 * is saved in this browser, is selected as the embedder and loads through the models worker like any model
 * (transformers.js reading it through the custom cache), the chunks are embedded with it, and dense and hybrid
 * searches return hits; the model panel, the telemetry and Settings name it as corpus-trained, no request for its
 * files leaves the page, and nothing scrolls sideways at 400 px.
 */
import { afterAll, beforeAll, describe, expect, inject, test } from 'vitest';
import type { Page } from 'playwright-core';
import { launchBrowser, type Browser } from '../helpers/browser.ts';

const site = inject('siteUrl');
const NO_HOST = 'http://127.0.0.1:9/';

describe('a corpus-trained embedder on the embedded corpus, offline', () => {
  let browser: Browser;
  let page: Page;
  const requested: string[] = [];
  beforeAll(async () => {
    browser = await launchBrowser();
    page = await browser.context.newPage();
    await page.addInitScript((host) => localStorage.setItem('rag-lab:settings', JSON.stringify({ remoteHost: host })), NO_HOST);
    browser.context.on('request', (r) => { requested.push(r.url()); });
  });
  afterAll(async () => { await browser?.close(); });

  test('trains, becomes the embedder, and dense search answers with it', async () => {
    await page.goto(site);
    await page.locator('[data-testid=kb-info]').waitFor({ timeout: 120_000 });
    const button = page.locator('[data-testid=train-embedder-button]');
    expect(await button.innerText()).toBe('Train a corpus embedder (no download)');
    expect(await page.locator('[data-testid=train-embedder]').innerText()).toMatch(/weaker than a pretrained model/);
    // Cancel terminates the run: the button is back, nothing was trained or enabled.
    await button.click();
    await page.locator('[data-testid=train-cancel]').click();
    await button.waitFor({ timeout: 10_000 });
    expect(await page.locator('[data-testid=train-progress]').count()).toBe(0);
    expect(await page.locator('[data-testid=dense-info]').count()).toBe(0);
    await button.click();
    await page.locator('[data-testid=train-progress]').waitFor({ timeout: 30_000 });
    await page.waitForFunction(() => document.querySelector('[data-testid=dense-info]') || document.querySelector('[data-testid=train-error]') || document.querySelector('[data-testid=model-error]'), null, { timeout: 300_000 });
    expect(await page.locator('[data-testid=train-error]').count()).toBe(0);
    expect(await page.locator('[data-testid=train-result]').innerText()).toMatch(/^Trained corpus\/sotu-lsi256 on 16,\d{3} chunks .*selected as the embedder, dense search uses it\.$/);
    expect(await page.locator('[data-testid=dense-model]').innerText()).toBe('corpus/sotu-lsi256, corpus-trained (LSI, 256-d, trained on State of the Union addresses)');
    expect(await page.locator('[data-testid=dense-info]').innerText()).toMatch(/\(q8, wasm\), 256 dimensions/);

    await page.selectOption('[data-testid=mode]', 'dense');
    await page.locator('[data-testid=query]').fill('emancipation of slaves');
    await expect.poll(() => page.locator('[data-testid=telemetry-mode]').innerText().catch(() => ''), { timeout: 60_000 }).toBe('dense');
    await expect.poll(() => page.locator('[data-testid=hit]').count(), { timeout: 60_000 }).toBeGreaterThan(2);
    expect(await page.locator('[data-testid=telemetry-models]').innerText()).toBe('embed: corpus/sotu-lsi256 (q8, wasm)');
    await page.selectOption('[data-testid=mode]', 'hybrid_calibrated');
    await expect.poll(() => page.locator('[data-testid=telemetry-mode]').innerText().catch(() => '')).toBe('hybrid_calibrated');
    expect(await page.locator('[data-testid=hit]').count()).toBeGreaterThan(2);

    expect(requested.filter((u) => u.startsWith(NO_HOST) || u.includes('/corpus/sotu-lsi256/'))).toEqual([]);
    await page.setViewportSize({ width: 400, height: 800 });
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(400);
    await page.locator('[data-testid=tab-settings]').click();
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(400);
    expect(await page.locator('[data-testid=setting-embedder-label]').innerText()).toMatch(/^corpus-trained \(LSI, 256-d, trained on State of the Union addresses\)/);
    expect(await page.locator('[data-testid=trained-models] tbody tr').allInnerTexts()).toEqual([expect.stringMatching(/^corpus\/sotu-lsi256: corpus-trained \(LSI, 256-d, trained on State of the Union addresses\)\s+2\d(\.\d)? MB/)]);
  });
});
