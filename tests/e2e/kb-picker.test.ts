/**
 * The knowledge-base picker on the embedded corpus: it lists SOTU with its counts, the filters are rendered from the
 * descriptor's facets (year range, party chips, no president), hits show the descriptor's fields, a `kb=` link with a
 * bogus or unreachable knowledge base warns and opens SOTU, and the Hub form validates what is typed; a repo listing
 * 100,000 indexes renders the first 200 with a count and finds one deep in the list by filtering.
 */
import { afterAll, beforeAll, describe, expect, inject, test } from 'vitest';
import type { Page } from 'playwright-core';
import { launchBrowser, useSettings, type Browser } from '../helpers/browser.ts';
import { serveHubRepos } from '../helpers/hub-repo-server.ts';

const site = inject('siteUrl');
let browser: Browser;
let page: Page;

beforeAll(async () => {
  browser = await launchBrowser();
  page = await browser.context.newPage();
});
afterAll(async () => { await browser?.close(); });

const ready = (p: Page) => p.locator('[data-testid=kb-info]').waitFor({ timeout: 150_000 });

async function searchFor(p: Page, q: string) {
  await p.locator('[data-testid=query]').fill(q);
  await p.waitForFunction((q) => document.querySelector('[data-testid=results]')?.getAttribute('data-query') === q && !document.querySelector('[data-testid=rerank-pending]'), q);
}

