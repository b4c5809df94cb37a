/**
 * A minimal site whose module Web Worker runs `extractDocuments` (and, when asked, `KnowledgeBase.build` with the
 * default chunking and BM25), built with Vite as the app's workers are (`worker.format: 'es'`, the app's CSP as a
 * meta tag). It shows that the ingest code runs in a worker with no DOM, as the build worker runs it, and gives the
 * bench its in-browser figures. Files to ingest are written beside the site and fetched by the worker.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Page } from 'playwright-core';
import { build } from 'vite';
import { CONTENT_SECURITY_POLICY } from '../../vite.config.ts';

const ROOT = resolve(import.meta.dirname, '../..');

export interface WorkerIngestResult {
  ok: boolean;
  error?: string;
  /** Whether the worker's global scope had a `document` (it must not). */
  hasDocument: boolean;
  extractMs: number;
  buildMs: number;
  pages: number;
  chunks: number;
  docs: { id: string; title: string; text: string }[];
  skipped: { path: string; reason: string }[];
}

/** Builds the site into `dir/dist` (sources in `dir/src`); returns the dist folder. */
export async function buildIngestSite(dir: string): Promise<string> {
  const src = join(dir, 'src');
  mkdirSync(src, { recursive: true });
  const lib = (p: string) => JSON.stringify(join(ROOT, 'src/lib', p));
  writeFileSync(join(src, 'worker.ts'), `
import { extractDocuments } from ${lib('ingest/extract.ts')};
import { KnowledgeBase } from ${lib('retrieval/knowledge-base.ts')};
import { DEFAULT_BM25 } from ${lib('retrieval/bm25.ts')};
import { DEFAULT_CHUNKING } from ${lib('retrieval/chunk.ts')};
self.onmessage = async (e: MessageEvent<{ urls: string[]; build: boolean }>) => {
  const hasDocument = typeof (globalThis as { document?: unknown }).document !== 'undefined';
  try {
    const files = await Promise.all(e.data.urls.map(async (u) => ({ path: decodeURIComponent(u.split('/').pop()!), bytes: new Uint8Array(await (await fetch(u)).arrayBuffer()) })));
    const t0 = performance.now();
    const got = await extractDocuments(files);
    const t1 = performance.now();
    const kb = e.data.build ? KnowledgeBase.build(got.docs, { chunking: DEFAULT_CHUNKING, bm25: DEFAULT_BM25 }) : null;
    const t2 = performance.now();
    postMessage({ ok: true, hasDocument, extractMs: t1 - t0, buildMs: t2 - t1, pages: got.pages, chunks: kb?.size ?? 0,
      docs: got.docs.map((d) => ({ id: d.id, title: d.title, text: d.text })), skipped: got.skipped });
  } catch (err) {
    postMessage({ ok: false, hasDocument, error: String((err as Error)?.stack ?? err) });
  }
};
`);
  writeFileSync(join(src, 'main.ts'), `
let worker: Worker | null = null;
(window as unknown as { ingest: unknown }).ingest = (urls: string[], build: boolean, fresh: boolean) => new Promise((ok) => {
  if (fresh || !worker) { worker?.terminate(); worker = new Worker(new URL('./worker.ts', import.meta.url), { type: 'module' }); }
  worker.onmessage = (e) => ok(e.data);
  worker.onerror = (e) => ok({ ok: false, hasDocument: false, error: e.message });
  worker.postMessage({ urls, build });
});
`);
  writeFileSync(join(src, 'index.html'), `<!doctype html><html><head><meta charset="utf-8"><meta http-equiv="Content-Security-Policy" content="${CONTENT_SECURITY_POLICY.replaceAll('"', '&quot;')}"><title>ingest worker</title><script type="module" src="./main.ts"></script></head><body>ingest</body></html>`);
  const dist = join(dir, 'dist');
  await build({ configFile: false, root: src, base: './', logLevel: 'warn', worker: { format: 'es' }, build: { outDir: dist, emptyOutDir: true, target: 'es2022', chunkSizeWarningLimit: 5000 } });
  return dist;
}

/** Runs the site's worker on files served beside it (`names` relative to the page); `fresh` starts a new worker (pdf.js loads again). */
export function ingestInWorker(page: Page, names: string[], opts: { build?: boolean; fresh?: boolean } = {}): Promise<WorkerIngestResult> {
  const urls = names.map((n) => new URL(encodeURIComponent(n), page.url()).href);
  // An expression, not a function: a function's source would carry the test transformer's helpers (tsx's __name).
  return page.evaluate(`window.ingest(${JSON.stringify(urls)}, ${opts.build ?? false}, ${opts.fresh ?? false})`) as Promise<WorkerIngestResult>;
}
