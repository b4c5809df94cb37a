/**
 * An app that explains itself, in the built site: ARIA tabs and keys, `/`, example queries on first open, help
 * lines, model banners that belong to their feature (dismiss, cleared by a fix), the download size and a measured
 * embedding-time estimate with Cancel, the dark theme, and no sideways scrolling at 400 px.
 */
import { mkdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, test } from 'vitest';
import type { Page } from 'playwright-core';
import { prebuiltVectors, type CorpusVectors } from '../helpers/models-page.ts';
import { launchBrowser, type Browser } from '../helpers/browser.ts';
import { serveHub, type HubServer } from '../helpers/hub-server.ts';
import { formatBytes } from '../../src/ui/shared/format.ts';
import { DEFAULT_REJECT_THRESHOLDS } from '../../src/lib/retrieval/rejection.ts';

const site = inject('siteUrl');
const FIXTURES = resolve(import.meta.dirname, '../fixtures/models');
let browser: Browser;

beforeAll(async () => {
  browser = await launchBrowser();
  mkdirSync('test-results', { recursive: true });
});
afterAll(async () => { await browser?.close(); });

/** The fixture models from `remoteHost`; with `vectors`, the run's prebuilt SOTU vectors instead of embedding in the tab. */
function settings(remoteHost: string, autoLoadModels: boolean, vectors?: CorpusVectors) {
  return JSON.stringify({
    remoteHost, autoLoadModels,
    embedder: { id: 'rag-lab/tiny-embedder', dtype: 'q8', device: 'wasm' },
    crossEncoder: { id: 'rag-lab/tiny-cross-encoder', dtype: 'q8', device: 'wasm' },
    ...(vectors ? { hubUrl: vectors.hubUrl, sotuVectors: vectors.repo } : {}),
  });
}

async function open(url: string, stored?: string): Promise<Page> {
  const page = await browser.context.newPage();
  await page.addInitScript((s) => { if (s) localStorage.setItem('rag-lab:settings', s); else localStorage.removeItem('rag-lab:settings'); }, stored ?? '');
  await page.goto(url);
  await page.locator('[data-testid=kb-info]').waitFor({ timeout: 150_000 });
  return page;
}

const activeId = (page: Page) => page.evaluate(() => document.activeElement?.id ?? '');
const selectedTab = (page: Page) => page.locator('[role=tab][aria-selected=true]').getAttribute('id');

/** Bytes transformers.js downloads for a fixture model at q8. */
const q8Bytes = (id: string) => ['config.json', 'tokenizer.json', 'tokenizer_config.json', 'onnx/model_quantized.onnx']
  .reduce((a, f) => a + statSync(join(FIXTURES, id, f)).size, 0);

