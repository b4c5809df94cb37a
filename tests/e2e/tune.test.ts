/**
 * The Tune panel in the built site on the embedded knowledge base: a test set written by a loopback OpenAI-compatible
 * provider with scripted questions (junk, an "unanswerable", copied spans among them: dropped and counted), a tune in
 * the tab, Adopt after its diff, and the Search tab then searching with the adopted BM25 (its k1 / b in the link and
 * the scores). The key goes to the provider only, never into the link.
 */
import { afterAll, beforeAll, describe, expect, inject, test } from 'vitest';
import type { Page } from 'playwright-core';
import { launchBrowser, type Browser } from '../helpers/browser.ts';
import { openaiCompletion, openaiError, startLlmServer, type LlmServer } from '../helpers/llm-server.ts';
import { openWithFixtureModels, prebuiltVectors, waitForDense } from '../helpers/models-page.ts';

const site = inject('siteUrl');
const KEY = 'sk-e2e-TUNE-0123456789';
let llm: LlmServer;
const browsers: Browser[] = [];

/** The passage a test-set request asks about (tune/llm-test-set.ts testSetMessages). */
function passageOf(body: unknown): string {
  const user = (body as { messages: Array<{ role: string; content: string }> }).messages.find((m) => m.role === 'user')?.content ?? '';
  return /Passage:\n([\s\S]*?)\n\nReply with/.exec(user)?.[1] ?? '';
}
const words = (s: string) => s.split(/\s+/).filter((w) => /\w/.test(w));

beforeAll(async () => {
  llm = await startLlmServer();
});
afterAll(async () => {
  for (const b of browsers) await b.close();
  await llm?.close();
});

let page: Page;
const text = (sel: string) => page.locator(sel).innerText().catch(() => '');

/** A fresh profile on the link's Search settings (`search`) and the loopback provider, the key typed, the Tune panel open. */
async function openPanel(search: Record<string, string> = {}): Promise<void> {
  const browser = await launchBrowser();
  browsers.push(browser);
  page = await browser.context.newPage();
  const p = new URLSearchParams({ tab: 'ask', ...search, a_prov: 'openai', a_base: `${llm.url}/v1`, a_model: 'test-model' });
  await page.goto(`${site}?${p}`);
  await page.locator('[data-testid=kb-info]').waitFor({ timeout: 120_000 });
  await page.locator('[data-testid=api-key]').fill(KEY);
  await page.locator('[data-testid=api-key]').blur();
  await page.locator('[data-testid=tab-benchmark]').click();
  await page.locator('[data-testid=bench-kind-tune]').check();
  await page.locator('[data-testid=tune-panel]').waitFor();
  await page.locator('[data-testid=tune-no-sets]').waitFor();
}

/** Writes a test set: the base URL came from the link, so the key goes there once the user confirms. */
async function write(): Promise<void> {
  await page.locator('[data-testid=tune-write]').click();
  await page.locator('[data-testid=tune-panel] [data-testid=key-confirm-send]').click({ timeout: 30_000 });
}

