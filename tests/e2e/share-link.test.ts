/**
 * Share links in the built site: a link made from a report opens in a new page as a read-only shared report with
 * the same figures, and can be saved; HTML in a shared title or question shows as text (no dialog, no element); a
 * hostile link whose report config names other endpoints changes no setting; a bad link says why; a `#ref=` link
 * to a report in the loopback Hub (the Hub set in Settings) opens it, and a ref to a missing file says so.
 */
import { afterAll, beforeAll, describe, expect, inject, test } from 'vitest';
import type { Page } from 'playwright-core';
import { serializeReport, type Report } from '../../src/lib/reports/format.ts';
import { encodeReportFragment, formatReportRef, reportPath, toBase64Url } from '../../src/lib/reports/share-link.ts';
import { shareSummary } from '../../src/lib/reports/share-summary.ts';
import { launchBrowser, type Browser } from '../helpers/browser.ts';
import { serveHubRepos, type HubRepoServer } from '../helpers/hub-repo-server.ts';
import type { StreamFault } from '../helpers/stream-body.ts';
import { validateReport } from '../helpers/share-reports.ts';

const site = inject('siteUrl');
const modelHost = inject('hubUrl');
const EVIL = 'https://evil.example';
const MiB = 1024 * 1024;
let browser: Browser;
let hub: HubRepoServer;
let hubSha: string;
const hubReport = validateReport({ subsets: ['covidqa', 'emanual', 'msmarco'], perSubset: 30, id: 'hubShared0001', title: 'From the Hub' });

beforeAll(async () => {
  hub = await serveHubRepos();
  hubSha = hub.addRepo('team/reports', new Map([[reportPath(hubReport.id), new TextEncoder().encode(serializeReport(hubReport))]]));
  hub.addRepo('team/private', new Map([[reportPath(hubReport.id), new TextEncoder().encode(serializeReport(hubReport))]]), { private: true });
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await hub?.close();
});

/** A page whose Settings point at the loopback Hub, recording any dialog (alert) it opens. */
async function openPage(hash: string): Promise<{ page: Page; dialogs: string[] }> {
  const page = await browser.context.newPage();
  const dialogs: string[] = [];
  page.on('dialog', (d) => { dialogs.push(d.message()); void d.dismiss(); });
  const settings = JSON.stringify({ remoteHost: modelHost, hubUrl: `${hub.url}/`, autoLoadModels: false });
  await page.addInitScript((s) => { if (!localStorage.getItem('rag-lab:settings')) localStorage.setItem('rag-lab:settings', s); }, settings);
  await page.goto(`${site}/${hash}`);
  return { page, dialogs };
}

const shown = (page: Page) => page.locator('[data-testid=shared-report], [data-testid=shared-error]').first().waitFor({ timeout: 60_000 });

/** Imports `report` as a file through the Reports tab and opens it there. */
async function importAndOpen(page: Page, report: Report): Promise<void> {
  await page.locator('[data-testid=tab-reports]').click();
  await page.locator('[data-testid=reports-import]').setInputFiles({ name: `${report.id}.json`, mimeType: 'application/json', buffer: Buffer.from(serializeReport(report)) });
  const item = page.locator('[data-testid=reports-list] li', { hasText: report.title });
  await item.waitFor();
  await item.locator('[data-testid=report-open]').click();
  await page.locator(`[data-testid=report-opened][data-id="${report.id}"]`).waitFor();
}

