/**
 * The read-only report view (ReportView) in the built site, opened from the Reports tab's import: the summary's
 * figures and intervals are the report's numbers, small-sample warnings show for a 12-row report, markup in a
 * title or question renders as text (no dialog, no element), rows sort by a column and open in a detail, the find
 * box filters them, a 3,000-row report renders 200 rows and more on request, a truncated report says how many rows
 * it includes, a pipeline report shows its own columns, and a seven-mode report's tables fit their card at 1,400 px and
 * scroll with a visible shadow at 400 px.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, test } from 'vitest';
import type { Page } from 'playwright-core';
import { serializeReport, type Report, type ReportRow } from '../../src/lib/reports/format.ts';
import { metricsFor } from '../../src/lib/reports/metrics.ts';
import { launchBrowser, type Browser } from '../helpers/browser.ts';
import { testReport, validateRow } from '../helpers/reports.ts';
import { retrievalRow, spread } from '../helpers/retrieval-reports.ts';
import { buildReport } from '../../src/lib/reports/build.ts';

const site = inject('siteUrl');
let browser: Browser;
let page: Page;
let dir: string;
const dialogs: string[] = [];

const HOSTILE_TITLE = '<script>alert("title")</script><img src=x onerror="alert(1)">';
const HOSTILE_QUESTION = '<img src=x onerror="alert(2)"> what does <b>bold</b> do?';

/** 12 rows in one subset, 3 hallucinated; adherence spread so that the rows sort in a known order. */
function smallReport(): Report {
  const rows: ReportRow[] = Array.from({ length: 12 }, (_, i) => ({
    ...validateRow(i, [0.9, 0.1, 0.5, 0.3, 0.7, 0.2, 0.8, 0.6, 0.4, 1, 0, 0.55][i]!, i % 4 !== 0),
    question: i === 3 ? HOSTILE_QUESTION : `question ${i} about the remote`,
    scores: { relevance: i / 12, utilization: 0.4, adherence: [0.9, 0.1, 0.5, 0.3, 0.7, 0.2, 0.8, 0.6, 0.4, 1, 0, 0.55][i]!, completeness: 0.3 },
    contexts: [`context of row ${i}`],
  }));
  return testReport(rows, { id: 'view-small-1', title: HOSTILE_TITLE, notes: 'notes with <i>markup</i>' });
}

async function openImported(r: Report, name: string) {
  const path = join(dir, name);
  writeFileSync(path, serializeReport(r));
  await page.locator('[data-testid=reports-import]').setInputFiles(path);
  const item = page.locator('[data-testid=reports-list] [data-testid=report-item]', { hasText: r.title || r.id }).first();
  await item.waitFor({ timeout: 60_000 });
  await item.locator('[data-testid=report-open]').click();
  await page.locator(`[data-testid=report-opened][data-id="${r.id}"] [data-testid=report-view]`).waitFor({ timeout: 60_000 });
}

