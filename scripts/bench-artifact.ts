/**
 * `npm run bench:artifact`: what opening a knowledge-base artifact costs (issue 10's bars). Prints tables (Markdown)
 * on stdout, or one JSON object with --json; progress goes to stderr.
 *
 *  1. Open to all seven modes live, for a 16.5k × 384 artifact: the SOTU chunks (app defaults, BM25 postings as
 *     the writer ships them) + seeded random clustered unit vectors (tests/helpers/vectors.ts: 200 clusters, noise
 *     0.9), in four variants (float32 or int8 vectors, HNSW graph shipped or not), served by the loopback Hub
 *     (tests/helpers/hub-repo-server.ts) and read with the real code: hubSource → openArtifact →
 *     attachArtifactDense → a reranker present → the first query in every mode. Cold = an empty file cache; warm =
 *     the same cache again, as a memory cache and as the IndexedDB cache (fake-indexeddb in Node; a fresh cache
 *     object over the same database, as after a reload). The query embedder and the cross-encoder are stubs (a
 *     seeded vector per query text, a hash score per pair): model loading and inference are NOT in these times.
 *     "live" = KB ready + dense attached + reranker present; "+ 7 queries" adds the first query of each mode.
 *     Without a shipped graph the vectors are searched by an exact scan (float32 or int8), not an HNSW built on
 *     open. The embedded corpus's own BM25 artifact (the build's `corpora/`) is measured the same way over plain
 *     HTTP (httpFolderSource, tests/helpers/static-server.ts).
 *  2. Int8 download / float32 download: the vector files alone (the bar: ≤ 0.27) and the whole artifact.
 *  3. BM25 postings vs rebuild on open at 16k and 100k chunks: scripts/bench-artifact-bm25.ts, run as is.
 *  4. Build: BM25-only artifact of SOTU (index + parquet + meta), and passages/s of embedding with the fixture
 *     embedder (tests/fixtures/models/rag-lab/tiny-embedder, loaded by the CLI's model loading; a closed-form
 *     2-layer model, so real models such as MiniLM-L6 are far slower: measure them with `npm run bench:models`).
 *
 * This runs in Node, not in the browser the bars are about: a browser adds the worker hop, SubtleCrypto hashing and
 * real IndexedDB, so treat these as a lower bound.
 *
 *  5. With --browser: the built app (dist/, from `npm run build`) in headless Chromium (tests/helpers/browser.ts),
 *     served on loopback: time from navigation to the knowledge base ready (BM25 only: the Search tab's kb-info),
 *     opening the shipped `corpora/` artifact vs indexing `corpora/sotu.json` in the tab (index_config.json
 *     answered 404), first visit (fresh profile) and reload. And the 16.5k × 384 artifact (int8, float32) from the
 *     loopback Hub through the picker: cold (fresh profile), warm reload (kb= link) and warm picker; the worker's
 *     open reads the vectors (download, SHA-256, parse), attaching them needs a 384-d embedder (none offline): not
 *     included (browserHubOpen).
 *
 * Options: --reps N (timed opens per scenario, median reported; default 3), --embed-chunks N (chunks embedded for
 *          passages/s; default 2000), --skip-bm25, --skip-embed, --browser, --browser-only,
 *          --skip-embedded-browser (with --browser-only: only the Hub artifact in Chromium), --json.
 */