describe('first open and keyboard', () => {
  test('example queries as chips (the off-topic one labelled), the search box focused; chips search, the off-topic one scores a lower confidence and is rejected', async () => {
    const page = await open(site);
    expect(await activeId(page)).toBe('query');
    const chips = page.locator('[data-testid=example]');
    expect(await chips.count()).toBeGreaterThanOrEqual(4);
    const offTopic = chips.filter({ hasText: 'Random irrelevant cooking recipe.' });
    expect(await offTopic.innerText()).toMatch(/off-topic example/);
    await page.screenshot({ path: 'test-results/ux-first-open.png' });

    await chips.first().click();
    const first = await page.locator('[data-testid=query]').inputValue();
    expect(first.length).toBeGreaterThan(0);
    await page.waitForFunction((q) => document.querySelector('[data-testid=results]')?.getAttribute('data-query') === q, first);
    expect(await page.locator('[data-testid=hit]').count()).toBeGreaterThan(0);
    expect(await page.locator('[data-testid=examples]').count()).toBe(0);
    const confidence = async () => Number(/confidence\s+([\d.]+)/.exec(await page.locator('[data-testid=telemetry]').innerText())?.[1]);
    const onTopic = await confidence();

    await page.fill('[data-testid=query]', '');
    expect(await offTopic.getAttribute('data-mode')).toBe('hybrid_calibrated_rerank');
    await offTopic.click();
    await page.waitForFunction(() => document.querySelector('[data-testid=results]')?.getAttribute('data-query') === 'Random irrelevant cooking recipe.');
    expect(await confidence()).toBeLessThan(onTopic);
    expect(await page.locator('[data-testid=rejection]').count()).toBe(1);
    // Its mode needs models that are not loaded: it ran with BM25, and the page says why (no error).
    expect(await page.inputValue('[data-testid=mode]')).toBe('sparse');
    expect(await page.locator('[data-testid=example-notice]').innerText()).toMatch(/^This example is meant for Hybrid calibrated \+ rerank; it ran with BM25\. /);
    await page.close();
  });

  test('ARIA tabs with roving tabindex and Left/Right/Home/End; "/" focuses the search box except while typing', async () => {
    const page = await open(site);
    expect(await page.locator('[role=tablist]').count()).toBe(1);
    const tabs = page.locator('[role=tablist] [role=tab]');
    const ids = await tabs.evaluateAll((els) => els.map((e) => e.id));
    expect(ids).toEqual(expect.arrayContaining(['tab-search', 'tab-ask', 'tab-build', 'tab-benchmark', 'tab-reports', 'tab-compare', 'tab-settings']));
    expect(ids[0]).toBe('tab-search');
    expect(ids.at(-1)).toBe('tab-settings');
    const check = async (id: string) => {
      expect(await selectedTab(page)).toBe(id);
      expect(await activeId(page)).toBe(id);
      expect(await page.locator('[role=tab][tabindex="0"]').getAttribute('id')).toBe(id);
      expect(await page.locator('[role=tab][tabindex="-1"]').count()).toBe(ids.length - 1);
      const panel = page.locator('[role=tabpanel]');
      expect(await panel.getAttribute('aria-labelledby')).toBe(id);
      expect(await page.locator(`#${id}`).getAttribute('aria-controls')).toBe(await panel.getAttribute('id'));
    };
    await page.focus('#tab-search');
    await page.keyboard.press('ArrowRight');
    await check('tab-ask');
    await page.keyboard.press('End');
    await check('tab-settings');
    await page.keyboard.press('ArrowRight');
    await check('tab-search');
    await page.keyboard.press('ArrowLeft');
    await check('tab-settings');
    await page.keyboard.press('Home');
    await check('tab-search');
    expect(new URL(page.url()).searchParams.get('tab')).toBeNull();

    // Typing "/" in a field types it; elsewhere it goes to the search box (from any tab).
    await page.click('[data-testid=tab-settings]');
    await page.fill('[data-testid=setting-host]', 'http://127.0.0.1:1');
    await page.focus('[data-testid=setting-host]');
    await page.keyboard.press('/');
    expect(await page.inputValue('[data-testid=setting-host]')).toBe('http://127.0.0.1:1/');
    expect(await selectedTab(page)).toBe('tab-settings');
    await page.focus('#tab-settings');
    await page.keyboard.press('/');
    await expect.poll(() => activeId(page)).toBe('query');
    expect(await selectedTab(page)).toBe('tab-search');
    expect(await page.inputValue('[data-testid=query]')).toBe('');
    await page.close();
  });

  test('calibration and threshold controls explain themselves in one line each', async () => {
    const page = await open(site);
    const help = () => page.locator('[data-testid=calibration-help]').innerText();
    const expected = { raw: /raw: .*nothing is rejected/, minmax: /min-max: .*best is 1 and the worst 0/, zscore: /z-score: .*standard deviations/, cdf: /CDF: .*share of corpus-wide/ };
    for (const [value, text] of Object.entries(expected)) {
      await page.selectOption('.controls label:has-text("Calibration") select', value);
      await expect.poll(help).toMatch(text);
    }
    expect(await page.locator('[data-testid=threshold-help]').innerText()).toMatch(new RegExp(`Reject below ${DEFAULT_REJECT_THRESHOLDS.sparse} \\(this mode’s default; type a number to override\\): when the top result’s confidence \\(0…1\\) is under ${DEFAULT_REJECT_THRESHOLDS.sparse}, .*No confident answer`));
    await page.fill('.controls label:has-text("Reject below") input', '0');
    await expect.poll(() => page.locator('[data-testid=threshold-help]').innerText()).toMatch(/nothing is rejected/);
    await page.close();
  });
});

