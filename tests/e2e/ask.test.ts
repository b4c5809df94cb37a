/**
 * The Ask tab in the built site against a local OpenAI-compatible server: the answer streams, citations are
 * clickable and scroll to their source, the request carries numbered delimited sources, and the key stays out of
 * the URL. Model output with HTML is shown as text. A failed answer shows its passages under the error, which another
 * provider clears; the in-browser model says what it downloads before anything is fetched, and downloads on Start.
 */
import { mkdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, test } from 'vitest';
import type { Page } from 'playwright-core';
import { launchBrowser, type Browser } from '../helpers/browser.ts';
import { openaiCompletion, openaiStream, startLlmServer, type LlmServer } from '../helpers/llm-server.ts';
import { serveHub } from '../helpers/hub-server.ts';
import { formatBytes } from '../../src/lib/util/format-bytes.ts';

const FIXTURES = resolve(import.meta.dirname, '../fixtures/models');

const site = inject('siteUrl');
const KEY = 'sk-e2e-SECRET-0123456789';
let browser: Browser;
let page: Page;
let llm: LlmServer;

beforeAll(async () => {
  llm = await startLlmServer();
  browser = await launchBrowser();
  page = await browser.context.newPage();
});
afterAll(async () => {
  await browser?.close();
  await llm?.close();
});

function askUrl(question: string): string {
  const p = new URLSearchParams({ tab: 'ask', aq: question, a_prov: 'openai', a_base: `${llm.url}/v1`, a_model: 'test-model', a_w: '0' });
  return `${site}?${p}`;
}

async function ready(p: Page) {
  await p.locator('[data-testid=kb-info]').waitFor({ timeout: 120_000 });
}