import 'fake-indexeddb/auto';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { attachArtifactDense } from '../src/lib/artifact/attach.ts';
import { memorySource } from '../src/lib/artifact/memory-source.ts';
import { openArtifact } from '../src/lib/artifact/read.ts';
import type { FileSource } from '../src/lib/artifact/types.ts';
import { httpFolderSource } from '../src/lib/hub/http-source.ts';
import { hubSource } from '../src/lib/hub/hub-source.ts';
import type { HnswIndexData } from '../src/lib/retrieval/hnsw.ts';
import { KnowledgeBase } from '../src/lib/retrieval/knowledge-base.ts';
import { MODE_IDS } from '../src/lib/retrieval/modes.ts';
import { search, type SearchModels } from '../src/lib/retrieval/search.ts';
import { buildVectorIndex, serializeVectorIndex } from '../src/lib/retrieval/vector-index.ts';
import { memoryArtifactCache, type ArtifactFileCache } from '../src/lib/hub/file-cache.ts';
import { indexedDbArtifactCache } from '../src/lib/store/artifact-cache.ts';
import { serveHubRepos } from '../tests/helpers/hub-repo-server.ts';
import { serveStatic } from '../tests/helpers/static-server.ts';
import { artifactRepoFiles, loadSotuArtifact, SOTU_INDEX_ID } from './sotu-artifact.ts';
import { log, mb, median, ms, now, tables, type OpenRow } from './bench/artifact-report.ts';
import { denseFixture, DIM, STUB_ID, stubModels } from './bench/artifact-fixture.ts';
import { browserHubOpen, browserOpen } from './bench/artifact-browser.ts';

const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const QUERY = 'tariff on imported goods';

interface Args { reps: number; embedChunks: number; skipBm25: boolean; skipEmbed: boolean; browser: boolean; browserOnly: boolean; skipEmbeddedBrowser: boolean; json: boolean }

function readArgs(): Args {
  const { values } = parseArgs({
    options: {
      reps: { type: 'string', default: '3' }, 'embed-chunks': { type: 'string', default: '2000' },
      'skip-bm25': { type: 'boolean', default: false }, 'skip-embed': { type: 'boolean', default: false }, json: { type: 'boolean', default: false },
      browser: { type: 'boolean', default: false }, 'browser-only': { type: 'boolean', default: false }, 'skip-embedded-browser': { type: 'boolean', default: false },
    },
  });
  const int = (s: string, name: string) => {
    const n = Number(s);
    if (!Number.isInteger(n) || n < 1) throw new Error(`--${name} must be a whole number >= 1, got ${s}`);
    return n;
  };
  return {
    reps: int(values.reps, 'reps'), embedChunks: int(values['embed-chunks'], 'embed-chunks'), skipBm25: values['skip-bm25'], skipEmbed: values['skip-embed'],
    browser: values.browser || values['browser-only'], browserOnly: values['browser-only'], skipEmbeddedBrowser: values['skip-embedded-browser'], json: values.json,
  };
}

// ---------------------------------------------------------------------------------------------------------------

interface Variant { name: string; int8: boolean; hnsw: boolean }
const VARIANTS: readonly Variant[] = [
  { name: 'float32', int8: false, hnsw: false },
  { name: 'float32 + HNSW', int8: false, hnsw: true },
  { name: 'int8', int8: true, hnsw: false },
  { name: 'int8 + HNSW', int8: true, hnsw: true },
];

/** Opens `path` of `source()` to all seven modes live; the times are from before the source is made. */
async function openToLive(source: () => Promise<FileSource>, denseKind: 'int8' | 'float32' | 'none', index: 'hnsw' | 'int8' | 'exact', models: SearchModels) {
  const t0 = now();
  const src = await source();
  const opened = await openArtifact(src, SOTU_INDEX_ID, { dense: denseKind, hnsw: index === 'hnsw' });
  const openMs = now() - t0;
  let kind = 'none';
  if (denseKind !== 'none') {
    if (!opened.dense) throw new Error('the artifact has no vectors');
    const attached = await attachArtifactDense(opened.kb, opened.dense, { spec: { id: STUB_ID, dtype: 'fp32' }, dim: DIM }, { index });
    kind = attached.index;
  }
  const liveMs = now() - t0;
  for (const mode of denseKind === 'none' ? (['sparse'] as const) : MODE_IDS) {
    const r = await search(opened.kb, QUERY, { mode, topK: 10 }, models);
    if (r.status !== 'ok' && r.status !== 'rejected') throw new Error(`${mode}: ${r.status}${'reason' in r ? ` (${r.reason})` : ''}`);
  }
  return { openMs, liveMs, allModesMs: now() - t0, index: kind, kb: opened.kb };
}

