/**
 * A CLI run opens in the browser with the same numbers: `rag-lab eval-ragbench --report-out` on RAGBench rows from
 * ../shared, the file imported into the built site's Reports tab, and every summary figure, interval and n shown
 * there equal to the file's and to the CLI's own `--json` output (same rows, same resamples).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, test } from 'vitest';
import type { Page } from 'playwright-core';
import { parseReportText, type Report } from '../../src/lib/reports/format.ts';
import { metricsFor } from '../../src/lib/reports/metrics.ts';
import { fmt, fmtCI } from '../../src/ui/reports/report-view.ts';
import { launchBrowser, type Browser } from '../helpers/browser.ts';
import { ROOT, runCli } from '../helpers/cli.ts';

const site = inject('siteUrl');
const DATA = process.env.RAG_LAB_RAGBENCH ?? resolve(ROOT, '../shared/data/ragbench/test');
const SUBSETS = ['emanual', 'covidqa'];
let browser: Browser;
let page: Page;
let dir: string;
let report: Report;
let cliJson: { subsets: Record<string, { n: number; auroc: number | null; rmse_relevance: number | null; intervals: Record<string, [number, number] | null> }> };

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'rag-lab-e2e-cli-report-'));
  const out = join(dir, 'run.json');
  const run = await runCli(['eval-ragbench', '--data', DATA, '--subsets', SUBSETS.join(','), '--n', '40', '--seed', '5', '--json', '--report-out', out]);
  expect(run.code, run.stderr).toBe(0);
  cliJson = JSON.parse(run.stdout.trim().split('\n').at(-1)!);
  const parsed = parseReportText(readFileSync(out, 'utf8'));
  if (!parsed.ok) throw new Error(parsed.message);
  report = parsed.report;
  browser = await launchBrowser();
  page = await browser.context.newPage();
  await page.goto(`${site}?tab=reports`);
  await page.locator('[data-testid=reports-drop][data-status=ready]').waitFor({ timeout: 60_000 });
  await page.locator('[data-testid=reports-import]').setInputFiles(out);
  const item = page.locator('[data-testid=reports-list] [data-testid=report-item]').first();
  await item.waitFor({ timeout: 60_000 });
  await item.locator('[data-testid=report-open]').click();
  await page.locator(`[data-testid=report-opened][data-id="${report.id}"] [data-testid=report-view]`).waitFor({ timeout: 60_000 });
}, 300_000);
afterAll(async () => {
  await browser?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('a CLI report in the browser', () => {
  test('the file holds what --json printed: per-subset figures and the same bootstrap intervals', () => {
    expect(report.kind).toBe('ragbench-validate');
    expect(report.environment.runtime).toBe('node');
    for (const s of SUBSETS) {
      const j = cliJson.subsets[s]!;
      const fig = (id: string) => report.summary.metrics.find((m) => m.id === id && m.group === s)!;
      expect(report.rows.filter((r) => r.group === s).length).toBe(j.n);
      expect(fig('auroc').value).toBeCloseTo(j.auroc!, 12);
      expect(fig('rmse_relevance').value).toBeCloseTo(j.rmse_relevance!, 12);
      for (const id of ['auroc', 'rmse_relevance', 'rmse_utilization', 'rmse_completeness']) expect(fig(id).ci, `${s} ${id}`).toEqual(j.intervals[id]);
    }
  });

  test('the Reports tab shows every figure, interval and n of the file', async () => {
    const view = page.locator('[data-testid=report-opened] [data-testid=report-view]');
    for (const group of [...SUBSETS, null]) {
      const row = view.locator(`[data-testid=summary-row][data-group="${group ?? ''}"]`);
      expect(await row.count(), `summary row of ${group ?? 'all'}`).toBe(1);
      for (const m of metricsFor('ragbench-validate', report.rows)) {
        const f = report.summary.metrics.find((x) => x.id === m.id && x.group === group)!;
        const cell = (await row.locator(`td[data-metric="${m.id}"]`).innerText()).replace(/\s+/g, ' ').trim();
        expect(cell, `${group ?? 'all'} ${m.id}`).toBe(`${fmt(f.value, m.digits)} ${fmtCI(f.ci, m.digits)} n=${f.n}`.replace(/\s+/g, ' ').trim());
      }
    }
  });
});
