/**
 * Rendering never crashes on data, in the built site: answers citing a source twice in one bracket or in
 * overlapping ranges, a multi-megabyte streamed answer, and hand-edited links (blank numbers, repeated entries,
 * unknown values) all render with a message, never a blank tab, a frozen tab or a silent 0.
 */
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, test } from 'vitest';
import type { Page } from 'playwright-core';
import { enterEndpointAndKey } from '../helpers/ask-page.ts';
import { DEFAULT_REJECT_THRESHOLDS } from '../../src/lib/retrieval/rejection.ts';
import { launchBrowser, type Browser } from '../helpers/browser.ts';
import { openaiStream, startLlmServer, type LlmServer } from '../helpers/llm-server.ts';
import { serveViewer, type ViewerServer } from '../helpers/viewer-server.ts';

const site = inject('siteUrl');
const DATA = process.env.RAG_LAB_RAGBENCH ?? resolve(import.meta.dirname, '../../../shared/data/ragbench/test');
const KEY = 'sk-e2e-robust-0123456789';
let browser: Browser;
let page: Page;
let llm: LlmServer;
let viewer: ViewerServer;

beforeAll(async () => {
  llm = await startLlmServer();
  viewer = await serveViewer(DATA);
  browser = await launchBrowser();
  page = await browser.context.newPage();
  await page.addInitScript((host) => {
    const s = JSON.parse(localStorage.getItem('rag-lab:settings') ?? '{}');
    localStorage.setItem('rag-lab:settings', JSON.stringify({ ...s, datasetsHost: host }));
  }, viewer.url);
});
afterAll(async () => {
  await browser?.close();
  await llm?.close();
  await viewer?.close();
});

/** The Search and Ask tabs' warnings about the link (the Search tab's are dismissible notices). */
const LINK_WARNINGS = 'main p.banner.warn[role=status]:not([data-testid]), main [data-testid=notice][data-feature=search] > span';

function askUrl(question: string): string {
  const p = new URLSearchParams({ tab: 'ask', aq: question, a_prov: 'openai', a_base: `${llm.url}/v1`, a_model: 'test-model', a_w: '0' });
  return `${site}?${p}`;
}

async function askWithKey(p: Page) {
  await p.locator('[data-testid=kb-info]').waitFor({ timeout: 120_000 });
  await enterEndpointAndKey(p, `${llm.url}/v1`, KEY);
  await p.locator('[data-testid=ask-button]').click();
}

/** The component tree is alive: the tab bar is there and Svelte threw nothing. */
async function alive(p: Page) {
  expect(await p.locator('[role=tablist] [role=tab]').count()).toBe(7);
  expect(browser.errors.filter((e) => /each_key_duplicate|Uncaught|TypeError/.test(e))).toEqual([]);
}

describe('answers', () => {
  test('a source cited twice in one bracket, in overlapping ranges and twice in a row renders every citation', async () => {
    llm.reply({ sse: openaiStream(['Lincoln proposed emancipation [1, 1]', ' and spoke of it again [1-3, 2]', ' and later [2][2].']) });
    await page.goto(askUrl('What did Lincoln propose about emancipation?'));
    await askWithKey(page);
    await page.locator('[data-testid=trace-step][data-step=cite]').waitFor({ timeout: 60_000 });
    await expect.poll(() => page.locator('[data-testid=answer]').innerText()).toMatch(/and later/);
    // [1, 1] → [1]; [1-3, 2] → [1][2][3]; [2][2] → two groups of [2].
    const ns = await page.locator('[data-testid=cite]').evaluateAll((els) => els.map((e) => e.getAttribute('data-n')));
    expect(ns).toEqual(['1', '1', '2', '3', '2', '2']);
    await page.locator('[data-testid=cite][data-n="2"]').first().click();
    await expect.poll(() => page.locator('#source-2').getAttribute('class')).toMatch(/highlight/);
    await alive(page);
  });

  test('a multi-megabyte streamed answer is cut at 200,000 characters, says so, and the page stays responsive', async () => {
    // 4 MB in 40,000 deltas of 100 characters (a model stuck in a loop).
    const part = 'The same sentence again and again, as a model stuck in a loop writes it without end. '.padEnd(100, '.');
    llm.reply({ sse: openaiStream(['Lincoln [1] ', ...Array<string>(40_000).fill(part)]) });
    await page.goto(askUrl('What did Lincoln propose about emancipation?'));
    await askWithKey(page);
    await expect.poll(() => page.locator('[data-testid=answer]').innerText().catch(() => ''), { timeout: 60_000 }).toMatch(/stuck in a loop/);
    // While the answer streams in, the page answers a round trip and the form is still usable.
    expect(await page.evaluate(() => document.querySelectorAll('[data-testid=answer]').length)).toBe(1);
    await page.locator('[data-testid=question]').focus();
    const notice = page.locator('[data-testid=answer-cut]');
    await notice.waitFor({ timeout: 120_000 });
    expect(await notice.innerText()).toMatch(/^The answer was cut at 200,000 characters/);
    const shown = await page.locator('[data-testid=answer]').evaluate((el) => el.textContent?.length ?? 0);
    expect(shown).toBeLessThanOrEqual(200_000);
    expect(shown).toBeGreaterThan(199_000);
    expect(await page.locator('[data-testid=partial]').count()).toBe(0);
    expect(await page.locator('[data-testid=cite][data-n="1"]').count()).toBe(1);
    expect(await page.evaluate(() => 6 * 7)).toBe(42);
    await alive(page);
  });
});

