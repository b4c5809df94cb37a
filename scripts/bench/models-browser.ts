/**
 * The Chromium half of `npm run bench:models`: bundles models-worker.ts with Vite (the app's resolve condition, so
 * onnxruntime-web loads its glue and wasm from `wasmPaths`), serves one cross-origin-isolated origin on 127.0.0.1
 * (COOP same-origin + COEP) with the page, the bundle, ONNX Runtime's files as the app serves them (`ort/`) and the
 * models in Hub layout (`hub/`), and runs each configuration in a fresh module worker of headless Chromium.
 */
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createServer, type ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, normalize, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, defaultClientConditions } from 'vite';
import { ORT_DIR, ORT_FILES, ortWasmPaths } from '../../src/lib/models/ort-files.ts';
import { launchBrowser, type Browser } from '../../tests/helpers/browser.ts';
import { hubHandler } from '../../tests/helpers/hub-server.ts';
import type { MeasurePlan, Phase } from './models-measure.ts';
import type { WorkerReport, WorkerRequest } from './models-worker.ts';
import { listenLocal } from '../../tests/helpers/listen.ts';

const HERE = dirname(fileURLToPath(import.meta.url));
const REPO_ROOT = resolve(HERE, '../..');
const WORKER_FILE = 'models-worker.js';
/** Console prefix of the worker's phase marks (models-measure.ts `mark`), read back by `onMark`. */
const MARK = '@bench-mark ';

export type Coep = 'require-corp' | 'credentialless';

const PAGE = `<!doctype html><meta charset="utf-8"><title>bench:models</title>
<script type="module">
  // Runs one configuration in a fresh module worker; worker log lines go to the console (forwarded to stderr).
  window.runBench = (request, timeoutMs) => new Promise((resolve, reject) => {
    const worker = new Worker('./app/${WORKER_FILE}', { type: 'module' });
    const timer = setTimeout(() => { worker.terminate(); reject(new Error('worker timed out after ' + timeoutMs + ' ms')); }, timeoutMs);
    const end = (f, v) => { clearTimeout(timer); worker.terminate(); f(v); };
    worker.onmessage = (e) => {
      const m = e.data;
      if (m.type === 'log') console.log(m.message);
      else if (m.type === 'mark') console.log('${MARK}' + m.phase);
      else if (m.type === 'done') end(resolve, { ...m.report, pageCrossOriginIsolated: self.crossOriginIsolated });
      else end(reject, new Error(m.message));
    };
    worker.onerror = (e) => end(reject, new Error('worker error: ' + (e.message || 'failed to start')));
    worker.postMessage(request);
  });
</script>`;

const TYPES: Record<string, string> = { '.js': 'text/javascript', '.mjs': 'text/javascript', '.wasm': 'application/wasm', '.html': 'text/html; charset=utf-8' };

async function bundleWorker(outDir: string): Promise<void> {
  await build({
    configFile: false,
    root: REPO_ROOT,
    logLevel: 'warn',
    publicDir: false,
    resolve: { conditions: ['onnxruntime-web-use-extern-wasm', ...defaultClientConditions] },
    build: {
      outDir,
      emptyOutDir: true,
      target: 'es2022',
      minify: false,
      reportCompressedSize: false,
      chunkSizeWarningLimit: 100_000,
      lib: { entry: join(HERE, 'models-worker.ts'), formats: ['es'], fileName: () => WORKER_FILE },
    },
  });
}

interface Server { url: string; close(): Promise<void> }