describe('Ask tab', () => {
  test('streams an answer with clickable citations from numbered sources', async () => {
    llm.reply({ sse: openaiStream(['Lincoln proposed compensated ', 'emancipation [1]', ' and wrote of it again [2]. ', 'Unfounded claim [9]. <img src=x onerror=alert(1)>']), chunkDelayMs: 60 });
    await page.goto(askUrl('What did Lincoln propose about emancipation?'));
    await ready(page);
    await page.locator('[data-testid=api-key]').fill(KEY);
    await page.locator('[data-testid=api-key]').blur();
    await page.locator('[data-testid=ask-button]').click();
    // The base URL came from the link: the key goes there only once the user confirms (tests/e2e/secrets.test.ts).
    expect(await page.locator('[data-testid=key-confirm]').getAttribute('data-host', { timeout: 30_000 })).toBe(new URL(llm.url).host);
    await page.locator('[data-testid=key-confirm-send]').click();
    await expect.poll(() => page.locator('[data-testid=answer]').innerText().catch(() => ''), { timeout: 30_000 }).toMatch(/Unfounded claim/);
    await expect.poll(() => page.locator('[data-testid=source]').count()).toBeGreaterThan(1);

    // The request: one chat completion, streamed, numbered and delimited sources, the key only in Authorization.
    const req = llm.requests.at(-1)!;
    expect(req.path).toBe('/v1/chat/completions');
    expect(req.headers.authorization).toBe(`Bearer ${KEY}`);
    const body = req.body as { model: string; stream: boolean; messages: Array<{ role: string; content: string }> };
    expect(body.model).toBe('test-model');
    expect(body.stream).toBe(true);
    const prompt = body.messages.map((m) => m.content).join('\n');
    expect(prompt).toMatch(/\[1\]|source[^\n]*1/i);
    expect(prompt.toLowerCase()).toContain('emancipation');
    expect(page.url()).not.toContain(KEY);
    expect(page.url()).not.toContain('SECRET');

    // Citations: [1] and [2] are buttons that scroll to their sources; [9] is flagged.
    const cites = page.locator('[data-testid=cite]');
    expect(await cites.count()).toBe(3);
    expect(await page.locator('[data-testid=cite].invalid').getAttribute('data-n')).toBe('9');
    expect(await page.locator('[data-testid=invalid-citations]').innerText()).toContain('[9]');
    await page.locator('[data-testid=cite][data-n="2"]').click();
    await expect.poll(() => page.locator('#source-2').getAttribute('class')).toMatch(/highlight/);
    await expect.poll(() => page.locator('#source-2').evaluate((el) => {
      const r = el.getBoundingClientRect();
      return r.top >= 0 && r.bottom <= window.innerHeight + r.height;
    })).toBe(true);
    // Model output is text, never markup.
    expect(await page.locator('[data-testid=answer] img').count()).toBe(0);
    expect(await page.locator('[data-testid=answer]').innerText()).toContain('<img src=x onerror=alert(1)>');
    expect(await page.locator('[data-testid=trace-step][data-step=generate]').count()).toBe(1);
    mkdirSync('test-results', { recursive: true });
    await page.screenshot({ path: 'test-results/ask.png' });
  });

  test('a 401 says the key was refused, without echoing it', async () => {
    llm.reply({ status: 401, json: { error: { message: `Invalid API key ${KEY}`, type: 'invalid_request_error' } } });
    await page.locator('[data-testid=ask-button]').click();
    await expect.poll(() => page.locator('[data-testid=ask-status]').innerText().catch(() => ''), { timeout: 30_000 }).toMatch(/key/i);
    expect(await page.locator('[data-testid=ask-status]').innerText()).not.toContain('SECRET');
    expect(await page.locator('body').innerText()).not.toContain(KEY);
  });

  test('stopping mid-stream keeps the partial answer and marks it', async () => {
    llm.reply({ sse: openaiStream(['The first part of the answer [1]. ', 'more ', 'and more ', 'and more ', 'and more ', 'end.']), chunkDelayMs: 700 });
    await page.locator('[data-testid=ask-button]').click();
    await expect.poll(() => page.locator('[data-testid=answer]').innerText().catch(() => ''), { timeout: 30_000 }).toMatch(/first part/);
    await page.locator('[data-testid=stop]').click();
    await expect.poll(() => page.locator('[data-testid=partial]').count(), { timeout: 30_000 }).toBe(1);
    expect(await page.locator('[data-testid=answer]').innerText()).toMatch(/first part/);
    expect(await page.locator('[data-testid=answer]').innerText()).not.toMatch(/end\./);
  });

  test('a failed answer shows its passages under the error; another provider clears that error', async () => {
    llm.reply({ status: 401, json: { error: { message: 'Invalid API key', type: 'invalid_request_error' } } });
    await page.locator('[data-testid=ask-button]').click();
    await expect.poll(() => page.locator('[data-testid=ask-status]').getAttribute('data-status').catch(() => null), { timeout: 30_000 }).toBe('error');
    // The passages retrieved for the question are in the answer area, below the error (issue 21, point 9).
    expect(await page.locator('[data-testid=source]').count()).toBeGreaterThan(0);
    expect(await page.locator('[data-testid=sources-without-answer]').innerText()).toMatch(/^No answer came back; /);
    const order = await page.evaluate(() => {
      const status = document.querySelector('[data-testid=ask-status]')!;
      return !!(status.compareDocumentPosition(document.querySelector('[data-testid=source]')!) & Node.DOCUMENT_POSITION_FOLLOWING);
    });
    expect(order).toBe(true);
    await page.locator('[data-testid=provider]').selectOption('groq');
    expect(await page.locator('[data-testid=ask-status]').count()).toBe(0);
    expect(await page.locator('[data-testid=source]').count()).toBe(0);
  });
});

describe('Ask tab: the agentic loop graded per source', () => {
  test('"grade each source" and a grader model: one grading call per source by that model, kept in the link', async () => {
    const p = await browser.context.newPage();
    try {
      const q = new URLSearchParams({ tab: 'ask', aq: 'What did Lincoln propose about emancipation?', a_prov: 'openai', a_base: `${llm.url}/v1`, a_model: 'test-model', a_w: '0', a_k: '3', a_agent: '1' });
      await p.goto(`${site}?${q}`);
      await ready(p);
      await p.locator('[data-testid=grade-each]').check();
      await p.locator('[data-testid=grader-model]').fill('small-model');
      await expect.poll(() => new URL(p.url()).searchParams.get('a_gmodel')).toBe('small-model');
      expect(new URL(p.url()).searchParams.get('a_gdoc')).toBe('1');
      const grade = (relevant: boolean) => openaiCompletion(JSON.stringify({ relevant }));
      llm.reply(openaiCompletion('1. compensated emancipation'), grade(true), grade(false), grade(true),
        { sse: openaiStream(['Lincoln proposed compensated emancipation [1].']) }, openaiCompletion('ok'));
      const before = llm.requests.length;
      await p.locator('[data-testid=api-key]').fill(KEY);
      await p.locator('[data-testid=api-key]').blur();
      await p.locator('[data-testid=ask-button]').click();
      if (await p.locator('[data-testid=key-confirm-send]').isVisible({ timeout: 10_000 }).catch(() => false)) await p.locator('[data-testid=key-confirm-send]').click();
      await expect.poll(() => p.locator('[data-testid=answer]').innerText().catch(() => ''), { timeout: 60_000 }).toMatch(/compensated emancipation/);
      await expect.poll(() => llm.requests.length - before, { timeout: 30_000 }).toBe(6);
      const models = llm.requests.slice(before).map((r) => (r.body as { model: string }).model);
      expect(models).toEqual(['test-model', 'small-model', 'small-model', 'small-model', 'test-model', 'test-model']);
      // The two passages judged relevant are the answer's sources.
      expect(await p.locator('[data-testid=source]').count()).toBe(2);
    } finally {
      await p.close();
    }
  });
});

