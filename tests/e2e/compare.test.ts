/**
 * The Compare tab in the built site: reports imported through the Reports tab, picked (only same-kind reports can
 * join; the others say why), the metrics table with Δ and Holm marks from the compare worker, the baseline switch,
 * the per-question table with the flipped filter and the answers side by side (hostile text rendered as text), the
 * config diff with "only differences", the chart, the refusal for reports that share no rows, and multi-mode
 * retrieval reports compared per mode (a mode column and picker).
 */
import { afterAll, beforeAll, describe, expect, inject, test } from 'vitest';
import type { Page } from 'playwright-core';
import { launchBrowser, type Browser } from '../helpers/browser.ts';
import { serializeReport } from '../../src/lib/reports/format.ts';
import { compareReports } from '../../src/lib/reports/compare.ts';
import { generatedTitle } from '../../src/lib/reports/title.ts';
import { syntheticReport } from '../helpers/synthetic-reports.ts';
import { multiModeReport } from '../helpers/retrieval-reports.ts';

const site = inject('siteUrl');
const HOSTILE = '<img src=x onerror="window.__pwned=1">';
const a = syntheticReport({ id: 'cmp-report-a', rows: 80, noise: 0.1, seed: 1, title: `lexical ${HOSTILE}`, answer: (i) => `A says ${i} <script>window.__pwned=2</script>` });
// b is untitled: Compare names it by its generated title, never by its id.
const b = syntheticReport({ id: 'cmp-report-b', rows: 80, noise: 0.45, seed: 2, title: '', config: { mode: 'validate', evaluator: 'nli', noise: 0.45 } });
const c = syntheticReport({ id: 'cmp-report-c', rows: 80, noise: 0.1, seed: 3, title: 'a retrieval run', kind: 'retrieval' });
const d = syntheticReport({ id: 'cmp-report-d', rows: 20, noise: 0.1, seed: 4, title: 'other questions', keyOffset: 1000 });
let browser: Browser;
let page: Page;

beforeAll(async () => {
  browser = await launchBrowser();
  page = await browser.context.newPage();
  await page.goto(`${site}?tab=reports`);
  await page.locator('[data-testid=reports-import]').setInputFiles([a, b, c, d].map((r) => ({ name: `${r.id}.json`, mimeType: 'application/json', buffer: Buffer.from(serializeReport(r)) })));
  await page.locator('[data-testid=reports-list] li').nth(3).waitFor({ timeout: 30_000 });
  await page.click('[data-testid=tab-compare]');
});
afterAll(async () => { await browser?.close(); });

const pick = (id: string) => page.locator(`[data-testid=compare-pick-${id}]`);
const cell = (metric: string, report: string) => page.locator(`[data-testid=compare-cell][data-metric="${metric}"][data-report="${report}"]`);

