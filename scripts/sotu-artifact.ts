/**
 * The embedded State of the Union corpus as a knowledge-base artifact (format v1, docs/index-format.md), so the
 * app's first open reads a built BM25 index instead of indexing 16.5k chunks in the tab.
 *
 * - Build step: `sotuArtifactFiles()` gives the files of an artifact repo (`index_config.json` + `sotu/…`, BM25
 *   only), built with the app's own defaults (DEFAULT_KB_OPTIONS: 800/120 chunks, BM25 k1 0.9 / b 0.4, titles
 *   indexed, 100-query corpus CDF, seed 13: what `openKnowledgeBase` uses), so scores are the same as an in-tab
 *   build. The Vite plugin `embeddedArtifact` (vite.config.ts) serves them under `corpora/` in dev and emits them
 *   into the build. Building takes a few seconds (measured: `npm run bench:artifact`), so the files are cached under
 *   node_modules/.cache/rag-lab/sotu-artifact/<key>/, the key covering the corpus text and the code that writes
 *   the artifact; a cached folder is checked (SHA-256 of every file) before use and rebuilt when anything differs.
 * - Maintainers: `npx tsx scripts/sotu-artifact.ts --out DIR [--embedder ID] [--models-dir DIR] …` writes the same
 *   artifact with dense vectors into DIR (README: "Dense vectors for the embedded corpus"), ready to upload as a
 *   Hub dataset repo.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { addToIndexConfig, indexConfigBytes, writeArtifact, type ArtifactInput } from '../src/lib/artifact/write.ts';
import { sotuDescriptor, sotuDocuments } from '../src/lib/data/sotu.ts';
import { KnowledgeBase } from '../src/lib/retrieval/knowledge-base.ts';
import { sotuCorpusJson } from '../cli/sotu-corpus.ts';

const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
/** Where the build keeps built artifacts between runs (ignored with node_modules). */
export const ARTIFACT_CACHE_DIR = join(REPO_ROOT, 'node_modules/.cache/rag-lab/sotu-artifact');
/** The index's folder inside the artifact repo, and its id in index_config.json. */
export const SOTU_INDEX_ID = sotuDescriptor.id;
/** The folder of the site the artifact repo is served from (`corpora/index_config.json`, `corpora/sotu/…`). */
export const SOTU_ARTIFACT_BASE = 'corpora';

/**
 * Sources whose change can change the artifact's bytes: the code version of the cache key. Folders count with every
 * .ts file inside; hyparquet-writer counts by its version.
 */
const CODE_INPUTS = [
  'src/lib/artifact', 'src/lib/retrieval', 'src/lib/data/sotu.ts', 'src/lib/data/kb-source.ts',
  'src/lib/random.ts', 'src/lib/models/corpus-embedder/corpus-hash.ts', 'scripts/sotu-artifact.ts', 'cli/sotu-corpus.ts', 'node_modules/hyparquet-writer/package.json',
];

export interface SotuArtifact {
  /** Repo-relative paths (`index_config.json`, `sotu/meta.json`, …) → bytes. */
  files: Map<string, Uint8Array>;
  source: 'cache' | 'built';
  /** Wall time of building (or reading and checking the cache). */
  ms: number;
  key: string;
  /** Why the cache was not used or not written (null when all went well). */
  note: string | null;
}

export const sha256 = (bytes: Uint8Array | string) => createHash('sha256').update(bytes).digest('hex');

export function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  if (!statSync(dir).isDirectory()) return [dir];
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .map((f) => join(dir, f))
    .filter((f) => f.endsWith('.ts') && statSync(f).isFile())
    .sort();
}