describe('making a link in the Reports tab', () => {
  test('Copy share link on a saved report; the link opens read-only in a new page; Save keeps it (a copy when the id is saved)', async () => {
    const r = validateReport({ subsets: ['covidqa', 'delucionqa', 'emanual', 'expertqa', 'hagrid', 'hotpotqa', 'msmarco'], perSubset: 20, title: 'Seven subsets, lexical', id: 'sevenSubsets01' });
    const { page } = await openPage('?tab=reports');
    await importAndOpen(page, r);
    await page.locator('[data-testid=share-copy]').click();
    const url = await page.locator('[data-testid=share-url]').inputValue();
    expect(url.startsWith(`${site}/#r=v1.`)).toBe(true);
    expect(url.length - site.length - 1).toBeLessThanOrEqual(8000);
    expect(await page.locator('[data-testid=share-note]').innerText()).toMatch(/\d[\d,]* characters \(\d+\.\d KB\), the summary figures, config and 20 of 140 rows/);

    const other = await browser.context.newPage();
    await other.goto(url);
    await shown(other);
    expect(await other.locator('[data-testid=tab-reports]').getAttribute('aria-selected')).toBe('true');
    await expect(other.locator('[data-testid=shared-truncated]').innerText()).resolves.toMatch(/^20 of 140 rows included/);
    expect(await other.locator('[data-testid=shared-report] [data-testid=report-view]').innerText()).toContain('Seven subsets, lexical');
    // Same id saved already (this profile imported it): not overwritten; saved as a copy on request.
    await other.locator('[data-testid=shared-save]').click();
    await other.locator('[data-testid=shared-conflict]').waitFor();
    await other.locator('[data-testid=shared-save-copy]').click();
    await expect(other.locator('[data-testid=shared-saved]').innerText()).resolves.toMatch(/Saved to your reports as a copy: "Seven subsets, lexical \(copy\)"/);
    const items = other.locator('[data-testid=reports-list] li');
    await other.waitForFunction(() => document.querySelectorAll('[data-testid=reports-list] li').length === 2);
    expect(await items.allInnerTexts()).toEqual(expect.arrayContaining([expect.stringContaining('Seven subsets, lexical (copy)'), expect.stringContaining('Seven subsets, lexical')]));
    // the original is unchanged: still 140 rows
    await page.reload();
    await page.locator('[data-testid=tab-reports]').click();
    await page.locator('[data-testid=reports-list] li', { hasText: 'Seven subsets, lexical (copy)' }).waitFor();
    expect(await page.locator('[data-testid=reports-list] li', { hasText: /^(?![\s\S]*\(copy\))[\s\S]*Seven subsets, lexical/ }).innerText()).toMatch(/140/);
    await other.close();
    await page.close();
  });

  test('a new shared report is saved as it is', async () => {
    const r = validateReport({ perSubset: 6, title: 'Only shared', id: 'onlyShared001' });
    const { page } = await openPage(`#${await encodeReportFragment(r)}`);
    await shown(page);
    await page.locator('[data-testid=shared-save]').click();
    await expect(page.locator('[data-testid=shared-saved]').innerText()).resolves.toMatch(/Saved to your reports: "Only shared"/);
    await page.locator('[data-testid=reports-list] li', { hasText: 'Only shared' }).waitFor();
    await page.close();
  });

  test('a report too large for a link, with Hub sync off: the fallback message', async () => {
    // 3,000 random ids in the config: ~30 KB that does not compress below 8,000 characters even without rows.
    let x = 12345;
    const ids = Array.from({ length: 3000 }, () => { x = (x * 1103515245 + 12345) >>> 0; return x.toString(36); });
    const r = validateReport({ perSubset: 5, title: 'Huge config', id: 'hugeConfig001', config: { ids } });
    const { page } = await openPage('?tab=reports');
    await importAndOpen(page, r);
    await page.locator('[data-testid=share-copy]').click();
    await expect(page.locator('[data-testid=share-too-large]').innerText()).resolves
      .toMatch(/too large for a link \(\d+\.\d KB\): turn on Hub sync in the Reports tab to share a link to the full report/);
    expect(await page.locator('[data-testid=share-url]').count()).toBe(0);
    await page.close();
  });
});