describe('links', () => {
  test('blank numbers are absent (never 0), repeated and unknown entries are dropped, each with a warning', async () => {
    await page.goto(`${site}?thr=&k=%20&mode=nope&party=Democratic&party=Democratic&k=9`);
    const warnings = page.locator(LINK_WARNINGS);
    await expect.poll(() => warnings.allInnerTexts()).toEqual([
      'The link gives k 2 times; using the first (" ").',
      'Unknown mode "nope" in the link; using sparse.',
      'Ignored the empty k= in the link; using 5.',
      "Ignored the empty thr= in the link; using the mode's default.",
      'The link lists "Democratic" more than once in party; each is used once.',
    ]);
    // Empty field: the mode's default applies, shown as the placeholder.
    expect(await page.locator('label:has-text("Reject below") input').inputValue()).toBe('');
    expect(await page.locator('label:has-text("Reject below") input').getAttribute('placeholder')).toBe(String(DEFAULT_REJECT_THRESHOLDS.sparse));
    expect(await page.locator('[data-testid=top-k]').inputValue()).toBe('5');
    // The cleaned state is what the page writes back (old filter names in their generic form).
    await expect.poll(() => new URL(page.url()).searchParams.getAll('f.party')).toEqual(['Democratic']);
    expect(new URL(page.url()).searchParams.getAll('party')).toEqual([]);
    expect(new URL(page.url()).searchParams.get('thr')).toBeNull();
    await alive(page);

    await page.goto(`${site}?tab=ask&a_thr=&a_k=&a_w=2&a_w=3`);
    await expect.poll(() => page.locator(LINK_WARNINGS).allInnerTexts()).toEqual([
      'The link gives w 2 times; using the first ("2").',
      'Ignored the empty k= in the link; using 5.',
      `Ignored the empty thr= in the link; using ${DEFAULT_REJECT_THRESHOLDS.sparse}.`,
    ]);
    await alive(page);
  });

  test('a benchmark link listing a subset twice runs it once and says so', async () => {
    await page.goto(`${site}?tab=benchmark&b_sub=emanual,emanual,nope&b_n=3&b_eval=lexical`);
    await expect.poll(() => page.locator('[data-testid=bench-link-warning]').allInnerTexts()).toEqual([
      'Ignored unknown b_sub "nope" in the link (known: covidqa, delucionqa, emanual, expertqa, hagrid, hotpotqa, msmarco).',
      'The link lists "emanual" more than once in b_sub; each is used once.',
    ]);
    await page.locator('[data-testid=bench-run]').click();
    await page.locator('[data-testid=bench-summary]').waitFor({ timeout: 120_000 });
    expect(await page.locator('[data-testid=summary-row]').count()).toBe(1);
    expect(await page.locator('[data-testid=summary-row]').first().innerText()).toMatch(/^emanual\s+3\s/);
    await expect.poll(() => new URL(page.url()).searchParams.get('b_sub')).toBe('emanual');
    await alive(page);
  });
});