/** SHA-256 over the corpus text and the code inputs (path + content of each file). */
export function sotuArtifactKey(corpusJson: string, root = REPO_ROOT): string {
  const h = createHash('sha256').update('rag-lab sotu artifact\n').update(sha256(corpusJson)).update(`\n${sotuArtifactCreated()}`);
  for (const input of CODE_INPUTS) {
    for (const f of filesUnder(join(root, input))) h.update(`\n${relative(root, f)}\n`).update(readFileSync(f));
  }
  return h.digest('hex').slice(0, 24);
}

/**
 * meta.json's `created`: the build is reproducible (same corpus and code → the same bytes), because the search worker
 * keys vectors embedded in the tab by meta.json's SHA-256, and a new timestamp on every deploy would throw away every
 * visitor's cached SOTU embeddings. SOURCE_DATE_EPOCH (seconds, the reproducible-builds convention) sets it; else 0.
 */
export function sotuArtifactCreated(env: Record<string, string | undefined> = process.env): string {
  const epoch = Number(env.SOURCE_DATE_EPOCH);
  return new Date(Number.isInteger(epoch) && epoch >= 0 ? epoch * 1000 : 0).toISOString();
}

/** The artifact input for the embedded corpus: the app's descriptor and a knowledge base built with its defaults. */
export function sotuArtifactInput(corpusJson = sotuCorpusJson()): ArtifactInput {
  const kb = KnowledgeBase.build(sotuDocuments(JSON.parse(corpusJson)));
  const d = sotuDescriptor;
  return {
    id: SOTU_INDEX_ID, title: d.title, description: d.description, fields: d.fields, examples: d.examples, placeholder: d.placeholder, kb,
    created: sotuArtifactCreated(),
  };
}

/** index_config.json + the index folder, as repo-relative paths. */
export async function artifactRepoFiles(input: ArtifactInput, config: Parameters<typeof addToIndexConfig>[0] = null): Promise<Map<string, Uint8Array>> {
  const written = await writeArtifact(input);
  const out = new Map<string, Uint8Array>();
  out.set('index_config.json', indexConfigBytes(addToIndexConfig(config, written.entry)));
  for (const [p, bytes] of written.files) out.set(`${written.entry.path}/${p}`, bytes);
  return out;
}

export interface Manifest { key: string; files: Record<string, { bytes: number; sha256: string }> }

export function readCache(dir: string, key: string): Map<string, Uint8Array> | string {
  const manifestPath = join(dir, 'manifest.json');
  if (!existsSync(manifestPath)) return 'not cached';
  let manifest: Manifest;
  try {
    manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as Manifest;
  } catch {
    return 'the cached manifest.json is not JSON';
  }
  if (manifest?.key !== key || typeof manifest.files !== 'object' || manifest.files === null) return 'the cached manifest is of another build';
  const files = new Map<string, Uint8Array>();
  for (const [p, f] of Object.entries(manifest.files)) {
    const file = join(dir, 'files', p);
    if (!existsSync(file)) return `the cached ${p} is missing`;
    const bytes = new Uint8Array(readFileSync(file));
    if (bytes.byteLength !== f.bytes || sha256(bytes) !== f.sha256) return `the cached ${p} differs from its manifest`;
    files.set(p, bytes);
  }
  return files;
}

/** Writes the files to a temporary folder and renames it into place, so a cache folder is always complete. */
export function writeCache(cacheDir: string, key: string, files: Map<string, Uint8Array>): void {
  const dir = join(cacheDir, key);
  const tmp = `${dir}.tmp-${process.pid}-${Date.now()}`;
  const manifest: Manifest = { key, files: {} };
  for (const [p, bytes] of files) {
    mkdirSync(dirname(join(tmp, 'files', p)), { recursive: true });
    writeFileSync(join(tmp, 'files', p), bytes);
    manifest.files[p] = { bytes: bytes.byteLength, sha256: sha256(bytes) };
  }
  writeFileSync(join(tmp, 'manifest.json'), JSON.stringify(manifest));
  rmSync(dir, { recursive: true, force: true });
  renameSync(tmp, dir);
  // Older keys are of older code or corpus versions: keep the cache at one entry.
  for (const other of readdirSync(cacheDir)) if (other !== key) rmSync(join(cacheDir, other), { recursive: true, force: true });
}

