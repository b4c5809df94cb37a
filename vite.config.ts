import { svelte } from '@sveltejs/vite-plugin-svelte';
import { defineConfig, type Plugin } from 'vite';
import { sotuCorpusJson } from './scripts/sotu-corpus.ts';
import { SOTU_FILE } from './src/lib/data/sotu.ts';

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

export default defineConfig({
  // Relative asset URLs: the built dist/ works from any sub-path (Hugging Face Spaces, GitHub Pages, a folder).
  base: './',
  plugins: [svelte(), embeddedCorpus()],
  worker: { format: 'es' },
  build: { target: 'es2022', chunkSizeWarningLimit: 2000 },
});