describe('inline links', () => {
  test('a summary link opens read-only, labelled as shared, with the rows it carries', async () => {
    const r = validateReport({ subsets: ['covidqa', 'hotpotqa', 'msmarco'], perSubset: 15, title: 'Lexical on three subsets' });
    const s = await shareSummary(r);
    expect(s.ok).toBe(true);
    if (!s.ok) return;
    const { page } = await openPage(`#${s.fragment}`);
    await shown(page);
    await expect(page.locator('[data-testid=shared-banner]').innerText()).resolves.toMatch(/Shared report — read-only/);
    await expect(page.locator('[data-testid=shared-truncated]').innerText()).resolves.toMatch(/^20 of 45 rows included/);
    const view = page.locator('[data-testid=shared-report] [data-testid=report-view]');
    expect(await view.getAttribute('data-shared')).toBe('true');
    expect(await view.innerText()).toContain('Lexical on three subsets');
    await page.close();
  });

  test('a link of a 332-row report shows no figure that differs from its table: the ROC is replaced by the full AUROC; the charts follow the dark theme', async () => {
    const r = validateReport({ subsets: ['covidqa', 'hotpotqa'], perSubset: 166, contexts: 0, answerWords: 10, title: 'Three hundred thirty-two' });
    const s = await shareSummary(r);
    expect(s.ok && s.report.rows.length).toBe(20);
    if (!s.ok) return;
    const { page } = await openPage(`#${s.fragment}`);
    await shown(page);
    await page.locator('[data-testid=shared-report] [data-testid=charts][data-rendered=true]').waitFor({ timeout: 60_000 });
    const table = await page.locator('[data-testid=shared-report] [data-testid=report-summary]').innerText();
    const tableNumbers = new Set(table.match(/\d+\.\d+/g) ?? []);
    // Every decimal any chart shows (titles, legend entries, annotations) and every bar's value, as the table writes it.
    const shownNumbers = await page.evaluate(() => [...document.querySelectorAll('[data-testid=shared-report] [data-testid=charts] .js-plotly-plot')].flatMap((el) => {
      const text = [...el.querySelectorAll('.gtitle, .legendtext, .annotation-text')].map((t) => t.textContent ?? '').join(' ');
      const bars = ((el as unknown as { data: Array<{ type: string; y: Array<number | null> }> }).data ?? []).filter((t) => t.type === 'bar').flatMap((t) => t.y).filter((y): y is number => y !== null).map((y) => y.toFixed(3));
      return [...(text.match(/\d+\.\d+/g) ?? []), ...bars];
    }));
    expect(shownNumbers.length).toBeGreaterThan(0);
    expect(shownNumbers.filter((n) => !tableNumbers.has(n))).toEqual([]);
    expect(await page.locator('[data-testid=shared-report] [data-testid=chart-roc]').count()).toBe(0);
    const auroc = await page.locator('[data-testid=shared-report] [data-testid=summary-row][data-group=""] [data-testid=auroc]').innerText();
    const notes = await page.locator('[data-testid=shared-report] [data-testid=chart-withheld]').allInnerTexts();
    expect(notes.join('\n')).toContain(`ROC needs all rows: open the full report (this summary carries 20 of 332 rows, the worst ones). Hallucination AUROC over all 332 rows: RAG Lab ${auroc} [`);
    // The chart follows the theme: light paper, then dark once the theme is set to dark (no redraw by the view).
    const paper = () => page.evaluate(() => {
      const svg = document.querySelector('[data-testid=shared-report] [data-testid=chart-means] .main-svg');
      const [r, g, b] = getComputedStyle(svg!).backgroundColor.match(/\d+/g)!.map(Number);
      return (0.2126 * r! + 0.7152 * g! + 0.0722 * b!) / 255;
    });
    await page.selectOption('[data-testid=theme]', 'light');
    await expect.poll(paper).toBeGreaterThan(0.8);
    await page.selectOption('[data-testid=theme]', 'dark');
    await expect.poll(paper).toBeLessThan(0.2);
    await page.close();
  });

  test('HTML in the title and a question is shown as text: no element, no dialog', async () => {
    const evil = '<img src=x onerror=alert(1)>';
    const r = validateReport({ perSubset: 4, title: `Report ${evil}` });
    for (const row of r.rows) row.question = `Why ${evil}?`;
    const { page, dialogs } = await openPage(`#${await encodeReportFragment(r)}`);
    await shown(page);
    expect(await page.locator('[data-testid=shared-report]').innerText()).toContain(`Report ${evil}`);
    expect(await page.locator('[data-testid=shared-report] img').count()).toBe(0);
    expect(dialogs).toEqual([]);
    await page.close();
  });

  test('a hostile link naming other endpoints changes no setting', async () => {
    const r = validateReport({ perSubset: 3, config: { hubUrl: EVIL, datasetsHost: EVIL, judge: { baseUrl: `${EVIL}/v1` }, rag: { llm: { baseUrl: `${EVIL}/v1`, provider: 'openai' } } } });
    const { page, dialogs } = await openPage(`#${await encodeReportFragment(r)}`);
    await shown(page);
    expect(await page.locator('[data-testid=shared-report]').count()).toBe(1);
    const stored = await page.evaluate(() => localStorage.getItem('rag-lab:settings') ?? '');
    expect(stored).not.toContain('evil.example');
    await page.locator('[data-testid=tab-settings]').click();
    expect(await page.locator('[data-testid=hub-url]').inputValue()).toBe(`${hub.url}/`);
    await page.locator('[data-testid=tab-ask]').click();
    expect(await page.locator('[data-testid=base-url]').inputValue()).not.toContain('evil.example');
    const all = await page.evaluate(() => JSON.stringify({ ...localStorage }));
    expect(all).not.toContain('evil.example');
    expect(dialogs).toEqual([]);
    await page.close();
  });

  test('bad links: a clear message each time, and the app works', async () => {
    const cases: Array<[string, RegExp]> = [
      ['#r=v1.@@@', /not base64url/],
      ['#r=v2.AAAA', /made by a newer RAG Lab/],
      [`#r=v1.${toBase64Url(new Uint8Array([1, 2, 3, 4, 5, 6, 7]))}`, /does not decompress|not JSON/],
      [`#ref=team/reports@main/${reportPath('abcdefgh')}`, /commit must be 40/],
      [`#ref=team/reports@${'a'.repeat(40)}/reports/../x.json`, /path must be/],
    ];
    const page = await browser.context.newPage();
    for (const [hash, re] of cases) {
      // Only the fragment changes from one case to the next (no reload): wait for this case's message.
      await page.goto(`${site}/${hash}`);
      await page.waitForFunction((src) => new RegExp(src).test(document.querySelector('[data-testid=shared-error]')?.textContent ?? ''), re.source, { timeout: 30_000 }).catch(() => {});
      expect(await page.locator('[data-testid=shared-error]').innerText()).toMatch(re);
    }
    // hashchange to a good link replaces the message
    const r = validateReport({ perSubset: 2, title: 'After the bad ones' });
    await page.evaluate((h) => { location.hash = h; }, await encodeReportFragment(r));
    await page.locator('[data-testid=shared-report]').waitFor();
    expect(await page.locator('[data-testid=shared-report]').innerText()).toContain('After the bad ones');
    await page.locator('[data-testid=shared-banner] [data-testid=shared-close]').click();
    await page.locator('[data-testid=shared-report]').waitFor({ state: 'detached' });
    expect(await page.evaluate(() => location.hash)).toBe('');
    await page.close();
  });
});