/**
 * The SOTU BM25 artifact repo: from the cache when a complete, checked copy exists for this corpus and code,
 * otherwise built and cached. `cacheDir: null` never reads or writes a cache. A cache that cannot be written only
 * costs the next build its time (`note` says why). `corpusJson`: another corpus of addresses in the same form (a
 * test's few speeches); by default the embedded corpus.
 */
export async function loadSotuArtifact(opts: { cacheDir?: string | null; corpusJson?: string } = {}): Promise<SotuArtifact> {
  const t0 = performance.now();
  const cacheDir = opts.cacheDir === undefined ? ARTIFACT_CACHE_DIR : opts.cacheDir;
  const json = opts.corpusJson ?? sotuCorpusJson();
  const key = sotuArtifactKey(json);
  let note: string | null = null;
  if (cacheDir) {
    const cached = readCache(join(cacheDir, key), key);
    if (typeof cached !== 'string') return { files: cached, source: 'cache', ms: performance.now() - t0, key, note: null };
    if (cached !== 'not cached') note = `${cached}; rebuilt`;
  }
  const files = await artifactRepoFiles(sotuArtifactInput(json));
  if (cacheDir) {
    try {
      mkdirSync(cacheDir, { recursive: true });
      writeCache(cacheDir, key, files);
    } catch (e) {
      note = `${note ? `${note}; ` : ''}the build cache could not be written (${(e as Error).message})`;
    }
  }
  return { files, source: 'built', ms: performance.now() - t0, key, note };
}

/** The build step's files (repo-relative paths): what the Vite plugin serves under `corpora/`. */
export async function sotuArtifactFiles(opts: { cacheDir?: string | null } = {}): Promise<Map<string, Uint8Array>> {
  return (await loadSotuArtifact(opts)).files;
}

// ---------------------------------------------------------------------------------------------------------------
// Maintainers' command: the artifact with dense vectors, written to a folder (heavy modules load only here, so
// the Vite config that imports this file does not load ONNX Runtime).

const USAGE = `Usage: npx tsx scripts/sotu-artifact.ts --out DIR [--embedder ID] [--models-dir DIR | --model-host URL]
                                         [--dtype fp32|fp16|q8|q4] [--int8] [--no-float32] [--hnsw]
Writes DIR/index_config.json (an existing one keeps its other entries) and DIR/sotu/: the embedded State of the
Union corpus as a knowledge-base artifact, with the app's chunking and BM25 settings. With --embedder the chunks
are embedded (passage prefix of the model) and the vectors ship: float32 embeddings.npy unless --no-float32, int8
codes with --int8, an HNSW graph with --hnsw. Upload DIR as a Hugging Face dataset repo and name it in Settings →
"Dense vectors for the embedded corpus: Hub dataset repo".
`;