describe('Ask tab: the in-browser model', () => {
  test('says what it is and what it downloads before anything is downloaded; Start downloads it', async () => {
    const hub = await serveHub(FIXTURES);
    const p = await browser.context.newPage();
    try {
      await p.addInitScript((s) => localStorage.setItem('rag-lab:settings', s), JSON.stringify({ remoteHost: hub.url, autoLoadModels: false }));
      const q = new URLSearchParams({ tab: 'ask', aq: 'What did Lincoln propose?', a_prov: 'browser', a_model: 'rag-lab/tiny-generator' });
      await p.goto(`${site}?${q}`);
      await ready(p);
      const size = p.locator('[data-testid=browser-model-size][data-status=ready]');
      await size.waitFor({ timeout: 60_000 });
      expect(await p.locator('[data-testid=browser-model-about]').innerText()).toMatch(/^rag-lab\/tiny-generator runs in this tab .*WebGPU.*WASM/);
      // The size is the files' (q8 on WASM here), read from the host's file list: no model file was fetched.
      const bytes = ['config.json', 'tokenizer.json', 'tokenizer_config.json', 'onnx/model_quantized.onnx']
        .reduce((a, f) => a + statSync(join(FIXTURES, 'rag-lab/tiny-generator', f)).size, 0);
      expect(await size.innerText()).toContain(`about ${formatBytes(bytes)} (q8 weights for WASM) once: the browser caches the files`);
      expect(hub.requests.filter((r) => r.includes('/resolve/'))).toEqual([]);
      expect(await p.locator('[data-testid=ask-button]').isDisabled()).toBe(true);
      await p.locator('[data-testid=browser-model-start]').click();
      await expect.poll(() => hub.requests.some((r) => r.includes('rag-lab/tiny-generator/resolve/')), { timeout: 60_000 }).toBe(true);
    } finally {
      await p.close();
      await hub.close();
    }
  });
});

describe('Ask tab behind coi-serviceworker (a host without COOP/COEP headers)', () => {
  test('the answer still streams chunk by chunk and Stop still stops it', async () => {
    const b = await launchBrowser({ serviceWorkers: 'allow' });
    try {
      const p = await b.context.newPage();
      llm.reply({ sse: openaiStream(['The first part of the answer [1]. ', 'more ', 'and more ', 'and more ', 'and more ', 'end.']), chunkDelayMs: 700 });
      await p.goto(askUrl('What did Lincoln propose about emancipation?'));
      // The service worker reloads the page once; the LLM request below goes through it.
      await expect.poll(() => p.evaluate(() => crossOriginIsolated).catch(() => null), { timeout: 30_000 }).toBe(true);
      await ready(p);
      await p.locator('[data-testid=api-key]').fill(KEY);
      await p.locator('[data-testid=ask-button]').click();
      await p.locator('[data-testid=key-confirm-send]').click({ timeout: 30_000 });
      await expect.poll(() => p.locator('[data-testid=answer]').innerText().catch(() => ''), { timeout: 30_000 }).toMatch(/first part/);
      // Streaming, not buffered by the service worker: the rest is still ~3 s away.
      expect(await p.locator('[data-testid=answer]').innerText()).not.toMatch(/end\./);
      await p.locator('[data-testid=stop]').click();
      await expect.poll(() => p.locator('[data-testid=partial]').count(), { timeout: 30_000 }).toBe(1);
      expect(await p.locator('[data-testid=answer]').innerText()).not.toMatch(/end\./);
      expect(llm.requests.at(-1)!.headers.authorization).toBe(`Bearer ${KEY}`);
    } finally {
      await b.close();
    }
  });
});
