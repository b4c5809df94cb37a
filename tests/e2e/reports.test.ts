/**
 * The Reports tab in the built site: a report file made with buildReport is imported, listed, opened, renamed,
 * given notes, exported (the JSON download is the same report), deleted into the archive and restored, found by a
 * word of a question; a file whose id is saved asks replace / keep both; hostile files (markup in the title, a
 * future version, `__proto__`, 1e999) are refused or rendered as text; a multi-mode retrieval report lists and opens
 * with one line of figures per mode; a reload keeps everything.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, test } from 'vitest';
import type { Page } from 'playwright-core';
import { parseReportText, serializeReport, type Report } from '../../src/lib/reports/format.ts';
import { downloadBytes, launchBrowser, type Browser } from '../helpers/browser.ts';
import { testReport, validateRow } from '../helpers/reports.ts';
import { multiModeReport } from '../helpers/retrieval-reports.ts';
import { generatedTitle } from '../../src/lib/reports/title.ts';

const site = inject('siteUrl');
let browser: Browser;
let page: Page;
let dir: string;
const dialogs: string[] = [];

const rows = Array.from({ length: 24 }, (_, i) => ({ ...validateRow(i, (i % 10) / 10, i % 3 !== 0), question: i === 5 ? 'How do I pair the thermostat remote?' : `question ${i}` }));
const report: Report = testReport(rows, { id: 'e2e-report-1', title: 'Lexical baseline' });

function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

const items = () => page.locator('[data-testid=reports-list] [data-testid=report-item]');
const archived = () => page.locator('[data-testid=reports-deleted] [data-testid=report-item]');
const importFile = (path: string) => page.locator('[data-testid=reports-import]').setInputFiles(path);

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'rag-lab-e2e-reports-'));
  browser = await launchBrowser();
  page = await browser.context.newPage();
  page.on('dialog', (d) => { dialogs.push(d.message()); void d.dismiss(); });
  await page.goto(`${site}?tab=reports`);
  await page.locator('[data-testid=reports-drop][data-status=ready]').waitFor();
});
afterAll(async () => {
  await browser?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('Reports tab', () => {
  test('import, list, open, rename, notes, export JSON, find', async () => {
    await expect.poll(() => page.locator('[data-testid=reports-none]').count()).toBe(1);
    await importFile(file('baseline.json', serializeReport(report)));
    await expect.poll(() => items().count()).toBe(1);
    const item = items().first();
    await expect.poll(() => item.innerText()).toContain('Lexical baseline');
    const text = await item.innerText();
    expect(text).toContain('N = 24');
    const auroc = report.summary.metrics.find((m) => m.id === 'auroc' && m.group === null)!;
    expect(text).toContain(`hallucination AUROC ${auroc.value!.toFixed(3)} [${auroc.ci![0].toFixed(3)}, ${auroc.ci![1].toFixed(3)}]`);

    await item.locator('[data-testid=report-open]').click();
    await page.locator('[data-testid=report-opened] [data-testid=report-view]').waitFor();
    expect(await page.locator('[data-testid=report-opened]').getAttribute('data-id')).toBe('e2e-report-1');

    await page.locator('[data-testid=report-rename]').fill('Tuned lexical run');
    await page.locator('[data-testid=report-rename]').press('Enter');
    await expect.poll(() => items().first().innerText()).toContain('Tuned lexical run');
    await page.locator('[data-testid=report-notes]').fill('k = 8, no reranker');
    await page.locator('[data-testid=report-notes]').blur();

    const [download] = await Promise.all([page.waitForEvent('download'), page.locator('[data-testid=report-export-json]').click()]);
    const back = parseReportText(new TextDecoder().decode(await downloadBytes(download)));
    expect(back.ok).toBe(true);
    if (back.ok) expect(back.report).toEqual({ ...report, title: 'Tuned lexical run', notes: 'k = 8, no reranker' });
    expect(download.suggestedFilename()).toBe('Tuned-lexical-run-e2e-report-1.json');

    const [csv] = await Promise.all([page.waitForEvent('download'), page.locator('[data-testid=report-export-csv]').click()]);
    expect(new TextDecoder().decode(await downloadBytes(csv)).split('\r\n')).toHaveLength(rows.length + 2);

    await page.locator('[data-testid=reports-find]').fill('thermostt');
    await expect.poll(() => page.locator('[data-testid=report-why]').innerText().catch(() => '')).toBe('matches question (1 row)');
    await page.locator('[data-testid=reports-find]').fill('zebra');
    await expect.poll(() => page.locator('[data-testid=reports-no-match]').count()).toBe(1);
    await page.locator('[data-testid=reports-find]').fill('');
    await expect.poll(() => items().count()).toBe(1);
  });

  test('a file whose id is saved asks: keep both gives a new id, replace replaces', async () => {
    await importFile(file('again.json', serializeReport({ ...report, title: 'Second copy' })));
    await page.locator('[data-testid=reports-import-conflict]').waitFor();
    expect(await items().count()).toBe(1);
    await page.locator('[data-testid=reports-import-keep-both]').click();
    await expect.poll(() => items().count()).toBe(2);
    const ids = await items().evaluateAll((els) => els.map((e) => e.getAttribute('data-id')));
    expect(ids).toContain('e2e-report-1');
    expect(new Set(ids).size).toBe(2);
    await importFile(file('again2.json', serializeReport({ ...report, title: 'Replacement' })));
    await page.locator('[data-testid=reports-import-replace]').click();
    await expect.poll(() => page.locator('[data-testid=report-item][data-id=e2e-report-1]').innerText()).toContain('Replacement');
    expect(await items().count()).toBe(2);
  });

  test('delete moves into the archive, restore brings it back, delete for good and empty the archive', async () => {
    await page.locator('[data-testid=report-item][data-id=e2e-report-1] [data-testid=report-delete]').click();
    await expect.poll(() => archived().count()).toBe(1);
    expect(await items().count()).toBe(1);
    await archived().first().locator('[data-testid=report-restore]').click();
    await expect.poll(() => items().count()).toBe(2);
    expect(await archived().count()).toBe(0);
    // The copy: deleted, then deleted for good.
    await page.locator('[data-testid=reports-list] [data-testid=report-item]:not([data-id=e2e-report-1])').locator('[data-testid=report-delete]').click();
    await expect.poll(() => archived().count()).toBe(1);
    await archived().first().locator('[data-testid=report-purge]').click();
    await expect.poll(() => archived().count()).toBe(0);
    // Empty the archive: asks first.
    await page.locator('[data-testid=report-item][data-id=e2e-report-1] [data-testid=report-delete]').click();
    await expect.poll(() => archived().count()).toBe(1);
    await page.locator('[data-testid=reports-empty-archive]').click();
    expect(await archived().count()).toBe(1);
    await page.locator('[data-testid=reports-empty-confirm]').click();
    await expect.poll(() => archived().count()).toBe(0);
    expect(await items().count()).toBe(0);
    await importFile(file('baseline2.json', serializeReport(report)));
    await expect.poll(() => items().count()).toBe(1);
  });

  test('hostile files: markup renders as text, a future version, __proto__ and 1e999 are refused, nothing changes', async () => {
    const hostile = testReport(rows, { id: 'e2e-hostile', title: '<img src=x onerror="alert(1)"><script>alert(2)</script>', notes: '<b>bold</b>' });
    await importFile(file('hostile.json', serializeReport(hostile)));
    const item = page.locator('[data-testid=report-item][data-id=e2e-hostile]');
    await expect.poll(() => item.locator('.report-title').innerText().catch(() => '')).toBe('<img src=x onerror="alert(1)"><script>alert(2)</script>');
    expect(await page.locator('[data-testid=reports-list] img, [data-testid=reports-list] script').count()).toBe(0);
    await item.locator('[data-testid=report-open]').click();
    await page.locator('[data-testid=report-opened][data-id=e2e-hostile]').waitFor();
    expect(await page.locator('[data-testid=report-notes]').inputValue()).toBe('<b>bold</b>');
    expect(await page.locator('[data-testid=report-opened] img, [data-testid=report-opened] script, [data-testid=report-opened] b').count()).toBe(0);

    const before = await items().count();
    const text = serializeReport(report);
    const cases: Array<[string, string, RegExp]> = [
      ['future.json', text.replace('"version": 1', '"version": 2'), /newer than this app reads/],
      ['proto.json', text.replace('"notes": ""', '"notes": "", "__proto__": {"polluted": true}'), /forbidden key "__proto__"/],
      ['inf.json', text.replace('"seed": 0', '"seed": 1e999'), /not valid: seed/],
      ['notjson.json', '{"format": "rag-lab-report", ', /is not JSON/],
    ];
    for (const [name, body, message] of cases) {
      await importFile(file(name, body));
      await expect.poll(() => page.locator('[data-testid=reports-import-error]').innerText().catch(() => '')).toMatch(message);
      expect(await page.locator('[data-testid=reports-import-error]').innerText()).toContain(name);
      expect(await items().count()).toBe(before);
    }
    expect(await page.evaluate(() => ({} as Record<string, unknown>)['polluted'] ?? null)).toBeNull();
    expect(dialogs).toEqual([]);
  });

  test('a draft carries a badge until Keep makes it a saved report', async () => {
    await importFile(file('draft.json', serializeReport(testReport(rows, { id: 'e2e-draft-1', title: 'A draft run', draft: true }))));
    const item = page.locator('[data-testid=report-item][data-id=e2e-draft-1]');
    await expect.poll(() => item.getAttribute('data-draft').catch(() => null)).toBe('true');
    expect(await item.locator('.draft').innerText()).toBe('draft');
    await item.locator('[data-testid=report-keep]').click();
    await expect.poll(() => item.getAttribute('data-draft')).toBe('false');
    expect(await item.locator('[data-testid=report-keep]').count()).toBe(0);
  });

  test('a 3,000-row report imports, lists and opens (the time is printed, not asserted)', async () => {
    const big = testReport(Array.from({ length: 3000 }, (_, i) => ({ ...validateRow(i, (i % 10) / 10, i % 3 !== 0), contexts: [`context ${i} `.repeat(150)] })), { id: 'e2e-big-3000', title: 'Three thousand rows', iterations: 20 });
    await importFile(file('big.json', serializeReport(big)));
    const item = page.locator('[data-testid=report-item][data-id=e2e-big-3000]');
    await item.waitFor({ timeout: 60_000 });
    expect(await item.innerText()).toContain('N = 3000');
    const t0 = Date.now();
    await item.locator('[data-testid=report-open]').click();
    await page.locator('[data-testid=report-opened][data-id=e2e-big-3000] [data-testid=report-view]').waitFor({ timeout: 60_000 });
    console.log(`Reports e2e: a 3,000-row report (${(serializeReport(big).length / 1e6).toFixed(1)} MB) opened in ${Date.now() - t0} ms (click to view shown)`);
    await page.locator('[data-testid=report-close]').click();
  });

  test('an untitled report is listed under its generated title and details; the title can be edited', async () => {
    const untitled = testReport([...rows, ...rows.map((r) => ({ ...r, key: `covidqa:${r.key}`, group: 'covidqa' }))], { id: 'e2e-untitled', title: '', seed: 7, n: 24 });
    await importFile(file('untitled.json', serializeReport(untitled)));
    const item = page.locator('[data-testid=report-item][data-id=e2e-untitled]');
    await expect.poll(() => item.locator('[data-testid=report-item-title]').innerText().catch(() => '')).toBe('RAGBench · emanual, covidqa · lexical · seed 7 · N 24');
    expect(generatedTitle(untitled)).toBe('RAGBench · emanual, covidqa · lexical · seed 7 · N 24');
    expect(await item.locator('[data-testid=report-details]').innerText()).toBe('subsets emanual, covidqa · evaluator lexical · mode validate · seed 7 · N 24 per subset');
    await item.locator('[data-testid=report-open]').click();
    await page.locator('[data-testid=report-opened][data-id=e2e-untitled]').waitFor();
    expect(await page.locator('[data-testid=report-opened] [data-testid=report-title]').innerText()).toBe(generatedTitle(untitled));
    expect(await page.locator('[data-testid=report-rename]').getAttribute('placeholder')).toBe(generatedTitle(untitled));
    await page.locator('[data-testid=report-rename]').fill('Two subsets, seed 7');
    await page.locator('[data-testid=report-rename]').press('Enter');
    await expect.poll(() => item.locator('[data-testid=report-item-title]').innerText()).toBe('Two subsets, seed 7');
    await page.locator('[data-testid=report-close]').click();
  });

  test('a multi-mode retrieval report saved by an older version (pooled figures) lists and opens with one line per mode, nothing pooled', async () => {
    // sparse nDCG@10 (1 + 0.5) / 2 = 0.75, dense (0 + 0.5) / 2 = 0.25; the older summary's pooled 0.5 is never shown.
    const fresh = { ...multiModeReport({ sparse: [1, 0.5], dense: [0, 0.5] }), id: 'e2e-modes-1', title: 'Two modes' };
    const pooled = fresh.summary.metrics.filter((m) => m.group === 'sparse').map((m) => ({ ...m, group: null, n: 4, value: m.id === 'ndcg@10' ? 0.5 : m.value }));
    const older: Report = { ...fresh, evaluator: 'modes', summary: { ...fresh.summary, metrics: [...pooled, ...fresh.summary.metrics] } };
    await importFile(file('modes.json', serializeReport(older)));
    const item = page.locator('[data-testid=report-item][data-id=e2e-modes-1]');
    await item.waitFor({ timeout: 30_000 });
    const lines = item.locator('[data-testid=report-figures]');
    expect(await lines.evaluateAll((els) => els.map((e) => e.getAttribute('data-mode')))).toEqual(['sparse', 'dense']);
    expect(await lines.nth(0).innerText()).toMatch(/^sparse\s+nDCG@10 0\.7500/);
    expect(await lines.nth(1).innerText()).toMatch(/^dense\s+nDCG@10 0\.2500/);
    expect(await item.innerText()).not.toContain('0.5000 ');
    await item.locator('[data-testid=report-open]').click();
    const view = page.locator('[data-testid=report-opened][data-id=e2e-modes-1]');
    await view.waitFor();
    expect(await view.locator('[data-testid=report-n]').innerText()).toBe('all 2 judged queries × 2 modes = 4 rows · seed 7');
    expect(await view.locator('[data-testid=summary-row]').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-group')))).toEqual(['sparse', 'dense']);
    await page.locator('[data-testid=report-close]').click();
  });

  test('a reload keeps the saved reports, their titles and notes', async () => {
    const ids = (await items().evaluateAll((els) => els.map((e) => e.getAttribute('data-id')))).sort();
    await page.locator('[data-testid=report-item][data-id=e2e-report-1] [data-testid=report-open]').click();
    await page.locator('[data-testid=report-notes]').fill('kept across reloads');
    await page.locator('[data-testid=report-notes]').blur();
    // Saved when the list entry in IndexedDB has the notes.
    await expect.poll(() => page.evaluate(() => new Promise<unknown>((resolve) => {
      const r = indexedDB.open('rag-lab');
      r.onsuccess = () => {
        const get = r.result.transaction('reports').objectStore('reports').get('e2e-report-1');
        get.onsuccess = () => { r.result.close(); resolve((get.result as { meta?: { notes?: string } } | undefined)?.meta?.notes ?? null); };
      };
    }))).toBe('kept across reloads');
    await page.reload();
    await page.locator('[data-testid=reports-drop][data-status=ready]').waitFor();
    await expect.poll(async () => (await items().evaluateAll((els) => els.map((e) => e.getAttribute('data-id')))).sort()).toEqual(ids);
    await page.locator('[data-testid=report-item][data-id=e2e-report-1] [data-testid=report-open]').click();
    await expect.poll(() => page.locator('[data-testid=report-notes]').inputValue()).toBe('kept across reloads');
    // The edited title stuck; cleared, the generated one is back.
    const untitled = page.locator('[data-testid=report-item][data-id=e2e-untitled] [data-testid=report-item-title]');
    expect(await untitled.innerText()).toBe('Two subsets, seed 7');
    await page.locator('[data-testid=report-item][data-id=e2e-untitled] [data-testid=report-open]').click();
    await page.locator('[data-testid=report-opened][data-id=e2e-untitled]').waitFor();
    await page.locator('[data-testid=report-rename]').fill('');
    await page.locator('[data-testid=report-rename]').press('Enter');
    await expect.poll(() => untitled.innerText()).toBe('RAGBench · emanual, covidqa · lexical · seed 7 · N 24');
    expect(browser.errors.filter((e) => !/favicon/.test(e))).toEqual([]);
  });
});

describe('a page opened on the Reports tab (as a shared report link opens), then Compare and Settings', () => {
  test('reads no corpus and starts no search worker until a tab that shows the knowledge base is opened', async () => {
    const b = await launchBrowser();
    try {
      const p = await b.context.newPage();
      const corpus: string[] = [];
      b.context.on('request', (r) => { if (/\/corpora\//.test(r.url())) corpus.push(r.url()); });
      const searchWorkers = () => p.workers().filter((w) => /search\.worker/.test(w.url())).length;
      await p.goto(`${site}?tab=reports`);
      await p.locator('[data-testid=reports-drop][data-status=ready]').waitFor();
      await p.locator('[data-testid=tab-compare]').click();
      // Settings shows nothing of the knowledge base either.
      await p.locator('[data-testid=tab-settings]').click();
      await p.locator('[data-testid=hub-url]').waitFor();
      await p.waitForLoadState('networkidle');
      expect(corpus).toEqual([]);
      expect(searchWorkers()).toBe(0);
      await p.locator('[data-testid=tab-search]').click();
      await p.locator('[data-testid=kb-info]').waitFor({ timeout: 60_000 });
      expect(corpus.length).toBeGreaterThan(0);
      expect(searchWorkers()).toBe(1);
    } finally {
      await b.close();
    }
  });
});
