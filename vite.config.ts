import { svelte } from '@sveltejs/vite-plugin-svelte';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { defaultClientConditions, defineConfig, type Plugin } from 'vite';
import { loadSotuArtifact, SOTU_ARTIFACT_BASE, SOTU_INDEX_ID } from './scripts/sotu-artifact.ts';
import { SOTU_VECTORS_ENV, sotuVectors, sotuVectorsPlan, type SotuVectorsPlan } from './scripts/sotu-vectors.ts';
import { sotuCorpusJson } from './cli/sotu-corpus.ts';
import { SOTU_FILE } from './src/lib/data/sotu.ts';
import { ORT_FILES, ORT_DIR } from './src/lib/models/ort-files.ts';

const TYPES: Record<string, string> = { '.json': 'application/json', '.js': 'text/javascript', '.mjs': 'text/javascript', '.wasm': 'application/wasm' };

/**
 * Files the app serves that come from elsewhere than its sources: served by the dev server at `/<fileName>` and
 * emitted into the build under the same name. `source` runs on demand (once per request in dev, once per build).
 */
function generatedAssets(name: string, files: readonly string[], source: (fileName: string) => string | Buffer): Plugin {
  return {
    name,
    configureServer(server) {
      for (const f of files) {
        server.middlewares.use(`/${f}`, (_req, res) => {
          res.setHeader('Content-Type', TYPES[f.slice(f.lastIndexOf('.'))] ?? 'application/octet-stream');
          res.end(source(f));
        });
      }
    },
    generateBundle() {
      for (const f of files) this.emitFile({ type: 'asset', fileName: f, source: source(f) });
    },
  };
}

/** Packages the State of the Union addresses from node_modules into the build (served directly in dev). */
function embeddedCorpus(): Plugin {
  let json: string | null = null;
  return generatedAssets('rag-lab-embedded-corpus', [SOTU_FILE], () => (json ??= sotuCorpusJson()));
}

/**
 * The embedded corpus as a BM25 artifact repo (scripts/sotu-artifact.ts): `corpora/index_config.json` and
 * `corpora/sotu/…` (meta.json, parquet, postings, CDF), which the search worker opens so the first visit does not
 * index. Built once per dev server or build (from node_modules/.cache/rag-lab when the corpus and the code that
 * writes it are unchanged). With `vectors` (scripts/sotu-vectors.ts: RAG_LAB_SOTU_VECTORS, HF_ENDPOINT) the build
 * also embeds the chunks when the Hub can be reached and ships int8 vectors. `cacheDir` is for tests (null: no cache).
 */
export function embeddedArtifact(opts: { cacheDir?: string | null; corpusJson?: string; log?: (message: string) => void; vectors?: (command: 'build' | 'serve') => SotuVectorsPlan | null } = {}): Plugin {
  let files: Promise<Map<string, Uint8Array>> | null = null;
  let command: 'build' | 'serve' = 'build';
  const corpus = opts.corpusJson === undefined ? {} : { corpusJson: opts.corpusJson };
  const get = () => (files ??= loadSotuArtifact({ ...(opts.cacheDir === undefined ? {} : { cacheDir: opts.cacheDir }), ...corpus }).then(async (a) => {
    opts.log?.(`SOTU artifact: ${a.files.size} files ${a.source === 'cache' ? 'from the build cache' : 'built'} in ${(a.ms / 1000).toFixed(1)} s${a.note ? ` (${a.note})` : ''}`);
    const plan = opts.vectors?.(command) ?? null;
    if (!plan) {
      if (opts.vectors) opts.log?.(`SOTU vectors: none (${SOTU_VECTORS_ENV}=${process.env[SOTU_VECTORS_ENV] ?? 'auto'}${command === 'serve' ? ', dev server' : ''}); BM25 only`);
      return a.files;
    }
    // A test's cache folder keeps its vectors beside it (the BM25 cache keeps only its own entry in its folder).
    const cacheDir = opts.cacheDir === undefined ? {} : { cacheDir: opts.cacheDir && `${opts.cacheDir}-vectors` };
    const v = await sotuVectors(a, plan, { ...cacheDir, ...corpus, ...(opts.log ? { log: opts.log } : {}) });
    opts.log?.(v.line);
    return v.files ?? a.files;
  }));
  return {
    name: 'rag-lab-embedded-artifact',
    configResolved(config) { command = config.command; },
    configureServer(server) {
      server.middlewares.use(`/${SOTU_ARTIFACT_BASE}`, (req, res, next) => {
        const path = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname).replace(/^\/+/, '');
        get().then((m) => {
          const bytes = m.get(path);
          // Other corpora/ files (sotu.json) are another plugin's; a missing artifact file is a 404, not index.html.
          if (!bytes && !(path === 'index_config.json' || path.startsWith(`${SOTU_INDEX_ID}/`))) { next(); return; }
          if (!bytes) { res.statusCode = 404; res.end('not found'); return; }
          res.setHeader('Content-Type', TYPES[path.slice(path.lastIndexOf('.'))] ?? 'application/octet-stream');
          res.setHeader('Content-Length', String(bytes.byteLength));
          res.end(bytes);
        }, next);
      });
    },
    async generateBundle() {
      for (const [path, source] of await get()) this.emitFile({ type: 'asset', fileName: `${SOTU_ARTIFACT_BASE}/${path}`, source });
    },
  };
}

/**
 * Serves ONNX Runtime's wasm binary and its separate glue module from the app itself (no CDN), copied from the
 * installed onnxruntime-web at build time. The separate glue is what makes multi-threaded WASM work.
 */
