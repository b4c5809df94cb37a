/**
 * Rejection in the app, every mode (fixture models from a local Hub): seed B's junk query is rejected at each mode's
 * default threshold (the banner quoting the confidence the top card shows) and a real query is answered; the threshold field shows the mode's default, and a link's thr=
 * overrides it. The fixed hybrid's α field (its modes only) runs the value typed and puts it in the link.
 */
import { afterAll, beforeAll, describe, expect, inject, test } from 'vitest';
import type { Page } from 'playwright-core';
import { launchBrowser, type Browser } from '../helpers/browser.ts';
import { openWithFixtureModels, prebuiltVectors, waitForDense } from '../helpers/models-page.ts';
import { MODE_IDS, type RetrievalMode } from '../../src/lib/retrieval/modes.ts';
import { DEFAULT_REJECT_THRESHOLDS } from '../../src/lib/retrieval/rejection.ts';
import { SOTU_JUNK_QUERY } from '../../scripts/bench/sotu-queries.ts';

const site = inject('siteUrl');
const REAL_QUERY = 'emancipation of slaves';
let browser: Browser;
let page: Page;

beforeAll(async () => {
  browser = await launchBrowser();
  page = await openWithFixtureModels(browser, inject('hubUrl'), prebuiltVectors());
});
afterAll(async () => { await browser?.close(); });

/**
 * The results status once the shown, final response answers `query` in `mode`. Query, busy flag, mode and status are
 * read in one evaluate: read one by one, a response landing between the reads could pair one response's mode with
 * another's status.
 */
async function statusIn(mode: RetrievalMode, query: string): Promise<string | null> {
  let status: string | null = null;
  await expect.poll(async () => {
    const shown = await page.evaluate(() => {
      const res = document.querySelector('[data-testid=results]');
      return {
        query: res?.getAttribute('data-query') ?? null,
        // A rerank mode first shows the fused results (aria-busy): only the reranked, judged response counts.
        busy: res?.getAttribute('aria-busy') ?? null,
        mode: (document.querySelector('[data-testid=telemetry-mode]') as HTMLElement | null)?.innerText ?? '',
        status: res?.getAttribute('data-status') ?? null,
      };
    }).catch(() => null);
    if (!shown || shown.query !== query || shown.busy !== 'false') return '';
    status = shown.status;
    return shown.mode;
  }, { message: `${mode}: "${query}"`, timeout: 60_000 }).toBe(mode);
  return status;
}

async function searchIn(mode: RetrievalMode, query: string): Promise<string | null> {
  await page.selectOption('[data-testid=mode]', mode);
  if ((await page.locator('[data-testid=query]').inputValue()) !== query) await page.locator('[data-testid=query]').fill(query);
  return statusIn(mode, query);
}

describe('rejection in every mode', () => {
  test('the models load, the vectors come from the Settings vectors repo, and every mode becomes available', async () => {
    await page.goto(`${site}?q=${encodeURIComponent(SOTU_JUNK_QUERY)}`);
    // Settings' "Dense vectors for the embedded corpus" names the run's prebuilt repo: downloaded, not embedded here.
    expect((await waitForDense(page)).source).toBe('artifact');
    expect(await page.locator('[data-testid=dense-info]').innerText()).toMatch(/embeddings from the index artifact/);
    await expect.poll(() => page.locator('[data-testid=mode] option[value=hybrid_calibrated_rerank]').isDisabled(), { timeout: 60_000 }).toBe(false);
  });

  test(`"${SOTU_JUNK_QUERY}" is rejected in each mode, and the field shows that mode's default threshold`, async () => {
    for (const mode of MODE_IDS) {
      expect(await searchIn(mode, SOTU_JUNK_QUERY), mode).toBe('rejected');
      const banner = await page.locator('[data-testid=rejection]').innerText();
      expect(banner, mode).toMatch(/No confident answer/);
      // One confidence: the number the banner quotes is the one on the top card, and only that card has one.
      const quoted = /the top result's confidence is (\d\.\d{3}), below the threshold/.exec(banner)?.[1];
      expect(quoted, `${mode}: ${banner}`).toBeDefined();
      expect(await page.locator('[data-testid=hit]').first().locator('[data-testid=hit-confidence]').innerText(), mode).toMatch(new RegExp(`^confidence ${quoted!.replace('.', '\\.')} · `));
      expect(await page.locator('[data-testid=hit-confidence]').count(), mode).toBe(1);
      // "counts the query's words, not their meaning" only where the confidence is BM25's alone (issue 32).
      expect(await page.locator('[data-testid=hit-confidence]').innerText(), mode).toMatch(mode === 'sparse' ? /not their meaning/ : /the smaller of the query’s word match \(BM25\) and the model’s score/);
      expect(await page.locator('[data-testid=threshold]').getAttribute('placeholder'), mode).toBe(String(DEFAULT_REJECT_THRESHOLDS[mode]));
      expect(await page.locator('[data-testid=hit]').count(), mode).toBeGreaterThan(0);
    }
  });

  test(`"${REAL_QUERY}" is answered in each mode`, async () => {
    for (const mode of MODE_IDS) {
      expect(await searchIn(mode, REAL_QUERY), mode).toBe('ok');
      expect(await page.locator('[data-testid=rejection]').count(), mode).toBe(0);
    }
  });

  test("the fixed hybrid's α: a field in its modes only; the value typed runs (telemetry) and goes in the link", async () => {
    expect(await searchIn('sparse', REAL_QUERY)).toBe('ok');
    expect(await page.locator('[data-testid=alpha]').count()).toBe(0);
    expect(await searchIn('hybrid_fixed', REAL_QUERY)).toBe('ok');
    expect(await page.locator('[data-testid=alpha]').inputValue()).toBe('0.5');
    await expect.poll(() => page.locator('[data-testid=telemetry-alpha]').innerText()).toMatch(/^0\.50*\b/);
    await page.locator('[data-testid=alpha]').fill('0.8');
    await expect.poll(() => page.locator('[data-testid=telemetry-alpha]').innerText()).toMatch(/^0\.80*\b/);
    expect(await statusIn('hybrid_fixed', REAL_QUERY)).toBe('ok');
    await expect.poll(() => new URL(page.url()).searchParams.get('a')).toBe('0.8');
  });

  test('a threshold set in the link (thr=0) wins over the mode default', async () => {
    await page.goto(`${site}?q=${encodeURIComponent(SOTU_JUNK_QUERY)}&thr=0`);
    await waitForDense(page);
    expect(await statusIn('sparse', SOTU_JUNK_QUERY)).toBe('ok');
    expect(await page.locator('[data-testid=threshold]').inputValue()).toBe('0');
  });
});
