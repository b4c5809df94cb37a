/**
 * Web pages in the Build tab, in Chromium, through a loopback CORS proxy (`<proxy>?url=…`, set in Settings, the one
 * arXiv uses) in front of a loopback site that, like most sites, sends no CORS headers: without a proxy the form says
 * why and points to the CLI; with it, a list of URLs becomes a knowledge base, each failing page (a 404, a binary
 * page, a redirect to another host, a non-http URL) listed with its reason, and search finds a page with its URL
 * shown on the hit; a search on a loopback SearXNG adds its pages; the Hub token never reaches the proxy or the site.
 */
import { afterAll, beforeAll, describe, expect, inject, test } from 'vitest';
import type { Page } from 'playwright-core';
import { launchBrowser, type Browser } from '../helpers/browser.ts';
import { startSearxng, startWebProxy, startWebSite, type Searxng, type WebProxy, type WebSite } from '../helpers/web-site-server.ts';

const site = inject('siteUrl');
const TOKEN = 'hf_webE2eSecretToken0123456789';
let browser: Browser;
let page: Page;
let web: WebSite;
let proxy: WebProxy;
let searx: Searxng;

const tab = (name: string) => page.getByRole('tab', { name }).click();

beforeAll(async () => {
  web = await startWebSite({
    '/herons': { kind: 'page', body: '<!doctype html><html><head><title>Grey herons</title><style>p{}</style></head><body><p>Grey herons nest in tall trees, in colonies called heronries.</p></body></html>' },
    '/kingfishers': { kind: 'page', body: '<title>Kingfishers</title><p>The kingfisher dives for small fish from a low perch.</p>' },
    '/owls.txt': { kind: 'page', body: 'Barn owls hunt voles at night over rough grassland.', type: 'text/plain' },
    '/photo': { kind: 'page', body: 'GIF89a', type: 'image/gif' },
    '/swifts': { kind: 'page', body: '<title>Swifts</title><p>Common swifts sleep on the wing.</p>' },
  });
  web.routes.set('/moved', { kind: 'redirect', to: `${web.origin.replace('127.0.0.1', 'localhost')}/herons` });
  proxy = await startWebProxy();
  searx = await startSearxng({ swifts: [{ url: `${web.origin}/swifts`, title: 'Swifts' }] });
  browser = await launchBrowser();
  page = await browser.context.newPage();
});
afterAll(async () => {
  await browser?.close();
  await searx?.close();
  await proxy?.close();
  await web?.close();
});