describe('Compare tab', () => {
  test('only same-kind reports are pickable; the table shows Δ, intervals, Holm marks and W/T/L as compareReports computes them', async () => {
    await pick(a.id).check();
    await expect.poll(() => pick(c.id).isDisabled()).toBe(true);
    expect(await page.locator(`[data-testid=compare-why-${c.id}]`).innerText()).toMatch(/cannot be compared: a retrieval report: the picked ones are ragbench-validate/);
    await pick(b.id).check();
    const table = page.locator('[data-testid=compare-table]');
    await table.waitFor({ timeout: 60_000 });
    const want = compareReports([a, b]);
    if (!want.ok) throw new Error(want.message);
    for (const m of want.metrics) {
      const w = m.cells[1]!;
      const text = await cell(m.id, b.id).innerText();
      expect(text).toContain(`${w.value!.toFixed(m.digits)} [${w.ci![0].toFixed(m.digits)}, ${w.ci![1].toFixed(m.digits)}]`);
      expect(text).toContain(`${w.wtl!.win}/${w.wtl!.tie}/${w.wtl!.loss}`);
      expect(await cell(m.id, b.id).getAttribute('data-significance')).toBe(w.significance);
    }
    expect(await cell('rmse_relevance', b.id).getAttribute('data-significance')).toBe('worse');
    expect(await cell('rmse_relevance', b.id).locator('[data-testid=compare-mark]').innerText()).toBe('▼');
    expect(await cell('rmse_relevance', a.id).getAttribute('data-significance')).toBe('baseline');
    expect(await page.locator('[data-testid=compare-legend]').innerText()).toMatch(/Holm/);
    await expect.poll(() => page.locator('[data-testid=compare-chart]').getAttribute('data-rendered'), { timeout: 60_000 }).toBe('true');
    // The hostile title is text, nothing ran.
    expect(await page.locator('img[src=x]').count()).toBe(0);
    expect(await page.locator('[data-testid=compare-table] thead').innerText()).toContain(HOSTILE);
    // The untitled report: its generated title in the picker, the baseline list and the table header, not its id.
    const name = generatedTitle(b);
    expect(await pick(b.id).locator('xpath=..').innerText()).toContain(name);
    expect(await page.locator('[data-testid=compare-baseline] option').allInnerTexts()).toContain(name);
    expect(await page.locator('[data-testid=compare-table] thead').innerText()).toContain(name);
    expect(await page.locator('[data-testid=compare-table] thead').innerText()).not.toContain(b.id);
  });

  test('the baseline switch re-runs the comparison against the other report', async () => {
    await page.locator('[data-testid=compare-baseline]').selectOption(b.id);
    await expect.poll(() => page.locator('[data-testid=compare-results]').getAttribute('data-baseline'), { timeout: 60_000 }).toBe(b.id);
    await expect.poll(() => cell('rmse_relevance', a.id).getAttribute('data-significance')).toBe('better');
    await page.locator('[data-testid=compare-baseline]').selectOption(a.id);
    await expect.poll(() => cell('rmse_relevance', b.id).getAttribute('data-significance'), { timeout: 60_000 }).toBe('worse');
  });

  test('per question: sorted by Δ, the flipped filter, both answers side by side', async () => {
    const rows = page.locator('[data-testid=compare-question]');
    await page.locator('[data-testid=compare-sort-metric]').selectOption('rmse_relevance');
    const deltas = async () => (await rows.evaluateAll((els) => els.map((e) => e.getAttribute('data-delta')))).filter((x) => x !== '').map(Number);
    const desc = await deltas();
    expect(desc.length).toBe(80);
    expect(desc).toEqual([...desc].sort((x, y) => y - x));
    const all = await rows.count();
    await page.locator('[data-testid=compare-flipped-only]').check();
    const flipped = await rows.count();
    const want = compareReports([a, b]);
    if (!want.ok) throw new Error(want.message);
    expect(flipped).toBe(want.questions.filter((q) => q.flipped).length);
    expect(flipped).toBeGreaterThan(0);
    expect(flipped).toBeLessThan(all);
    expect(await rows.evaluateAll((els) => els.every((e) => e.getAttribute('data-flipped') === 'true'))).toBe(true);
    const key = await rows.first().getAttribute('data-key');
    await rows.first().click();
    const answers = page.locator('[data-testid=compare-answers] [data-testid=compare-answer]');
    expect(await answers.count()).toBe(2);
    const i = Number(/q(\d+)$/.exec(key!)![1]);
    expect(await answers.nth(0).innerText()).toContain(`A says ${i} <script>window.__pwned=2</script>`);
    expect(await answers.nth(1).innerText()).toContain(`Answer ${i} of ${b.id}`);
    expect(await answers.nth(1).innerText()).toMatch(/adherence: \d\.\d{3}/);
    expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned ?? null)).toBeNull();
    await page.locator('[data-testid=compare-flipped-only]').uncheck();
  });

  test('config diff: only differences by default, everything when unticked', async () => {
    const diffRows = page.locator('[data-testid=compare-config-diff] tbody tr[data-path]');
    const only = await diffRows.evaluateAll((els) => els.map((e) => e.getAttribute('data-path')));
    expect(only).toEqual(expect.arrayContaining(['config.evaluator', 'config.noise']));
    expect(await diffRows.evaluateAll((els) => els.every((e) => e.getAttribute('data-differs') === 'true'))).toBe(true);
    expect(await page.locator('[data-testid=compare-config-diff] thead').innerText()).toContain(generatedTitle(b));
    await page.locator('[data-testid=compare-only-diff]').uncheck();
    const every = await diffRows.evaluateAll((els) => els.map((e) => e.getAttribute('data-path')));
    expect(every.length).toBeGreaterThan(only.length);
    expect(every).toEqual(expect.arrayContaining(['evaluator', 'data.dataset', 'config.mode']));
    await page.locator('[data-testid=compare-only-diff]').check();
  });

  test('reports that share no rows say so instead of comparing', async () => {
    await pick(b.id).uncheck();
    await pick(d.id).check();
    await expect.poll(() => page.locator('[data-testid=compare-error]').innerText().catch(() => ''), { timeout: 60_000 }).toMatch(/share no rows/);
    expect(await page.locator('[data-testid=compare-table]').count()).toBe(0);
    expect(browser.errors).toEqual([]);
  });

  test('a report whose id is __proto__ is compared like any other (issue 22)', async () => {
    const p = syntheticReport({ id: '__proto__', rows: 80, noise: 0.3, seed: 5, title: 'proto run' });
    await pick(d.id).uncheck();
    await page.click('[data-testid=tab-reports]');
    await page.locator('[data-testid=reports-import]').setInputFiles([{ name: 'proto.json', mimeType: 'application/json', buffer: Buffer.from(serializeReport(p)) }]);
    await page.locator('[data-testid=reports-list] li').nth(4).waitFor({ timeout: 30_000 });
    await page.click('[data-testid=tab-compare]');
    await pick(p.id).check();
    await page.locator('[data-testid=compare-baseline]').selectOption(p.id);
    await expect.poll(() => page.locator('[data-testid=compare-results]').getAttribute('data-baseline'), { timeout: 60_000 }).toBe(p.id);
    const want = compareReports([a, p], { baselineId: p.id });
    if (!want.ok) throw new Error(want.message);
    const w = want.metrics.find((m) => m.id === 'rmse_relevance')!.cells[0]!;
    expect(await cell('rmse_relevance', a.id).innerText()).toContain(w.value!.toFixed(3));
    expect(await cell('rmse_relevance', p.id).getAttribute('data-significance')).toBe('baseline');
    await page.locator('[data-testid=compare-only-diff]').uncheck();
    expect(await page.locator('[data-testid=compare-config-diff] tr[data-path=configHash]').innerText()).toContain(p.configHash);
    expect(await page.locator('[data-testid=compare-question]').count()).toBeGreaterThan(0);
    expect(browser.errors).toEqual([]);
  });

  test('multi-mode retrieval reports: a figure per mode, a mode column and a mode picker in the questions table (issue 32)', async () => {
    const twelve = (x: number) => Array.from({ length: 12 }, () => x);
    const x = { ...multiModeReport({ sparse: twelve(0.5), dense: twelve(0.25) }), id: 'cmp-modes-x', title: 'modes x' };
    const y = { ...multiModeReport({ sparse: twelve(0.75), dense: twelve(0.25) }), id: 'cmp-modes-y', title: 'modes y' };
    await pick(a.id).uncheck();
    await pick('__proto__').uncheck();
    await page.click('[data-testid=tab-reports]');
    await page.locator('[data-testid=reports-import]').setInputFiles([x, y].map((r) => ({ name: `${r.id}.json`, mimeType: 'application/json', buffer: Buffer.from(serializeReport(r)) })));
    await page.locator('[data-testid=reports-list] li').nth(6).waitFor({ timeout: 30_000 });
    await page.click('[data-testid=tab-compare]');
    await pick(x.id).check();
    await pick(y.id).check();
    const ndcg = (mode: string) => page.locator(`[data-testid=compare-cell][data-metric="ndcg@10"][data-mode=${mode}][data-report=${y.id}]`);
    await expect.poll(() => ndcg('sparse').innerText().catch(() => ''), { timeout: 60_000 }).toMatch(/^0\.7500[\s\S]*Δ \+0\.2500[\s\S]*12\/0\/0/);
    expect(await ndcg('dense').innerText()).toMatch(/^0\.2500[\s\S]*Δ 0\.0000[\s\S]*0\/12\/0/);
    // nDCG@10 has four cells, one per (mode, report); none is pooled over modes (x 0.375, y 0.5).
    const cells = await page.locator('[data-testid=compare-cell][data-metric="ndcg@10"]').evaluateAll((els) => els.map((e) => `${e.getAttribute('data-mode')} ${e.textContent!.trim().slice(0, 6)}`));
    expect(cells).toEqual(['sparse 0.5000', 'sparse 0.7500', 'dense 0.2500', 'dense 0.2500']);
    const rows = page.locator('[data-testid=compare-question]');
    expect(await rows.count()).toBe(24);
    expect(await page.locator('[data-testid=compare-questions] thead').innerText()).toMatch(/^mode\s+question/);
    await page.locator('[data-testid=compare-mode]').selectOption('dense');
    await expect.poll(() => rows.count()).toBe(12);
    expect(await rows.evaluateAll((els) => els.every((e) => e.getAttribute('data-mode') === 'dense'))).toBe(true);
    expect(browser.errors).toEqual([]);
  });
});
