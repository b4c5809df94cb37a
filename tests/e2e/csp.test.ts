/**
 * The built site's Content-Security-Policy (vite.config.ts). Every browser test fails on a CSP violation
 * (tests/helpers/browser.ts), so the whole app — ONNX Runtime's wasm and threads in workers, the service worker,
 * Plotly, streamed answers — is exercised under the policy by the other e2e files. This file checks that the policy
 * is really there, as a <meta> on any host and as a header on the Space-like host, and that a violation is caught.
 */
import { afterAll, beforeAll, describe, expect, inject, test } from 'vitest';
import { launchBrowser, type Browser } from '../helpers/browser.ts';
import { CONTENT_SECURITY_POLICY } from '../../vite.config.ts';

let browser: Browser;
beforeAll(async () => { browser = await launchBrowser(); });
afterAll(async () => { await browser?.close(); });

describe('Content-Security-Policy', () => {
  test('the built page carries the policy; the Space-like host also sends it as a header', async () => {
    const page = await browser.context.newPage();
    await page.goto(inject('siteUrl'));
    expect(await page.locator('meta[http-equiv=Content-Security-Policy]').getAttribute('content')).toBe(CONTENT_SECURITY_POLICY);
    const res = await page.goto(inject('isolatedSiteUrl'));
    expect(res?.headers()['content-security-policy']).toBe(CONTENT_SECURITY_POLICY);
    await page.locator('[data-testid=kb-info]').waitFor({ timeout: 120_000 });
    expect(browser.cspViolations).toEqual([]);
    await page.close();
  });

  test('inline and foreign scripts are refused, and the test helper sees each violation', async () => {
    const page = await browser.context.newPage();
    await page.goto(inject('siteUrl'));
    const outcome = await page.evaluate(async () => {
      const w = window as unknown as { injected?: boolean };
      // (page.evaluate itself runs outside the policy, as DevTools does; what it adds to the page does not.)
      const s = document.createElement('script');
      s.textContent = 'window.injected = true';
      document.head.append(s);
      const foreign = await new Promise<string>((resolve) => {
        const f = document.createElement('script');
        f.src = 'https://example.invalid/x.js';
        f.onload = () => resolve('loaded');
        f.onerror = () => resolve('refused');
        document.head.append(f);
      });
      return { inline: w.injected === true, foreign };
    });
    expect(outcome).toEqual({ inline: false, foreign: 'refused' });
    await expect.poll(() => browser.cspViolations.length, { timeout: 10_000 }).toBeGreaterThanOrEqual(2);
    expect(browser.cspViolations.join('\n')).toMatch(/script-src/);
    // These violations were the point of the test: the helper would otherwise fail the file when it closes.
    browser.cspViolations.length = 0;
    await page.close();
  });
});
