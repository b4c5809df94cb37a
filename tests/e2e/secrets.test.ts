/**
 * Secrets go only where the user sent them, in the built site: a crafted link (Ask, Benchmark judge, Benchmark
 * pipeline) that points a remembered key at another local server never gets the key sent there: the page asks,
 * showing the host, and Cancel sends nothing; after Send the key goes there (and is bound there). A typed base URL
 * to another host asks too; a stored key of the old shape (a bare string) stays with the provider's default endpoint;
 * an unreadable stored record is dropped with a message.
 */
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, test } from 'vitest';
import type { Page } from 'playwright-core';
import { launchBrowser, type Browser } from '../helpers/browser.ts';
import { openaiCompletion, openaiStream, startLlmServer, type LlmServer } from '../helpers/llm-server.ts';
import { serveViewer, useViewer, type ViewerServer } from '../helpers/viewer-server.ts';

const site = inject('siteUrl');
const DATA = process.env.RAG_LAB_RAGBENCH ?? resolve(import.meta.dirname, '../../../shared/data/ragbench/test');
const KEY = 'sk-e2e-REMEMBERED-0123456789';
const QUESTION = 'What did Lincoln propose about emancipation?';
let browser: Browser;
let page: Page;
let viewer: ViewerServer;
/** The server the user chose for the key. */
let home: LlmServer;
/** Servers that only crafted links point at. */
let evil: LlmServer;
let evilJudge: LlmServer;
let evilPipeline: LlmServer;

const hostOf = (s: LlmServer) => new URL(s.url).host;
/** Requests that carried the key (the only thing that must never reach an unconfirmed host). */
const withKey = (s: LlmServer) => s.requests.filter((r) => JSON.stringify(r.headers).includes('REMEMBERED'));

beforeAll(async () => {
  viewer = await serveViewer(DATA);
  [home, evil, evilJudge, evilPipeline] = await Promise.all([startLlmServer(), startLlmServer(), startLlmServer(), startLlmServer()]);
  const answer = () => ({ sse: openaiStream(['Lincoln proposed compensated emancipation [1].']) });
  home.fallback = answer;
  evil.fallback = answer;
  evilPipeline.fallback = answer;
  evilJudge.fallback = () => openaiCompletion(JSON.stringify({
    overall_supported: true, all_relevant_sentence_keys: ['0a'], all_utilized_sentence_keys: ['0a'], sentence_support_information: [],
  }));
  browser = await launchBrowser();
  page = await browser.context.newPage();
  await useViewer(page, viewer.url);
});
afterAll(async () => {
  await browser?.close();
  await Promise.all([viewer?.close(), home?.close(), evil?.close(), evilJudge?.close(), evilPipeline?.close()]);
});

function askLink(params: Record<string, string>): string {
  return `${site}?${new URLSearchParams({ tab: 'ask', aq: QUESTION, a_prov: 'openai', a_model: 'test-model', a_w: '0', ...params })}`;
}

async function ready(p: Page) {
  await p.locator('[data-testid=kb-info]').waitFor({ timeout: 120_000 });
}

async function question(p: Page): Promise<{ host: string | null; text: string }> {
  const box = p.locator('[data-testid=key-confirm]');
  await box.waitFor({ timeout: 30_000 });
  return { host: await box.getAttribute('data-host'), text: await p.locator('[data-testid=key-confirm-question]').innerText() };
}

async function answered(p: Page) {
  await expect.poll(() => p.locator('[data-testid=answer]').innerText().catch(() => ''), { timeout: 60_000 }).toMatch(/compensated emancipation/);
}