describe('example chips and the α simulator', () => {
  test("the simulator opens before any search at seed B's defaults; a chip sets its mode; from the telemetry it opens at the query's H values, sliders move α, the weights and the re-fused list; 400 px does not scroll sideways", async () => {
    const page = await open(site, settings(inject('hubUrl'), true, prebuiltVectors()));
    await page.locator('[data-testid=open-sim]').click();
    let sim = page.locator('[data-testid=alpha-sim][data-host=search]');
    expect(await sim.locator('[data-testid=sim-range]').innerText()).toMatch(/0 … log2\(20\) ≈ 4\.32.*Both start at seed B's default 4\.20\./);
    expect(await sim.locator('[data-testid=sim-h-dense-value]').innerText()).toBe('4.20');
    expect(await sim.locator('[data-testid=sim-alpha]').innerText()).toBe('0.500');
    expect(await sim.locator('[data-testid=sim-p-sparse]').innerText()).toBe('50.0%');
    expect(await sim.locator('[data-testid=sim-state]').innerText()).toMatch(/^Balanced confidence: equal weighting/);
    expect(await sim.getAttribute('data-real')).toBe('no');
    await page.locator('[data-testid=open-sim]').click();
    expect(await sim.count()).toBe(0);

    await page.locator('[data-testid=dense-info]').waitFor({ timeout: 240_000 });
    await expect.poll(() => page.locator('[data-testid=mode] option[value=hybrid_calibrated]').isDisabled()).toBe(false);
    const chip = page.locator('[data-testid=example][data-mode=hybrid_calibrated]');
    await chip.click();
    expect(await page.inputValue('[data-testid=mode]')).toBe('hybrid_calibrated');
    const q = await page.inputValue('[data-testid=query]');
    await page.waitForFunction((q) => document.querySelector('[data-testid=results]')?.getAttribute('data-query') === q, q);
    await expect.poll(() => page.locator('[data-testid=telemetry-mode]').innerText()).toBe('hybrid_calibrated');
    expect(await page.locator('[data-testid=example-notice]').count()).toBe(0);
    const [alpha, hSparse, hDense] = (await page.locator('[data-testid=telemetry-alpha]').innerText()).match(/\d+\.\d+/g)!.map(Number);

    await page.locator('[data-testid=telemetry] [data-testid=open-sim]').click();
    sim = page.locator('[data-testid=alpha-sim][data-host=search]');
    expect(Math.abs(Number(await sim.locator('[data-testid=sim-h-dense-value]').innerText()) - hDense!)).toBeLessThanOrEqual(0.0051);
    expect(Math.abs(Number(await sim.locator('[data-testid=sim-h-sparse-value]').innerText()) - hSparse!)).toBeLessThanOrEqual(0.0051);
    expect(Math.abs(Number(await sim.locator('[data-testid=sim-alpha]').innerText()) - alpha!)).toBeLessThanOrEqual(0.0011);
    // The caption names the values the sliders show (the query's own H), not seed B's 4.20.
    const shown = [await sim.locator('[data-testid=sim-h-dense-value]').innerText(), await sim.locator('[data-testid=sim-h-sparse-value]').innerText()];
    expect(await sim.locator('[data-testid=sim-range]').innerText()).toContain(shown[0] === shown[1] ? `Both start at this query's entropy, ${shown[0]} bits` : `H_dense ${shown[0]}, H_sparse ${shown[1]} bits`);
    // The query's candidates, fused at the sliders' α.
    await expect.poll(() => sim.locator('[data-testid=sim-top-row]').count(), { timeout: 60_000 }).toBeGreaterThan(0);
    expect(await sim.locator('[data-testid=sim-error]').count()).toBe(0);
    expect(await sim.locator('[data-testid=sim-query-alpha-value]').innerText()).toBe(await sim.locator('[data-testid=sim-alpha]').innerText());
    // H_dense to 0: α = 0, all the weight on dense, the re-fusion follows.
    await sim.locator('[data-testid=sim-h-dense]').focus();
    await page.keyboard.press('Home');
    await expect.poll(() => sim.locator('[data-testid=sim-alpha]').innerText()).toBe('0.000');
    expect(await sim.locator('[data-testid=sim-p-dense]').innerText()).toBe('100.0%');
    expect(await sim.locator('[data-testid=sim-state]').innerText()).toMatch(/^Strongly dense-leaning/);
    expect(await sim.locator('[data-testid=sim-query-alpha-value]').innerText()).toBe('0.000');
    const atZero = await sim.locator('[data-testid=sim-top-row]').evaluateAll((rs) => rs.map((r) => r.getAttribute('data-doc')));
    // H_sparse to 0 as well, then H_dense up: α → 1, all on BM25.
    await sim.locator('[data-testid=sim-h-sparse]').focus();
    await page.keyboard.press('Home');
    await sim.locator('[data-testid=sim-h-dense]').focus();
    await page.keyboard.press('End');
    await expect.poll(() => sim.locator('[data-testid=sim-alpha]').innerText()).toBe('1.000');
    expect(await sim.locator('[data-testid=sim-p-sparse]').innerText()).toBe('100.0%');
    expect(await sim.locator('[data-testid=sim-query-alpha-value]').innerText()).toBe('1.000');
    const atOne = await sim.locator('[data-testid=sim-top-row]').evaluateAll((rs) => rs.map((r) => r.getAttribute('data-doc')));
    // Pure dense vs pure BM25 order the query's candidates differently: the list is re-fused, not fixed.
    expect(atOne).not.toEqual(atZero);
    console.log(`ux e2e: α simulator top 10 at α = 0 vs 1: ${atZero.filter((d, i) => atOne[i] === d).length} of ${atZero.length} ranks the same`);

    await page.setViewportSize({ width: 400, height: 800 });
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(400);
    await sim.screenshot({ path: 'test-results/ux-alpha-sim-400.png' });
    // The models this test downloaded must not count as cached for the tests after it (they share the browser profile).
    await page.evaluate(() => caches.delete('transformers-cache'));
    await page.close();
  }, 300_000);
});

describe('model banners belong to their feature', () => {
  test('a failing model shows in the Search tab and Settings only; it can be dismissed; a retry that works clears it', async () => {
    const page = await open(site, settings(inject('brokenHubUrl'), true, prebuiltVectors()));
    const errors = page.locator('[data-testid=model-error]');
    await expect.poll(() => errors.first().innerText().catch(() => ''), { timeout: 90_000 }).toMatch(/model_quantized\.onnx.*BM25 search keeps working/s);
    expect(await errors.count()).toBe(1);
    // Asked for when the pointer reaches Enable: the size check sees that the host lacks the file.
    await page.locator('[data-testid=enable-models]').hover();
    await expect.poll(() => page.locator('[data-testid=download-plan]').innerText().catch(() => '')).toMatch(/Loading will fail: the embedder \(rag-lab\/tiny-embedder\) has no onnx\/model_quantized\.onnx on the model host/);
    for (const t of ['ask', 'benchmark']) {
      await page.click(`[data-testid=tab-${t}]`);
      expect(await errors.count(), t).toBe(0);
    }
    await page.click('[data-testid=tab-settings]');
    expect(await errors.count()).toBe(1);
    await page.click('[data-testid=tab-search]');
    await errors.locator('[data-testid=dismiss]').click();
    expect(await errors.count()).toBe(0);

    // Retrying with the same broken host fails again: the banner is back, once.
    await page.click('[data-testid=enable-models]');
    await expect.poll(() => errors.count(), { timeout: 90_000 }).toBe(1);
    await page.screenshot({ path: 'test-results/ux-model-error.png' });
    // Fixed: a working host, then a retry that succeeds clears the banner.
    await page.click('[data-testid=tab-settings]');
    await page.fill('[data-testid=setting-host]', inject('hubUrl'));
    await page.click('.settings-form button[type=submit]');
    await page.click('[data-testid=tab-search]');
    await page.locator('[data-testid=enable-models]').focus();
    await expect.poll(() => page.locator('[data-testid=download-plan]').innerText()).toMatch(/^Downloads ~/);
    expect(await page.locator('[data-testid=download-plan]').innerText()).not.toMatch(/will fail/);
    await page.click('[data-testid=enable-models]');
    await page.locator('[data-testid=dense-info]').waitFor({ timeout: 150_000 });
    expect(await errors.count()).toBe(0);
    await page.close();
  });
});

describe('enabling models', () => {
  let hub: HubServer;
  let release: () => void = () => {};
  const held = new Promise<void>((ok) => { release = ok; });
  beforeAll(async () => {
    // Holds the embedder's ONNX file until released, so Cancel is pressed while it downloads.
    hub = await serveHub(FIXTURES, '/hub/', { gate: (repo, file) => (repo === 'rag-lab/tiny-embedder' && file === 'onnx/model_quantized.onnx' ? held : Promise.resolve()) });
  });
  afterAll(async () => { release(); await hub?.close(); });

  test('states the download size and a measured embedding-time estimate, and can be cancelled leaving BM25 working', async () => {
    // A fresh profile: no cached model files or embeddings from other tests.
    const fresh = await launchBrowser();
    try {
      await sizeEstimateCancel(fresh, hub, release);
    } finally {
      await fresh.close();
    }
  });
});

/** Download size before the click, Cancel during the download, then the measured embedding estimate. */
async function sizeEstimateCancel(fresh: Browser, hub: HubServer, release: () => void) {
  const page = await fresh.context.newPage();
  await page.addInitScript((s) => localStorage.setItem('rag-lab:settings', s), settings(hub.url, false));
  await page.goto(site);
  await page.locator('[data-testid=kb-info]').waitFor({ timeout: 150_000 });
  const chunks = Number((/([\d,]+) chunks/.exec(await page.locator('[data-testid=kb-info]').innerText())![1]!).replace(/,/g, ''));
  const emb = q8Bytes('rag-lab/tiny-embedder');
  const ce = q8Bytes('rag-lab/tiny-cross-encoder');
  const plan = page.locator('[data-testid=download-plan]');
  // Nothing is asked of the model host until the user shows interest: opening the page lists no files.
  expect(hub.requests.filter((r) => r.includes('/api/models/'))).toEqual([]);
  await page.locator('[data-testid=check-size]').click();
  await expect.poll(() => plan.innerText()).toBe(`Downloads ~${formatBytes(emb + ce)} (embedder ${formatBytes(emb)}, cross-encoder ${formatBytes(ce)}); `
    + `embedding ${chunks.toLocaleString('en-US')} chunks; the time is measured on the first batch.`);
  expect(hub.requests).toContain('/hub/api/models/rag-lab/tiny-embedder/tree/main');

  await page.click('[data-testid=enable-models]');
  await page.locator('[data-testid=cancel-models]').waitFor();
  expect(await page.locator('[data-testid=embed-estimate]').innerText()).toMatch(/^Downloads ~/);
  await expect.poll(() => hub.requests.includes('/hub/rag-lab/tiny-embedder/resolve/main/onnx/model_quantized.onnx')).toBe(true);
  await cancelLeavesBm25(page, 'tariff');

  // Again, downloads released: every estimate shown while embedding is recorded, until it has been measured again
  // on more chunks; then Cancel stops the embedding itself. (models.test.ts embeds the whole corpus in the tab.)
  release();
  await page.evaluate(() => {
    const seen: string[] = [];
    (window as unknown as { __estimates: string[] }).__estimates = seen;
    new MutationObserver(() => {
      const t = document.querySelector('[data-testid=embed-estimate]')?.textContent?.trim();
      if (t && t !== seen[seen.length - 1]) seen.push(t);
    }).observe(document.body, { subtree: true, childList: true, characterData: true });
  });
  await page.click('[data-testid=enable-models]');
  const measured = () => page.evaluate(() => (window as unknown as { __estimates: string[] }).__estimates.filter((e) => /passages\/s/.test(e)));
  // Updated from the measured rate as embedding goes on.
  const measuredOn = async () => new Set((await measured()).map((e) => /measured on the first ([\d,]+)/.exec(e)?.[1])).size;
  await expect.poll(measuredOn, { timeout: 150_000 }).toBeGreaterThan(1);
  const n = chunks.toLocaleString('en-US');
  expect((await measured())[0]).toMatch(new RegExp(`^embedding ${n} chunks takes about \\d+ (s|min|h)( \\d+ min)? here at ~[\\d.,]+ passages/s \\(measured on the first 128\\); about \\d+ (s|min|h)`));
  expect(await page.locator('[data-testid=dense-stage]').innerText()).toBe('Embedding chunks');
  await page.screenshot({ path: 'test-results/ux-models-embedding.png' });
  await cancelLeavesBm25(page, 'emancipation');
}

/** Cancel: the models are not enabled, no dense mode is offered, and a BM25 search for `query` finds hits. */
async function cancelLeavesBm25(page: Page, query: string) {
  await page.click('[data-testid=cancel-models]');
  await page.locator('[data-testid=enable-models]').waitFor();
  expect(await page.locator('[data-testid=notice]').innerText()).toMatch(/cancelled\. BM25 search keeps working/);
  expect(await page.locator('[data-testid=cancel-models]').count()).toBe(0);
  expect(await page.locator('[data-testid=dense-info]').count()).toBe(0);
  expect(await page.locator('[data-testid=mode] option[value=rrf]').isDisabled()).toBe(true);
  await page.fill('[data-testid=query]', query);
  await page.waitForFunction((q) => document.querySelector('[data-testid=results]')?.getAttribute('data-query') === q, query);
  expect(await page.locator('[data-testid=hit]').count()).toBeGreaterThan(0);
}

describe('theme and narrow screens', () => {
  const luminance = (page: Page) => page.evaluate(() => {
    const [r, g, b] = getComputedStyle(document.documentElement).backgroundColor.match(/\d+/g)!.map(Number);
    return (0.2126 * r! + 0.7152 * g! + 0.0722 * b!) / 255;
  });

  test('the dark theme follows the system; the toggle (system / light / dark) overrides it and is stored, validated', async () => {
    const page = await browser.context.newPage();
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.goto(site);
    await page.locator('[data-testid=kb-info]').waitFor({ timeout: 150_000 });
    expect(await page.inputValue('[data-testid=theme]')).toBe('system');
    expect(await luminance(page)).toBeLessThan(0.2);
    await page.screenshot({ path: 'test-results/ux-dark.png' });
    await page.selectOption('[data-testid=theme]', 'light');
    expect(await luminance(page)).toBeGreaterThan(0.8);
    expect(await page.evaluate(() => localStorage.getItem('rag-lab:theme'))).toBe('light');
    await page.reload();
    expect(await page.inputValue('[data-testid=theme]')).toBe('light');
    expect(await luminance(page)).toBeGreaterThan(0.8);
    await page.emulateMedia({ colorScheme: 'light' });
    await page.selectOption('[data-testid=theme]', 'dark');
    expect(await luminance(page)).toBeLessThan(0.2);
    // A stored value that is not a theme means "follow the system".
    await page.evaluate(() => localStorage.setItem('rag-lab:theme', '"><script>'));
    await page.reload();
    expect(await page.inputValue('[data-testid=theme]')).toBe('system');
    expect(await luminance(page)).toBeGreaterThan(0.8);
    await page.close();
  });

  test('nothing scrolls sideways at 400 px on any tab, with a long query and results', async () => {
    const page = await browser.context.newPage();
    await page.setViewportSize({ width: 400, height: 800 });
    const long = `${'Congress tariff navy union '.repeat(12)}internationalizationinternationalizationinternationalization`;
    await page.goto(`${site}?q=${encodeURIComponent(long)}&k=5`);
    await page.locator('[data-testid=kb-info]').waitFor({ timeout: 150_000 });
    await expect.poll(() => page.locator('[data-testid=hit]').count()).toBeGreaterThan(0);
    const width = () => page.evaluate(() => document.documentElement.scrollWidth);
    expect(await width()).toBeLessThanOrEqual(400);
    await page.screenshot({ path: 'test-results/ux-400-search.png', fullPage: true });
    for (const t of ['ask', 'build', 'benchmark', 'reports', 'compare', 'settings', 'search']) {
      await page.click(`[data-testid=tab-${t}]`);
      expect(await width(), t).toBeLessThanOrEqual(400);
    }
    await page.close();
  });
});
