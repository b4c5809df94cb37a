/**
 * The Benchmark tab in the built site: RAGBench rows from a local dataset viewer, a lexical validate run with summary
 * and charts, an LLM-judge run reloaded midway that resumes from the cached rows, and edited cached rows that are
 * recomputed and reported.
 */
import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, test } from 'vitest';
import type { Page } from 'playwright-core';
import { launchBrowser, type Browser } from '../helpers/browser.ts';
import { openaiStream, startLlmServer, type LlmServer } from '../helpers/llm-server.ts';
import { serveViewer, useViewer, type ViewerServer } from '../helpers/viewer-server.ts';

const site = inject('siteUrl');
const DATA = process.env.RAG_LAB_RAGBENCH ?? resolve(import.meta.dirname, '../../../shared/data/ragbench/test');
let browser: Browser;
let page: Page;
let viewer: ViewerServer;
let llm: LlmServer;

beforeAll(async () => {
  viewer = await serveViewer(DATA);
  llm = await startLlmServer();
  // Every judge call answers after a delay with the same valid verdict.
  llm.fallback = () => ({
    delayMs: 250,
    json: {
      id: 'x', object: 'chat.completion', created: 1, model: 'judge',
      choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content: JSON.stringify({
        overall_supported: true, all_relevant_sentence_keys: ['0a', '0b'], all_utilized_sentence_keys: ['0a'], sentence_support_information: [],
      }) } }],
      usage: { prompt_tokens: 100, completion_tokens: 20, total_tokens: 120 },
    },
  });
  browser = await launchBrowser();
  page = await browser.context.newPage();
  await useViewer(page, viewer.url);
});
afterAll(async () => {
  await browser?.close();
  await viewer?.close();
  await llm?.close();
});

async function summaryAuroc(p: Page): Promise<string> {
  return p.locator('[data-testid=summary-row] [data-testid=auroc]').first().innerText();
}