const view = () => page.locator('[data-testid=report-opened] [data-testid=report-view]');
const columnTexts = (col: number) => view().locator('[data-testid=bench-row]').evaluateAll((trs, c) => trs.map((tr) => (tr.children[c] as HTMLElement).innerText), col);

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'rag-lab-e2e-report-view-'));
  browser = await launchBrowser();
  page = await browser.context.newPage();
  page.on('dialog', (d) => { dialogs.push(d.message()); void d.dismiss(); });
  await page.goto(`${site}?tab=reports`);
  // A fresh profile: the tab says it has no reports once its list is read.
  await page.locator('[data-testid=reports-none]').waitFor({ timeout: 60_000 });
});
afterAll(async () => {
  await browser?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('Report view', () => {
  test('a 12-row report: figures with intervals as the report holds them, warnings, text-only markup, sorting, detail, find', async () => {
    const r = smallReport();
    await openImported(r, 'small.json');
    const v = view();
    // Markup renders as text: the title and question read back verbatim, no element made from them, no dialog.
    expect(await v.locator('[data-testid=report-title]').innerText()).toBe(HOSTILE_TITLE);
    expect(await v.locator('img, script:not([src]), b, i').count()).toBe(0);
    expect(await v.locator('[data-testid=report-user-notes]').innerText()).toBe('notes with <i>markup</i>');

    // One subset: one summary row; each figure, interval and n as in the report (three decimals, intervals two).
    const summaryRows = v.locator('[data-testid=summary-row]');
    expect(await summaryRows.count()).toBe(1);
    expect(await summaryRows.first().innerText()).toMatch(/^emanual\s+12\s+3\s/);
    for (const m of metricsFor('ragbench-validate', r.rows)) {
      const fig = r.summary.metrics.find((x) => x.id === m.id && x.group === 'emanual')!;
      const cell = summaryRows.first().locator(`td[data-metric="${m.id}"]`);
      const want = fig.value === null ? 'N/A' : fig.value.toFixed(3);
      const ci = fig.ci === null ? 'N/A' : `[${fig.ci[0].toFixed(2)}, ${fig.ci[1].toFixed(2)}]`;
      expect(await cell.innerText()).toBe(`${want} ${ci} n=${fig.n}`);
    }
    expect(r.summary.metrics.find((x) => x.id === 'auroc' && x.group === 'emanual')!.ci).not.toBeNull();
    // The AUROC is resting on 3 hallucinated rows: the warning is next to the table.
    expect(await v.locator('[data-testid=bench-warnings]').innerText()).toContain('emanual: AUROC from 3 hallucinated rows: not meaningful (fewer than 10');

    // Rows open sorted by |adherence error|, largest first (column 11: group, question, 4 × score/gold, gap).
    expect(await v.locator('[data-testid=bench-row]').count()).toBe(12);
    const gaps = (await columnTexts(10)).map(Number);
    expect(gaps).toEqual([...gaps].sort((a, b) => b - a));
    // Row 10: adherence 0 against a supported gold label.
    expect(gaps[0]).toBe(1);
    // Relevance: descending on the first click, ascending on the second.
    const rel = v.locator('button[data-col="score:relevance"]');
    await rel.click();
    await expect.poll(() => columnTexts(2)).toEqual(Array.from({ length: 12 }, (_, i) => ((11 - i) / 12).toFixed(2)));
    await rel.click();
    await expect.poll(() => columnTexts(2)).toEqual(Array.from({ length: 12 }, (_, i) => (i / 12).toFixed(2)));
    expect(await v.locator('button[data-col="score:relevance"]').locator('xpath=..').getAttribute('aria-sort')).toBe('ascending');

    // The hostile question's row opens in the detail: question, scores against gold, answer and contexts as text.
    await v.locator('[data-testid=bench-row]', { hasText: 'what does' }).click();
    const detail = page.locator('[data-testid=bench-detail]');
    await detail.waitFor();
    expect(await detail.locator('h3').innerText()).toBe(HOSTILE_QUESTION);
    const text = await detail.innerText();
    // Row 3: relevance 3/12, utilization 0.4, adherence 0.3, completeness 0.3 against gold 0.6, 0.2, supported, none.
    expect(text).toMatch(/predicted\s+0\.250\s+0\.400\s+0\.300\s+0\.300\s+gold\s+0\.600\s+0\.200\s+1 \(supported\)\s+N\/A/);
    expect(text).toContain('context of row 3');
    expect(await detail.locator('img, b').count()).toBe(0);
    await detail.locator('button', { hasText: 'Close' }).click();
    expect(await detail.count()).toBe(0);

    // The find box (find.ts: prefix and typo tolerant): "remot" matches the 11 rows whose question says "remote".
    await v.locator('[data-testid=report-find]').fill('remot');
    await expect.poll(() => v.locator('[data-testid=bench-row]').count()).toBe(11);
    expect(await v.locator('[data-testid=rows-count]').innerText()).toBe('11 of 12 rows match');
    await v.locator('[data-testid=report-find]').fill('');
    await expect.poll(() => v.locator('[data-testid=bench-row]').count()).toBe(12);

    await v.locator('[data-testid=charts][data-rendered=true]').waitFor({ timeout: 60_000 });
    for (const id of ['chart-means', 'chart-roc', 'chart-scatter']) expect(await v.locator(`[data-testid=${id}] .main-svg`).count()).toBeGreaterThan(0);
    expect(dialogs).toEqual([]);
  });

  test('a 3,000-row report in three subsets: pooled row last, 200 rows rendered, "show more" adds 200', async () => {
    const groups = ['covidqa', 'emanual', 'hotpotqa'];
    const rows = Array.from({ length: 3000 }, (_, i) => validateRow(i, ((i * 37) % 100) / 100, i % 5 !== 0, groups[i % 3]));
    const r = testReport(rows, { id: 'view-large-1', title: 'Three thousand rows', iterations: 100 });
    const t0 = Date.now();
    await openImported(r, 'large.json');
    console.log(`3,000-row report: import + open to the view ${Date.now() - t0} ms (not asserted)`);
    const v = view();
    const labels = await v.locator('[data-testid=summary-row] td:first-child').allInnerTexts();
    expect(labels).toEqual([...groups, 'all']);
    const pooled = r.summary.metrics.find((m) => m.id === 'auroc' && m.group === null)!;
    expect(await v.locator('[data-testid=summary-row][data-group=""] [data-testid=auroc]').innerText()).toBe(pooled.value!.toFixed(3));
    expect(await v.locator('[data-testid=bench-row]').count()).toBe(200);
    expect(await v.locator('[data-testid=rows-count]').innerText()).toBe('3000 rows, first 200 shown');
    await v.locator('[data-testid=rows-more]').click();
    await expect.poll(() => v.locator('[data-testid=bench-row]').count()).toBe(400);
  });

  test('a truncated report says how many rows it includes; a pipeline report shows status and recall', async () => {
    const rows: ReportRow[] = Array.from({ length: 6 }, (_, i) => ({
      key: `emanual:${i}`, group: 'emanual', question: `pipeline question ${i}`, answer: i < 4 ? `answer ${i}` : '', status: i < 4 ? 'answered' : 'refused',
      scores: { relevance: 0.5, utilization: 0.5, adherence: i < 4 ? 1 : null, completeness: 0.5, recall: i % 2, relevant_recall: i % 2 },
      gold: {}, retrieved: ['d1'],
    }));
    const r = { ...testReport(rows, { id: 'view-pipe-1', title: 'Pipeline summary', kind: 'ragbench-pipeline' }), truncated: { rows: 40 } };
    await openImported(r, 'pipeline.json');
    const v = view();
    expect(await v.locator('[data-testid=report-truncated]').innerText()).toContain('6 of 40 rows included');
    // Truncated: no counts from the partial rows; the row count is the most rows a figure rests on.
    const recall = r.summary.metrics.find((m) => m.id === 'recall_at_k' && m.group === 'emanual')!;
    expect(await v.locator('[data-testid=pipeline-row]').first().innerText()).toMatch(/^emanual\s+6\s/);
    expect(await v.locator('[data-testid=pipeline-recall]').innerText()).toBe(recall.value!.toFixed(3));
    const heads = await v.locator('[data-testid=bench-rows] th').allInnerTexts();
    expect(heads.slice(0, 5).map((h) => h.replace(/ [▲▼]$/, ''))).toEqual(['subset', 'question', 'status', 'recall', 'relevant_recall']);
    await v.locator('[data-testid=charts][data-rendered=true]').waitFor({ timeout: 60_000 });
    expect(await v.locator('[data-testid=chart-roc]').count()).toBe(0);
  });

  test('a seven-mode retrieval report: every table fits its card at 1,400 px; at 400 px a wider one scrolls, shadowed, to its last column', async () => {
    const modes = ['sparse', 'dense', 'rrf', 'hybrid_fixed', 'hybrid_calibrated', 'hybrid_fixed_rerank', 'hybrid_calibrated_rerank'];
    const rows = modes.flatMap((m, j) => spread(30, j + 1).map((x, i) => retrievalRow(`${m}:q${i}`, m, i, x, { query_ms: 1 + (i % 7) })));
    const r = { ...buildReport({
      kind: 'retrieval', evaluator: 'retrieval-bench', config: { mode: 'retrieval' }, configHash: 'abcdef012345',
      data: { dataset: 'scifact', revision: null, subsets: [], source: 'local', kb: null }, seed: 7, n: null, rows, extra: {},
      iterations: 200, createdAt: '2026-12-01T12:00:00.000Z', environment: { app: '0.1.0', runtime: 'node', agent: 'test', models: [], llm: null, judge: null },
    }), id: 'view-wide-1', title: 'Seven modes on scifact' };
    /** Each shown table: whether it overflows its box, its last header's right edge (scrolled to the end) against the box's and its card's, and its shadow. */
    const tables = () => view().locator('table.summary-table, table.rows-table').evaluateAll((ts) => ts.filter((t) => (t as HTMLElement).offsetParent).map((el) => {
      const t = el as HTMLElement;
      t.scrollLeft = t.scrollWidth;
      const last = t.querySelector('thead tr')!.lastElementChild!.getBoundingClientRect().right;
      const box = t.getBoundingClientRect().right;
      const card = t.closest('.panel, [data-testid=report-view]')!.getBoundingClientRect().right;
      const css = getComputedStyle(t);
      const out = { id: t.dataset.testid, overflows: t.scrollWidth > t.clientWidth + 1, lastInBox: last <= box + 1, boxInCard: box <= card + 1, scrolls: css.overflowX === 'auto', shadow: /radial-gradient/.test(css.backgroundImage) };
      t.scrollLeft = 0;
      return out;
    }));
    try {
      await page.setViewportSize({ width: 1400, height: 900 });
      await openImported(r, 'wide.json');
      await expect.poll(async () => (await tables()).length).toBeGreaterThanOrEqual(2);
      for (const t of await tables()) expect(t, `1400 px: ${t.id}`).toMatchObject({ overflows: false, lastInBox: true, boxInCard: true });
      await page.setViewportSize({ width: 400, height: 900 });
      const narrow = await tables();
      expect(narrow.some((t) => t.overflows)).toBe(true);
      for (const t of narrow) expect(t, `400 px: ${t.id}`).toMatchObject({ lastInBox: true, boxInCard: true, ...(t.overflows ? { scrolls: true, shadow: true } : {}) });
    } finally {
      await page.setViewportSize({ width: 1280, height: 900 });
    }
  });
});
