/**
 * Builds the site once and serves dist/ under a sub-path on 127.0.0.1 twice (plain, as a static host without
 * COOP/COEP serves it, and cross-origin isolated with the CSP as a header, as the Space does), plus two local "Hubs" serving the fixture
 * models: a complete one, and one whose embedder lacks its quantized ONNX file. It also starts the run's one Chromium
 * (a browser server: every test file's `launchBrowser()` opens a fresh context in it, tests/helpers/browser.ts).
 */
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { TestProject } from 'vitest/node';
import { build } from 'vite';
import { startBrowserServer } from '../helpers/browser.ts';
import { serveHub } from '../helpers/hub-server.ts';
import { serveStatic } from '../helpers/static-server.ts';
import { CONTENT_SECURITY_POLICY, ISOLATION_HEADERS } from '../../vite.config.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    siteUrl: string;
    isolatedSiteUrl: string;
    hubUrl: string;
    brokenHubUrl: string;
  }
}

export default async function setup(project: TestProject) {
  const root = resolve(import.meta.dirname, '../..');
  // The site as an offline build makes it: BM25 only, no request to the Hub (a test that wants vectors serves its own).
  process.env.RAG_LAB_SOTU_VECTORS ??= 'off';
  const browser = startBrowserServer();
  browser.catch(() => {}); // awaited below, after the build
  await build({ root, logLevel: 'warn', build: { outDir: resolve(root, 'dist') } });
  const fixtures = resolve(root, 'tests/fixtures/models');
  const broken = mkdtempSync(join(tmpdir(), 'rag-lab-broken-hub-'));
  cpSync(fixtures, broken, { recursive: true });
  rmSync(join(broken, 'rag-lab/tiny-embedder/onnx/model_quantized.onnx'));
  const site = await serveStatic(resolve(root, 'dist'), '/spaces/rag-lab/');
  // As the Space serves it: COOP/COEP and the CSP as headers too, so the policy also governs the workers' scripts.
  const isolatedSite = await serveStatic(resolve(root, 'dist'), '/spaces/rag-lab/', { ...ISOLATION_HEADERS, 'Content-Security-Policy': CONTENT_SECURITY_POLICY });
  const hub = await serveHub(fixtures);
  const brokenHub = await serveHub(broken);
  project.provide('siteUrl', site.url);
  project.provide('isolatedSiteUrl', isolatedSite.url);
  project.provide('hubUrl', hub.url);
  project.provide('brokenHubUrl', brokenHub.url);
  const chromium = await browser;
  return async () => {
    await Promise.all([site.close(), isolatedSite.close(), hub.close(), brokenHub.close(), chromium.close()]);
    rmSync(broken, { recursive: true, force: true });
  };
}
