/**
 * The Hub source and push in headless Chromium against the loopback Hub on another origin: the browser sends CORS
 * preflights (Authorization, the ndjson commit), the loopback Hub answers them as huggingface.co does, a cut download
 * resumes, a second open with the Hub gone comes from IndexedDB, and a host that sends no CORS headers becomes the "could not reach" message naming the host.
 * src/lib/hub is bundled for the browser with Vite (the package's browser build of @huggingface/hub).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createHash } from 'node:crypto';
import { build } from 'vite';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Page } from 'playwright-core';
import { launchBrowser, type Browser } from '../helpers/browser.ts';
import { serveHubRepos, type HubRepoServer } from '../helpers/hub-repo-server.ts';
import { serveStatic, type StaticServer } from '../helpers/static-server.ts';

const TOKEN = 'hf_browsertoken';
const root = resolve(import.meta.dirname, '../..');
const big = new Uint8Array(200_000).map((_, i) => (i * 7919) % 253);
const bigSha = createHash('sha256').update(big).digest('hex');
let dir: string;
let page: Page;
let browser: Browser;
let hub: HubRepoServer;
let site: StaticServer;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'rag-lab-hub-cors-'));
  const entry = join(dir, 'entry.ts');
  writeFileSync(entry, [
    `export { hubSource } from ${JSON.stringify(join(root, 'src/lib/hub/hub-source.ts'))};`,
    `export { pushFiles } from ${JSON.stringify(join(root, 'src/lib/hub/push.ts'))};`,
    `export { indexedDbArtifactCache } from ${JSON.stringify(join(root, 'src/lib/store/artifact-cache.ts'))};`,
    `export { memoryArtifactCache } from ${JSON.stringify(join(root, 'src/lib/hub/file-cache.ts'))};`,
  ].join('\n'));
  await build({ configFile: false, root: dir, logLevel: 'warn', build: { outDir: join(dir, 'out'), emptyOutDir: true, minify: false, lib: { entry, formats: ['es'], fileName: 'hub' } } });
  writeFileSync(join(dir, 'out', 'index.html'), '<!doctype html><title>hub cors</title><script type="module">import * as hub from "./hub.mjs"; window.hub = hub;</script>');
  site = await serveStatic(join(dir, 'out'), '/');
  hub = await serveHubRepos({ token: TOKEN });
  browser = await launchBrowser();
  page = await browser.context.newPage();
  await page.goto(site.url);
  await page.waitForFunction(() => 'hub' in window);
});
afterAll(async () => {
  await browser?.close();
  await hub?.close();
  await site?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

type HubModule = typeof import('../../src/lib/hub/hub-source.ts') & typeof import('../../src/lib/hub/push.ts') & typeof import('../../src/lib/hub/file-cache.ts') & typeof import('../../src/lib/store/artifact-cache.ts');
declare global { interface Window { hub: HubModule } }

describe('Hub source and push in the browser, cross-origin', () => {
  test('a private repo is read with the token (preflighted), a cut is resumed, a push commits with parentCommit', async () => {
    hub.addRepo('o/secret', new Map([['kb/x.bin', big], ['index_config.json', new TextEncoder().encode('{"indexes":[]}')]]), { private: true });
    hub.faults.push({ kind: 'cut', path: 'kb/x.bin', afterBytes: 70_000, times: 1 });
    const out = await page.evaluate(async ({ url, token, sha256, size }) => {
      const src = await window.hub.hubSource({ repo: 'o/secret', hubUrl: url, token, cache: window.hub.memoryArtifactCache(), retryDelayMs: 1 });
      const b = await src.read('kb/x.bin', { size, sha256 });
      const pushed = await window.hub.pushFiles({
        repo: 'o/secret', hubUrl: url, token, title: 'from the browser', files: new Map([['kb2/meta.json', new TextEncoder().encode('{}')]]),
        updateIndexConfig: (cur) => new TextEncoder().encode(JSON.stringify({ indexes: [...(JSON.parse(new TextDecoder().decode(cur!)) as { indexes: unknown[] }).indexes, { id: 'kb2' }] })),
      });
      return { length: b?.byteLength, sha: src.sha, commit: pushed.commit };
    }, { url: hub.url, token: TOKEN, sha256: bigSha, size: big.byteLength });
    expect(out.length).toBe(big.byteLength);
    expect(out.commit).toBe(hub.head('o/secret'));
    expect(new TextDecoder().decode(hub.fileAt('o/secret', 'main', 'index_config.json')!)).toBe('{"indexes":[{"id":"kb2"}]}');
    const preflights = hub.requests.filter((r) => r.method === 'OPTIONS');
    expect(preflights.length).toBeGreaterThan(0);
    expect(preflights.every((r) => r.origin === new URL(site.url).origin && !r.auth)).toBe(true);
    expect(preflights.some((r) => r.path === '/api/datasets/o/secret/commit/main')).toBe(true);
    const gets = hub.requests.filter((r) => r.method === 'GET' && r.path.endsWith('/kb/x.bin'));
    // The first read has no range; the resume asks from the bytes already received, never from 0 again (the file's
    // SHA-256 was checked by read). Where it starts, and whether Chromium's HTTP cache splits it into a one-byte
    // validation range and the rest (seen in CI: bytes=70000-70000, bytes=70000-199999), is the browser's business.
    const ranges = gets.map((r) => r.range);
    expect(ranges[0], String(ranges)).toBeNull();
    const starts = ranges.slice(1).map((r) => Number(/^bytes=(\d+)-(\d+)?$/.exec(r ?? '')?.[1] ?? NaN));
    expect(starts.length, String(ranges)).toBeGreaterThan(0);
    expect(starts.every((n) => n > 0 && n < big.byteLength), String(ranges)).toBe(true);
    expect(hub.requests.filter((r) => r.method !== 'OPTIONS').every((r) => r.auth)).toBe(true);
    const commit = hub.requests.find((r) => r.method === 'POST' && r.path.endsWith('/commit/main'));
    expect(commit?.parentCommit).toBe(out.sha);
  });

  test('IndexedDB cache: a second open with the Hub closed resolves from the cached ref and reads with no request', async () => {
    const gone = await serveHubRepos();
    gone.addRepo('o/kb', new Map([['kb/meta.json', new TextEncoder().encode('{"m":1}')], ['kb/x.bin', big]]));
    const url = gone.url;
    const first = await page.evaluate(async ({ url, sha256, size }) => {
      const src = await window.hub.hubSource({ repo: 'o/kb', hubUrl: url, cache: window.hub.indexedDbArtifactCache() });
      await src.read('kb/meta.json');
      await src.read('kb/x.bin', { size, sha256 });
      return { sha: src.sha, resolved: src.resolved };
    }, { url, sha256: bigSha, size: big.byteLength });
    expect(first.resolved).toBe('network');
    await gone.close();
    const second = await page.evaluate(async ({ url, sha256, size }) => {
      const calls: string[] = [];
      const counting: typeof fetch = (input, init) => { calls.push(String(input)); return fetch(input, init); };
      const src = await window.hub.hubSource({ repo: 'o/kb', hubUrl: url, cache: window.hub.indexedDbArtifactCache(), fetch: counting, retries: 0 });
      const opened = calls.length;
      const meta = new TextDecoder().decode((await src.read('kb/meta.json'))!);
      const x = await src.read('kb/x.bin', { size, sha256 });
      return { sha: src.sha, resolved: src.resolved, opened, after: calls.length - opened, meta, length: x?.byteLength };
    }, { url, sha256: bigSha, size: big.byteLength });
    expect(second).toEqual({ sha: first.sha, resolved: 'cache', opened: 1, after: 0, meta: '{"m":1}', length: big.byteLength });
  });

  test('without a token the private repo says so; a host without CORS headers is "could not reach" with its host', async () => {
    const other = await serveStatic(dir, '/'); // another origin (port), answering without any CORS header
    const msgs = await page.evaluate(async ({ url, noCors }) => {
      const m1 = await window.hub.hubSource({ repo: 'o/secret', hubUrl: url }).then(() => 'opened', (e: Error) => e.message);
      const m2 = await window.hub.hubSource({ repo: 'o/secret', hubUrl: noCors }).then(() => 'opened', (e: Error) => e.message);
      return [m1, m2];
    }, { url: hub.url, noCors: other.url.replace(/\/$/, '') });
    await other.close();
    expect(msgs[0]).toBe('o/secret@main: the repo o/secret is private or gated: add a Hugging Face token (hf_…) in Settings');
    expect(msgs[1]).toMatch(new RegExp(`^o/secret@main: could not reach ${new URL(other.url).host.replace(/\./g, '\\.')} \\(no answer`));
  });
});