export async function sotuArtifactCommand(argv: string[]): Promise<void> {
  const { parse, CliError } = await import('../cli/args.ts');
  const { MODEL_ARGS, loadCliModels } = await import('../cli/models.ts');
  const { checkOutputDir } = await import('../cli/fs-errors.ts');
  const { values } = parse(argv, {
    ...MODEL_ARGS, out: { type: 'string' }, int8: { type: 'boolean', default: false }, 'no-float32': { type: 'boolean', default: false },
    hnsw: { type: 'boolean', default: false }, help: { type: 'boolean', short: 'h', default: false },
  });
  if (values.help) { process.stdout.write(USAGE); return; }
  if (!values.out) throw new CliError(`--out DIR is required\n${USAGE}`);
  const dense = Boolean(values.embedder);
  if (!dense && (values.int8 || values.hnsw || values['no-float32'])) throw new CliError('--int8, --hnsw and --no-float32 need --embedder');
  if (values['no-float32'] && !values.int8) throw new CliError('--no-float32 needs --int8 (the artifact would have no vectors)');
  const out = resolve(values.out);
  checkOutputDir(out, '--out');
  const log = (m: string) => process.stderr.write(`[sotu-artifact] ${m}\n`);

  let t0 = performance.now();
  const input = sotuArtifactInput();
  const kb = input.kb;
  log(`BM25 index of ${kb.docs.length} addresses, ${kb.size} chunks in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  if (dense) {
    const models = await loadCliModels({ ...values, 'no-cache': true }, { dense: true, reranker: false }, log);
    const embedder = models.embedder!;
    input.dense = await sotuDense(kb, embedder, { int8: values.int8, float32: !values['no-float32'], hnsw: values.hnsw }, log);
  }
  t0 = performance.now();
  const configPath = join(out, 'index_config.json');
  let config: Parameters<typeof addToIndexConfig>[0] = null;
  if (existsSync(configPath)) {
    const { parseIndexConfig } = await import('../src/lib/artifact/format.ts');
    config = parseIndexConfig(JSON.parse(readFileSync(configPath, 'utf8')), 'index_config.json');
  }
  const files = await artifactRepoFiles(input, config);
  let bytes = 0;
  for (const [p, b] of files) {
    mkdirSync(dirname(join(out, p)), { recursive: true });
    writeFileSync(join(out, p), b);
    bytes += b.byteLength;
  }
  log(`wrote ${files.size} files (${(bytes / 1e6).toFixed(1)} MB) to ${out} in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
}

/** Embeds the chunks as passages and makes the dense side of the artifact (the dense CDF from the exact scores). */
export async function sotuDense(
  kb: KnowledgeBase,
  embedder: import('../src/lib/models/types.ts').TextEmbedder,
  opts: { int8: boolean; float32: boolean; hnsw: boolean },
  log: (m: string) => void,
): Promise<NonNullable<ArtifactInput['dense']>> {
  const { embedItems, denseCdfTable } = await import('../src/lib/retrieval/dense-build.ts');
  const { ExactDenseIndex } = await import('../src/lib/retrieval/dense.ts');
  const { embedderRecord } = await import('../src/lib/artifact/embedder-record.ts');
  const t0 = performance.now();
  let last = 0;
  const { vectors, dim } = await embedItems(kb, embedder, {
    onProgress: (done, total) => {
      if (done !== total && performance.now() - last < 5000) return;
      last = performance.now();
      log(`embedded ${done}/${total} chunks (${(done / ((last - t0) / 1000)).toFixed(1)} passages/s)`);
    },
  });
  const cdf = await denseCdfTable(kb, new ExactDenseIndex(vectors, dim), embedder, 100, kb.options.seed);
  let hnsw = null;
  if (opts.hnsw) {
    // hnswlib-wasm serialises through IDBFS, which needs IndexedDB (its package types miss this entry point).
    await import('fake-indexeddb/auto' as string);
    const { buildVectorIndex, serializeVectorIndex } = await import('../src/lib/retrieval/vector-index.ts');
    const t1 = performance.now();
    const index = await buildVectorIndex('hnsw', vectors, dim, undefined, { metric: 'cosine' });
    hnsw = await serializeVectorIndex(index) as import('../src/lib/retrieval/hnsw.ts').HnswIndexData;
    log(`HNSW graph in ${((performance.now() - t1) / 1000).toFixed(1)} s`);
  }
  return {
    vectors, dim, cdf, int8: opts.int8, float32: opts.float32, hnsw,
    embedder: embedderRecord(embedder.spec, dim),
  };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  sotuArtifactCommand(process.argv.slice(2)).catch((e: unknown) => {
    process.stderr.write(`sotu-artifact: ${(e as Error).message}\n`);
    process.exit((e as { exitCode?: number }).exitCode ?? 1);
  });
}
