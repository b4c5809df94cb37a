/** Debian's Chromium driven by playwright-core, with a fresh profile per launch (see DEVELOPERS.md). */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync'];

export interface Browser {
  context: BrowserContext;
  /** Browser console errors and uncaught page errors, for assertions. */
  errors: string[];
  close(): Promise<void>;
}

/**
 * `serviceWorkers: 'block'` (the default) keeps the app's coi-serviceworker out, so a site served without COOP/COEP
 * stays what such a host gives a browser without service workers: single-threaded and never reloaded by the shim.
 */
export async function launchBrowser(opts: { serviceWorkers?: 'allow' | 'block' } = {}): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`Chromium not found at ${CHROMIUM}: install Debian's package (apt-get install -y chromium) or set CHROMIUM_PATH.`);
  }
  const profile = mkdtempSync(join(tmpdir(), 'rag-lab-chromium-'));
  const context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, headless: true, args: FLAGS, viewport: { width: 1280, height: 900 }, serviceWorkers: opts.serviceWorkers ?? 'block' });
  const errors: string[] = [];
  context.on('weberror', (e) => errors.push(String(e.error())));
  context.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  return {
    context,
    errors,
    close: async () => {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
