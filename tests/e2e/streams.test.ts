/**
 * The Ask tab says why a streamed answer ended: a stream the server cut shows "The server closed the stream…", an
 * error event shows the provider's message, and only the user's Stop shows "Stopped.".
 */
import { afterAll, beforeAll, describe, expect, inject, test } from 'vitest';
import type { Page } from 'playwright-core';
import { enterEndpointAndKey } from '../helpers/ask-page.ts';
import { launchBrowser, type Browser } from '../helpers/browser.ts';
import { faultyStream, openaiStream, STREAM_ERROR_MESSAGE, startLlmServer, type LlmServer } from '../helpers/llm-server.ts';

const site = inject('siteUrl');
let browser: Browser;
let page: Page;
let llm: LlmServer;

beforeAll(async () => {
  llm = await startLlmServer();
  browser = await launchBrowser();
  page = await browser.context.newPage();
  const p = new URLSearchParams({ tab: 'ask', aq: 'What did Lincoln propose about emancipation?', a_prov: 'openai', a_base: `${llm.url}/v1`, a_model: 'test-model', a_w: '0' });
  await page.goto(`${site}?${p}`);
  await page.locator('[data-testid=kb-info]').waitFor({ timeout: 120_000 });
  await enterEndpointAndKey(page, `${llm.url}/v1`, 'sk-e2e-streams-0123456789');
});
afterAll(async () => {
  await browser?.close();
  await llm?.close();
});

const status = () => page.locator('[data-testid=ask-status]');
const parts = ['Lincoln proposed compensated ', 'emancipation [1]. ', 'The end.'];

describe('Ask tab: why a stream ended', () => {
  test('a stream cut by the server says so, keeps the partial answer, and is not "Stopped."', async () => {
    // The cut comes once the page shows the first part: a connection reset discards what the browser has not read yet,
    // so on a busy machine a fixed delay could cut before the first part arrived (a failed request, then a retry).
    let cut!: () => void;
    llm.reply({ ...faultyStream('openai', parts, 'cut'), cutWhen: new Promise<void>((ok) => { cut = ok; }) });
    await page.locator('[data-testid=ask-button]').click();
    await expect.poll(() => page.locator('[data-testid=answer]').innerText().catch(() => ''), { timeout: 60_000 }).toContain('Lincoln proposed compensated');
    cut();
    await expect.poll(() => status().innerText().catch(() => ''), { timeout: 60_000 }).toMatch(/^The server closed the stream before the answer was complete/);
    expect(await status().getAttribute('data-status')).toBe('error');
    expect(await status().getAttribute('data-end')).toBe('connection');
    expect(await status().innerText()).not.toMatch(/Stopped/);
    expect(await page.locator('[data-testid=answer]').innerText()).toContain('Lincoln proposed compensated');
    expect(await page.locator('[data-testid=partial]').count()).toBe(1);
  });

  test("an error event shows the provider's message", async () => {
    llm.reply(faultyStream('openai', parts, 'error-event'));
    await page.locator('[data-testid=ask-button]').click();
    await expect.poll(() => status().innerText().catch(() => ''), { timeout: 60_000 }).toContain(STREAM_ERROR_MESSAGE);
    expect(await status().getAttribute('data-end')).toBe('error');
  });

  test('the user pressing Stop is "Stopped."', async () => {
    llm.reply({ sse: openaiStream(['The first part [1]. ', 'more ', 'more ', 'more ', 'more ', 'end.']), chunkDelayMs: 700 });
    await page.locator('[data-testid=ask-button]').click();
    await expect.poll(() => page.locator('[data-testid=answer]').innerText().catch(() => ''), { timeout: 60_000 }).toMatch(/first part/);
    await page.locator('[data-testid=stop]').click();
    await expect.poll(() => status().getAttribute('data-status').catch(() => null), { timeout: 60_000 }).toBe('aborted');
    expect(await status().innerText()).toBe('Stopped.');
    expect(await status().getAttribute('data-end')).toBe('signal');
  });
});