describe('Benchmark tab', () => {
  test('a 20-row lexical validate run shows the summary next to the baselines, rows and charts', async () => {
    await page.goto(`${site}?tab=benchmark&b_sub=emanual&b_n=20&b_eval=lexical`);
    await page.locator('[data-testid=bench-run]').click();
    await page.locator('[data-testid=bench-summary]').waitFor({ timeout: 60_000 });
    const row = await page.locator('[data-testid=summary-row]').first().innerText();
    expect(row).toMatch(/^emanual\s+20\s+\d+/);
    expect(await summaryAuroc(page)).toMatch(/^(0|1)\.\d{3}$|^N\/A$/);
    expect(await page.locator('[data-testid=bench-row]').count()).toBe(20);
    await page.locator('[data-testid=charts][data-rendered=true]').waitFor({ timeout: 60_000 });
    for (const id of ['chart-means', 'chart-roc', 'chart-scatter']) expect(await page.locator(`[data-testid=${id}] .main-svg`).count()).toBeGreaterThan(0);
    await page.locator('[data-testid=bench-row]').first().click();
    expect(await page.locator('[data-testid=bench-detail]').innerText()).toMatch(/predicted[\s\S]*gold/);
    // Rows open by keyboard too: Enter or Space on a focused row.
    for (const [i, key] of [[1, 'Enter'], [2, ' ']] as const) {
      await page.locator('[data-testid=bench-detail] button', { hasText: 'Close' }).click();
      expect(await page.locator('[data-testid=bench-detail]').count()).toBe(0);
      await page.locator('[data-testid=bench-row]').nth(i).focus();
      await page.keyboard.press(key === ' ' ? 'Space' : key);
      await page.locator('[data-testid=bench-detail]').waitFor();
    }
    mkdirSync('test-results', { recursive: true });
    await page.screenshot({ path: 'test-results/benchmark.png', fullPage: true });
  });

  test('an LLM-judge run reloaded midway resumes with only the missing rows', async () => {
    const params = new URLSearchParams({ tab: 'benchmark', b_sub: 'hotpotqa', b_n: '20', b_seed: '5', b_eval: 'llm', b_prov: 'openai', b_model: 'judge', b_base: `${llm.url}/v1` });
    await page.goto(`${site}?${params}`);
    await page.locator('[data-testid=bench-run]').click();
    await expect.poll(async () => Number(await page.locator('[data-testid=bench-done]').innerText().catch(() => '0')), { timeout: 60_000 }).toBeGreaterThanOrEqual(6);
    await page.reload();
    const before = llm.requests.length;
    expect(before).toBeGreaterThanOrEqual(6);
    expect(before).toBeLessThan(20);
    expect(await page.locator('label:has-text("Judge base URL") input').inputValue()).toBe(`${llm.url}/v1`);
    await page.locator('[data-testid=bench-run]').click();
    await page.locator('[data-testid=bench-summary]').waitFor({ timeout: 60_000 });
    expect(await page.locator('[data-testid=summary-row]').first().innerText()).toMatch(/^hotpotqa\s+20\s/);
    // Each row was judged once, except at most the two that were in flight when the page reloaded.
    expect(llm.requests.length).toBeGreaterThanOrEqual(20);
    expect(llm.requests.length).toBeLessThanOrEqual(22);
    const progress = await page.locator('[data-testid=bench-progress]').innerText();
    expect(progress).toMatch(/20 done \((\d+) cached\)/);
    const cached = Number(/\((\d+) cached\)/.exec(progress)![1]);
    expect(cached).toBeGreaterThanOrEqual(before - 2);
  });

  test('pipeline mode answers sampled questions from the subset documents and reports gold-document recall', async () => {
    llm.reset();
    const judgeFallback = llm.fallback;
    llm.fallback = () => ({ sse: openaiStream(['According to the manual, open Settings [1].']) });
    try {
      const params = new URLSearchParams({ tab: 'benchmark', b_mode: 'pipeline', b_sub: 'emanual', b_n: '5', b_seed: '1', b_prov: 'openai', b_model: 'answerer', b_base: `${llm.url}/v1` });
      await page.goto(`${site}?${params}`);
      await page.locator('[data-testid=bench-run]').click();
      await page.locator('[data-testid=pipeline-summary]').waitFor({ timeout: 90_000 });
      const row = await page.locator('[data-testid=pipeline-row]').first().innerText();
      expect(row).toMatch(/^emanual\s+5\s+5\s/);
      expect(await page.locator('[data-testid=pipeline-recall]').first().innerText()).toMatch(/^(0|1)\.\d{3} @5$/);
      expect(llm.requests.length).toBe(5);
      const prompt = JSON.stringify(llm.requests[0]!.body);
      expect(prompt).toContain('source');
    } finally {
      llm.fallback = judgeFallback;
    }
  });

  test('the local NLI evaluator runs in the browser with the fixture NLI model and cross-encoder', async () => {
    await page.evaluate((hub) => {
      const s = JSON.parse(localStorage.getItem('rag-lab:settings') ?? '{}');
      localStorage.setItem('rag-lab:settings', JSON.stringify({
        ...s, remoteHost: hub,
        nli: { id: 'rag-lab/tiny-nli', dtype: 'q8', device: 'wasm' },
        crossEncoder: { id: 'rag-lab/tiny-cross-encoder', dtype: 'q8', device: 'wasm' },
      }));
    }, inject('hubUrl'));
    await page.goto(`${site}?tab=benchmark&b_sub=emanual&b_n=5&b_eval=nli`);
    await page.locator('[data-testid=bench-run]').click();
    await expect.poll(() => page.locator('[data-testid=bench-error]').innerText().catch(() => ''), { timeout: 30_000 }).toMatch(/load it first/);
    await page.locator('[data-testid=bench-load-nli]').click();
    await expect.poll(() => page.locator('[data-testid=bench-load-nli]').innerText(), { timeout: 60_000 }).toBe('NLI models loaded');
    await page.locator('[data-testid=bench-run]').click();
    await expect.poll(() => page.locator('[data-testid=summary-row]').first().innerText().catch(() => ''), { timeout: 60_000 }).toMatch(/^emanual\s+5\s/);
    const adherence = await page.locator('[data-testid=bench-row] td:nth-child(5)').allInnerTexts();
    expect(adherence).toHaveLength(5);
    for (const a of adherence) expect(Number(a)).toBeGreaterThanOrEqual(0);
  });

  test('after the models worker is replaced (a new thread count), the NLI evaluator reaches the new one', async () => {
    // The cross-origin-isolated copy of the site, where the thread count can change (its own storage: no cached rows).
    await page.goto(`${inject('isolatedSiteUrl')}?tab=benchmark&b_sub=emanual&b_n=5&b_eval=nli`);
    await page.evaluate((hub) => {
      const s = JSON.parse(localStorage.getItem('rag-lab:settings') ?? '{}');
      localStorage.setItem('rag-lab:settings', JSON.stringify({
        ...s, remoteHost: hub, threads: 'auto',
        nli: { id: 'rag-lab/tiny-nli', dtype: 'q8', device: 'wasm' },
        crossEncoder: { id: 'rag-lab/tiny-cross-encoder', dtype: 'q8', device: 'wasm' },
      }));
    }, inject('hubUrl'));
    await page.reload();
    await page.locator('[data-testid=bench-load-nli]').click();
    await expect.poll(() => page.locator('[data-testid=bench-load-nli]').innerText(), { timeout: 60_000 }).toBe('NLI models loaded');
    const cores = await page.evaluate(() => navigator.hardwareConcurrency);
    const next = Math.min(4, cores) === 1 ? null : 1;
    if (next !== null) {
      await page.click('[data-testid=tab-settings]');
      await page.selectOption('[data-testid=setting-threads]', String(next));
      await page.click('.settings-form button[type=submit]');
      await expect.poll(() => page.locator('[data-testid=loaded-models]').innerText(), { timeout: 60_000 }).toContain('rag-lab/tiny-nli (q8, wasm, 1 thread)');
      await page.click('[data-testid=tab-benchmark]');
    }
    await page.locator('[data-testid=bench-run]').click();
    await expect.poll(() => page.locator('[data-testid=summary-row]').first().innerText().catch(() => ''), { timeout: 60_000 }).toMatch(/^emanual\s+5\s/);
    expect(await page.locator('[data-testid=bench-row]').count()).toBe(5);
  });
});