describe('Tune panel', () => {
  test('an LLM-written test set, a tune, Adopt, and the Search tab runs the adopted setting', async () => {
    // The Search tab starts with k1 = 0 (from the link): every trial of the space has another k1, so Adopt changes it.
    await openPanel({ k1: '0' });
    const before = llm.requests.length;
    // Every 6th reply is junk, every 6th + 1 "unanswerable", every 6th + 2 copies 10 words of the passage; the others ask
    // with every other word of the passage (no run of 8), which BM25 can find.
    llm.fallback = (req) => {
      const i = llm.requests.length - 1 - before;
      const w = words(passageOf(req.body));
      if (i % 6 === 0) return openaiCompletion('Sure! Here is a great question about the passage.');
      if (i % 6 === 1) return openaiCompletion(JSON.stringify({ question: '', answerable: false }));
      if (i % 6 === 2) return openaiCompletion(JSON.stringify({ question: `${w.slice(0, 10).join(' ')}?`, answerable: true }));
      return openaiCompletion(JSON.stringify({ question: `${w.filter((_, k) => k % 2 === 0).slice(0, 9).join(' ')}?`, answerable: true }));
    };

    // The cost estimate comes before any call.
    await page.locator('[data-testid=tune-n]').fill('36');
    await page.locator('[data-testid=tune-estimate]').click();
    await expect.poll(() => text('[data-testid=tune-estimate-text]')).toMatch(/36 chunks → 36 calls, ~[\d,]+ input/);
    expect(llm.requests.length - before).toBe(0);

    await write();
    const set = page.locator('[data-testid=tune-set]').first();
    await set.waitFor({ timeout: 60_000 });
    expect(llm.requests.length - before).toBe(36);
    expect(llm.requests.slice(before).every((r) => r.headers.authorization === `Bearer ${KEY}`)).toBe(true);
    const setText = await set.innerText();
    // 36 asked: 6 junk, 6 unanswerable, 6 copied; the other 18 written, less any that repeat an earlier question.
    const written = Number(/(\d+) questions by test-model/.exec(setText)?.[1]);
    const repeated = Number(/(\d+) questions? repeated/.exec(setText)?.[1] ?? 0);
    expect(written + repeated).toBe(18);
    expect(written).toBeGreaterThanOrEqual(10);
    expect(setText).toMatch(/6 replies were not a JSON question: dropped/);
    expect(setText).toMatch(/6 chunks were marked unanswerable by the model: dropped/);
    expect(setText).toMatch(/6 questions copied 8 or more consecutive words of its chunk: dropped/);
    expect(setText).toMatch(/promptVersion testset-v1/);

    // The tune: BM25 (the only mode without an embedder), 8 trials, k1 and b narrowed in the space, MRR@10 the objective.
    await page.locator('[data-testid=tune-budget]').fill('8');
    await page.locator('[data-testid=tune-space] summary').click();
    await page.locator('[data-testid=tune-space-k1]').fill('0.6, 1.2, 1.5, 2');
    await page.locator('[data-testid=tune-space-b]').fill('0.4,0.9');
    await page.locator('[data-testid=tune-objective]').selectOption('mrr@10');
    await page.locator('[data-testid=tune-run]').click();
    const result = page.locator('[data-testid=tune-result]');
    await result.waitFor({ timeout: 120_000 });
    expect(await text('[data-testid=tune-verdict]')).toMatch(/held-out|cannot be told apart|better|worse/i);
    expect(await text('[data-testid=tune-identity]')).toMatch(/8 trials of [\d,]+ settings · split seed 0: \d+ tuning, \d+ held-out questions/);
    expect(await page.locator('[data-testid=tune-trials] tbody tr').count()).toBe(8);
    expect(await text('[data-testid=tune-trials] thead')).toContain('mrr@10');
    for (const label of await page.locator('[data-testid=tune-trials] tbody tr td:nth-child(2)').allInnerTexts()) {
      expect(label).toMatch(/^sparse( --k1 (0\.6|1\.2|1\.5|2))?( --b (0\.4|0\.9))?$/);
    }
    await expect.poll(() => page.locator('[data-testid=tune-front]').getAttribute('data-rendered'), { timeout: 60_000 }).toBe('true');
    // Saved as a draft report: the Reports tab lists it, and it opens as a tune with the same verdict.
    const verdict = await text('[data-testid=tune-verdict]');
    const id = await page.locator('[data-testid=tune-report-saved]').getAttribute('data-id');
    await page.locator('[data-testid=tab-reports]').click();
    const item = page.locator(`[data-testid=report-item][data-id="${id}"]`);
    await item.waitFor({ timeout: 30_000 });
    expect(await item.getAttribute('data-draft')).toBe('true');
    await item.locator('[data-testid=report-open]').click();
    const opened = page.locator(`[data-testid=report-opened][data-id="${id}"]`);
    await opened.locator('[data-testid=tune-verdict]').waitFor({ timeout: 30_000 });
    expect(await opened.locator('[data-testid=report-view]').getAttribute('data-kind')).toBe('tune');
    expect(await opened.locator('[data-testid=tune-verdict]').innerText()).toBe(verdict);
    await page.locator('[data-testid=tab-benchmark]').click();

    // Adopt: the diff first (k1 from 0), then Search and its link take the winner.
    await page.locator('[data-testid=tune-adopt]').click();
    const diff = await text('[data-testid=tune-diff]');
    expect(diff).toMatch(/k1: 0 → (0\.6|1\.2|1\.5|2)\b/);
    expect(new URL(page.url()).searchParams.get('k1')).toBe('0');
    await page.locator('[data-testid=tune-adopt-confirm]').click();
    await page.locator('[data-testid=tune-adopted]').waitFor();
    const adoptedK1 = /k1: 0 → ([\d.]+)/.exec(diff)![1]!;
    await expect.poll(() => new URL(page.url()).searchParams.get('k1')).toBe(adoptedK1);
    expect(page.url()).not.toContain('SECRET');
    expect(page.url()).not.toContain(KEY);

    // The Search tab runs it: its k1 field holds the adopted value, and the scores are BM25's under it (not k1 = 0's).
    await page.locator('[data-testid=tab-search]').click();
    expect(await page.locator('[data-testid=k1]').inputValue()).toBe(adoptedK1);
    await page.locator('[data-testid=query]').fill('tax relief for families');
    await page.locator('[data-testid=query]').press('Enter');
    const top = page.locator('[data-testid=hit]').first();
    await top.waitFor({ timeout: 30_000 });
    const adoptedScore = Number(await top.getAttribute('data-score'));
    await page.locator('[data-testid=k1]').fill('0');
    await page.locator('[data-testid=query]').press('Enter');
    await expect.poll(async () => Number(await page.locator('[data-testid=hit]').first().getAttribute('data-score')), { timeout: 30_000 }).not.toBe(adoptedScore);
  });

  test('a 429 is waited out; Cancel mid-way keeps the replies that came, and writing again asks only for the rest', async () => {
    // Slow replies (so Cancel lands mid-way); the first is a 429 with Retry-After: 1, which the provider waits out.
    const before = llm.requests.length;
    let n = 0;
    llm.fallback = (req) => {
      n++;
      if (n === 1) return openaiError(429, 'rate limited', { 'retry-after': '1' });
      const w = words(passageOf(req.body));
      return { ...openaiCompletion(JSON.stringify({ question: `${w.filter((_, k) => k % 2 === 0).slice(0, 9).join(' ')} ${n}?` })), delayMs: 400 };
    };
    await openPanel();
    await page.locator('[data-testid=tune-n]').fill('12');
    await page.locator('[data-testid=tune-seed]').fill('7');
    await write();
    await expect.poll(() => llm.requests.length - before, { timeout: 30_000 }).toBeGreaterThanOrEqual(5);
    await page.locator('[data-testid=tune-cancel]').click();
    await expect.poll(() => text('[data-testid=tune-error]')).toMatch(/Cancelled: the replies that came are cached/);
    const sent = llm.requests.length - before;
    expect(sent).toBeLessThan(13);
    // Again (the key is bound to the endpoint now): the cached replies are not asked for.
    await page.locator('[data-testid=tune-write]').click();
    await expect.poll(() => text('[data-testid=tune-set]:first-child'), { timeout: 60_000 }).toMatch(/seed 7/);
    const first = await text('[data-testid=tune-set]:first-child');
    const cached = Number(/cached (\d+)/.exec(first)?.[1]);
    // At least the replies that came before Cancel (the 429 and those in flight aside); the rest asked once each.
    expect(cached).toBeGreaterThanOrEqual(sent - 3);
    expect(llm.requests.length - before - sent).toBe(12 - cached);
    expect(first).toMatch(/(\d+) questions by test-model/);
  });
});


