/**
 * arXiv in the Build tab, in Chromium, through a loopback CORS proxy in front of the loopback arXiv imitation (which,
 * like arXiv, sends no CORS headers): without a proxy the form says why it cannot call arXiv and points to Settings
 * and the CLI; the Settings field refuses arXiv itself and shows the warning; with the proxy set, a query becomes a
 * knowledge base (an empty first page asked again, two pages 3 s apart), search finds a paper by a word of its
 * abstract; arXiv's error feed is shown as arXiv's message; the Hub token set in Settings never reaches the proxy.
 */
import { afterAll, beforeAll, describe, expect, inject, test } from 'vitest';
import type { Page } from 'playwright-core';
import { launchBrowser, type Browser } from '../helpers/browser.ts';
import { makePapers, startArxivProxy, startArxivServer, type ArxivProxy, type ArxivServer } from '../helpers/arxiv-server.ts';

const site = inject('siteUrl');
const TOKEN = 'hf_arxivE2eSecretToken0123456789';
let browser: Browser;
let page: Page;
let arxiv: ArxivServer;
let proxy: ArxivProxy;

const tab = (name: string) => page.getByRole('tab', { name }).click();

beforeAll(async () => {
  arxiv = await startArxivServer(makePapers(130));
  proxy = await startArxivProxy(arxiv.endpoint);
  browser = await launchBrowser();
  page = await browser.context.newPage();
});
afterAll(async () => {
  await browser?.close();
  await proxy?.close();
  await arxiv?.close();
});

describe('Build from arXiv', () => {
  test('no proxy: the form says why and points to Settings and the CLI; the build button is off', async () => {
    await page.goto(`${site}?tab=build`);
    const why = page.locator('[data-testid=arxiv-no-proxy]');
    await why.waitFor();
    expect(await why.innerText()).toMatch(/no CORS headers.*Settings.*rag-lab build-index --arxiv "QUERY" --max N/s);
    expect(await page.locator('[data-testid=arxiv-build]').isDisabled()).toBe(true);
    // The form and the Settings field fit a narrow screen (nothing scrolls sideways at 400 px).
    await page.setViewportSize({ width: 400, height: 800 });
    const width = () => page.evaluate(() => document.documentElement.scrollWidth);
    expect(await width()).toBeLessThanOrEqual(400);
    await tab('Settings');
    expect(await width()).toBeLessThanOrEqual(400);
    await tab('Build');
    await page.setViewportSize({ width: 1280, height: 800 });
  });

  test('Settings: arXiv itself is refused, the warning is shown; a proxy URL is saved', async () => {
    await tab('Settings');
    expect(await page.locator('[data-testid=arxiv-proxy-warning]').innerText()).toBe('The proxy sees every arXiv query you make and the answers; use one you run or trust. No key or token is sent to it.');
    const field = page.locator('[data-testid=arxiv-proxy]');
    expect(await field.inputValue()).toBe('');
    const save = page.locator('form.settings-form').first().getByRole('button', { name: 'Save', exact: true });
    await field.fill('https://export.arxiv.org/api/query');
    await save.click();
    await expect.poll(() => page.getByRole('status').first().innerText()).toMatch(/^Not saved: arxivProxy: /);
    await field.fill(proxy.url);
    await save.click();
    await expect.poll(() => page.getByRole('status').first().innerText()).toMatch(/^Saved\./);
    // A Hub token in this tab: it must not travel to the proxy.
    await page.locator('[data-testid=hub-token]').fill(TOKEN);
    await page.locator('[data-testid=hub-token-save]').click();
    await expect.poll(() => page.getByText('Token set.').count()).toBe(1);
  });

  test('a query through the proxy becomes a knowledge base; search finds a paper; no token reached the proxy', async () => {
    await tab('Build');
    expect(await page.locator('[data-testid=arxiv-no-proxy]').count()).toBe(0);
    expect(await page.locator('[data-testid=arxiv-via]').innerText()).toContain(new URL(proxy.url).host);
    arxiv.faults.push({ kind: 'empty' }); // arXiv's flaky empty first page: asked again
    await page.locator('[data-testid=arxiv-query]').fill('transformers');
    expect(await page.locator('[data-testid=arxiv-sent]').innerText()).toBe('Sent to arXiv as: all:transformers');
    expect(await page.locator('[data-testid=build-title]').inputValue()).toBe('arXiv: transformers'); // suggested while typing
    await page.locator('[data-testid=build-title]').fill('arXiv transformers');
    await page.locator('[data-testid=arxiv-max]').fill('120');
    await page.locator('[data-testid=arxiv-build]').click();
    await page.locator('[data-testid=build-summary], [data-testid=build-error]').first().waitFor({ timeout: 120_000 });
    const error = page.locator('[data-testid=build-error]');
    if (await error.count()) throw new Error(await error.innerText());
    expect(await page.locator('[data-testid=build-summary]').getAttribute('data-name')).toBe('arxiv-transformers');
    expect((await page.locator('[data-testid=build-summary-line]').allInnerTexts()).join('\n')).toMatch(/120 documents/);
    expect(await page.locator('[data-testid=build-note]').allInnerTexts()).toContain('arXiv has 130 results for the query; read the first 120');
    // Through the proxy, one page at a time: the empty first page again, then 0 and 100.
    expect(proxy.requests.filter((r) => r.path === '/arxiv').map((r) => `${r.params.get('start')}+${r.params.get('max_results')}`)).toEqual(['0+100', '0+100', '100+20']);
    for (const r of [...proxy.requests, ...arxiv.requests]) {
      expect(r.headers.authorization).toBeUndefined();
      expect(r.headers.cookie).toBeUndefined();
      expect(JSON.stringify(r.headers) + r.url).not.toContain(TOKEN);
    }

    await page.locator('[data-testid=build-open-search]').click();
    await expect.poll(() => page.locator('[data-testid=kb-select] option:checked').innerText(), { timeout: 60_000 }).toBe('arXiv transformers');
    await page.locator('[data-testid=kb-info]').waitFor({ timeout: 60_000 });
    await page.locator('[data-testid=query]').fill('zq77x');
    await page.waitForFunction(() => document.querySelector('[data-testid=results]')?.getAttribute('data-query') === 'zq77x');
    const first = page.locator('[data-testid=hit]').first();
    expect(await first.getAttribute('data-doc')).toBe('2301.00077');
    expect(await first.locator('[data-testid=hit-title]').innerText()).toBe('Study 77 of transformers: a long title');
    expect(await first.locator('[data-testid=hit-meta]').innerText()).toMatch(/2020/);
  });

  test("arXiv's error feed through the proxy: the build fails with arXiv's message; the saved one is kept", async () => {
    await tab('Build');
    arxiv.faults.push({ kind: 'error', message: 'unbalanced parentheses in query' });
    await page.locator('[data-testid=arxiv-query]').fill('ti:(broken');
    await page.locator('[data-testid=build-title]').fill('arXiv broken');
    await page.locator('[data-testid=arxiv-build]').click();
    const error = page.locator('[data-testid=build-error]');
    await error.waitFor({ timeout: 60_000 });
    expect(await error.innerText()).toMatch(/arXiv refused the query: unbalanced parentheses in query \(HTTP 400; search_query=ti:\(broken\)/);
    expect(await page.locator('[data-testid=local-kb][data-name="arxiv-transformers"]').count()).toBe(1);
  });
});