async function clearIndexedDb(): Promise<void> {
  const dbs = await indexedDB.databases();
  await Promise.all(dbs.filter((d) => d.name === 'rag-lab').map((d) => new Promise<void>((ok, fail) => {
    const r = indexedDB.deleteDatabase(d.name!);
    r.onsuccess = () => ok();
    r.onerror = () => fail(r.error);
    r.onblocked = () => fail(new Error('deleting the rag-lab database is blocked by an open connection'));
  })));
}

async function main(): Promise<void> {
  const args = readArgs();
  // hnswlib-wasm reports every IDBFS sync on console.log: keep stdout for the tables.
  console.log = (...a: unknown[]) => console.error(...a);
  const startLoad = loadavg();
  const report: Record<string, unknown> = {
    machine: { cpu: cpus()[0]?.model.trim(), cores: cpus().length, availableParallelism: availableParallelism(), totalMemGiB: Math.round(totalmem() / 2 ** 30), node: process.version },
    loadavgAtStart: startLoad.map((x) => Math.round(x * 100) / 100),
    note: 'Node, not a browser; stub embedder/reranker: model loading and inference excluded',
  };
  if (args.browserOnly) {
    if (!args.skipEmbeddedBrowser) report.browser = await browserOpen(args.reps);
    report.browserHub = await browserHubOpen(args.reps);
    report.loadavgAtEnd = loadavg().map((x) => Math.round(x * 100) / 100);
    process.stdout.write(args.json ? `${JSON.stringify(report)}\n` : tables(report));
    return;
  }

  // --- build: the SOTU BM25 artifact (no cache) ---
  log('building the SOTU BM25 artifact (no build cache)…');
  const bm25Build = await loadSotuArtifact({ cacheDir: null });
  const bm25Bytes = [...bm25Build.files.values()].reduce((a, b) => a + b.byteLength, 0);
  const tmp = mkdtempSync(join(tmpdir(), 'rag-lab-bench-artifact-'));
  const buildCache = join(tmp, 'build-cache');
  await loadSotuArtifact({ cacheDir: buildCache });
  const cachedBuild = await loadSotuArtifact({ cacheDir: buildCache });
  report.build = { bm25ArtifactMs: ms(bm25Build.ms), fromBuildCacheMs: ms(cachedBuild.ms), files: bm25Build.files.size, bytes: bm25Bytes };
  log(`BM25 artifact: ${ms(bm25Build.ms)} ms to build, ${ms(cachedBuild.ms)} ms from the build cache, ${mb(bm25Bytes)} MB`);

  // One untimed open first (module loading, JIT), as the other benches warm up before timing.
  await openArtifact(memorySource(bm25Build.files), SOTU_INDEX_ID, { dense: 'none' });

  // --- the 16.5k × 384 variants ---
  const { input, n, vectors, embedder, cdf, embedderMeta } = await denseFixture();
  const models = stubModels(embedder);
  log(`building the HNSW graph of ${n} × ${DIM} (once, shipped by the HNSW variants)…`);
  let t = now();
  const hnsw = await serializeVectorIndex(await buildVectorIndex('hnsw', vectors, DIM, undefined, { metric: 'cosine' })) as HnswIndexData;
  report.hnswBuildMs = ms(now() - t);

  const hub = await serveHubRepos();
  const rows: OpenRow[] = [];
  const vectorBytes: Record<string, number> = {};
  const totalBytes: Record<string, number> = {};
  try {
    for (const v of VARIANTS) {
      const files = await artifactRepoFiles({ ...input, dense: { vectors, dim: DIM, embedder: embedderMeta, cdf, int8: v.int8, float32: !v.int8, hnsw: v.hnsw ? hnsw : null } });
      const repo = `bench/sotu-${v.name.replace(/\W+/g, '-')}`;
      hub.addRepo(repo, files);
      totalBytes[v.name] = [...files.values()].reduce((a, b) => a + b.byteLength, 0);
      vectorBytes[v.name] = [...files].filter(([p]) => /embeddings|int8/.test(p)).reduce((a, [, b]) => a + b.byteLength, 0);
      const index = v.hnsw ? 'hnsw' : v.int8 ? 'int8' : 'exact';
      const denseKind = v.int8 ? 'int8' : 'float32';
      const measure = async (cache: string, makeCache: () => ArtifactFileCache | null, before?: () => Promise<void>) => {
        const samples: { bytes: number; requests: number; openMs: number; liveMs: number; allModesMs: number; index: string }[] = [];
        for (let r = 0; r < args.reps; r++) {
          await before?.();
          const c = makeCache();
          const mark = hub.requests.length;
          const got = await openToLive(() => hubSource({ repo, hubUrl: hub.url, cache: c }), denseKind, index, models);
          const reqs = hub.requests.slice(mark);
          samples.push({ bytes: reqs.reduce((a, q) => a + q.bytes, 0), requests: reqs.length, openMs: got.openMs, liveMs: got.liveMs, allModesMs: got.allModesMs, index: got.index });
          got.kb.dense = null;
        }
        const row: OpenRow = {
          artifact: v.name, transport: 'loopback Hub', cache,
          bytes: samples[0]!.bytes, requests: samples[0]!.requests, index: samples[0]!.index,
          openMs: median(samples.map((s) => s.openMs)), liveMs: median(samples.map((s) => s.liveMs)), allModesMs: median(samples.map((s) => s.allModesMs)),
        };
        rows.push(row);
        log(`${v.name}, ${cache}: ${mb(row.bytes)} MB in ${row.requests} requests, live in ${ms(row.liveMs)} ms, + 7 queries ${ms(row.allModesMs)} ms`);
      };
      await measure('cold (no cache)', () => null);
      const memory = memoryArtifactCache();
      await openToLive(() => hubSource({ repo, hubUrl: hub.url, cache: memory }), denseKind, index, models);
      await measure('warm memory cache', () => memory);
      await measure('cold IndexedDB', () => indexedDbArtifactCache(), clearIndexedDb);
      await measure('warm IndexedDB', () => indexedDbArtifactCache());
    }
  } finally {
    await hub.close();
  }

  // --- the embedded corpus's BM25 artifact over plain HTTP (what the built app ships under corpora/) ---
  const site = join(tmp, 'site');
  for (const [p, b] of bm25Build.files) {
    mkdirSync(dirname(join(site, 'corpora', p)), { recursive: true });
    writeFileSync(join(site, 'corpora', p), b);
  }
  const server = await serveStatic(site, '/app/');
  try {
    const base = `${server.url}corpora/`;
    for (const [cache, makeCache, before] of [
      ['cold (no cache)', () => null, undefined],
      ['cold IndexedDB', () => indexedDbArtifactCache(), clearIndexedDb],
      ['warm IndexedDB', () => indexedDbArtifactCache(), undefined],
    ] as const) {
      const samples = [];
      for (let r = 0; r < args.reps; r++) {
        await before?.();
        const counter = { bytes: 0, requests: 0 };
        const got = await openToLive(() => Promise.resolve(httpFolderSource({ baseUrl: base, cache: makeCache(), fetch: countingFetch(counter) })), 'none', 'exact', models);
        samples.push({ ...counter, ...got });
      }
      const row: OpenRow = {
        artifact: 'SOTU BM25 (corpora/)', transport: 'static HTTP', cache, bytes: samples[0]!.bytes, requests: samples[0]!.requests, index: 'none',
        openMs: median(samples.map((s) => s.openMs)), liveMs: median(samples.map((s) => s.liveMs)), allModesMs: median(samples.map((s) => s.allModesMs)),
      };
      rows.push(row);
      log(`embedded BM25, ${cache}: ${mb(row.bytes)} MB, open ${ms(row.openMs)} ms`);
    }
  } finally {
    await server.close();
  }
  report.open = rows;
  report.int8Ratio = {
    vectorFiles: vectorBytes['int8']! / vectorBytes['float32']!,
    wholeArtifact: totalBytes['int8']! / totalBytes['float32']!,
    vectorBytes, totalBytes, bar: 0.27,
  };

  // --- BM25 postings vs rebuild (H1's script) ---
  if (!args.skipBm25) {
    log('running scripts/bench-artifact-bm25.ts…');
    const r = spawnSync(process.execPath, ['--import', 'tsx', join(REPO_ROOT, 'scripts/bench-artifact-bm25.ts'), '--reps', String(args.reps)], { cwd: REPO_ROOT, encoding: 'utf8', maxBuffer: 64 << 20 });
    report.bm25 = r.status === 0 ? r.stdout.trim() : `failed (exit ${r.status}): ${r.stderr.trim().split('\n').slice(-3).join(' ')}`;
  }

  // --- embedding passages/s with the fixture embedder ---
  if (!args.skipEmbed) report.embed = await embedRate(args.embedChunks, input.kb);
  if (args.browser) {
    report.browser = await browserOpen(args.reps);
    report.browserHub = await browserHubOpen(args.reps);
  }

  report.loadavgAtEnd = loadavg().map((x) => Math.round(x * 100) / 100);
  rmSync(tmp, { recursive: true, force: true });
  process.stdout.write(args.json ? `${JSON.stringify(report)}\n` : tables(report));
}