async function serve(appDir: string, modelsRoot: string, coep: Coep, log: (m: string) => void): Promise<Server> {
  const ortDist = dirname(createRequire(join(REPO_ROOT, 'package.json')).resolve('onnxruntime-web'));
  const hub = hubHandler(modelsRoot, '/hub/', []);
  const file = (res: ServerResponse, path: string) => {
    try {
      const body = readFileSync(path);
      res.writeHead(200, { 'Content-Type': TYPES[path.slice(path.lastIndexOf('.'))] ?? 'application/octet-stream', 'Content-Length': body.byteLength });
      res.end(body);
    } catch {
      res.writeHead(404).end('not found');
    }
  };
  const server = createServer((req, res) => {
    res.setHeader('Cross-Origin-Opener-Policy', 'same-origin');
    res.setHeader('Cross-Origin-Embedder-Policy', coep);
    res.setHeader('Cross-Origin-Resource-Policy', 'same-origin');
    res.setHeader('Cache-Control', 'no-store');
    const path = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
    res.on('finish', () => { if (res.statusCode === 404) log(`  [server] 404 ${path}`); });
    if (hub(req, res)) return;
    if (path === '/' || path === '/index.html') {
      res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' }).end(PAGE);
    } else if (path === '/favicon.ico') {
      res.writeHead(204).end();
    } else if (path.startsWith(`/${ORT_DIR}/`) && (ORT_FILES as readonly string[]).includes(path.slice(ORT_DIR.length + 2))) {
      file(res, join(ortDist, path.slice(ORT_DIR.length + 2)));
    } else if (path.startsWith('/app/')) {
      const f = normalize(join(appDir, path.slice(5)));
      if (f.startsWith(appDir) && statSync(f, { throwIfNoEntry: false })?.isFile()) file(res, f);
      else res.writeHead(404).end('not found');
    } else {
      res.writeHead(404).end('not found');
    }
  });
  const { origin, close } = await listenLocal(server);
  return { url: `${origin}/`, close };
}

export interface ChromiumRun { numThreads: number; dtype: MeasurePlan['dtype']; report: (WorkerReport & { pageCrossOriginIsolated: boolean }) | null; error: string | null; wallMs: number }

export interface ChromiumSession {
  userAgent: string;
  coep: Coep;
  bundleMs: number;
  run(plan: MeasurePlan, numThreads: number, timeoutMs: number): Promise<ChromiumRun>;
  close(): Promise<void>;
}

export async function startChromium(modelsRoot: string, coep: Coep, log: (m: string) => void, onMark: (p: Phase) => void): Promise<ChromiumSession> {
  const appDir = mkdtempSync(join(tmpdir(), 'rag-lab-bench-models-app-'));
  let server: Server | null = null;
  let browser: Browser | null = null;
  try {
    const t0 = performance.now();
    await bundleWorker(appDir);
    const bundleMs = performance.now() - t0;
    server = await serve(appDir, modelsRoot, coep, log);
    browser = await launchBrowser();
    const page = await browser.context.newPage();
    page.on('console', (m) => {
      const text = m.text();
      if (text.startsWith(MARK)) onMark(text.slice(MARK.length) as Phase);
      else log(`  [chromium] ${text}`);
    });
    page.on('pageerror', (e) => log(`  [chromium page error] ${e.message}`));
    await page.goto(server.url);
    const userAgent = await page.evaluate(() => navigator.userAgent);
    const hubUrl = `${server.url}hub/`;
    const wasmPaths = ortWasmPaths(server.url);
    const s = server;
    const b = browser;
    return {
      userAgent,
      coep,
      bundleMs,
      async run(plan, numThreads, timeoutMs) {
        const request: WorkerRequest = { plan, hubUrl, wasmPaths, numThreads };
        const t = performance.now();
        try {
          const report = await page.evaluate(
            ([r, ms]) => (window as unknown as { runBench(r: unknown, ms: number): Promise<ChromiumRun['report']> }).runBench(r, ms),
            [request, timeoutMs] as const,
          );
          return { numThreads, dtype: plan.dtype, report, error: null, wallMs: performance.now() - t };
        } catch (e) {
          return { numThreads, dtype: plan.dtype, report: null, error: e instanceof Error ? e.message : String(e), wallMs: performance.now() - t };
        }
      },
      async close() {
        await b.close();
        await s.close();
        rmSync(appDir, { recursive: true, force: true });
      },
    };
  } catch (e) {
    await browser?.close();
    await server?.close();
    rmSync(appDir, { recursive: true, force: true });
    throw e;
  }
}

