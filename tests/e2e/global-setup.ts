/**
 * Builds the site once and serves dist/ under a sub-path on 127.0.0.1 twice (plain, as a static host without
 * COOP/COEP serves it, and cross-origin isolated with the CSP as a header, as the Space does), plus two local "Hubs" serving the fixture
 * models: a complete one, and one whose embedder lacks its quantized ONNX file. It also starts the run's one Chromium
 * (a browser server: every test file's `launchBrowser()` opens a fresh context in it, tests/helpers/browser.ts), and
 * makes the embedded corpus's vectors for the fixture embedder once, served as a Hub dataset repo
 * (tests/helpers/sotu-vectors-repo.ts) for the files that need dense search but do not test in-tab embedding.
 */
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { TestProject } from 'vitest/node';
import { build } from 'vite';
import { startBrowserServer } from '../helpers/browser.ts';
import { serveHub } from '../helpers/hub-server.ts';
import { serveSotuVectorsRepo } from '../helpers/sotu-vectors-repo.ts';
import { serveStatic } from '../helpers/static-server.ts';
import { loadSotuArtifact } from '../../scripts/sotu-artifact.ts';
import { CONTENT_SECURITY_POLICY, ISOLATION_HEADERS } from '../../vite.config.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    siteUrl: string;
    isolatedSiteUrl: string;
    hubUrl: string;
    brokenHubUrl: string;
    /** The dataset Hub serving `vectorsRepo`: the embedded corpus's vectors for the fixture embedder. */
    vectorsHubUrl: string;
    vectorsRepo: string;
  }
}

export default async function setup(project: TestProject) {
  const root = resolve(import.meta.dirname, '../..');
  // The site as an offline build makes it: BM25 only, no request to the Hub (a test that wants vectors serves its own).
  process.env.RAG_LAB_SOTU_VECTORS ??= 'off';
  const browser = startBrowserServer();
  browser.catch(() => {}); // awaited below, after the build
  const fixtures = resolve(root, 'tests/fixtures/models');
  const hub = await serveHub(fixtures);
  // The BM25 artifact first (the build and the vectors both read it from its cache), then both at once.
  await loadSotuArtifact();
  const vectors = serveSotuVectorsRepo(hub.url);
  vectors.catch(() => {}); // awaited below, after the build
  await build({ root, logLevel: 'warn', build: { outDir: resolve(root, 'dist') } });
  const broken = mkdtempSync(join(tmpdir(), 'rag-lab-broken-hub-'));
  cpSync(fixtures, broken, { recursive: true });
  rmSync(join(broken, 'rag-lab/tiny-embedder/onnx/model_quantized.onnx'));
  const site = await serveStatic(resolve(root, 'dist'), '/spaces/rag-lab/');
  // As the Space serves it: COOP/COEP and the CSP as headers too, so the policy also governs the workers' scripts.
  const isolatedSite = await serveStatic(resolve(root, 'dist'), '/spaces/rag-lab/', { ...ISOLATION_HEADERS, 'Content-Security-Policy': CONTENT_SECURITY_POLICY });
  const brokenHub = await serveHub(broken);
  project.provide('siteUrl', site.url);
  project.provide('isolatedSiteUrl', isolatedSite.url);
  project.provide('hubUrl', hub.url);
  project.provide('brokenHubUrl', brokenHub.url);
  const sotuVectors = await vectors;
  console.log(`${sotuVectors.line} (served as ${sotuVectors.repo} for the e2e files that do not test in-tab embedding)`);
  project.provide('vectorsHubUrl', sotuVectors.hubUrl);
  project.provide('vectorsRepo', sotuVectors.repo);
  const chromium = await browser;
  return async () => {
    await Promise.all([site.close(), isolatedSite.close(), hub.close(), brokenHub.close(), sotuVectors.close(), chromium.close()]);
    rmSync(broken, { recursive: true, force: true });
  };
}
