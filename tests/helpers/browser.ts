/**
 * Debian's Chromium driven by playwright-core (see DEVELOPERS.md). Under vitest's e2e project one Chromium serves the
 * whole run: tests/e2e/global-setup.ts starts it as a browser server (`startBrowserServer`) and every `launchBrowser()`
 * connects to it and opens a fresh BrowserContext (its own storage, cache and service workers, like a new profile).
 * Outside that run (the bench scripts), and for WebGPU (other command-line flags), it launches its own Chromium with a
 * fresh profile.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser as PwBrowser, type BrowserContext, type BrowserServer, type Download, type Page } from 'playwright-core';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync'];
/** Where the shared browser server listens (set by the e2e global setup, inherited by the test workers). */
const SHARED_ENV = 'RAG_LAB_BROWSER_WS';
const VIEWPORT = { width: 1280, height: 900 };

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

function assertChromium(): void {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`Chromium not found at ${CHROMIUM}: install Debian's package (apt-get install -y chromium) or set CHROMIUM_PATH.`);
  }
}

/** One Chromium for a whole test run; its endpoint goes to the test workers through the environment. */
export async function startBrowserServer(): Promise<{ close(): Promise<void> }> {
  assertChromium();
  const server: BrowserServer = await chromium.launchServer({ executablePath: CHROMIUM, headless: true, args: FLAGS });
  process.env[SHARED_ENV] = server.wsEndpoint();
  return { close: async () => { delete process.env[SHARED_ENV]; await server.close(); } };
}

/** This process's connection to the shared browser, opened on first use and dropped when its last context closes. */
let connection: Promise<PwBrowser | undefined> | undefined;
let openContexts = 0;

function sharedBrowser(): Promise<PwBrowser | undefined> {
  const ws = process.env[SHARED_ENV];
  if (!ws) return Promise.resolve(undefined);
  connection ??= chromium.connect(ws).then((b) => {
    b.on('disconnected', () => { connection = undefined; });
    return b;
  }, () => { connection = undefined; return undefined; }); // the server is gone: launch a browser of our own
  return connection;
}

/**
 * A fresh browser profile: a new context in the run's shared Chromium, or (outside the e2e run, or with `webgpu`) a
 * Chromium of its own with a temporary profile.
 * `serviceWorkers: 'block'` (the default) keeps the app's coi-serviceworker out, so a site served without COOP/COEP
 * stays what such a host gives a browser without service workers: single-threaded and never reloaded by the shim.
 * `webgpu: true` drops --disable-gpu and gives pages a software WebGPU adapter (without it there is none).
 */
export async function launchBrowser(opts: { serviceWorkers?: 'allow' | 'block'; webgpu?: boolean } = {}): Promise<Browser> {
  assertChromium();
  const blockWorkers = (opts.serviceWorkers ?? 'block') === 'block';
  const serviceWorkers = blockWorkers ? 'block' as const : 'allow' as const;
  // Counted before the connection is awaited, so that a context closing meanwhile does not drop it under us.
  if (!opts.webgpu) openContexts++;
  const shared = opts.webgpu ? undefined : await sharedBrowser();
  const release = async () => {
    if (--openContexts === 0 && shared) { connection = undefined; await shared.close(); } // disconnects; the server stays up
  };
  let context: BrowserContext;
  let cleanUp: () => Promise<void>;
  if (shared) {
    context = await shared.newContext({ viewport: VIEWPORT, serviceWorkers }).catch(async (err: unknown) => { await release(); throw err; });
    cleanUp = release;
  } else {
    if (!opts.webgpu) openContexts--;
    const profile = mkdtempSync(join(tmpdir(), 'rag-lab-chromium-'));
    context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, headless: true, args: opts.webgpu ? [...FLAGS.filter((f) => f !== '--disable-gpu'), ...WEBGPU_FLAGS] : FLAGS, viewport: VIEWPORT, serviceWorkers });
    cleanUp = async () => { rmSync(profile, { recursive: true, force: true }); };
  }
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
  let closed = false;
  return {
    context,
    errors,
    cspViolations,
    close: async () => {
      if (closed) return;
      closed = true;
      await context.close();
      await cleanUp();
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

/** A finished download's bytes (read through the connection: `download.path()` is not available from a shared browser). */
export async function downloadBytes(download: Download): Promise<Uint8Array> {
  const stream = await download.createReadStream();
  const parts: Buffer[] = [];
  for await (const part of stream) parts.push(part as Buffer);
  return new Uint8Array(Buffer.concat(parts));
}
