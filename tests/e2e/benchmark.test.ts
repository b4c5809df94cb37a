/**
 * The Benchmark tab in the built site: RAGBench rows from a local Hub (parquet written at test time, read with range
 * requests) or a local dataset viewer, local files picked or dropped, a lexical validate run with summary, intervals,
 * small-sample warnings and charts, an LLM-judge run reloaded midway that resumes from the cached rows, pipeline mode
 * with the Ask tab's settings (lexical, and NLI with its figures against gold), edited cached rows that are recomputed
 * and reported, and offline in a fresh profile: nothing preselected, a picked file scored, remembered across a reload,
 * an unreachable subset named and skipped.
 */
import { mkdirSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, test } from 'vitest';
import type { Page } from 'playwright-core';
import { launchBrowser, type Browser } from '../helpers/browser.ts';
import { startBenchServers, RAGBENCH_DATA as DATA, type BenchServers } from '../helpers/bench-servers.ts';
import { openaiCompletion, openaiStream, type LlmServer } from '../helpers/llm-server.ts';
import type { ViewerServer } from '../helpers/viewer-server.ts';
import type { DatasetHubServer } from '../helpers/dataset-hub-server.ts';
import { listenLocal } from '../helpers/listen.ts';
import { ragbenchParquet, readJsonlRows } from '../helpers/ragbench-parquet.ts';

const site = inject('siteUrl');
let browser: Browser;
let page: Page;
let servers: BenchServers;
let viewer: ViewerServer;
let llm: LlmServer;
let parquetHub: DatasetHubServer;

beforeAll(async () => {
  servers = await startBenchServers();
  ({ viewer, llm, parquetHub } = servers);
  browser = await launchBrowser();
  page = await browser.context.newPage();
  await page.addInitScript(([host, hub]) => {
    const s = JSON.parse(localStorage.getItem('rag-lab:settings') ?? '{}');
    localStorage.setItem('rag-lab:settings', JSON.stringify({ ...s, datasetsHost: host, remoteHost: s.remoteHost ?? hub }));
  }, [viewer.url, parquetHub.url] as const);
});
afterAll(async () => {
  await browser?.close();
  await servers?.close();
});

async function summaryAuroc(p: Page): Promise<string> {
  return p.locator('[data-testid=summary-row] [data-testid=auroc]').first().innerText();
}

/** Settings that load the fixture NLI model and cross-encoder from the local Hub (read at the next page load). */
const useFixtureNli = () => page.evaluate((hub) => {
  const s = JSON.parse(localStorage.getItem('rag-lab:settings') ?? '{}');
  localStorage.setItem('rag-lab:settings', JSON.stringify({
    ...s, remoteHost: hub,
    nli: { id: 'rag-lab/tiny-nli', dtype: 'q8', device: 'wasm' },
    crossEncoder: { id: 'rag-lab/tiny-cross-encoder', dtype: 'q8', device: 'wasm' },
  }));
}, inject('hubUrl'));

