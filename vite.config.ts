import { svelte } from '@sveltejs/vite-plugin-svelte';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { defaultClientConditions, defineConfig, type Plugin } from 'vite';
import { sotuCorpusJson } from './scripts/sotu-corpus.ts';
import { SOTU_FILE } from './src/lib/data/sotu.ts';
import { ORT_FILES, ORT_DIR } from './src/lib/models/ort-files.ts';

const COI_SCRIPT = 'coi-serviceworker.js';

/** Packages the State of the Union addresses from node_modules into the build (served directly in dev). */
function embeddedCorpus(): Plugin {
  let json: string | null = null;
  const corpus = () => (json ??= sotuCorpusJson());
  return {
    name: 'rag-lab-embedded-corpus',
    configureServer(server) {
      server.middlewares.use(`/${SOTU_FILE}`, (_req, res) => {
        res.setHeader('Content-Type', 'application/json');
        res.end(corpus());
      });
    },
    generateBundle() {
      this.emitFile({ type: 'asset', fileName: SOTU_FILE, source: corpus() });
    },
  };
}

/**
 * Serves ONNX Runtime's wasm binary and its separate glue module from the app itself (no CDN), copied from the
 * installed onnxruntime-web at build time. The separate glue is what makes multi-threaded WASM work.
 */
function ortWasm(): Plugin {
  const dist = dirname(createRequire(import.meta.url).resolve('onnxruntime-web'));
  const read = (f: string) => readFileSync(join(dist, f));
  return {
    name: 'rag-lab-ort-wasm',
    configureServer(server) {
      for (const f of ORT_FILES) {
        server.middlewares.use(`/${ORT_DIR}/${f}`, (_req, res) => {
          res.setHeader('Content-Type', f.endsWith('.wasm') ? 'application/wasm' : 'text/javascript');
          res.end(read(f));
        });
      }
    },
    generateBundle() {
      for (const f of ORT_FILES) this.emitFile({ type: 'asset', fileName: `${ORT_DIR}/${f}`, source: read(f) });
    },
  };
}

/**
 * Serves coi-serviceworker (the script and, registered by it, the service worker) from the app root. On hosts that
 * send no COOP/COEP headers it adds them in a service worker, so the page is cross-origin isolated after one reload
 * and ONNX Runtime can use threads (index.html configures it; Settings turns it off).
 */
function coiServiceWorker(): Plugin {
  const source = () => readFileSync(createRequire(import.meta.url).resolve('coi-serviceworker/coi-serviceworker.min.js'));
  return {
    name: 'rag-lab-coi-serviceworker',
    configureServer(server) {
      server.middlewares.use(`/${COI_SCRIPT}`, (_req, res) => {
        res.setHeader('Content-Type', 'text/javascript');
        res.end(source());
      });
    },
    generateBundle() {
      this.emitFile({ type: 'asset', fileName: COI_SCRIPT, source: source() });
    },
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
  plugins: [svelte(), embeddedCorpus(), ortWasm(), coiServiceWorker()],
  // The extern-wasm builds of onnxruntime-web load the glue and wasm from `wasmPaths` (ortWasm above) instead of
  // bundling a second 27 MB copy of the wasm.
  resolve: { conditions: ['onnxruntime-web-use-extern-wasm', ...defaultClientConditions] },
  worker: { format: 'es' },
  server: { headers: ISOLATION_HEADERS },
  preview: { headers: ISOLATION_HEADERS },
  build: { target: 'es2022', chunkSizeWarningLimit: 2000 },
});