function ortWasm(): Plugin {
  const dist = dirname(createRequire(import.meta.url).resolve('onnxruntime-web'));
  return generatedAssets('rag-lab-ort-wasm', ORT_FILES.map((f) => `${ORT_DIR}/${f}`), (f) => readFileSync(join(dist, f.slice(ORT_DIR.length + 1))));
}

/**
 * Serves coi-serviceworker (the script and, registered by it, the service worker) from the app root. On hosts that
 * send no COOP/COEP headers it adds them in a service worker, so the page is cross-origin isolated after one reload
 * and ONNX Runtime can use threads (index.html configures it; Settings turns it off).
 */
function coiServiceWorker(): Plugin {
  const file = createRequire(import.meta.url).resolve('coi-serviceworker/coi-serviceworker.min.js');
  return generatedAssets('rag-lab-coi-serviceworker', ['coi-serviceworker.js'], () => `${COI_PASSTHROUGH}\n${readFileSync(file, 'utf8')}`);
}

/**
 * Runs before coi-serviceworker's fetch listener, in the service worker only: a `fetch()` in CORS mode (the artifact
 * files, models, Hub and LLM calls) goes to the network as it would without a service worker. COEP lets a CORS
 * response through as it is, so only documents, worker scripts and no-cors loads need the headers coi adds; streamed
 * through the worker's JavaScript, the embedded corpus's 23 MB cost a first visit about 2 s more CPU on 2 cores.
 */
const COI_PASSTHROUGH = "if (typeof window === 'undefined') self.addEventListener('fetch', function (e) { if (e.request.mode === 'cors' && e.request.destination === '') e.stopImmediatePropagation(); });";

/**
 * The built site's Content-Security-Policy, as a `<meta>` in index.html so it holds on every static host. Scripts
 * come only from the site itself ('wasm-unsafe-eval' for ONNX Runtime's and hnswlib's WebAssembly, blob: for worker
 * glue); no inline script runs. `connect-src` stays open to https: and http: because the app talks to hosts the user
 * chooses (a model host, an LLM endpoint such as http://localhost:11434). Plotly injects <style> elements, hence
 * 'unsafe-inline' for styles only. The browser tests fail on any violation (tests/helpers/browser.ts).
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self' 'wasm-unsafe-eval' blob:",
  "worker-src 'self' blob:",
  "connect-src 'self' https: http: blob: data:",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "font-src 'self' data:",
  "object-src 'none'",
  "base-uri 'self'",
  "form-action 'none'",
].join('; ');

/** Writes CONTENT_SECURITY_POLICY into the built index.html (not in dev, where Vite's client injects inline code). */
function contentSecurityPolicy(): Plugin {
  return {
    name: 'rag-lab-csp',
    apply: 'build',
    transformIndexHtml: () => [{ tag: 'meta', attrs: { 'http-equiv': 'Content-Security-Policy', content: CONTENT_SECURITY_POLICY }, injectTo: 'head-prepend' }],
  };
}

/**
 * Cross-origin isolation (threads in ONNX Runtime) for dev and preview; static hosts set these themselves (the Space
 * through `custom_headers` in README.md). The browser tests serve one copy of the site with these too.
 */
export const ISOLATION_HEADERS = { 'Cross-Origin-Opener-Policy': 'same-origin', 'Cross-Origin-Embedder-Policy': 'credentialless' };

export default defineConfig({
  // Relative asset URLs: the built dist/ works from any sub-path (Hugging Face Spaces, GitHub Pages, a folder).
  base: './',
  plugins: [svelte(), embeddedCorpus(), embeddedArtifact({ log: (m) => console.info(m), vectors: (command) => sotuVectorsPlan(process.env, command) }), ortWasm(), coiServiceWorker(), contentSecurityPolicy()],
  // The extern-wasm builds of onnxruntime-web load the glue and wasm from `wasmPaths` (ortWasm above) instead of
  // bundling a second 27 MB copy of the wasm.
  resolve: { conditions: ['onnxruntime-web-use-extern-wasm', ...defaultClientConditions] },
  worker: { format: 'es' },
  // The dev server's dependency scanner follows index.html's imports, not the workers' (`new Worker(new URL(…))`):
  // a package only a worker reaches was found on first use, re-bundled, and the page reloaded ("optimized
  // dependencies changed. reloading": fflate on the first Train). Every package the workers reach, dynamic imports
  // included, is bundled up front; tests/unit/dev-deps.test.ts keeps this list complete.
  optimizeDeps: {
    include: [
      '@huggingface/hub', '@huggingface/transformers', 'comlink', 'fast-xml-parser', 'fflate', 'groq-sdk', 'hnswlib-wasm/dist/hnswlib.js',
      'htmlparser2', 'hyparquet', 'hyparquet-writer', 'idb', 'pdfjs-dist/legacy/build/pdf.mjs', 'pdfjs-dist/legacy/build/pdf.worker.mjs',
      'papaparse', 'stemmer', 'valibot',
    ],
  },
  server: { headers: ISOLATION_HEADERS },
  preview: { headers: ISOLATION_HEADERS },
  // Plotly's bundle (about 4.6 MB) is its own chunk, loaded only when a chart is first drawn, so the size warning is
  // set above it; rolldown's timing report (how long each plugin took) is noise in every build's output.
  build: { target: 'es2022', chunkSizeWarningLimit: 5000, rolldownOptions: { checks: { bundlerTimings: false } } },
});