/**
 * From the page, as a user in DevTools could: forgets every cached benchmark row, or edits the first two (a
 * relevance of 40, a wrong checksum). Resolves with how many records there were.
 */
function editResults(p: Page, how: 'clear' | 'tamper'): Promise<number> {
  return p.evaluate((how) => new Promise<number>((resolve, reject) => {
    const open = indexedDB.open('rag-lab');
    open.onerror = () => reject(open.error);
    open.onsuccess = () => {
      const db = open.result;
      const tx = db.transaction('results', 'readwrite');
      const store = tx.objectStore('results');
      const all = store.getAll();
      all.onsuccess = () => {
        const recs = all.result as Array<{ scores: Record<string, number>; checksum: string }>;
        if (how === 'clear') {
          store.clear();
        } else {
          store.put({ ...recs[0]!, scores: { ...recs[0]!.scores, relevance: 40 } });
          store.put({ ...recs[1]!, checksum: '0'.repeat(64) });
        }
        tx.oncomplete = () => { db.close(); resolve(recs.length); };
      };
      tx.onerror = () => reject(tx.error);
    };
  }), how);
}

describe('Benchmark tab: cached rows are checked', () => {
  test('edited records are recomputed and reported; the metrics equal the clean run', async () => {
    const summary = (p: Page) => p.locator('[data-testid=summary-row]').first().innerText();
    await page.goto(`${site}?tab=benchmark`);
    await editResults(page, 'clear');
    await page.goto(`${site}?tab=benchmark&b_sub=emanual&b_n=12&b_eval=lexical`);
    await page.locator('[data-testid=bench-run]').click();
    await page.locator('[data-testid=bench-summary]').waitFor({ timeout: 60_000 });
    const clean = await summary(page);
    expect(await page.locator('[data-testid=bench-cache-invalid]').count()).toBe(0);

    expect(await editResults(page, 'tamper')).toBe(12);
    await page.locator('[data-testid=bench-run]').click();
    await page.locator('[data-testid=bench-cache-invalid]').waitFor({ timeout: 60_000 });
    expect(await page.locator('[data-testid=bench-cache-invalid]').innerText()).toBe('emanual: 2 cached rows were invalid (edited or corrupted) and were recomputed.');
    expect(await summary(page)).toBe(clean);
  });
});