describe('#ref= links', () => {
  test('a report in the Hub set in Settings opens at the commit, in full', async () => {
    const { page } = await openPage(`#${formatReportRef({ repo: 'team/reports', commit: hubSha, path: reportPath(hubReport.id) })}`);
    await shown(page);
    expect(await page.locator('[data-testid=shared-banner]').innerText()).toMatch(new RegExp(`From team/reports at commit ${hubSha.slice(0, 7)}`));
    expect(await page.locator('[data-testid=shared-truncated]').count()).toBe(0);
    expect(await page.locator('[data-testid=shared-report] [data-testid=report-view]').innerText()).toContain('From the Hub');
    const resolves = hub.requests.filter((q) => q.path.includes('/resolve/'));
    expect(resolves.map((q) => q.path)).toContain(`/datasets/team/reports/resolve/${hubSha}/${reportPath(hubReport.id)}`);
    await page.close();
  });

  test('a ref to a file that is not there, or to a private repo without a token, says so', async () => {
    const { page } = await openPage(`#${formatReportRef({ repo: 'team/reports', commit: hubSha, path: reportPath('missing0001') })}`);
    await shown(page);
    expect(await page.locator('[data-testid=shared-error]').innerText()).toMatch(/not on the Hub: no reports\/report_missing0001\.json in team\/reports@/);
    await page.close();
    const priv = (await openPage(`#${formatReportRef({ repo: 'team/private', commit: hub.head('team/private'), path: reportPath(hubReport.id) })}`)).page;
    await shown(priv);
    expect(await priv.locator('[data-testid=shared-error]').innerText()).toMatch(/could not be downloaded .*private or gated: add a Hugging Face token/);
    await priv.close();
  });

  test('a ref answered with a 600 MB body is refused at the 200 MB report limit; the tab\'s heap stays within it + 100 MB', async () => {
    const path = reportPath('huge00000001');
    hub.faults.push({ kind: 'stream', path, bytes: 600 * MiB, fill: 0x5b });
    const { page } = await openPage(`#${formatReportRef({ repo: 'team/reports', commit: hubSha, path })}`);
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('Performance.enable');
    let peak = 0;
    let done = false;
    const sampling = (async () => {
      while (!done) {
        const { metrics } = await cdp.send('Performance.getMetrics');
        peak = Math.max(peak, metrics.find((m) => m.name === 'JSHeapUsedSize')?.value ?? 0);
        await new Promise((ok) => setTimeout(ok, 100));
      }
    })();
    await page.locator('[data-testid=shared-error]').waitFor({ timeout: 120_000 });
    done = true;
    await sampling;
    expect(await page.locator('[data-testid=shared-error]').innerText()).toMatch(/reports\/report_huge00000001\.json: over the 200 MB limit for reports \(stopped reading at 20\d\.\d MB\)/);
    const sent = hub.requests.filter((q) => q.path.endsWith(path)).map((q) => q.bytes);
    expect(sent).toHaveLength(1);
    expect(sent[0]).toBeLessThan(300 * MiB);
    expect(peak).toBeGreaterThan(0);
    expect(peak).toBeLessThan(300 * MiB);
    await page.close();
  });

  test('a trickling ref download shows the bytes so far of the limit, and Cancel aborts it', async () => {
    const path = reportPath('trickle00001');
    const fault: StreamFault = { kind: 'stream', path, bytes: 64 * MiB, everyMs: 25 };
    hub.faults.push(fault);
    const { page } = await openPage(`#${formatReportRef({ repo: 'team/reports', commit: hubSha, path })}`);
    await page.waitForFunction(() => /[1-9][\d.]* (KB|MB) so far \(at most 200 MB, the report limit\)/.test(document.querySelector('[data-testid=shared-progress]')?.textContent ?? ''), null, { timeout: 60_000 });
    await page.locator('[data-testid=shared-cancel]').click();
    await page.locator('[data-testid=shared-loading]').waitFor({ state: 'detached' });
    expect(await page.locator('[data-testid=shared-error], [data-testid=shared-report]').count()).toBe(0);
    expect(await page.evaluate(() => location.hash)).toBe('');
    await expect.poll(() => fault.gone, { timeout: 30_000 }).toBe(true);
    expect(hub.requests.find((q) => q.path.endsWith(path))!.bytes).toBeLessThan(64 * MiB);
    await page.close();
  });
});