describe('knowledge-base picker', () => {
  test('shows SOTU with its counts, facets from the descriptor, and hits with its fields', async () => {
    await page.goto(site);
    await ready(page);
    const picker = page.locator('[data-testid=kb-picker]');
    expect(await picker.locator('[data-testid=kb-select] option:checked').innerText()).toBe('State of the Union addresses');
    expect(await picker.locator('[data-testid=kb-description]').innerText()).toMatch(/233 documents · 16,\d{3} chunks/);
    expect(await page.locator('[data-testid=query]').getAttribute('placeholder')).toMatch(/^Search the State of the Union addresses, e\.g\. /);

    // Year is a range facet (the corpus's span as placeholders), party a values facet; president is not a facet.
    expect(await page.locator('[data-testid=facet-year-min]').getAttribute('placeholder')).toBe('1790');
    expect(Number(await page.locator('[data-testid=facet-year-max]').getAttribute('placeholder'))).toBeGreaterThanOrEqual(2020);
    const parties = await page.locator('[data-testid=facet-party] label.chip').allInnerTexts();
    expect(parties.map((x) => x.trim())).toEqual(expect.arrayContaining(['Democratic', 'Republican', 'Whig']));
    expect(await page.locator('[data-testid=facet-president]').count()).toBe(0);

    await searchFor(page, 'emancipation of slaves');
    const meta = await page.locator('[data-testid=hit-meta]').first().innerText();
    expect(meta).toMatch(/^Year: \d{4} · President: .+ · Party: .+ · chunk \d+$/);

    // A range filter from the facet: every hit is from 1900 on, and the URL carries it in the generic form.
    await page.locator('[data-testid=facet-year-min]').fill('1900');
    await page.locator('[data-testid=facet-year-min]').dispatchEvent('change');
    await expect.poll(() => new URL(page.url()).searchParams.get('min.year')).toBe('1900');
    await expect.poll(async () => {
      const metas = await page.locator('[data-testid=hit-meta]').allInnerTexts();
      return metas.length > 0 && metas.every((m) => Number(/Year: (\d{4})/.exec(m)?.[1]) >= 1900);
    }).toBe(true);

    // A values filter from a chip.
    await page.locator('[data-testid=facet-party-value][data-value="Whig"]').check();
    await expect.poll(() => new URL(page.url()).searchParams.getAll('f.party')).toEqual(['Whig']);
    await expect.poll(async () => page.locator('[data-testid=results]').getAttribute('data-status')).toMatch(/^(empty|ok|rejected)$/);
    // No Whig president after 1900: nothing passes both filters.
    await expect.poll(() => page.locator('[data-testid=hit]').count()).toBe(0);
  });

  test('an old link\'s ymin/party filters still apply to SOTU', async () => {
    await page.goto(`${site}?q=tariff&ymin=1930&ymax=1940&party=Democratic`);
    await ready(page);
    expect(await page.locator('[data-testid=facet-year-min]').inputValue()).toBe('1930');
    expect(await page.locator('[data-testid=facet-year-max]').inputValue()).toBe('1940');
    expect(await page.locator('[data-testid=facet-party-value][data-value="Democratic"]').isChecked()).toBe(true);
    await expect.poll(async () => {
      const metas = await page.locator('[data-testid=hit-meta]').allInnerTexts();
      return metas.length > 0 && metas.every((m) => /Party: Democratic/.test(m) && Number(/Year: (\d{4})/.exec(m)?.[1]) >= 1930 && Number(/Year: (\d{4})/.exec(m)?.[1]) <= 1940);
    }, { timeout: 30_000 }).toBe(true);
  });

  test('a kb= link with a bogus value warns and opens SOTU', async () => {
    await page.goto(`${site}?kb=bogus`);
    await ready(page);
    expect(await page.locator('[data-testid=kb-warning]').allInnerTexts()).toEqual([
      'Unknown knowledge base "bogus" in the link (known: sotu, ragbench:<covidqa|delucionqa|emanual|expertqa|hagrid|hotpotqa|msmarco>, or hub:owner/name/path@revision); opening State of the Union addresses.',
    ]);
    expect(await page.locator('[data-testid=kb-select] option:checked').innerText()).toBe('State of the Union addresses');
    // The page writes back what it opened: the default needs no kb= parameter.
    await expect.poll(() => new URL(page.url()).searchParams.get('kb')).toBeNull();
    // The warning can be dismissed.
    await page.locator('[data-testid=kb-warning-dismiss]').click();
    await expect.poll(() => page.locator('[data-testid=kb-warning]').count()).toBe(0);
  });

  test('a Hub knowledge base that cannot be opened says why and opens SOTU instead', async () => {
    // A Hub URL nothing listens on (no request leaves the machine).
    await page.addInitScript(() => {
      const s = JSON.parse(localStorage.getItem('rag-lab:settings') ?? '{}');
      localStorage.setItem('rag-lab:settings', JSON.stringify({ ...s, hubUrl: 'http://127.0.0.1:9/' }));
    });
    await page.goto(`${site}?kb=${encodeURIComponent('hub:acme/none/idx@main')}`);
    await ready(page);
    const error = await page.locator('[data-testid=kb-switch-error]').innerText();
    expect(error).toMatch(/^acme\/none\/idx could not be opened: .+ Opened State of the Union addresses instead\.$/);
    await page.locator('[data-testid=kb-switch-error-dismiss]').click();
    await expect.poll(() => page.locator('[data-testid=kb-switch-error]').count()).toBe(0);
    expect(await page.locator('[data-testid=kb-select] option:checked').innerText()).toBe('State of the Union addresses');
    await searchFor(page, 'purchase of Louisiana');
    expect(await page.locator('[data-testid=hit]').count()).toBeGreaterThan(0);
  });

  test('the Hub form refuses a malformed repo or revision with a message', async () => {
    await page.goto(site);
    await ready(page);
    await page.locator('[data-testid=kb-picker] summary').click();
    await page.locator('[data-testid=kb-hub-repo]').fill('not-a-repo');
    await page.locator('[data-testid=kb-hub-open]').click();
    expect(await page.locator('[data-testid=kb-hub-error]').innerText()).toBe('Not a Hub dataset repo: the repo must be owner/name (letters, digits, . _ -).');
    await page.locator('[data-testid=kb-hub-repo]').fill('https://huggingface.co/datasets/acme/kb');
    await page.locator('[data-testid=kb-hub-revision]').fill('../main');
    await page.locator('[data-testid=kb-hub-open]').click();
    expect(await page.locator('[data-testid=kb-hub-error]').innerText()).toMatch(/^Not a Hub dataset repo: the revision must be/);
    expect(await page.locator('[data-testid=kb-index-option]').count()).toBe(0);
  });

  test('Settings has the Hub URL and a token field that never shows the token', async () => {
    await page.goto(`${site}?tab=settings`);
    expect(await page.locator('[data-testid=hub-url]').inputValue()).toBe('http://127.0.0.1:9/');
    await page.locator('[data-testid=hub-token]').fill('not-a-token');
    await page.locator('[data-testid=hub-token-save]').click();
    await expect.poll(() => page.locator('[role=alert]', { hasText: 'Not saved' }).count()).toBe(1);
    await page.locator('[data-testid=hub-token]').fill('hf_abcdefghijklmnop');
    await page.locator('[data-testid=hub-token-save]').click();
    await expect.poll(() => page.locator('[role=status]', { hasText: 'Token set.' }).count()).toBe(1);
    expect(await page.locator('[data-testid=hub-token]').inputValue()).toBe('');
    expect(page.url()).not.toContain('hf_');
  });

  test('a repo listing 100,000 indexes renders at most 200 with the count, and the filter finds one deep in the list', async () => {
    const N = 100_000;
    const indexes = Array.from({ length: N }, (_, i) => ({
      id: `i${i}`, title: i === 98_765 ? 'Harbor records' : `Index ${i}`, description: '', path: `p${i}`,
      counts: { documents: 1, chunks: 1 }, embedder: null, created: '2026-01-01T00:00:00Z', format_version: 1,
    }));
    const hub = await serveHubRepos();
    try {
      hub.addRepo('acme/many', new Map([['index_config.json', new TextEncoder().encode(JSON.stringify({ format_version: 1, indexes }))]]));
      const p = await browser.context.newPage();
      await useSettings(p, { hubUrl: hub.url });
      await p.goto(site);
      await ready(p);
      await p.locator('[data-testid=kb-picker] summary').click();
      await p.locator('[data-testid=kb-hub-repo]').fill('acme/many');
      await p.locator('[data-testid=kb-hub-open]').click();
      const count = p.locator('[data-testid=kb-index-count]');
      await count.waitFor({ timeout: 60_000 });
      expect(await count.innerText()).toBe('Showing 200 of 100,000 — type to filter.');
      expect(await p.locator('[data-testid=kb-index-option]').count()).toBe(200);
      await p.locator('[data-testid=kb-index-filter]').fill('harbor');
      await expect.poll(() => p.locator('[data-testid=kb-index-option]').allInnerTexts()).toEqual(['Harbor records']);
      expect(await p.locator('[data-testid=kb-index-option]').getAttribute('data-path')).toBe('p98765');
      expect(await count.innerText()).toBe('1 of 100,000 match.');
      await p.close();
    } finally {
      await hub.close();
    }
  });
});