/** A fetch that counts the body bytes it hands out (for sources whose server keeps no log). */
function countingFetch(counter: { bytes: number; requests: number }): typeof fetch {
  return async (input, init) => {
    const res = await fetch(input, init);
    counter.requests++;
    if (!res.body) return res;
    const body = res.body.pipeThrough(new TransformStream<Uint8Array, Uint8Array>({ transform(chunk, c) { counter.bytes += chunk.byteLength; c.enqueue(chunk); } }));
    return new Response(body, { status: res.status, statusText: res.statusText, headers: res.headers });
  };
}

/** Passages/s of the fixture embedder over the first `chunks` SOTU chunks, loaded as the CLI loads models. */
async function embedRate(chunks: number, kb: KnowledgeBase) {
  const { loadCliModels } = await import('../cli/models.ts');
  const { embedItems } = await import('../src/lib/retrieval/dense-build.ts');
  const docs: typeof kb.docs[number][] = [];
  for (let i = 0, d = -1; i < kb.size && i < chunks; i++) if (kb.docIndexOf(i) !== d) { d = kb.docIndexOf(i); docs.push(kb.docOf(i)); }
  const sub = KnowledgeBase.build(docs);
  const out: Record<string, unknown> = {};
  for (const dtype of ['fp32', 'q8']) {
    const models = await loadCliModels({ embedder: 'rag-lab/tiny-embedder', 'models-dir': join(REPO_ROOT, 'tests/fixtures/models'), dtype, 'no-cache': true }, { dense: true, reranker: false }, log);
    const t0 = now();
    await embedItems(sub, models.embedder!);
    const s = (now() - t0) / 1000;
    out[dtype] = { passages: sub.size, seconds: Math.round(s * 10) / 10, passagesPerS: Math.round(sub.size / s) };
    log(`fixture embedder ${dtype}: ${sub.size} passages in ${s.toFixed(1)} s`);
    await models.embedder!.dispose?.();
  }
  return out;
}

main().catch((e: unknown) => {
  process.stderr.write(`bench-artifact: ${(e as Error).stack ?? String(e)}\n`);
  process.exit(1);
});
