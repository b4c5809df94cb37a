/** Debian's Chromium driven by playwright-core, with a fresh profile per launch (see DEVELOPERS.md). */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync'];

export interface Browser {
  context: BrowserContext;
  /** Browser console errors and uncaught page errors, for assertions. */
  errors: string[];
  /** Content-Security-Policy violations seen on any page (`close()` fails the test when there are any). */
  cspViolations: string[];
  close(): Promise<void>;
}

/** WebGPU on SwiftShader (software Vulkan shipped with Debian's Chromium): real WebGPU code paths, CPU speed. */
const WEBGPU_FLAGS = ['--enable-unsafe-webgpu', '--use-webgpu-adapter=swiftshader'];

/**
 * `serviceWorkers: 'block'` (the default) keeps the app's coi-serviceworker out, so a site served without COOP/COEP
 * stays what such a host gives a browser without service workers: single-threaded and never reloaded by the shim.
 * `webgpu: true` drops --disable-gpu and gives pages a software WebGPU adapter (without it there is none).
 */
export async function launchBrowser(opts: { serviceWorkers?: 'allow' | 'block'; webgpu?: boolean } = {}): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`Chromium not found at ${CHROMIUM}: install Debian's package (apt-get install -y chromium) or set CHROMIUM_PATH.`);
  }
  const profile = mkdtempSync(join(tmpdir(), 'rag-lab-chromium-'));
  const blockWorkers = (opts.serviceWorkers ?? 'block') === 'block';
  const context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, headless: true, args: opts.webgpu ? [...FLAGS.filter((f) => f !== '--disable-gpu'), ...WEBGPU_FLAGS] : FLAGS, viewport: { width: 1280, height: 900 }, serviceWorkers: blockWorkers ? 'block' : 'allow' });
  if (blockWorkers) {
    // As in a browser without service workers (e.g. a private window): no navigator.serviceWorker at all. Playwright's
    // block alone leaves register() resolving to undefined, which no real browser does.
    await context.addInitScript(() => { Object.defineProperty(Navigator.prototype, 'serviceWorker', { get: () => undefined, configurable: true }); });
  }
  // The site ships a Content-Security-Policy (vite.config.ts): every violation is reported, whether Chromium logs it
  // ("Refused to … violates the following Content Security Policy directive") or only fires the DOM event.
  await context.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (e) => {
      console.error(`Content Security Policy violation: ${e.effectiveDirective} blocked ${e.blockedURI || 'inline code'} (${e.sourceFile}:${e.lineNumber})`);
    });
  });
  const errors: string[] = [];
  const cspViolations: string[] = [];
  context.on('weberror', (e) => errors.push(String(e.error())));
  context.on('console', (m) => {
    if (m.type() !== 'error') return;
    errors.push(m.text());
    if (/Content Security Policy/i.test(m.text())) cspViolations.push(m.text());
  });
  return {
    context,
    errors,
    cspViolations,
    close: async () => {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
      if (cspViolations.length > 0) throw new Error(`Content-Security-Policy violations:\n${cspViolations.join('\n')}`);
    },
  };
}

/** Merges `patch` into the stored settings (`rag-lab:settings`) before every page load of `page`, before the app starts. */
export async function useSettings(page: Page, patch: Record<string, unknown>): Promise<void> {
  await page.addInitScript((p: Record<string, unknown>) => {
    const s = JSON.parse(localStorage.getItem('rag-lab:settings') ?? '{}');
    localStorage.setItem('rag-lab:settings', JSON.stringify({ ...s, ...p }));
  }, patch);
}
