/**
 * Report sync in the built site against the loopback Hub (a private dataset repo, so nothing works without the
 * token): the Hub URL comes from Settings (localStorage `rag-lab:settings`), the token is typed in Settings. Turning
 * sync on pulls; a report imported in the Reports tab is pushed (one commit, visible in the server's repo); a report
 * another writer commits appears after Refresh. A wrong token shows the 401 message, never the token, and the local
 * list stays as it was (and the panel fits 400 px).
 */
import { afterAll, beforeAll, describe, expect, inject, test } from 'vitest';
import type { Page } from 'playwright-core';
import { parseReportText, serializeReport } from '../../src/lib/reports/format.ts';
import { entryOf, INDEX_PATH, parseEntryList, reportPath, serializeEntryList } from '../../src/lib/reports/hub-layout.ts';
import { launchBrowser, type Browser } from '../helpers/browser.ts';
import { serveHubRepos, type HubRepoServer } from '../helpers/hub-repo-server.ts';
import { syncReport } from '../helpers/report-fixture.ts';
import { testReport, validateRow } from '../helpers/reports.ts';

const site = inject('siteUrl');
const modelHost = inject('hubUrl');
const TOKEN = 'hf_e2esynctoken4242';
const REPO = 'test-owner/reports';
const dec = (b: Uint8Array | null) => (b ? new TextDecoder().decode(b) : null);

let hub: HubRepoServer;
let browser: Browser;

beforeAll(async () => {
  hub = await serveHubRepos({ token: TOKEN });
  hub.addRepo(REPO, new Map([['README.md', new TextEncoder().encode('# reports\n')]]), { private: true });
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await hub?.close();
});

async function openPage(): Promise<Page> {
  const page = await browser.context.newPage();
  const settings = JSON.stringify({ remoteHost: modelHost, hubUrl: `${hub.url}/`, autoLoadModels: false });
  await page.addInitScript((s) => localStorage.setItem('rag-lab:settings', s), settings);
  await page.goto(site);
  return page;
}

async function setToken(page: Page, token: string): Promise<void> {
  await page.locator('[data-testid=tab-settings]').click();
  await page.locator('[data-testid=hub-token]').fill(token);
  await page.locator('[data-testid=hub-token-save]').click();
  await page.locator('[data-testid=tab-reports]').click();
}

/** Waits until the status shows a synced commit that is the repo's head (and nothing is pending). */
async function synced(page: Page): Promise<string> {
  await page.waitForFunction((sha) => {
    const s = document.querySelector('[data-testid=sync-status]');
    return s?.getAttribute('data-commit') === sha && s.getAttribute('data-busy') === 'false';
  }, hub.head(REPO), { timeout: 30_000 });
  return (await page.locator('[data-testid=sync-status]').innerText()).trim();
}

const titles = (page: Page) => page.locator('[data-testid=report-item] .report-title').allInnerTexts();

