/**
 * "Score this answer" in the Ask tab of the built site, against a local OpenAI-compatible server: an answer scored
 * by the lexical evaluator (no request made) shows the four TRACe numbers with what each means; scored by the LLM
 * judge, the judge's request goes to the Ask tab's endpoint and model with its key, only after the user confirmed
 * that endpoint (it came from a link); a judge reply that cannot be used is an error, never a 0. A Benchmark
 * validate row opened in Ask brings its question, gold labels and RAGBench's response beside the score, and the
 * question is answered from its subset's documents (opened from the file the Benchmark tab remembered), whose
 * questions a picker offers.
 */
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, test } from 'vitest';
import type { Page } from 'playwright-core';
import { launchBrowser, type Browser } from '../helpers/browser.ts';
import { openaiCompletion, openaiStream, startLlmServer, type LlmServer } from '../helpers/llm-server.ts';
import { readJsonlRows } from '../helpers/ragbench-parquet.ts';

const site = inject('siteUrl');
const DATA = process.env.RAG_LAB_RAGBENCH ?? resolve(import.meta.dirname, '../../../shared/data/ragbench/test');
const KEY = 'sk-e2e-SCORE-0123456789';
let browser: Browser;
let page: Page;
let llm: LlmServer;

beforeAll(async () => {
  llm = await startLlmServer();
  browser = await launchBrowser();
  page = await browser.context.newPage();
});
afterAll(async () => {
  await browser?.close();
  await llm?.close();
});

const values = () => page.locator('[data-testid=score-line]').evaluateAll((rows) =>
  Object.fromEntries(rows.map((r) => [r.getAttribute('data-metric'), r.querySelector('[data-testid=score-value]')!.textContent!.trim()])));

