/**
 * Makes docs/screenshot.png, the README's picture: the built site (npm run build first) served on 127.0.0.1, a corpus
 * embedder trained in the tab (nothing downloaded), and a hybrid_calibrated search, at 1,400 × 900 in the light theme.
 * Run: npm run build && npx tsx scripts/readme-screenshot.ts (needs Chromium at /usr/bin/chromium).
 */
import { chromium } from 'playwright-core';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { serveStatic } from '../tests/helpers/static-server.ts';

const site = await serveStatic(resolve('dist'), '/spaces/rag-lab/');
const ctx = await chromium.launchPersistentContext(mkdtempSync(join(tmpdir(), 'shot-')), { executablePath: '/usr/bin/chromium', headless: true, args: ['--no-sandbox', '--disable-gpu'], viewport: { width: 1400, height: 900 }, colorScheme: 'light', serviceWorkers: 'block' });
const page = ctx.pages()[0] ?? await ctx.newPage();
await page.goto(site.url);
await page.locator('[data-testid=kb-info]').waitFor({ timeout: 120_000 });
await page.locator('[data-testid=train-embedder-button]').click();
await page.waitForFunction(() => document.querySelector('[data-testid=dense-info]') || document.querySelector('[data-testid=train-error]'), null, { timeout: 300_000 });
await page.selectOption('[data-testid=mode]', 'hybrid_calibrated');
await page.locator('[data-testid=query]').fill('tariffs and free trade');
await page.locator('[data-testid=query]').press('Enter');
await page.waitForFunction(() => document.querySelector('[data-testid=telemetry-mode]')?.textContent === 'hybrid_calibrated', null, { timeout: 60_000 });
await page.waitForTimeout(1500);
await page.locator('[data-testid=query]').evaluate((e) => { window.scrollTo(0, e.getBoundingClientRect().top + window.scrollY - 90); });
await page.waitForTimeout(300);
await page.screenshot({ path: resolve('docs/screenshot.png') });
await ctx.close(); await site.close();