describe('report sync', () => {
  test('enable → pull; a report saved here is pushed; a report added on the Hub appears after Refresh', async () => {
    const page = await openPage();
    await setToken(page, TOKEN);
    await page.locator('[data-testid=sync-repo]').fill(REPO);
    expect(await page.locator('[data-testid=sync-status]').innerText()).toContain('Sync is off');
    await page.locator('[data-testid=sync-enable]').check();
    expect(await synced(page)).toContain(`Synced with ${REPO} at ${hub.head(REPO).slice(0, 7)}`);

    // Saved here (imported) → pushed in one commit on the head it read.
    const mine = syncReport('pushed from the browser', 41);
    const headBefore = hub.head(REPO);
    await page.locator('[data-testid=reports-import]').setInputFiles({ name: 'mine.json', mimeType: 'application/json', buffer: Buffer.from(serializeReport(mine)) });
    await page.waitForFunction(() => [...document.querySelectorAll('[data-testid=report-item]')].length === 1, null, { timeout: 30_000 });
    await page.waitForFunction((h) => document.querySelector('[data-testid=sync-status]')?.getAttribute('data-commit') !== h
      && document.querySelector('[data-testid=sync-status]')?.getAttribute('data-busy') === 'false', headBefore, { timeout: 30_000 });
    await synced(page);
    const pushed = parseReportText(dec(hub.fileAt(REPO, 'main', reportPath(mine.id)))!);
    expect(pushed.ok && pushed.report).toEqual(mine);
    const index = parseEntryList(dec(hub.fileAt(REPO, 'main', INDEX_PATH))!, 'index');
    expect(index.ok && index.entries.map((e) => e.id)).toEqual([mine.id]);
    const commits = hub.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/commit/main'));
    expect(commits).toHaveLength(1);
    expect(commits[0]!.parentCommit).toBe(headBefore);

    // Another writer adds a report (file + index) → Refresh → it is listed here.
    const theirs = syncReport('added on the Hub by someone else', 43);
    const entries = index.ok ? index.entries : [];
    hub.commitFiles(REPO, new Map([
      [reportPath(theirs.id), new TextEncoder().encode(serializeReport(theirs))],
      [INDEX_PATH, new TextEncoder().encode(serializeEntryList([...entries, entryOf(theirs, new Date().toISOString())], 'index'))],
    ]));
    await page.locator('[data-testid=sync-refresh]').click();
    await synced(page);
    await page.waitForFunction(() => document.querySelectorAll('[data-testid=report-item]').length === 2, null, { timeout: 30_000 });
    expect((await titles(page)).sort()).toEqual([mine.title, theirs.title].sort());
    expect(await page.locator('[data-testid=sync-error]').count()).toBe(0);

    // The token went only in Authorization headers: never in a path or query the Hub saw, never on the page.
    expect(hub.requests.every((r) => !`${r.path}${r.query}`.includes(TOKEN))).toBe(true);
    expect(hub.requests.filter((r) => r.method !== 'OPTIONS').every((r) => r.auth)).toBe(true);
    expect(await page.locator('body').innerText()).not.toContain(TOKEN);
    await page.close();
  });

  test('a wrong token: the 401 message, no token shown, the local reports stay', async () => {
    const page = await openPage();
    // The same profile: sync is on for the repo and the two reports are stored; this tab has no token yet.
    await page.locator('[data-testid=tab-reports]').click();
    await page.waitForFunction(() => document.querySelectorAll('[data-testid=report-item]').length === 2, null, { timeout: 30_000 });
    const wrong = 'hf_wrongwrongwrong99';
    await setToken(page, wrong);
    // The pull on start (no token yet) may already have failed with a 401: what is checked is the Refresh's own pull,
    // the first request that carries a token, and the panel once that pull has ended.
    const before = hub.requests.length;
    await page.locator('[data-testid=sync-refresh]').click();
    await expect.poll(() => hub.requests.slice(before).some((r) => r.auth && r.method !== 'OPTIONS'), { timeout: 30_000 }).toBe(true);
    await page.waitForFunction(() => /^Last synced/.test(document.querySelector('[data-testid=sync-status]')?.textContent?.trim() ?? ''), null, { timeout: 30_000 });
    const error = page.locator('[data-testid=sync-error]');
    expect(await error.innerText()).toMatch(/HTTP 401/);
    const text = await error.innerText();
    expect(text).toContain('the Hugging Face token is missing or wrong');
    expect(text).toContain('Local reports are unchanged');
    expect(await page.locator('[data-testid=sync-status]').innerText()).toMatch(/^Last synced with test-owner\/reports at [0-9a-f]{7}/);
    expect(await page.locator('body').innerText()).not.toContain(wrong);
    expect(await page.locator('[data-testid=report-item]').count()).toBe(2);
    // The sync panel, its message included, fits a 400 px screen.
    await page.setViewportSize({ width: 400, height: 800 });
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(400);
    await page.locator('[data-testid=sync-status]').scrollIntoViewIfNeeded();
    await page.screenshot({ path: 'test-results/report-sync-400.png' });
    await page.close();
  });
  test('a report too large for a link, with sync on: the link is the Hub form at the commit, and it opens the full report', async () => {
    const page = await openPage();
    await page.locator('[data-testid=tab-reports]').click();
    await setToken(page, TOKEN);
    await page.locator('[data-testid=sync-refresh]').click();
    await synced(page);
    // 3,000 random ids in the config: ~30 KB that no summary squeezes under the 8,000-character budget.
    let x = 777;
    const ids = Array.from({ length: 3000 }, () => { x = (x * 1103515245 + 12345) >>> 0; return x.toString(36); });
    const big = testReport(Array.from({ length: 30 }, (_, i) => validateRow(i, (i % 7) / 6, i % 4 !== 0)), { id: 'hugeSynced01', title: 'Huge synced report', config: { ids } });
    const headBefore = hub.head(REPO);
    await page.locator('[data-testid=reports-import]').setInputFiles({ name: 'big.json', mimeType: 'application/json', buffer: Buffer.from(serializeReport(big)) });
    await page.waitForFunction((h) => document.querySelector('[data-testid=sync-status]')?.getAttribute('data-commit') !== h
      && document.querySelector('[data-testid=sync-status]')?.getAttribute('data-busy') === 'false', headBefore, { timeout: 30_000 });
    const sha = hub.head(REPO);
    const item = page.locator('[data-testid=reports-list] li', { hasText: big.title });
    await item.locator('[data-testid=report-open]').click();
    await page.locator(`[data-testid=report-opened][data-id="${big.id}"]`).waitFor();
    await page.locator('[data-testid=share-copy]').click();
    const url = await page.locator('[data-testid=share-url]').inputValue();
    expect(url).toContain(`#ref=${REPO}@${sha}/${reportPath(big.id)}`);
    expect(url).not.toContain('#r=');
    expect(url).not.toContain(TOKEN);
    await page.close();

    // The link in a fresh tab (token typed there: this private repo needs it) shows the full report, read-only.
    const other = await openPage();
    await setToken(other, TOKEN);
    await other.evaluate((h) => { location.hash = h; }, url.slice(url.indexOf('#')));
    await other.locator('[data-testid=shared-banner]').waitFor({ timeout: 30_000 });
    await other.locator('[data-testid=shared-report] [data-testid=report-view]').waitFor({ timeout: 30_000 });
    expect(await other.locator('[data-testid=shared-report] [data-testid=report-title]').innerText()).toBe(big.title);
    expect(await other.locator('[data-testid=shared-truncated]').count()).toBe(0);
    await other.close();
  });
});
