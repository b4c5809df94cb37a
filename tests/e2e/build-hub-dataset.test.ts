/**
 * A Hub dataset becomes a knowledge base in the built site (Chromium): the loopback Hub (tests/helpers/
 * hub-repo-server.ts) is the Hub URL in Settings and serves BeIR/scifact as on the Hub (its parquet conversion made
 * from the shared SciFact in memory, queries, and the `-qrels` sibling). Typing the dataset's page URL and Inspect
 * show the configs, the columns and the guess (BEIR layout recognised); a column that does not exist shows its message
 * and blocks Build; Build reads the rows with range requests through the build worker, and the knowledge base opens in
 * Search and finds a known SciFact sentence. A private dataset without a token gets its message; another config
 * inspects again.
 */
import { afterAll, beforeAll, describe, expect, inject, test } from 'vitest';
import type { Page } from 'playwright-core';
import { launchBrowser, useSettings, type Browser } from '../helpers/browser.ts';
import { addBeirScifact, scifactCorpus } from '../helpers/hub-dataset-fixtures.ts';
import { serveHubRepos, type HubRepoServer } from '../helpers/hub-repo-server.ts';

const site = inject('siteUrl');
const ROWS = 1200;
let browser: Browser;
let page: Page;
let hub: HubRepoServer;
const corpus = scifactCorpus();

beforeAll(async () => {
  hub = await serveHubRepos({ token: 'hf_e2etoken' });
  addBeirScifact(hub);
  addBeirScifact(hub, 'acme/closed', { private: true, rows: 50 });
  browser = await launchBrowser();
  page = await browser.context.newPage();
  await useSettings(page, { hubUrl: hub.url });
});
afterAll(async () => { await browser?.close(); await hub?.close(); });

async function inspect(p: Page, dataset: string) {
  await p.locator('[data-testid=hubds-dataset]').fill(dataset);
  await p.locator('[data-testid=hubds-inspect]').click();
  await p.waitForFunction(() => ['ready', 'error'].includes(document.querySelector('[data-testid=hub-dataset]')?.getAttribute('data-status') ?? ''), null, { timeout: 60_000 });
}

describe('Build tab: from a Hub dataset', () => {
  test('inspect shows the columns and the guess; a wrong column shows its message; build → Search finds a SciFact sentence', async () => {
    await page.goto(`${site}?tab=build`);
    await page.locator('[data-testid=hub-dataset]').waitFor({ timeout: 60_000 });
    await inspect(page, 'https://huggingface.co/datasets/BeIR/scifact');
    expect(await page.locator('[data-testid=hubds-error]').count()).toBe(0);
    expect(await page.locator('[data-testid=hubds-summary]').innerText()).toMatch(new RegExp(`^BeIR/scifact @ [0-9a-f]{7} · corpus/corpus · ${corpus.length.toLocaleString('en-US')} rows`));
    expect(await page.locator('[data-testid=hubds-beir]').count()).toBe(1);
    expect(await page.locator('[data-testid=hubds-config] option').allInnerTexts()).toEqual(['corpus', 'queries']);
    expect(await page.locator('[data-testid=hubds-column] td:first-child').allInnerTexts()).toEqual(['_id', 'title', 'text']);
    expect(await page.locator('[data-testid=hubds-column] td:nth-child(3)').allInnerTexts()).toEqual(['id', 'title', 'text']);
    expect(await page.locator('[data-testid=hubds-text]').inputValue()).toBe('text');
    expect(await page.locator('[data-testid=hubds-id]').inputValue()).toBe('_id');
    expect(await page.locator('[data-testid=build-title]').inputValue()).toBe('scifact');

    await page.locator('[data-testid=hubds-text]').fill('abstract');
    expect(await page.locator('[data-testid=hubds-mapping-error]').innerText())
      .toBe('column "abstract" is not in BeIR/scifact (corpus/corpus): its columns are "_id", "title", "text"');
    expect(await page.locator('[data-testid=hubds-build]').isDisabled()).toBe(true);
    await page.locator('[data-testid=hubds-text]').fill('text');
    expect(await page.locator('[data-testid=hubds-mapping-error]').count()).toBe(0);

    await page.locator('[data-testid=hubds-max-rows]').fill(String(ROWS));
    const before = hub.requests.length;
    await page.locator('[data-testid=hubds-build]').click();
    await page.locator('[data-testid=build-summary], [data-testid=build-error]').first().waitFor({ timeout: 120_000 });
    expect(await page.locator('[data-testid=build-error]').count()).toBe(0);
    const summary = (await page.locator('[data-testid=build-summary]').innerText());
    expect(summary).toContain(`read the first ${ROWS.toLocaleString('en-US')} of ${corpus.length.toLocaleString('en-US')} rows (the row limit)`);
    // BEIR layout: the queries and judgements came along (the summary counts the queries).
    expect(summary).toMatch(/\d+ queries with relevance judgements came along/);
    const reads = hub.requests.slice(before).filter((r) => r.path.includes('/resolve/'));
    expect(reads.length).toBeGreaterThan(0);
    expect(reads.every((r) => r.range !== null && /\/resolve\/[0-9a-f]{40}\//.test(r.path) && !r.auth)).toBe(true);

    await page.locator('[data-testid=build-open-search]').click();
    await page.locator('[data-testid=kb-info]').waitFor({ timeout: 60_000 });
    await expect.poll(() => page.locator('[data-testid=kb-select] option:checked').innerText(), { timeout: 60_000 }).toBe('scifact');
    const known = corpus[3]!;
    const sentence = known.text.split(/(?<=\.)\s+/)[0]!;
    await page.locator('[data-testid=query]').fill(sentence);
    await page.waitForFunction((q) => document.querySelector('[data-testid=results]')?.getAttribute('data-query') === q, sentence, { timeout: 60_000 });
    expect(await page.locator('[data-testid=hit]').first().getAttribute('data-doc')).toBe(known._id);
    expect(await page.locator('[data-testid=hit-title]').first().innerText()).toBe(known.title);
  });

  test('a private dataset without a token, another config, and a name that is not a dataset', async () => {
    await page.goto(`${site}?tab=build`);
    await page.locator('[data-testid=hub-dataset]').waitFor({ timeout: 60_000 });
    await inspect(page, 'acme/closed');
    expect(await page.locator('[data-testid=hubds-error]').innerText()).toMatch(/^acme\/closed is private or gated: add a token in Settings/);
    expect(await page.locator('[data-testid=hubds-build]').count()).toBe(0);
    // Another config inspects again: the queries are not a corpus with judgements.
    await inspect(page, 'BeIR/scifact');
    await page.locator('[data-testid=hubds-config]').selectOption('queries');
    await expect.poll(() => page.locator('[data-testid=hubds-summary]').innerText(), { timeout: 60_000 }).toMatch(/ · queries\/queries · 300 rows/);
    expect(await page.locator('[data-testid=hubds-beir]').count()).toBe(0);
    expect(await page.locator('[data-testid=hubds-text]').inputValue()).toBe('text');
    await page.locator('[data-testid=hubds-dataset]').fill('scifact');
    expect(await page.locator('[data-testid=hubds-dataset-error]').innerText()).toMatch(/owner\/name/);
    expect(await page.locator('[data-testid=hubds-inspect]').isDisabled()).toBe(true);
  });
});