describe('Build from web pages', () => {
  test('no proxy: the form says why and points to the CLI; the build button is off', async () => {
    await page.goto(`${site}?tab=build`);
    const why = page.locator('[data-testid=web-no-proxy]');
    await why.waitFor();
    expect(await why.innerText()).toMatch(/no CORS headers.*Settings.*rag-lab build-index --urls FILE --out DIR/s);
    await page.locator('[data-testid=web-urls]').fill(`${web.origin}/herons`);
    expect(await page.locator('[data-testid=web-build]').isDisabled()).toBe(true);
  });

  test('a paste of 100,000 URLs is refused at once; a password in a URL is masked in the problem line', async () => {
    const urls = page.locator('[data-testid=web-urls]');
    await urls.fill('');
    // A paste event as the browser sends it: refused before the text is inserted (the textarea stays as it was).
    const inserted = await urls.evaluate((t: HTMLTextAreaElement) => {
      const data = new DataTransfer();
      data.setData('text/plain', Array.from({ length: 100_000 }, (_, i) => `https://example.org/page/${i}`).join('\n'));
      return t.dispatchEvent(new ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true }));
    });
    expect(inserted).toBe(false);
    expect(await page.locator('[data-testid=web-urls-refused]').innerText()).toMatch(/^The paste was refused: it is longer than 1,000,000 characters \(3,\d{3},\d{3}\): a build reads at most 200 pages\./);
    expect(await urls.inputValue()).toBe('');
    await urls.fill('http://u:hunter2pw@127.0.0.1/docs');
    expect(await page.locator('[data-testid=web-urls-refused]').count()).toBe(0);
    expect(await page.locator('[data-testid=web-urls-problem]').innerText()).toBe('line 1: http://[redacted]@127.0.0.1/docs — has a user name or password in it: nothing secret is sent with a page request');
    expect(await page.locator('[data-testid=build-web]').innerText()).not.toContain('hunter2pw');
    await urls.fill('');
  });

  test('Settings: the proxy is saved and says web pages go through it; a Hub token is set', async () => {
    await tab('Settings');
    expect(await page.locator('[data-testid=web-proxy-note]').innerText()).toMatch(/web pages through the same proxy, as <proxy>\?url=<page URL>/);
    await page.locator('[data-testid=arxiv-proxy]').fill(proxy.url);
    await page.locator('form.settings-form').first().getByRole('button', { name: 'Save', exact: true }).click();
    await expect.poll(() => page.getByRole('status').first().innerText()).toMatch(/^Saved\./);
    await page.locator('[data-testid=hub-token]').fill(TOKEN);
    await page.locator('[data-testid=hub-token-save]').click();
    await expect.poll(() => page.getByText('Token set.').count()).toBe(1);
  });

  test('a URL list through the proxy becomes a knowledge base; failing pages are listed; a hit shows its URL', async () => {
    await tab('Build');
    expect(await page.locator('[data-testid=web-no-proxy]').count()).toBe(0);
    expect(await page.locator('[data-testid=web-via]').innerText()).toContain(new URL(proxy.url).host);
    const urls = ['# birds', `${web.origin}/herons`, `${web.origin}/kingfishers`, `${web.origin}/owls.txt`, `${web.origin}/photo`,
      `${web.origin}/missing`, `${web.origin}/moved`, 'ftp://files.example/birds.txt'];
    await page.locator('[data-testid=web-urls]').fill(urls.join('\n'));
    expect(await page.locator('[data-testid=web-urls-summary]').innerText()).toBe('6 URLs · 1 line skipped');
    expect(await page.locator('[data-testid=build-title]').inputValue()).toBe(`Web pages: ${new URL(web.origin).host}`);
    await page.locator('[data-testid=build-title]').fill('Birds on the web');
    await page.locator('[data-testid=web-build]').click();
    await page.locator('[data-testid=build-summary], [data-testid=build-error]').first().waitFor({ timeout: 120_000 });
    const error = page.locator('[data-testid=build-error]');
    if (await error.count()) throw new Error(await error.innerText());
    expect(await page.locator('[data-testid=build-summary]').getAttribute('data-name')).toBe('birds-on-the-web');
    const lines = (await page.locator('[data-testid=build-summary-line]').allInnerTexts()).join('\n');
    expect(lines).toMatch(/3 documents/);
    expect(lines).toContain('From web pages: 6 URLs fetched.');
    expect(await page.locator('[data-testid=build-skipped-heading]').innerText()).toBe('4 pages skipped');
    const skipped = await page.locator('[data-testid=build-skipped-item]').allInnerTexts();
    expect(skipped).toEqual([
      'line 8: ftp://files.example/birds.txt: not an http(s) URL (ftp:): only web pages are fetched',
      `${web.origin}/photo: not an HTML or plain-text page (content type image/gif)`,
      `${web.origin}/missing: HTTP 404 (not found) (through the proxy ${new URL(proxy.url).host})`,
      `${web.origin}/moved: redirected to another host (${new URL(web.origin.replace('127.0.0.1', 'localhost')).host}); not followed: list that URL itself if you want it`,
    ]);
    // Every page through the proxy; nothing secret reached it or the site.
    expect(proxy.requests.map((r) => new URL(r.url, 'http://x').searchParams.get('url'))).toEqual(expect.arrayContaining([`${web.origin}/herons`, `${web.origin}/photo`]));
    for (const r of [...proxy.requests, ...web.requests]) {
      expect(r.headers.authorization).toBeUndefined();
      expect(r.headers.cookie).toBeUndefined();
      expect(JSON.stringify(r.headers) + r.url).not.toContain(TOKEN);
    }

    await page.locator('[data-testid=build-open-search]').click();
    await expect.poll(() => page.locator('[data-testid=kb-select] option:checked').innerText(), { timeout: 60_000 }).toBe('Birds on the web');
    await page.locator('[data-testid=kb-info]').waitFor({ timeout: 60_000 });
    await page.locator('[data-testid=query]').fill('heronries');
    await page.waitForFunction(() => document.querySelector('[data-testid=results]')?.getAttribute('data-query') === 'heronries');
    const first = page.locator('[data-testid=hit]').first();
    expect(await first.getAttribute('data-doc')).toBe(`${web.origin}/herons`);
    expect(await first.locator('[data-testid=hit-title]').innerText()).toBe('Grey herons');
    expect(await first.locator('[data-testid=hit-meta]').innerText()).toContain(`URL: ${web.origin}/herons`);
  });

  test('a search on a SearXNG endpoint adds its pages', async () => {
    await tab('Build');
    await page.locator('[data-testid=web-urls]').fill('');
    await page.locator('[data-testid=web-search-on]').check();
    await page.locator('[data-testid=web-search-endpoint]').fill(searx.endpoint);
    await page.locator('[data-testid=web-search-query]').fill('swifts');
    await page.locator('[data-testid=build-title]').fill('Swifts');
    await page.locator('[data-testid=web-build]').click();
    await page.locator('[data-testid=build-summary][data-name=swifts], [data-testid=build-error]').first().waitFor({ timeout: 120_000 });
    const error = page.locator('[data-testid=build-error]');
    if (await error.count()) throw new Error(await error.innerText());
    expect((await page.locator('[data-testid=build-summary-line]').allInnerTexts()).join('\n')).toContain('From web pages: 1 URL fetched (with the search “swifts”).');
    expect(searx.requests.map((r) => r.url)).toEqual(['/search?q=swifts&format=json&pageno=1', '/search?q=swifts&format=json&pageno=2']);
    for (const r of searx.requests) expect(JSON.stringify(r.headers) + r.url).not.toContain(TOKEN);
  });
});
