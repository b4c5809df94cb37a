/**
 * Seed B's analysis in the built site: a multi-mode retrieval report made in the test (buildReport, deterministic
 * rows with qpp.* predictor fields) is imported into the Reports tab and opened; the H1 and H2 tables show the
 * numbers `analyzeRetrievalReport` gives for the same report in Node, a row pick draws its scatter with the fit, the
 * H2 filter narrows the pairs, the α simulator's sliders (keyboard) move α; a report without predictors shows the
 * analysis' warning instead of an H1 table.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, test } from 'vitest';
import type { Page } from 'playwright-core';
import { analyzeRetrievalReport, type RetrievalAnalysis } from '../../src/lib/eval/analysis/analysis.ts';
import { sliderWeights } from '../../src/lib/retrieval/alpha-sim.ts';
import { serializeReport, type Report } from '../../src/lib/reports/format.ts';
import { verdictViews } from '../../src/ui/reports/analysis-view.ts';
import { launchBrowser, type Browser } from '../helpers/browser.ts';
import { multiModeReport, spread } from '../helpers/retrieval-reports.ts';

const site = inject('siteUrl');
let browser: Browser;
let page: Page;
let dir: string;

const N = 24;
const sparse = spread(N, 11);
const dense = spread(N, 23);
const calibrated = sparse.map((s, i) => Math.min(1, (s + dense[i]!) / 2 + 0.05));
// Predictors: entropy falls as sparse NDCG rises (plus noise), NQC of the dense list rises with dense NDCG, α, and a
// constant WIG (correlation n/a).
const noise = spread(N, 5);
const predictors = (i: number) => ({
  'qpp.entropy.sparse.cdf': 5 - 3 * sparse[i]! + noise[i]!,
  'qpp.entropy.sparse.raw': 2 + noise[i]!,
  'qpp.nqc.dense': 0.1 + dense[i]! * 0.4 + noise[i]! * 0.2,
  'qpp.wig.sparse': 1,
  'qpp.alpha.fusion.cdf': 0.3 + 0.4 * noise[i]!,
});
const withPredictors: Report = { ...multiModeReport({ sparse, dense, hybrid_calibrated: calibrated }, predictors), id: 'e2e-analysis-1', title: 'Three modes with predictors' };
const without: Report = { ...multiModeReport({ sparse, dense }), id: 'e2e-analysis-2', title: 'Two modes, no predictors' };
let expected: RetrievalAnalysis;

const importFile = async (name: string, r: Report) => {
  const path = join(dir, name);
  writeFileSync(path, serializeReport(r));
  await page.locator('[data-testid=reports-import]').setInputFiles(path);
  await page.locator(`[data-testid=reports-list] [data-testid=report-item][data-id=${r.id}]`).waitFor();
};
const open = async (id: string) => {
  await page.locator(`[data-testid=report-item][data-id=${id}] [data-testid=report-open]`).click();
  await page.locator(`[data-testid=report-opened][data-id=${id}] [data-testid=analysis]`).waitFor();
  await page.locator('[data-testid=analysis][data-status=ready]').waitFor({ timeout: 120_000 });
};
const cell = (table: 'h1' | 'h2', id: string, col: string) => page.locator(`[data-testid=${table}-row][data-id="${id}"] [data-col=${col}]`).innerText();

beforeAll(async () => {
  const out = analyzeRetrievalReport(withPredictors);
  if (!out.ok) throw new Error(out.message);
  expected = out;
  dir = mkdtempSync(join(tmpdir(), 'rag-lab-e2e-analysis-'));
  browser = await launchBrowser();
  page = await browser.context.newPage();
  await page.goto(`${site}?tab=reports`);
  await page.locator('[data-testid=reports-drop][data-status=ready]').waitFor();
  await importFile('with.json', withPredictors);
  await importFile('without.json', without);
});
afterAll(async () => {
  await browser?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('Analysis of a retrieval report', () => {
  test("the H1 and H2 tables show Node's numbers; the scatter draws and follows the pick", async () => {
    await open('e2e-analysis-1');
    expect(await page.locator('[data-testid=h1-row]').count()).toBe(expected.h1.length);
    expect(await page.locator('[data-testid=h2-row]').count()).toBe(expected.h2.length);
    expect(expected.h2.length).toBe(3);

    const ent = expected.h1.find((r) => r.predictor === 'entropy' && r.calibration === 'cdf')!;
    expect(ent.pearson_r).not.toBeNull();
    expect(ent.pearson_r!).toBeLessThan(0);
    expect(await cell('h1', 'entropy.sparse.cdf', 'n')).toBe(String(ent.n));
    const pearson = await cell('h1', 'entropy.sparse.cdf', 'pearson');
    expect(pearson.startsWith(ent.pearson_r!.toFixed(3))).toBe(true);
    expect(pearson).toContain(`[${ent.ci95![0].toFixed(3)}, ${ent.ci95![1].toFixed(3)}]`);
    expect(await cell('h1', 'entropy.sparse.cdf', 'spearman')).toContain(ent.spearman!.toFixed(3));
    expect(await cell('h1', 'entropy.sparse.cdf', 'kendall')).toContain(ent.kendall!.toFixed(3));
    expect(await cell('h1', 'entropy.sparse.cdf', 'expected')).toBe('negative ✓');
    const p = await cell('h1', 'entropy.sparse.cdf', 'p');
    expect(p).toBe(ent.p_value! < 0.001 ? '<0.001' : ent.p_value!.toFixed(3));

    const wig = expected.h1.find((r) => r.predictor === 'wig')!;
    expect(wig.pearson_r).toBeNull();
    expect(await cell('h1', 'wig.sparse', 'pearson')).toBe('n/a');

    for (const r of expected.h2) {
      const id = `${r.a}|${r.b}`;
      expect(await cell('h2', id, 'wtl')).toBe(`${r.wins}/${r.ties}/${r.losses}`);
      expect(await cell('h2', id, 'n')).toBe(String(r.n));
      const delta = await cell('h2', id, 'delta');
      expect(delta.replace('−', '-').replace('+', '')).toContain(Math.abs(r.delta!) < 0.0005 ? '0.000' : r.delta!.toFixed(3));
    }

    // The scatter starts at the first row with a correlation and draws every query with the fit line.
    const scatter = page.locator('[data-testid=analysis-scatter]');
    await page.locator('[data-testid=analysis-scatter][data-rendered=true]').waitFor();
    expect(await scatter.getAttribute('data-points')).toBe(String(N));
    expect(await scatter.locator('.scatterlayer .trace').count()).toBe(2);
    const first = expected.h1.find((r) => r.pearson_r !== null)!;
    expect(await page.locator('[data-testid=h1-pick]').inputValue()).toBe(`${first.predictor}.${first.retriever}${first.calibration ? `.${first.calibration}` : ''}`);

    // A row click picks its scatter; its r is in the title.
    const nqc = expected.h1.find((r) => r.predictor === 'nqc')!;
    await page.locator('[data-testid=h1-row][data-id="nqc.dense"]').click();
    await expect.poll(() => page.locator('[data-testid=h1-pick]').inputValue()).toBe('nqc.dense');
    await expect.poll(() => scatter.locator('.gtitle').textContent().catch(() => '')).toContain(`r = ${nqc.pearson_r!.toFixed(3)}`);
    // …and so does the select (keyboard).
    await page.locator('[data-testid=h1-pick]').selectOption('entropy.sparse.cdf');
    await expect.poll(() => scatter.locator('.gtitle').textContent().catch(() => '')).toContain(`r = ${ent.pearson_r!.toFixed(3)}`);

    // The H2 filter keeps the pairs with the mode.
    await page.locator('[data-testid=h2-filter]').selectOption('hybrid_calibrated');
    await expect.poll(() => page.locator('[data-testid=h2-row]').count()).toBe(2);
    expect(await page.locator('[data-testid=analysis-settings]').innerText()).toContain(`10,000 bootstrap resamples · 10,000 permutations · seed ${withPredictors.seed}`);
    expect(expected.warnings).toEqual([]);
    expect(await page.locator('[data-testid=analysis-warnings]').count()).toBe(0);
    expect(await page.locator('[data-testid=h1-verdict]').innerText()).toContain(verdictViews(expected).h1.reason);
  });

  test('the α simulator: sliders move α (keyboard), sliders only without a run', async () => {
    const sim = page.locator('[data-testid=alpha-sim]');
    expect(await sim.getAttribute('data-real')).toBe('no');
    await sim.locator('[data-testid=sim-no-real]').waitFor();
    const alphaNow = async () => {
      const d = Number(await sim.locator('[data-testid=sim-h-dense]').inputValue());
      const s = Number(await sim.locator('[data-testid=sim-h-sparse]').inputValue());
      return sliderWeights(d, s);
    };
    expect(await sim.locator('[data-testid=sim-alpha]').innerText()).toBe((await alphaNow()).alpha.toFixed(3));
    const dense = sim.locator('[data-testid=sim-h-dense]');
    await dense.focus();
    await page.keyboard.press('Home');
    await expect.poll(() => sim.locator('[data-testid=sim-alpha]').innerText()).toBe('0.000');
    expect(await sim.locator('[data-testid=sim-w-dense]').innerText()).toBe('1.000');
    for (let i = 0; i < 5; i++) await page.keyboard.press('ArrowRight');
    await expect.poll(() => dense.inputValue()).toBe('0.05');
    const w = await alphaNow();
    await expect.poll(() => sim.locator('[data-testid=sim-alpha]').innerText()).toBe(w.alpha.toFixed(3));
    expect(await sim.locator('[data-testid=sim-w-sparse]').innerText()).toBe(w.sparse.toFixed(3));
    await sim.locator('[data-testid=sim-h-sparse]').focus();
    await page.keyboard.press('Home');
    // H_sparse = 0: all the weight on BM25 (α → 1 up to ε).
    await expect.poll(() => sim.locator('[data-testid=sim-alpha]').innerText()).toBe('1.000');
    expect(await sim.locator('label', { hasText: 'H_dense' }).locator('input[type=range]').count()).toBe(1);
  });

  test("a report without predictors shows the analysis' warning, not an empty H1 table", async () => {
    await open('e2e-analysis-2');
    const out = analyzeRetrievalReport(without);
    if (!out.ok) throw new Error(out.message);
    expect(out.h1).toHaveLength(0);
    const warnings = page.locator('[data-testid=analysis-warnings]');
    await warnings.waitFor();
    const text = await warnings.innerText();
    for (const w of out.warnings) expect(text).toContain(w);
    expect(await page.locator('[data-testid=h1-table]').count()).toBe(0);
    expect(await page.locator('[data-testid=h2-row]').count()).toBe(1);
  });

  test("a share link's summary (some rows only) is not analysed, and says why", async () => {
    const part: Report = { ...withPredictors, id: 'e2e-analysis-3', rows: withPredictors.rows.slice(0, 30), truncated: { rows: withPredictors.rows.length } };
    await importFile('part.json', part);
    await page.locator('[data-testid=report-item][data-id=e2e-analysis-3] [data-testid=report-open]').click();
    await page.locator('[data-testid=report-opened][data-id=e2e-analysis-3] [data-testid=analysis][data-status=skipped]').waitFor();
    expect(await page.locator('[data-testid=analysis-skipped]').innerText()).toContain(`30 of ${withPredictors.rows.length} rows`);
    expect(await page.locator('[data-testid=h1-table], [data-testid=h2-table]').count()).toBe(0);
  });

  test('at 400 px the analysis and the simulator scroll inside their own boxes, the page not sideways', async () => {
    await open('e2e-analysis-1');
    await page.locator('[data-testid=analysis-scatter][data-rendered=true]').waitFor();
    await page.setViewportSize({ width: 400, height: 800 });
    await expect.poll(() => page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(400);
    await page.setViewportSize({ width: 1280, height: 800 });
  });
});
