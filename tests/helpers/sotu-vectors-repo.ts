/**
 * The embedded corpus's vectors for the fixture embedder, made once per test run and served as a Hub dataset repo:
 * the e2e files whose subject is not in-tab embedding (rerank, rejection, threads, the service worker…) set Settings'
 * "Dense vectors for the embedded corpus" to it, so enabling dense search downloads 16,564 int8 vectors instead of
 * embedding every chunk in each fresh profile. It is the build's own step (scripts/sotu-vectors.ts: Node,
 * onnxruntime-node, the q8 file the tab loads on WASM) with the fixture embedder, cached under node_modules/.cache
 * like the build's; the tab's in-tab embedding keeps its own tests (models.test.ts, corpus-embedder.test.ts, ux).
 */
import { resolve } from 'node:path';
import { loadSotuArtifact } from '../../scripts/sotu-artifact.ts';
import { sotuVectors, sotuVectorsPlan } from '../../scripts/sotu-vectors.ts';
import { serveHubRepos } from './hub-repo-server.ts';

/** The repo's name on the loopback Hub. */
export const SOTU_VECTORS_REPO = 'rag-lab/sotu-tiny-vectors';
const EMBEDDER = 'rag-lab/tiny-embedder';

export interface SotuVectorsRepo {
  /** The dataset Hub's origin (Settings' `hubUrl`). */
  hubUrl: string;
  /** `owner/name` (Settings' `sotuVectors`). */
  repo: string;
  /** How the vectors were had, for the run's log. */
  line: string;
  close(): Promise<void>;
}

/** Makes (or reads from the build cache) the vectors with the fixture embedder served at `modelsHubUrl`, and serves them. */
export async function serveSotuVectorsRepo(modelsHubUrl: string): Promise<SotuVectorsRepo> {
  const bm25 = await loadSotuArtifact();
  const plan = { ...sotuVectorsPlan({ HF_ENDPOINT: modelsHubUrl, RAG_LAB_SOTU_VECTORS: 'on' }, 'build')!, embedder: EMBEDDER };
  const made = await sotuVectors(bm25, plan, { modelsCacheDir: resolve(import.meta.dirname, '../../node_modules/.cache/rag-lab/test-models') });
  if (!made.files) throw new Error(made.line);
  const hub = await serveHubRepos();
  hub.addRepo(SOTU_VECTORS_REPO, made.files);
  return { hubUrl: hub.url, repo: SOTU_VECTORS_REPO, line: made.line, close: () => hub.close() };
}