describe('Tune panel with a dense side', () => {
  test('another embedder joins the dense modes: loaded for the tune in the search worker, its trials named, the Search tab keeps its own', async () => {
    const browser = await launchBrowser();
    browsers.push(browser);
    page = await openWithFixtureModels(browser, inject('hubUrl'), prebuiltVectors());
    await page.goto(`${site}?tab=search`);
    await waitForDense(page);
    const denseInfo = await text('[data-testid=dense-info]');
    await page.locator('[data-testid=tab-benchmark]').click();
    await page.locator('[data-testid=bench-kind-tune]').check();
    await page.locator('[data-testid=tune-pseudo-n]').fill('30');
    await page.locator('[data-testid=tune-pseudo]').click();
    await page.locator('[data-testid=tune-set]').first().waitFor({ timeout: 60_000 });
    for (const m of ['rrf', 'hybrid_fixed', 'hybrid_calibrated']) await page.locator(`[data-testid=tune-mode-${m}]`).uncheck();
    await page.locator('[data-testid=tune-mode-dense]').check();
    await page.locator('[data-testid=tune-space] summary').click();
    for (const [flag, v] of [['k1', '0.9'], ['b', '0.4'], ['index', 'auto']]) await page.locator(`[data-testid=tune-space-${flag}]`).fill(v!);
    // The same fixture model at another dtype: another embedder (its own vectors and query embeddings).
    await page.locator('[data-testid=tune-embedders]').fill('rag-lab/tiny-embedder@fp32');
    await page.locator('[data-testid=tune-budget]').fill('10');
    await page.locator('[data-testid=tune-run]').click();
    await page.locator('[data-testid=tune-result]').waitFor({ timeout: 240_000 });
    const labels = await page.locator('[data-testid=tune-trials] tbody tr td:nth-child(2)').allInnerTexts();
    expect(labels.sort()).toEqual(['dense', 'dense --embedder rag-lab/tiny-embedder@fp32', 'sparse']);
    expect(await text('[data-testid=tune-identity]')).toContain('embedder rag-lab/tiny-embedder@q8');
    expect(await text('[data-testid=tune-result]')).toContain('other embedders in the space (dense): rag-lab/tiny-embedder@fp32');
    // The Search tab's dense side is still the loaded embedder's.
    await page.locator('[data-testid=tab-search]').click();
    expect(await text('[data-testid=dense-info]')).toBe(denseInfo);
  });
});
