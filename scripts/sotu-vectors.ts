/**
 * The build's dense vectors for the embedded corpus: when the Hub can be reached, `npm run build` embeds the SOTU
 * chunks with the registry's default embedder in Node (onnxruntime-node, in the dtype the tab loads on WASM,
 * `defaultDtype('wasm')`) and ships int8 vectors in `corpora/sotu/` (the artifact format the tab reads, written by
 * the one `writeArtifact` through `artifactRepoFiles`), so a first visit has every mode without embedding in the tab.
 *
 * - RAG_LAB_SOTU_VECTORS: `auto` (default: in `vite build` only, when the Hub answers), `on` (also in the dev
 *   server; a build fails when the vectors cannot be made), `off` (BM25 only, no request).
 * - HF_ENDPOINT: the Hub (default https://huggingface.co), as huggingface_hub reads it.
 * - One listing of the model's files (its tree, bounded by a short timeout) says whether the Hub can be reached and
 *   gives the model files' content ids; the built artifact is cached under node_modules/.cache/rag-lab/
 *   sotu-artifact-vectors/<key>, the key covering the BM25 artifact's key, the model id, dtype, those ids and the
 *   code that embeds, so a rebuild does not embed again. Model files are cached under node_modules/.cache/rag-lab/models.
 * - When the Hub cannot be reached it says so in one line and the BM25 artifact ships, as without this step.
 * Heavy modules (transformers.js, ONNX Runtime) load only when vectors are made.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { HUB_ORIGIN } from '../src/lib/hub/endpoint.ts';
import { stallGuardedFetch } from '../src/lib/hub/stall-fetch.ts';
import { DEFAULT_MODELS, defaultDtype } from '../src/lib/models/registry.ts';
import type { Dtype } from '../src/lib/models/types.ts';
import { artifactRepoFiles, filesUnder, readCache, sotuArtifactInput, writeCache, type SotuArtifact } from './sotu-artifact.ts';

const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const VECTORS_CACHE_DIR = join(REPO_ROOT, 'node_modules/.cache/rag-lab/sotu-artifact-vectors');
export const MODELS_CACHE_DIR = join(REPO_ROOT, 'node_modules/.cache/rag-lab/models');

/** Code whose change can change the vectors (beside the BM25 artifact's inputs, already in its key). */
const EMBED_CODE = [
  'src/lib/models/embedder.ts', 'src/lib/models/batches.ts', 'src/lib/models/loading.ts', 'src/lib/models/registry.ts',
  'src/lib/kb-build/dense-input.ts', 'scripts/sotu-vectors.ts',
  'node_modules/@huggingface/transformers/package.json', 'node_modules/onnxruntime-node/package.json',
];

export interface SotuVectorsPlan {
  /** `on`: failing to make the vectors fails the build; `auto`: BM25 ships instead. */
  mode: 'auto' | 'on';
  /** The Hub (origin or base URL in Hub layout). */
  hubUrl: string;
  embedder: string;
  dtype: Dtype;
  /** Milliseconds to wait for response headers (the reachability check) and between body chunks of a download. */
  headersMs: number;
  idleMs: number;
}

export const SOTU_VECTORS_ENV = 'RAG_LAB_SOTU_VECTORS';

/**
 * The vectors step from the environment, for a `build` or the dev server (`serve`); null: no step (off, or auto in
 * the dev server, whose first page would otherwise wait minutes). A bad value is an error naming the good ones.
 */
export function sotuVectorsPlan(env: Record<string, string | undefined>, command: 'build' | 'serve'): SotuVectorsPlan | null {
  const raw = (env[SOTU_VECTORS_ENV] ?? 'auto').trim().toLowerCase() || 'auto';
  if (raw !== 'off' && raw !== 'auto' && raw !== 'on') throw new Error(`${SOTU_VECTORS_ENV} must be off, auto or on, got "${env[SOTU_VECTORS_ENV]}"`);
  if (raw === 'off' || (raw === 'auto' && command === 'serve')) return null;
  const hubUrl = env.HF_ENDPOINT?.trim() || HUB_ORIGIN;
  const url = new URL(hubUrl);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error(`HF_ENDPOINT must be an http(s) URL, got "${hubUrl}"`);
  return { mode: raw, hubUrl, embedder: DEFAULT_MODELS.embedder, dtype: defaultDtype('wasm'), headersMs: 5000, idleMs: 30_000 };
}

/** SHA-256 over the BM25 artifact's key, the model and its files' content ids, and the embedding code. */
export function sotuVectorsKey(bm25Key: string, plan: Pick<SotuVectorsPlan, 'embedder' | 'dtype'>, fileIds: readonly string[], root = REPO_ROOT): string {
  const h = createHash('sha256').update(`rag-lab sotu vectors\n${bm25Key}\n${plan.embedder}@${plan.dtype}\n${fileIds.join('\n')}`);
  for (const input of EMBED_CODE) for (const f of filesUnder(join(root, input))) h.update(`\n${relative(root, f)}\n`).update(readFileSync(f));
  return h.digest('hex').slice(0, 24);
}