describe('Benchmark tab', () => {
  test('a 20-row lexical validate run shows the summary next to the baselines, rows and charts', async () => {
    await page.goto(`${site}?tab=benchmark&b_sub=emanual&b_n=20&b_eval=lexical`);
    await page.locator('[data-testid=bench-run]').click();
    await page.locator('[data-testid=bench-summary]').waitFor({ timeout: 60_000 });
    const row = await page.locator('[data-testid=summary-row]').first().innerText();
    expect(row).toMatch(/^emanual\s+20\s+1\s/);
    // The tester's case: one hallucinated row in 20 gives AUROC 1.000, now with its interval and a warning.
    expect(await summaryAuroc(page)).toBe('1.000');
    expect(await page.locator('[data-testid=auroc-ci]').first().innerText()).toBe('[1.00, 1.00]');
    expect(await page.locator('[data-testid=rmse-rel-ci]').first().innerText()).toMatch(/^\[0\.\d\d, 0\.\d\d\]$/);
    expect(await page.locator('[data-testid=bench-warnings]').innerText()).toContain('emanual: AUROC from 1 hallucinated row: not meaningful');
    // The rows came from the parquet file in byte ranges, not from the dataset viewer.
    const gets = parquetHub.requests.filter((q) => q.method === 'GET' && q.path.includes('/emanual/'));
    expect(gets.length).toBeGreaterThan(3);
    for (const g of gets) expect([g.status, g.range]).toEqual([206, expect.stringMatching(/^bytes=\d+-\d+$/)]);
    expect(viewer.requests.filter((u) => u.searchParams.get('config') === 'emanual')).toEqual([]);
    expect(await page.locator('[data-testid=bench-row]').count()).toBe(20);
    await page.locator('[data-testid=charts][data-rendered=true]').waitFor({ timeout: 60_000 });
    for (const id of ['chart-means', 'chart-roc', 'chart-scatter']) expect(await page.locator(`[data-testid=${id}] .main-svg`).count()).toBeGreaterThan(0);
    await page.locator('[data-testid=bench-row]').first().click();
    expect(await page.locator('[data-testid=bench-detail]').innerText()).toMatch(/predicted[\s\S]*gold/);
    // Rows open by keyboard too: Enter or Space on a focused row.
    for (const [i, key] of [[1, 'Enter'], [2, ' ']] as const) {
      await page.locator('[data-testid=bench-detail] button', { hasText: 'Close' }).click();
      expect(await page.locator('[data-testid=bench-detail]').count()).toBe(0);
      await page.locator('[data-testid=bench-row]').nth(i).focus();
      await page.keyboard.press(key === ' ' ? 'Space' : key);
      await page.locator('[data-testid=bench-detail]').waitFor();
    }
    mkdirSync('test-results', { recursive: true });
    await page.screenshot({ path: 'test-results/benchmark.png', fullPage: true });
    // The finished run was saved as a draft report with the same figures.
    await page.locator('[data-testid=tab-reports]').click();
    const draft = page.locator('[data-testid=reports-list] [data-testid=report-item][data-draft=true]').first();
    await draft.waitFor({ timeout: 30_000 });
    expect(await draft.innerText()).toMatch(/ragbench-validate[\s\S]*N = 20[\s\S]*hallucination AUROC 1\.000 \[1\.000, 1\.000\]/);
  });

  test('an LLM-judge run reloaded midway resumes with only the missing rows', async () => {
    const params = new URLSearchParams({ tab: 'benchmark', b_sub: 'hotpotqa', b_n: '20', b_seed: '5', b_eval: 'llm', b_prov: 'openai', b_model: 'judge', b_base: `${llm.url}/v1` });
    await page.goto(`${site}?${params}`);
    await page.locator('[data-testid=bench-run]').click();
    await expect.poll(async () => Number(await page.locator('[data-testid=bench-done]').innerText().catch(() => '0')), { timeout: 60_000 }).toBeGreaterThanOrEqual(6);
    await page.reload();
    const before = llm.requests.length;
    expect(before).toBeGreaterThanOrEqual(6);
    expect(before).toBeLessThan(20);
    expect(await page.locator('label:has-text("Judge base URL") input').inputValue()).toBe(`${llm.url}/v1`);
    await page.locator('[data-testid=bench-run]').click();
    await page.locator('[data-testid=bench-summary]').waitFor({ timeout: 60_000 });
    expect(await page.locator('[data-testid=summary-row]').first().innerText()).toMatch(/^hotpotqa\s+20\s/);
    // Each row was judged once, except at most the two that were in flight when the page reloaded.
    expect(llm.requests.length).toBeGreaterThanOrEqual(20);
    expect(llm.requests.length).toBeLessThanOrEqual(22);
    const progress = await page.locator('[data-testid=bench-progress]').innerText();
    expect(progress).toMatch(/20 done \((\d+) cached\)/);
    const cached = Number(/\((\d+) cached\)/.exec(progress)![1]);
    expect(cached).toBeGreaterThanOrEqual(before - 2);
  });

  test('RAGAS metrics in validate mode: faithfulness by the judge, answer relevancy absent without an embedder (said so), the figures in the report view', async () => {
    llm.reset();
    const judgeFallback = llm.fallback;
    // Two statements per answer, the first supported: faithfulness 1/2 on every row.
    llm.fallback = (req) => {
      const user = (req.body as { messages: { content: string }[] }).messages.at(-1)!.content;
      const reply = /^Task: RAGAS statements\./m.test(user) ? '{"statements": ["One.", "Two."]}' : /^Task: RAGAS faithfulness\./m.test(user) ? '{"verdicts": [1, 0]}' : 'unexpected';
      return openaiCompletion(reply, { usage: { prompt_tokens: 50, completion_tokens: 5 } });
    };
    try {
      const params = new URLSearchParams({ tab: 'benchmark', b_sub: 'emanual', b_n: '4', b_seed: '2', b_eval: 'ragas', b_prov: 'openai', b_model: 'judge', b_base: `${llm.url}/v1` });
      await page.goto(`${site}?${params}`);
      expect(await page.locator('[data-testid=bench-evaluator]').inputValue()).toBe('ragas');
      expect(await page.locator('[data-testid=bench-ragas-note]').innerText()).toContain('answer relevancy is absent: it needs an embedder');
      expect(await page.locator('[data-testid=bench-repeats]').count()).toBe(0);
      await page.locator('[data-testid=bench-run]').click();
      await page.locator('[data-testid=bench-summary]').waitFor({ timeout: 60_000 });
      expect(llm.requests).toHaveLength(8);
      const cell = (id: string) => page.locator(`[data-testid=summary-row] [data-metric=${id}]`).first().innerText();
      expect(await cell('ragas_faithfulness')).toMatch(/^0\.500 \[0\.50, 0\.50\] n=4$/);
      expect(await cell('ragas_answer_relevancy')).toMatch(/^N\/A .*n=0$/);
      expect(await page.locator('[data-testid=report-run-notes]').innerText()).toContain('RAGAS answer relevancy is absent (not 0)');
    } finally {
      llm.fallback = judgeFallback;
    }
  });

  test('pipeline mode answers sampled questions from the subset documents and reports gold-document recall', async () => {
    llm.reset();
    const judgeFallback = llm.fallback;
    llm.fallback = () => ({ sse: openaiStream(['According to the manual, open Settings [1].']) });
    try {
      // The pipeline settings are the Ask tab's (its a_ link parameters): top 3, no sentence window, an OpenAI-compatible model.
      // Rejection off (a_thr=0), so that every sampled question reaches the model whatever its retrieval confidence.
      const params = new URLSearchParams({ tab: 'benchmark', b_mode: 'pipeline', b_sub: 'emanual', b_n: '5', b_seed: '1', a_prov: 'openai', a_model: 'answerer', a_base: `${llm.url}/v1`, a_k: '3', a_w: '0', a_thr: '0' });
      // Rerank on, without a cross-encoder loaded: the run says what to load (or change) instead of ignoring it.
      await page.goto(`${site}?${params}&a_rr=1&a_rrn=2`);
      expect(await page.locator('[data-testid=bench-pipeline-settings]').innerText()).toContain('rerank → 2');
      await page.locator('[data-testid=bench-run]').click();
      await expect.poll(() => page.locator('[data-testid=bench-error]').innerText().catch(() => ''), { timeout: 60_000 }).toMatch(/^Reranking needs a cross-encoder: load one under Settings → Models, or turn rerank off in the Ask tab\./);
      expect(llm.requests).toHaveLength(0);
      await page.goto(`${site}?${params}`);
      const chosen = 'sparse retrieval, top 3 · no rerank · no query transform · no sentence window · answers by openai/answerer';
      expect(await page.locator('[data-testid=bench-pipeline-settings]').innerText()).toContain(`taken from the Ask tab (change them there): ${chosen}`);
      await page.locator('[data-testid=bench-run]').click();
      await page.locator('[data-testid=pipeline-summary]').waitFor({ timeout: 90_000 });
      const row = await page.locator('[data-testid=pipeline-row]').first().innerText();
      expect(row).toMatch(/^emanual\s+5\s+5\s/);
      expect(await page.locator('[data-testid=pipeline-settings]').innerText()).toMatch(new RegExp(`^Ran: ${chosen} · config [0-9a-f]{24}$`));
      expect(await page.locator('[data-testid=pipeline-recall]').first().innerText()).toMatch(/^(0|1)\.\d{3}$/);
      // Honest statistics for pipeline runs too: the recall with its interval and n, and a warning for 5 questions.
      expect(await page.locator('[data-testid=pipeline-row] [data-metric=recall_at_k]').first().innerText()).toMatch(/^(0|1)\.\d{3} \[\d\.\d\d, \d\.\d\d\] n=5$/);
      expect(await page.locator('[data-testid=bench-warnings]').innerText()).toContain('emanual: gold-document recall@k from 5 scored rows: not meaningful (fewer than 10)');
      for (const req of llm.requests) {
        const user = (req.body as { messages: { content: string }[] }).messages.at(-1)!.content;
        expect((user.match(/<source id="\d+"/g) ?? []).length).toBeLessThanOrEqual(3);
      }
      expect(llm.requests.length).toBe(5);
      const prompt = JSON.stringify(llm.requests[0]!.body);
      expect(prompt).toContain('source');
    } finally {
      llm.fallback = judgeFallback;
    }
  });

  test('the local NLI evaluator runs in the browser with the fixture NLI model and cross-encoder', async () => {
    await useFixtureNli();
    await page.goto(`${site}?tab=benchmark&b_sub=emanual&b_n=5&b_eval=nli`);
    await page.locator('[data-testid=bench-run]').click();
    await expect.poll(() => page.locator('[data-testid=bench-error]').innerText().catch(() => ''), { timeout: 30_000 }).toMatch(/load it first/);
    await page.locator('[data-testid=bench-load-nli]').click();
    await expect.poll(() => page.locator('[data-testid=bench-load-nli]').innerText(), { timeout: 60_000 }).toBe('NLI models loaded');
    await page.locator('[data-testid=bench-run]').click();
    await expect.poll(() => page.locator('[data-testid=summary-row]').first().innerText().catch(() => ''), { timeout: 60_000 }).toMatch(/^emanual\s+5\s/);
    const adherence = await page.locator('[data-testid=bench-row] td:nth-child(5)').allInnerTexts();
    expect(adherence).toHaveLength(5);
    for (const a of adherence) expect(Number(a)).toBeGreaterThanOrEqual(0);
  });

  test('pipeline mode with the NLI evaluator runs offline with the fixture NLI model and shows RMSE / AUROC against gold', async () => {
    llm.reset();
    const judgeFallback = llm.fallback;
    llm.fallback = () => ({ sse: openaiStream(['According to the manual, open Settings [1].']) });
    try {
      await page.goto(`${site}?tab=benchmark`);
      await useFixtureNli();
      // Seed 0 samples one question whose RAGBench answer is labelled hallucinated among 5 (so the AUROC is defined).
      const params = new URLSearchParams({ tab: 'benchmark', b_mode: 'pipeline', b_eval: 'nli', b_sub: 'emanual', b_n: '5', b_seed: '0', a_prov: 'openai', a_model: 'answerer', a_base: `${llm.url}/v1`, a_k: '3', a_w: '0', a_thr: '0' });
      await page.goto(`${site}?${params}`);
      expect(await page.locator('[data-testid=bench-evaluator]').inputValue()).toBe('nli');
      await page.locator('[data-testid=bench-load-nli]').click();
      await expect.poll(() => page.locator('[data-testid=bench-load-nli]').innerText(), { timeout: 60_000 }).toBe('NLI models loaded');
      await page.locator('[data-testid=bench-run]').click();
      await page.locator('[data-testid=pipeline-summary]').waitFor({ timeout: 90_000 });
      const cell = (m: string) => page.locator(`[data-testid=pipeline-row] [data-metric=${m}]`).first().innerText();
      expect(await cell('rmse_relevance')).toMatch(/^\d\.\d{3} \[\d\.\d\d, \d\.\d\d\] n=5$/);
      expect(await cell('auroc')).toMatch(/^\d\.\d{3} .*n=5$/);
      // NLI has no gold answer to compare with in pipeline mode: completeness, and its RMSE, are absent.
      expect(await cell('rmse_completeness')).toMatch(/^N\/A .*n=0$/);
      expect(await page.locator('[data-testid=bench-warnings]').innerText()).toContain('emanual: AUROC from 1 hallucinated row: not meaningful');
      const note = await page.locator('[data-testid=pipeline-gold-note]').innerText();
      expect(note).toContain('Scored by Local NLI model (in this browser).');
      expect(note).toContain("RAGBench's gold labels judge RAGBench's own answer to each question, not ours");
      // The model was asked the 5 questions and nothing else: the NLI evaluator ran in the browser.
      expect(llm.requests).toHaveLength(5);
      // A judge evaluator in pipeline mode is the answering model: no judge settings, no second key.
      await page.selectOption('[data-testid=bench-evaluator]', 'llm');
      expect(await page.locator('[data-testid=bench-pipeline-judge]').innerText()).toMatch(/^The judge is the answering model \(openai\/answerer: the Ask tab's provider, endpoint and model\)/);
      expect(await page.locator('[data-testid=bench-model]').count()).toBe(0);
    } finally {
      llm.fallback = judgeFallback;
    }
  });

  test('after the models worker is replaced (a new thread count), the NLI evaluator reaches the new one', async () => {
    // The cross-origin-isolated copy of the site, where the thread count can change (its own storage: no cached rows).
    await page.goto(`${inject('isolatedSiteUrl')}?tab=benchmark&b_sub=emanual&b_n=5&b_eval=nli`);
    await page.evaluate((hub) => {
      const s = JSON.parse(localStorage.getItem('rag-lab:settings') ?? '{}');
      localStorage.setItem('rag-lab:settings', JSON.stringify({
        ...s, remoteHost: hub, threads: 'auto',
        nli: { id: 'rag-lab/tiny-nli', dtype: 'q8', device: 'wasm' },
        crossEncoder: { id: 'rag-lab/tiny-cross-encoder', dtype: 'q8', device: 'wasm' },
      }));
    }, inject('hubUrl'));
    await page.reload();
    await page.locator('[data-testid=bench-load-nli]').click();
    await expect.poll(() => page.locator('[data-testid=bench-load-nli]').innerText(), { timeout: 60_000 }).toBe('NLI models loaded');
    const cores = await page.evaluate(() => navigator.hardwareConcurrency);
    const next = Math.min(4, cores) === 1 ? null : 1;
    if (next !== null) {
      await page.click('[data-testid=tab-settings]');
      await page.selectOption('[data-testid=setting-threads]', String(next));
      await page.click('.settings-form button[type=submit]');
      await expect.poll(() => page.locator('[data-testid=loaded-models]').innerText(), { timeout: 60_000 }).toContain('rag-lab/tiny-nli (q8, wasm, 1 thread)');
      await page.click('[data-testid=tab-benchmark]');
    }
    await page.locator('[data-testid=bench-run]').click();
    await expect.poll(() => page.locator('[data-testid=summary-row]').first().innerText().catch(() => ''), { timeout: 60_000 }).toMatch(/^emanual\s+5\s/);
    expect(await page.locator('[data-testid=bench-row]').count()).toBe(5);
  });

  test('local files: a picked parquet and a JSONL with a BOM and a bad line, a dropped JSONL; the run uses them', async () => {
    await page.goto(`${site}?tab=benchmark&b_sub=emanual&b_n=10&b_eval=lexical`);
    const before = parquetHub.requests.length + viewer.requests.length;
    const lines = readJsonlRows(DATA, 'delucionqa').map((r) => JSON.stringify(r));
    lines[1] = lines[1]!.replace('"question":', '"question_":');
    await page.locator('[data-testid=bench-files]').setInputFiles([
      { name: 'mine.parquet', mimeType: 'application/octet-stream', buffer: Buffer.from(ragbenchParquet(readJsonlRows(DATA, 'covidqa'))) },
      { name: 'delucionqa-test.jsonl', mimeType: 'application/jsonl', buffer: Buffer.from('\ufeff' + lines.join('\n'), 'utf8') },
    ]);
    await expect.poll(() => page.locator('[data-testid=bench-local-file]').count(), { timeout: 60_000 }).toBe(2);
    const listed = await page.locator('[data-testid=bench-local-files]').innerText();
    expect(listed).toContain('mine.parquet: covidqa, 246 rows');
    expect(listed).toContain('delucionqa-test.jsonl: delucionqa, 183 rows, 1 skipped');
    expect(listed).toContain('delucionqa-test.jsonl line 2: question: missing');
    // A dropped file (subset named by its rows' dataset_name).
    const dropped = readJsonlRows(DATA, 'msmarco').slice(0, 15).map((r) => JSON.stringify(r)).join('\n');
    await page.evaluate((text) => {
      const dt = new DataTransfer();
      dt.items.add(new File([text], 'dropped.jsonl'));
      document.querySelector('[data-testid=bench-drop]')!.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
    }, dropped);
    await expect.poll(() => page.locator('[data-testid=bench-local-files]').innerText(), { timeout: 60_000 }).toContain('dropped.jsonl: msmarco, 15 rows');
    for (const s of ['emanual', 'delucionqa', 'msmarco']) await page.locator(`[data-testid=subset-${s}]`).uncheck();
    expect(await page.locator('[data-testid=subset-covidqa]').isChecked()).toBe(true);
    await page.locator('[data-testid=bench-run]').click();
    await expect.poll(() => page.locator('[data-testid=summary-row]').first().innerText().catch(() => ''), { timeout: 60_000 }).toMatch(/^covidqa\s+10\s/);
    expect(await page.locator('[data-testid=bench-row]').count()).toBe(10);
    // Nothing was fetched for it.
    expect(parquetHub.requests.length + viewer.requests.length).toBe(before);
  });

  test('offline, a fresh profile: nothing is preselected; a picked local file runs with the defaults, is remembered across a reload, and an unreachable subset is named and skipped', async () => {
    const probe = await listenLocal(createServer());
    const closed = `${probe.origin}/`;
    await probe.close();
    const host = new URL(closed).host;
    const offline = `Could not reach the Hugging Face Hub (${host}). You seem to be offline or the host is blocked: load the subset from a local file (jsonl or parquet) instead.`;
    const fresh = await launchBrowser();
    try {
      await fresh.context.addInitScript((h) => {
        const s = JSON.parse(localStorage.getItem('rag-lab:settings') ?? '{}');
        localStorage.setItem('rag-lab:settings', JSON.stringify({ ...s, datasetsHost: h, remoteHost: h }));
      }, closed);
      const p2 = await fresh.context.newPage();
      await p2.goto(`${site}?tab=benchmark`);
      // Nothing that needs the Hub is ticked, and Run says what to pick.
      await p2.locator('[data-testid=bench-run-hint]').filter({ hasText: 'Pick what to run' }).waitFor({ timeout: 60_000 });
      expect(await p2.locator('[data-testid=bench-drop] input[type=checkbox]:checked').count()).toBe(0);
      expect(await p2.locator('[data-testid=bench-run]').isDisabled()).toBe(true);
      await p2.locator('[data-testid=bench-files]').setInputFiles(join(DATA, 'covidqa.jsonl'));
      await expect.poll(() => p2.locator('[data-testid=bench-local-files]').innerText(), { timeout: 60_000 }).toContain('covidqa.jsonl: covidqa, 246 rows · remembered for your next visit');
      expect(await p2.locator('[data-testid=subset-covidqa]').isChecked()).toBe(true);
      await p2.locator('[data-testid=bench-run]').click();
      await expect.poll(() => p2.locator('[data-testid=summary-row]').first().innerText().catch(() => ''), { timeout: 60_000 }).toMatch(/^covidqa\s+20\s/);
      expect(await p2.locator('[data-testid=bench-error]').count()).toBe(0);
      expect(await p2.locator('[data-testid=bench-subset-state]').allInnerTexts()).toEqual(['covidqa: done']);
      // Finished: no "ETA …" left behind.
      expect(await p2.locator('[data-testid=bench-eta]').innerText()).toBe('');
      // A Hub subset ticked too: it is named and skipped, covidqa is still scored (from the cache).
      await p2.locator('[data-testid=subset-emanual]').check();
      await p2.locator('[data-testid=bench-run]').click();
      await p2.locator('[data-testid=bench-skipped]').waitFor({ timeout: 60_000 });
      expect(await p2.locator('[data-testid=bench-skipped]').innerText()).toContain(`emanual: ${offline}`);
      expect(await p2.locator('[data-testid=summary-row]').allInnerTexts()).toEqual([expect.stringMatching(/^covidqa\s+20\s/)]);
      expect(await p2.locator('[data-testid=bench-subset-state]').allInnerTexts()).toEqual(['covidqa: done', `emanual: skipped (${offline})`]);
      expect(await p2.locator('[data-testid=bench-error]').count()).toBe(0);
      // After a reload the file is read back from this browser and the run resumes from the cached rows.
      await p2.reload();
      await expect.poll(() => p2.locator('[data-testid=bench-local-files]').innerText(), { timeout: 60_000 }).toContain('covidqa.jsonl: covidqa, 246 rows · remembered from your last visit');
      await p2.locator('[data-testid=subset-emanual]').uncheck();
      await p2.locator('[data-testid=bench-run]').click();
      await expect.poll(() => p2.locator('[data-testid=summary-row]').first().innerText().catch(() => ''), { timeout: 60_000 }).toMatch(/^covidqa\s+20\s/);
      expect(await p2.locator('[data-testid=bench-progress]').innerText()).toContain('20 done (20 cached)');
      expect(await p2.locator('[data-testid=bench-skipped]').count()).toBe(0);
      // Only a subset that needs the Hub: the run fails naming it (no URL, no "Failed to fetch").
      await p2.locator('[data-testid=subset-covidqa]').uncheck();
      await p2.locator('[data-testid=subset-expertqa]').check();
      await p2.locator('[data-testid=bench-run]').click();
      await expect.poll(() => p2.locator('[data-testid=bench-error]').innerText().catch(() => ''), { timeout: 60_000 }).toBe(`expertqa could not be loaded: ${offline}`);
    } finally {
      await fresh.close();
    }
  });
});

/**
 * From the page, as a user in DevTools could: forgets every cached benchmark row, or edits the first two (a
 * relevance of 40, a wrong checksum). Resolves with how many records there were.
 */
function editResults(p: Page, how: 'clear' | 'tamper'): Promise<number> {
  return p.evaluate((how) => new Promise<number>((resolve, reject) => {
    const open = indexedDB.open('rag-lab');
    open.onerror = () => reject(open.error);
    open.onsuccess = () => {
      const db = open.result;
      const tx = db.transaction('results', 'readwrite');
      const store = tx.objectStore('results');
      const all = store.getAll();
      all.onsuccess = () => {
        const recs = all.result as Array<{ scores: Record<string, number>; checksum: string }>;
        if (how === 'clear') {
          store.clear();
        } else {
          store.put({ ...recs[0]!, scores: { ...recs[0]!.scores, relevance: 40 } });
          store.put({ ...recs[1]!, checksum: '0'.repeat(64) });
        }
        tx.oncomplete = () => { db.close(); resolve(recs.length); };
      };
      tx.onerror = () => reject(tx.error);
    };
  }), how);
}

describe('Benchmark tab: cached rows are checked', () => {
  test('edited records are recomputed and reported; the metrics equal the clean run', async () => {
    const summary = (p: Page) => p.locator('[data-testid=summary-row]').first().innerText();
    await page.goto(`${site}?tab=benchmark`);
    await editResults(page, 'clear');
    await page.goto(`${site}?tab=benchmark&b_sub=emanual&b_n=12&b_eval=lexical`);
    await page.locator('[data-testid=bench-run]').click();
    await page.locator('[data-testid=bench-summary]').waitFor({ timeout: 60_000 });
    const clean = await summary(page);
    expect(await page.locator('[data-testid=bench-cache-invalid]').count()).toBe(0);

    expect(await editResults(page, 'tamper')).toBe(12);
    await page.locator('[data-testid=bench-run]').click();
    await page.locator('[data-testid=bench-cache-invalid]').waitFor({ timeout: 60_000 });
    expect(await page.locator('[data-testid=bench-cache-invalid]').innerText()).toBe('emanual: 2 cached rows were invalid (edited or corrupted) and were recomputed.');
    expect(await summary(page)).toBe(clean);
    // The same settings over the same rows again: not a silent duplicate, the page offers replace or keep both.
    const name = 'RAGBench · emanual · lexical · seed 0 · N 12';
    await expect.poll(() => page.locator('[data-testid=report-duplicate]').innerText().catch(() => ''), { timeout: 30_000 }).toContain(`This run repeats “${name}”`);
    await page.locator('[data-testid=report-duplicate-replace]').click();
    await page.locator('[data-testid=tab-reports]').click();
    const named = page.locator('[data-testid=reports-list] [data-testid=report-item-title]', { hasText: name });
    await expect.poll(() => page.locator('[data-testid=reports-deleted] [data-testid=report-item-title]', { hasText: name }).count(), { timeout: 30_000 }).toBe(1);
    expect(await named.count()).toBe(1);
  });
});