describe('a crafted link cannot redirect a key', () => {
  test('Ask: a remembered key goes to the endpoint it was entered for without asking', async () => {
    await page.goto(askLink({}));
    await ready(page);
    await page.locator('[data-testid=base-url]').fill(`${home.url}/v1`);
    await page.locator('[data-testid=base-url]').blur();
    await page.locator('[data-testid=api-key]').fill(KEY);
    await page.locator('[data-testid=api-key]').blur();
    await page.locator('[data-testid=remember-key]').check();
    await page.locator('[data-testid=ask-button]').click();
    await answered(page);
    expect(withKey(home)).toHaveLength(1);
    expect(withKey(home)[0]!.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(await page.locator('[data-testid=key-confirm]').count()).toBe(0);
    expect(await page.locator('[data-testid=key-host]').innerText()).toBe(`key entered for ${hostOf(home)}`);
  });

  test('Ask: a link pointing the remembered key elsewhere asks, showing the host; Cancel sends nothing, Send sends it', async () => {
    await page.goto(askLink({ a_base: `${evil.url}/v1` }));
    await ready(page);
    // The remembered key is back (read from IndexedDB) and the link's base URL is shown.
    await expect.poll(() => page.locator('[data-testid=api-key]').inputValue(), { timeout: 30_000 }).toBe(KEY);
    expect(await page.locator('[data-testid=base-url]').inputValue()).toBe(`${evil.url}/v1`);

    await page.locator('[data-testid=ask-button]').click();
    const q = await question(page);
    expect(q.host).toBe(hostOf(evil));
    expect(await page.locator('[data-testid=ask-button]').isDisabled()).toBe(true); // one question at a time
    expect(q.text).toBe(`This base URL came from a link, not from you. Your OpenAI-compatible key was entered for ${hostOf(home)}. Send it to ${hostOf(evil)}?`);
    expect(evil.requests).toHaveLength(0);

    await page.locator('[data-testid=key-confirm-cancel]').click();
    const refused = await page.locator('[data-testid=ask-config-error]').innerText({ timeout: 30_000 });
    expect(refused).toContain(`Not sent: your OpenAI-compatible key was not sent to ${hostOf(evil)}`);
    expect(refused).toContain('no request was made');
    expect(evil.requests).toHaveLength(0);
    expect(await page.locator('[data-testid=key-confirm]').count()).toBe(0);
    expect(page.url()).not.toContain('REMEMBERED');

    await page.locator('[data-testid=ask-button]').click();
    expect((await question(page)).host).toBe(hostOf(evil));
    expect(evil.requests).toHaveLength(0);
    await page.locator('[data-testid=key-confirm-send]').click();
    await answered(page);
    expect(withKey(evil)).toHaveLength(1);
    expect(withKey(evil)[0]!.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(await page.locator('[data-testid=key-host]').innerText()).toBe(`key entered for ${hostOf(evil)}`);

    // Confirmed: the key is bound there now, so the next question goes without asking.
    await page.locator('[data-testid=ask-button]').click();
    await expect.poll(() => withKey(evil).length, { timeout: 60_000 }).toBe(2);
    expect(await page.locator('[data-testid=key-confirm]').count()).toBe(0);
  });

  test('Ask: typing a base URL of another host asks too, showing it', async () => {
    const before = home.requests.length;
    await page.locator('[data-testid=base-url]').fill(`${home.url}/v1`);
    await page.locator('[data-testid=base-url]').blur();
    await page.locator('[data-testid=ask-button]').click();
    const q = await question(page);
    expect(q.host).toBe(hostOf(home));
    expect(q.text).toBe(`Your OpenAI-compatible key was entered for ${hostOf(evil)}. Send it to ${hostOf(home)}?`);
    await page.locator('[data-testid=key-confirm-cancel]').click();
    await page.locator('[data-testid=ask-config-error]').waitFor({ timeout: 30_000 });
    expect(home.requests.length).toBe(before);
  });

  test('Benchmark LLM judge: a link pointing the key at another host asks; Cancel sends nothing, Send sends it', async () => {
    const params = new URLSearchParams({ tab: 'benchmark', b_sub: 'emanual', b_n: '2', b_seed: '3', b_eval: 'llm', b_prov: 'openai', b_model: 'judge', b_base: `${evilJudge.url}/v1` });
    await page.goto(`${site}?${params}`);
    await page.locator('[data-testid=bench-run]').click();
    const q = await question(page);
    expect(q.host).toBe(hostOf(evilJudge));
    expect(q.text).toContain(`Send it to ${hostOf(evilJudge)}?`);
    await page.locator('[data-testid=key-confirm-cancel]').click();
    expect(await page.locator('[data-testid=bench-error]').innerText({ timeout: 30_000 })).toContain(`not sent to ${hostOf(evilJudge)}`);
    expect(evilJudge.requests).toHaveLength(0);

    await page.locator('[data-testid=bench-run]').click();
    expect((await question(page)).host).toBe(hostOf(evilJudge));
    await page.locator('[data-testid=key-confirm-send]').click();
    await page.locator('[data-testid=bench-summary]').waitFor({ timeout: 90_000 });
    expect(evilJudge.requests.length).toBeGreaterThanOrEqual(2);
    for (const r of evilJudge.requests) expect(r.headers.authorization).toBe(`Bearer ${KEY}`);
  });

  test('Benchmark pipeline: a link pointing the key at another host asks first and sends nothing on Cancel', async () => {
    // Pipeline mode answers with the Ask tab's provider and endpoint, so a crafted link sets those (a_ parameters).
    const params = new URLSearchParams({ tab: 'benchmark', b_mode: 'pipeline', b_sub: 'emanual', b_n: '2', b_seed: '1', a_prov: 'openai', a_model: 'answerer', a_base: `${evilPipeline.url}/v1` });
    await page.goto(`${site}?${params}`);
    await page.locator('[data-testid=bench-run]').click();
    expect((await question(page)).host).toBe(hostOf(evilPipeline));
    await page.locator('[data-testid=key-confirm-cancel]').click();
    expect(await page.locator('[data-testid=bench-error]').innerText({ timeout: 30_000 })).toContain(`not sent to ${hostOf(evilPipeline)}`);
    expect(evilPipeline.requests).toHaveLength(0);
  });
});

describe('stored keys', () => {
  test('a key stored in the old shape stays with the provider default endpoint; an unreadable record is dropped with a message', async () => {
    await page.goto(askLink({}));
    await ready(page);
    await page.evaluate(async () => {
      const db = await new Promise<IDBDatabase>((ok, fail) => {
        const r = indexedDB.open('rag-lab-secrets', 1);
        r.onsuccess = () => ok(r.result);
        r.onerror = () => fail(r.error);
      });
      await new Promise<void>((ok, fail) => {
        const tx = db.transaction('keys', 'readwrite');
        tx.objectStore('keys').put('gsk_LEGACYlegacyLEGACY0123', 'groq');
        tx.objectStore('keys').put({ key: 'hf_REMEMBEREDremembered01', provider: 'hf', origin: 'javascript:alert(1)' }, 'hf');
        tx.oncomplete = () => ok();
        tx.onerror = () => fail(tx.error);
      });
      db.close();
    });
    await page.goto(askLink({ a_prov: 'groq', a_base: `${evil.url}/openai/v1`, a_model: 'm' }));
    await ready(page);
    expect(await page.locator('[data-testid=keys-error]').innerText({ timeout: 30_000 })).toContain('The saved Hugging Face key was not readable and was removed');
    await expect.poll(() => page.locator('[data-testid=api-key]').inputValue(), { timeout: 30_000 }).toBe('gsk_LEGACYlegacyLEGACY0123');
    expect(await page.locator('[data-testid=key-host]').innerText()).toBe('key entered for api.groq.com');
    const before = evil.requests.length;
    await page.locator('[data-testid=ask-button]').click();
    const q = await question(page);
    expect(q.text).toBe(`This base URL came from a link, not from you. Your Groq key was entered for api.groq.com. Send it to ${hostOf(evil)}?`);
    await page.locator('[data-testid=key-confirm-cancel]').click();
    await page.locator('[data-testid=ask-config-error]').waitFor({ timeout: 30_000 });
    expect(evil.requests.length).toBe(before);
    expect(await page.locator('body').innerText()).not.toContain('hf_REMEMBERED');
  });
});