export interface SotuVectorsResult {
  /** The artifact repo with vectors, or null: ship the BM25 one. */
  files: Map<string, Uint8Array> | null;
  source: 'cache' | 'built' | null;
  /** The one line the build prints about the vectors. */
  line: string;
}

export interface SotuVectorsOptions {
  /** null: no cache (tests). */
  cacheDir?: string | null;
  modelsCacheDir?: string;
  fetch?: typeof fetch;
  /** Progress while embedding (every few seconds). */
  log?: (line: string) => void;
  /** The corpus `bm25` was made from, when not the embedded one (loadSotuArtifact's `corpusJson`). */
  corpusJson?: string;
}

/** The vectors step after the BM25 artifact `bm25` is made: see the file's comment. */
export async function sotuVectors(bm25: Pick<SotuArtifact, 'key'>, plan: SotuVectorsPlan, opts: SotuVectorsOptions = {}): Promise<SotuVectorsResult> {
  const host = new URL(plan.hubUrl).origin;
  const guarded = stallGuardedFetch({ headersMs: plan.headersMs, idleMs: plan.idleMs }, opts.fetch ?? fetch);
  const fail = (what: string, e: unknown): SotuVectorsResult => {
    const reason = (e as Error).message || String(e);
    if (plan.mode === 'on') throw new Error(`SOTU vectors: ${what} (${reason}) and ${SOTU_VECTORS_ENV}=on`);
    return { files: null, source: null, line: `SOTU vectors: ${what} (${reason}); shipping BM25 only (${SOTU_VECTORS_ENV}=off skips this step)` };
  };
  const { modelFileIds } = await import('../src/lib/models/download-size.ts');
  let fileIds: string[];
  try {
    fileIds = await modelFileIds(plan.hubUrl, { id: plan.embedder, dtype: plan.dtype }, { fetch: guarded });
  } catch (e) {
    return fail(`no vectors from ${host}`, e);
  }
  const key = sotuVectorsKey(bm25.key, plan, fileIds);
  const cacheDir = opts.cacheDir === undefined ? VECTORS_CACHE_DIR : opts.cacheDir;
  if (cacheDir) {
    const cached = readCache(join(cacheDir, key), key);
    if (typeof cached !== 'string') return { files: cached, source: 'cache', line: `SOTU vectors: int8 vectors of ${plan.embedder} (${plan.dtype}) from the build cache` };
  }
  const t0 = performance.now();
  let files: Map<string, Uint8Array>;
  let chunks: number;
  try {
    const { configureModels } = await import('../src/lib/models/env.ts');
    const { loadEmbedder } = await import('../src/lib/models/embedder.ts');
    const { denseStep } = await import('../src/lib/kb-build/dense-input.ts');
    const modelsCacheDir = opts.modelsCacheDir ?? MODELS_CACHE_DIR;
    mkdirSync(modelsCacheDir, { recursive: true });
    configureModels({ remoteHost: plan.hubUrl, cacheDir: modelsCacheDir, fetch: guarded });
    const embedder = await loadEmbedder({ id: plan.embedder, dtype: plan.dtype, device: 'cpu' });
    const input = sotuArtifactInput(opts.corpusJson);
    chunks = input.kb.size;
    let last = performance.now();
    const bar = {
      update: (stage: string, done: number, total: number) => {
        if (stage !== 'embed' || done === total || performance.now() - last < 10_000) return;
        last = performance.now();
        opts.log?.(`SOTU vectors: embedded ${done}/${total} chunks (${(done / ((last - t0) / 1000)).toFixed(1)} passages/s)`);
      },
      end: () => {},
    };
    try {
      input.dense = await denseStep(input.kb, embedder, { int8: true, float32: false, hnsw: false }, bar, () => {});
    } finally {
      await embedder.dispose();
    }
    files = await artifactRepoFiles(input);
  } catch (e) {
    return fail(`could not embed with ${plan.embedder} from ${host}`, e);
  }
  const s = (performance.now() - t0) / 1000;
  let note = '';
  if (cacheDir) {
    try {
      mkdirSync(cacheDir, { recursive: true });
      writeCache(cacheDir, key, files);
    } catch (e) {
      note = `; the build cache could not be written (${(e as Error).message})`;
    }
  }
  return { files, source: 'built', line: `SOTU vectors: embedded ${chunks} chunks with ${plan.embedder} (${plan.dtype}) in ${s.toFixed(1)} s (${(chunks / Math.max(s, 1e-9)).toFixed(1)} passages/s); int8 vectors shipped${note}` };
}
