/**
 * A tune report (kind 'tune', src/lib/tune/tune-report.ts) in the built site: imported into the Reports tab it lists
 * as trials with its held-out figures, and opens with its verdict, the held-out table (current, winner: Δ, Holm p,
 * W/T/L), its front chart, the trials as rows with their status, and no benchmark charts; its share link opens
 * read-only with the same.
 */
import { afterAll, beforeAll, describe, expect, inject, test } from 'vitest';
import type { Page } from 'playwright-core';
import type { BeirQuery, Qrels } from '../../src/lib/data/beir.ts';
import { runSettings } from '../../src/lib/eval/retrieval/retrieval-session.ts';
import { serializeReport, type Report } from '../../src/lib/reports/format.ts';
import { shareSummary } from '../../src/lib/reports/share-summary.ts';
import { KnowledgeBase } from '../../src/lib/retrieval/knowledge-base.ts';
import { tuneReport } from '../../src/lib/tune/tune-report.ts';
import { runTuneSession, type TuneResult } from '../../src/lib/tune/tune-session.ts';
import { launchBrowser, type Browser } from '../helpers/browser.ts';
import { topicCorpus } from '../helpers/topic-corpus.ts';

const site = inject('siteUrl');
let browser: Browser;
let result: TuneResult;
let report: Report;

beforeAll(async () => {
  const docs = topicCorpus(12, 3);
  const kb = KnowledgeBase.build(docs, { chunking: false, cdfQueries: 0 });
  const queries: BeirQuery[] = docs.map((d, i) => ({ id: `q${i}`, text: `${d.title} ${d.text.split(' ').slice(2, 4).join(' ')}` }));
  const qrels: Qrels = new Map(docs.map((d, i) => [`q${i}`, new Map([[d.id, 1]])]));
  result = await runTuneSession({
    kb, queries, qrels, base: runSettings('default', { predictors: false }), models: {}, modes: ['sparse'], budget: 6, seed: 0,
    identity: { dataKey: 'topics', dataset: 'local:topics', kb: null, embedder: null, reranker: null }, halving: { eta: 2, finalists: 2, minQueries: 5 },
  });
  report = await tuneReport(result, {
    id: 'tuneReportE2e01', title: 'Topics tune', testSet: { label: 'mine.jsonl', kind: 'imported', splitSeed: 0 }, budget: 6, modes: ['sparse'], base: { mode: 'sparse' },
    data: { dataset: 'local:topics', kb: 'local:topics', source: 'local', revision: null },
    environment: { app: 'test', runtime: 'node', agent: 'node test', models: [], llm: null, judge: null },
  });
  browser = await launchBrowser();
});
afterAll(async () => { await browser?.close(); });

/** The tune part of a report view: verdict, held-out rows by group, trial rows' statuses, whether a chart panel shows. */
async function tuneShown(page: Page, scope: string) {
  const v = page.locator(`${scope} [data-testid=report-view]`);
  await v.locator('[data-testid=tune-verdict]').waitFor({ timeout: 60_000 });
  return {
    verdict: await v.locator('[data-testid=tune-verdict]').innerText(),
    groups: await v.locator('[data-testid=tune-held-out-row]').evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-group'))),
    winner: await v.locator('[data-testid=tune-held-out-row][data-group=winner]').innerText(),
    statuses: await v.locator('[data-testid=bench-row]').evaluateAll((trs) => trs.map((tr) => (tr.children[1] as HTMLElement).innerText)),
    charts: await v.locator('[data-testid=charts]').count(),
    front: await v.locator('[data-testid=tune-front][data-rendered=true]').waitFor({ timeout: 60_000 }).then(() => true, () => false),
  };
}

describe('a tune report in the Reports tab', () => {
  test('imported: listed as trials, opened with its verdict, held-out table, front chart and trials; its share link shows the same', async () => {
    const page = await browser.context.newPage();
    await page.goto(`${site}?tab=reports`);
    await page.locator('[data-testid=reports-none]').waitFor({ timeout: 60_000 });
    await page.locator('[data-testid=reports-import]').setInputFiles({ name: 'tune.json', mimeType: 'application/json', buffer: Buffer.from(serializeReport(report)) });
    const item = page.locator('[data-testid=reports-list] [data-testid=report-item]', { hasText: 'Topics tune' });
    await item.waitFor({ timeout: 60_000 });
    expect(await item.innerText()).toContain(`tune · ndcg@10 · local:topics`);
    expect(await item.innerText()).toContain(`${report.rows.length} trials`);
    // One line of figures per setting measured on the held-out queries (the front depends on measured latency).
    const groups = ['current', 'winner', ...result.heldOut.figures.filter((f) => f.trial !== result.winner).map((f) => `front #${f.trial}`)];
    expect(await item.locator('[data-testid=report-figures]').evaluateAll((ls) => ls.map((l) => l.getAttribute('data-mode')))).toEqual(groups);
    await item.locator('[data-testid=report-open]').click();

    const w = result.heldOut.figures.find((f) => f.trial === result.winner)!;
    const opened = await tuneShown(page, `[data-testid=report-opened][data-id="${report.id}"]`);
    expect(opened.verdict).toBe(result.verdict);
    expect(opened.groups).toEqual(groups);
    expect(opened.winner).toContain(w.label);
    expect(opened.winner).toContain(w.score.toFixed(4));
    expect(opened.winner).toContain(`${w.wins} / ${w.ties} / ${w.losses}`);
    expect(opened.statuses).toHaveLength(report.rows.length);
    expect(opened.statuses.filter((s) => s === 'winner')).toHaveLength(1);
    expect(opened.charts).toBe(0);
    expect(opened.front).toBe(true);

    const s = await shareSummary(report);
    if (!s.ok) throw new Error(s.message);
    const other = await browser.context.newPage();
    await other.goto(`${site}/#${s.fragment}`);
    const shared = await tuneShown(other, '[data-testid=shared-report]');
    expect(shared).toEqual(opened);
    await other.close();
    await page.close();
  });
});