describe('Ask tab: Score this answer', () => {
  test('lexical: four numbers with their meaning, and no request', async () => {
    const p = new URLSearchParams({ tab: 'ask', aq: 'What did Lincoln propose about emancipation?', a_prov: 'openai', a_base: `${llm.url}/v1`, a_model: 'test-model', a_w: '0' });
    await page.goto(`${site}?${p}`);
    await page.locator('[data-testid=kb-info]').waitFor({ timeout: 120_000 });
    await page.locator('[data-testid=api-key]').fill(KEY);
    await page.locator('[data-testid=api-key]').blur();
    llm.reply({ sse: openaiStream(['Lincoln proposed compensated emancipation [1].']) });
    await page.locator('[data-testid=ask-button]').click();
    // The base URL came from the link: the key goes there once the user confirms.
    await page.locator('[data-testid=key-confirm-send]').click({ timeout: 30_000 });
    await expect.poll(() => page.locator('[data-testid=answer]').innerText().catch(() => ''), { timeout: 30_000 }).toMatch(/compensated emancipation/);
    const before = llm.requests.length;
    expect(await page.locator('[data-testid=score-evaluator]').inputValue()).toBe('lexical');
    await page.locator('[data-testid=score-answer]').click();
    await page.locator('[data-testid=score-table][data-evaluator=lexical]').waitFor({ timeout: 30_000 });
    const v = await values();
    expect(Object.keys(v)).toEqual(['relevance', 'utilization', 'completeness', 'adherence']);
    for (const m of ['relevance', 'utilization', 'adherence']) expect(v[m]).toMatch(/^[01]\.\d{3}$/);
    expect(v['completeness']).toMatch(/^([01]\.\d{3}|— \(nothing in the sources is relevant\))$/);
    expect(await page.locator('[data-testid=score-line][data-metric=utilization]').innerText()).toContain('share of the sources the answer uses');
    expect(llm.requests.length).toBe(before);
  });

  test('the LLM judge: the Ask tab\'s endpoint, model and key; its keys give the numbers', async () => {
    await page.locator('[data-testid=score-evaluator]').selectOption('llm');
    llm.reply(openaiCompletion(JSON.stringify({ overall_supported: true, all_relevant_sentence_keys: ['0a'], all_utilized_sentence_keys: ['0a'] })));
    const before = llm.requests.length;
    await page.locator('[data-testid=score-answer]').click();
    await page.locator('[data-testid=score-table][data-evaluator=llm]').waitFor({ timeout: 30_000 });
    // Confirmed when asking, the endpoint is the user's now: no second question.
    expect(await page.locator('[data-testid=key-confirm]').count()).toBe(0);
    expect(llm.requests.length - before).toBe(1);
    const req = llm.requests.at(-1)!;
    expect(req.path).toBe('/v1/chat/completions');
    expect(req.headers.authorization).toBe(`Bearer ${KEY}`);
    const body = req.body as { model: string; stream?: boolean; messages: Array<{ content: string }> };
    expect(body.model).toBe('test-model');
    expect(body.stream ?? false).toBe(false);
    expect(body.messages.at(-1)!.content).toContain('compensated emancipation');
    const v = await values();
    expect(v['adherence']).toBe('1.000');
    expect(v['completeness']).toBe('1.000');
    expect(Number(v['relevance'])).toBeGreaterThan(0);
    expect(page.url()).not.toContain('SCORE');
  });

  test('a judge reply that cannot be used is an error, not a 0', async () => {
    llm.reply(openaiCompletion('The answer looks fine to me.'));
    await page.locator('[data-testid=score-answer]').click();
    await expect.poll(() => page.locator('[data-testid=score-error]').innerText().catch(() => ''), { timeout: 30_000 }).toMatch(/judge's reply could not be used .*no score/);
    expect(await page.locator('[data-testid=score-table]').count()).toBe(0);
  });

  test('a judge on an endpoint from a link: the key goes there only after the user confirms', async () => {
    const p = await browser.context.newPage();
    try {
      // Asked without a key (the local server takes none), then the key typed while the link's base URL shows: it
      // is entered for the provider's default endpoint, so the judge's request has to ask first.
      const q = new URLSearchParams({ tab: 'ask', aq: 'What did Lincoln propose?', a_prov: 'openai', a_base: `${llm.url}/v1`, a_model: 'test-model', a_w: '0' });
      await p.goto(`${site}?${q}`);
      await p.locator('[data-testid=kb-info]').waitFor({ timeout: 120_000 });
      llm.reply({ sse: openaiStream(['Lincoln proposed compensated emancipation [1].']) });
      await p.locator('[data-testid=ask-button]').click();
      await expect.poll(() => p.locator('[data-testid=answer]').innerText().catch(() => ''), { timeout: 30_000 }).toMatch(/compensated emancipation/);
      expect(llm.requests.at(-1)!.headers.authorization).toBeUndefined();
      await p.locator('[data-testid=api-key]').fill(KEY);
      await p.locator('[data-testid=api-key]').blur();
      await p.locator('[data-testid=score-evaluator]').selectOption('llm');
      const before = llm.requests.length;
      await p.locator('[data-testid=score-answer]').click();
      expect(await p.locator('[data-testid=key-confirm]').getAttribute('data-host', { timeout: 30_000 })).toBe(new URL(llm.url).host);
      await p.locator('[data-testid=key-confirm-cancel]').click();
      await expect.poll(() => p.locator('[data-testid=score-error]').innerText().catch(() => ''), { timeout: 30_000 }).toMatch(/not sent|nothing was sent/i);
      expect(llm.requests.length).toBe(before);
      llm.reply(openaiCompletion(JSON.stringify({ overall_supported: false, all_relevant_sentence_keys: ['0a'], all_utilized_sentence_keys: [] })));
      await p.locator('[data-testid=score-answer]').click();
      await p.locator('[data-testid=key-confirm-send]').click({ timeout: 30_000 });
      await p.locator('[data-testid=score-table][data-evaluator=llm]').waitFor({ timeout: 30_000 });
      expect(llm.requests.length - before).toBe(1);
      expect(llm.requests.at(-1)!.headers.authorization).toBe(`Bearer ${KEY}`);
      expect(await p.locator('[data-testid=score-line][data-metric=adherence] [data-testid=score-value]').innerText()).toBe('0.000');
    } finally {
      await p.close();
    }
  });

  test('Open in Ask: a validate row\'s question, gold labels and response beside the score', async () => {
    const p = await browser.context.newPage();
    try {
      const rows = readJsonlRows(DATA, 'emanual').slice(0, 5) as Array<Record<string, unknown>>;
      // The Ask tab's settings ride along: the loopback endpoint (no key) and no rejection (the question is emanual's,
      // the knowledge base the State of the Union addresses).
      const ask = new URLSearchParams({ a_prov: 'openai', a_base: `${llm.url}/v1`, a_model: 'test-model', a_w: '0', a_thr: '0' });
      await p.goto(`${site}?tab=benchmark&b_n=5&b_eval=lexical&${ask}`);
      await p.locator('[data-testid=bench-files]').setInputFiles([{ name: 'emanual.jsonl', mimeType: 'application/jsonl', buffer: Buffer.from(rows.map((r) => JSON.stringify(r)).join('\n')) }]);
      await expect.poll(() => p.locator('[data-testid=bench-local-file]').count(), { timeout: 60_000 }).toBe(1);
      await p.locator('[data-testid=bench-run]').click();
      await p.locator('[data-testid=bench-row]').first().click({ timeout: 60_000 });
      const question = (await p.locator('[data-testid=bench-detail] h3').innerText()).trim();
      const row = rows.find((r) => String(r['question']).trim() === question)!;
      await p.locator('[data-testid=open-in-ask]').click();
      expect(await p.locator('[data-testid=tab-ask]').getAttribute('aria-selected')).toBe('true');
      expect((await p.locator('[data-testid=question]').inputValue()).trim()).toBe(question);
      const gold = p.locator('[data-testid=gold-question][data-subset=emanual]');
      expect((await gold.locator('[data-testid=gold-response]').innerText()).trim()).toBe(String(row['response']).trim());
      const label = (x: unknown) => (x === null ? 'N/A' : (x as number).toFixed(3));
      const want = [label(row['relevance_score']), label(row['utilization_score']), label(row['completeness_score']), row['adherence_score'] === null ? 'N/A' : row['adherence_score'] ? '1 (supported)' : '0 (hallucinated)'];
      expect(await gold.locator('[data-testid=gold-labels] td').allInnerTexts()).toEqual(want);
      // The open knowledge base is the State of the Union: the panel says so and offers the subset's own documents,
      // which open from the file the Benchmark tab remembered (no Hub here).
      expect(await p.locator('[data-testid=gold-source]').getAttribute('data-own')).toBe('false');
      await p.locator('[data-testid=open-gold-subset]').click();
      await expect.poll(() => p.locator('[data-testid=kb-select]').inputValue(), { timeout: 60_000 }).toBe('ragbench:emanual');
      await expect.poll(() => p.locator('[data-testid=gold-source]').getAttribute('data-own').catch(() => null), { timeout: 60_000 }).toBe('true');
      expect(await p.locator('[data-testid=kb-description]').innerText()).toMatch(/RAGBench's emanual test questions \(5 questions, read from the file emanual\.jsonl/);
      // The subset's questions are offered, the one opened selected; the question stays, with its gold.
      const picker = p.locator('[data-testid=gold-picker]');
      expect(await picker.locator('option:not([disabled])').count()).toBe(new Set(rows.map((r) => String(r['question']).trim())).size);
      expect((await picker.locator('option:checked').innerText()).trim()).toBe(question.length > 140 ? `${question.slice(0, 140)}…` : question);
      expect((await p.locator('[data-testid=question]').inputValue()).trim()).toBe(question);
      // Asked and scored: answered from the subset's documents, the gold labels beside the evaluator's numbers.
      llm.reply({ sse: openaiStream(['The manual says to press the power button [1].']) });
      const sent = llm.requests.length;
      await p.locator('[data-testid=ask-button]').click();
      await expect.poll(() => llm.requests.length, { timeout: 30_000 }).toBeGreaterThan(sent);
      const prompt = JSON.stringify(llm.requests.at(-1)!.body);
      const docs = rows.flatMap((r) => r['documents'] as string[]);
      expect(docs.some((d) => prompt.includes(JSON.stringify(d.trim().slice(0, 60)).slice(1, -1)))).toBe(true);
      expect(prompt).not.toMatch(/Fellow-Citizens|Union/);
      await expect.poll(() => p.locator('[data-testid=answer]').innerText().catch(() => ''), { timeout: 30_000 }).toMatch(/power button/);
      await p.locator('[data-testid=score-answer]').click();
      await p.locator('[data-testid=score-table][data-evaluator=lexical]').waitFor({ timeout: 30_000 });
      expect(await p.locator('[data-testid=score-gold]').allInnerTexts()).toEqual(want);
      // Another question of the subset from the picker: its own gold and response.
      const other = rows.find((r) => String(r['question']).trim() !== question)!;
      // The picker lists the subset's questions in row order, each once.
      const listed = [...new Set(rows.map((r) => String(r['question']).trim()))];
      await picker.selectOption({ value: String(listed.indexOf(String(other['question']).trim())) });
      expect((await p.locator('[data-testid=question]').inputValue()).trim()).toBe(String(other['question']).trim());
      expect((await gold.locator('[data-testid=gold-response]').innerText()).trim()).toBe(String(other['response']).trim());
      await p.screenshot({ path: 'test-results/score-answer.png', fullPage: true });
    } finally {
      await p.close();
    }
  });
});
