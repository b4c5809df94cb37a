/**
 * `npx tsx scripts/bench-vectors.ts`: dense vector index benchmark. Prints one JSON object on stdout (indented
 * with --pretty); progress and hnswlib-wasm's own console output go to stderr.
 *
 * Data: seeded synthetic "embeddings": 200 Gaussian clusters on the unit sphere in 384 dimensions, each vector =
 * its cluster centre + isotropic noise (relative norm 0.9, so a vector's cosine to its centre is ≈ 0.75 and to a
 * cluster mate ≈ 0.55, like sentence embeddings), L2-normalised. Queries are fresh samples from the same clusters.
 *
 * For each size: query latency (mean/p95, ms) and recall@10 against the exact float32 top 10 for the exact float32
 * scan, the exact int8 scan and HNSW at the chosen efSearch (plus an efSearch sweep), HNSW build time,
 * serialise/restore time, and the bytes of each index. When the HNSW build of a size is predicted to exceed
 * --max-build-s, HNSW is built on a prefix of the vectors instead and the full build time extrapolated (said so
 * in the JSON, with the formula).
 *
 * Options: --sizes 16000,100000  --dim 384  --clusters 200  --queries 200  --ef 64  --max-build-s 180  --pretty
 *          --sweep (exact float32 / int8 latency for more sizes, for the auto threshold)
 *          --int8-only (exact float32 and int8 only, no HNSW: about a minute instead of several)
 */
// IDBFS (HNSW serialisation) needs IndexedDB in Node.
import 'fake-indexeddb/auto';
import { availableParallelism, cpus, totalmem } from 'node:os';
import { parseArgs } from 'node:util';
import { mean, percentile } from '../src/lib/stats/summary.ts';
import { seededRandom } from '../src/lib/random.ts';
import { ExactDenseIndex, normalize, type DenseRetriever } from '../src/lib/retrieval/dense.ts';
import { HNSW_DEFAULTS, HnswIndex } from '../src/lib/retrieval/hnsw.ts';
import { Int8DenseIndex } from '../src/lib/retrieval/quantized.ts';
import { chooseVectorIndex, HNSW_MIN_VALUES } from '../src/lib/retrieval/vector-index.ts';

const log = (msg: string) => process.stderr.write(`[bench-vectors] ${msg}\n`);
const now = () => performance.now();
const r3 = (x: number) => Math.round(x * 1000) / 1000;
const idOf = (i: number) => `c${i}`;

interface Args { sizes: number[]; dim: number; clusters: number; queries: number; ef: number; maxBuildS: number; pretty: boolean; sweep: boolean; int8Only: boolean }

function readArgs(): Args {
  const { values } = parseArgs({
    options: {
      sizes: { type: 'string', default: '16000,100000' },
      dim: { type: 'string', default: '384' },
      clusters: { type: 'string', default: '200' },
      queries: { type: 'string', default: '200' },
      ef: { type: 'string', default: String(HNSW_DEFAULTS.efSearch) },
      'max-build-s': { type: 'string', default: '180' },
      pretty: { type: 'boolean', default: false },
      sweep: { type: 'boolean', default: false },
      'int8-only': { type: 'boolean', default: false },
    },
  });
  const int = (s: string, name: string) => {
    const n = Number(s);
    if (!Number.isInteger(n) || n <= 0) throw new Error(`--${name} must be a positive integer, got ${s}`);
    return n;
  };
  return {
    sizes: values.sizes.split(',').map((s) => int(s.trim(), 'sizes')),
    dim: int(values.dim, 'dim'),
    clusters: int(values.clusters, 'clusters'),
    queries: int(values.queries, 'queries'),
    ef: int(values.ef, 'ef'),
    maxBuildS: int(values['max-build-s'], 'max-build-s'),
    pretty: values.pretty,
    sweep: values.sweep,
    int8Only: values['int8-only'],
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Data

function gaussian(rand: () => number): () => number {
  let spare: number | null = null;
  return () => {
    if (spare !== null) { const s = spare; spare = null; return s; }
    const u = 1 - rand(), v = rand();
    const r = Math.sqrt(-2 * Math.log(u));
    spare = r * Math.sin(2 * Math.PI * v);
    return r * Math.cos(2 * Math.PI * v);
  };
}

const NOISE = 0.9;

function centres(clusters: number, dim: number, seed: number): Float32Array {
  const g = gaussian(seededRandom(seed));
  const c = new Float32Array(clusters * dim);
  for (let i = 0; i < c.length; i++) c[i] = g();
  for (let i = 0; i < clusters; i++) normalize(c.subarray(i * dim, (i + 1) * dim));
  return c;
}

/** n normalised vectors: a random centre + Gaussian noise of relative norm NOISE. */
function clustered(n: number, dim: number, centre: Float32Array, seed: number): Float32Array {
  const rand = seededRandom(seed), g = gaussian(rand);
  const k = centre.length / dim, s = NOISE / Math.sqrt(dim);
  const out = new Float32Array(n * dim);
  for (let i = 0; i < n; i++) {
    const c = Math.floor(rand() * k) * dim;
    const row = out.subarray(i * dim, (i + 1) * dim);
    for (let j = 0; j < dim; j++) row[j] = centre[c + j]! + s * g();
    normalize(row);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------------------
// Measurements

interface Latency { mean: number; p95: number; n: number }

function latency(xs: number[]): Latency {
  return { mean: r3(mean(xs)), p95: r3(percentile(xs, 95)), n: xs.length };
}

function rows(v: Float32Array, dim: number): Float32Array[] {
  return Array.from({ length: v.length / dim }, (_, i) => v.subarray(i * dim, (i + 1) * dim));
}

/** Runs every query once untimed (warm-up, at most 20), then timed; returns latency and the top-10 lists. */
function runQueries(index: DenseRetriever, queries: Float32Array[], k = 10): { latency: Latency; tops: number[][] } {
  for (const q of queries.slice(0, 20)) index.search(q, k, idOf);
  const times: number[] = [];
  const tops: number[][] = [];
  for (const q of queries) {
    const t = now();
    const hits = index.search(q, k, idOf);
    times.push(now() - t);
    tops.push(hits.map((h) => h.index));
  }
  return { latency: latency(times), tops };
}

function recallAt(truth: number[][], got: number[][]): number {
  let s = 0;
  truth.forEach((t, i) => {
    const g = new Set(got[i]);
    s += t.filter((x) => g.has(x)).length / t.length;
  });
  return r3(s / truth.length);
}

const MB = (b: number) => r3(b / 2 ** 20);

/** Build time model: t(n) = a · n · ln n (HNSW inserts cost ~ log n each), fitted on one measured build. */
function extrapolate(measuredS: number, measuredN: number, n: number): number {
  return (measuredS * n * Math.log(n)) / (measuredN * Math.log(measuredN));
}

async function benchSize(n: number, args: Args, centre: Float32Array, queries: Float32Array[], prior: { s: number; n: number } | null) {
  const { dim } = args;
  log(`n = ${n}: generating ${n} × ${dim}`);
  const vectors = clustered(n, dim, centre, 1_000 + n);
  const out: Record<string, unknown> = { n, dim };

  const exact = new ExactDenseIndex(vectors, dim);
  const ex = runQueries(exact, queries);
  out.exactFloat32 = { latencyMs: ex.latency, recallAt10: 1, bytes: vectors.byteLength, mb: MB(vectors.byteLength) };
  log(`  exact float32 mean ${ex.latency.mean} ms`);

  let t = now();
  const int8 = new Int8DenseIndex(vectors, dim);
  const int8BuildMs = now() - t;
  const i8 = runQueries(int8, queries);
  const centroids = int8.toData().centroidScales.length;
  out.exactInt8 = { latencyMs: i8.latency, recallAt10: recallAt(ex.tops, i8.tops), buildMs: r3(int8BuildMs), bytes: int8.bytes, mb: MB(int8.bytes), centroids };
  log(`  exact int8 mean ${i8.latency.mean} ms, recall ${recallAt(ex.tops, i8.tops)}, build ${r3(int8BuildMs)} ms, ${centroids} centroids`);
  if (args.int8Only) return { result: out, build: prior };

  // HNSW: full build unless predicted too slow
  const predicted = prior ? extrapolate(prior.s, prior.n, n) : null;
  let m = n;
  let note: string | null = null;
  if (predicted !== null && predicted > args.maxBuildS) {
    // largest prefix predicted to build in about half the budget
    m = n;
    while (m > 1000 && extrapolate(prior!.s, prior!.n, m) > args.maxBuildS / 2) m -= 1000;
    note = `full build predicted at ${r3(predicted)} s (> ${args.maxBuildS} s): HNSW built on the first ${m} vectors; latency and recall are of that ${m}-vector index (recall vs exact float32 over the same ${m}); fullBuildS is extrapolated with t(n) = t(m)·(n ln n)/(m ln m)`;
    log(`  ${note}`);
  }
  const sub = m === n ? vectors : vectors.subarray(0, m * dim);
  log(`  HNSW build ${m} × ${dim} (M ${HNSW_DEFAULTS.M}, efConstruction ${HNSW_DEFAULTS.efConstruction})`);
  t = now();
  let lastLog = now();
  const hnsw = await HnswIndex.build(sub, dim, {
    onProgress: (d, tot) => {
      if (now() - lastLog > 10_000) { log(`    ${d}/${tot} (${((now() - t) / 1000).toFixed(0)} s)`); lastLog = now(); }
    },
  });
  const buildS = (now() - t) / 1000;
  log(`  HNSW build ${buildS.toFixed(1)} s`);
  const truth = m === n ? ex : runQueries(new ExactDenseIndex(sub, dim), queries);
  const sweep: Record<string, { latencyMs: Latency; recallAt10: number }> = {};
  for (const ef of [16, 32, 64, 128, 256]) {
    hnsw.setEfSearch(ef);
    const r = runQueries(hnsw, queries);
    sweep[ef] = { latencyMs: r.latency, recallAt10: recallAt(truth.tops, r.tops) };
  }
  hnsw.setEfSearch(args.ef);
  const h = runQueries(hnsw, queries);
  log(`  HNSW ef ${args.ef} mean ${h.latency.mean} ms, recall ${recallAt(truth.tops, h.tops)}`);

  t = now();
  const data = await hnsw.toData();
  const serialiseMs = now() - t;
  t = now();
  const restored = await HnswIndex.restore(data, dim);
  const restoreMs = now() - t;
  const same = runQueries(restored, queries.slice(0, 50)).tops.every((top, i) => top.join() === h.tops[i]!.join());
  restored.dispose();
  const graphBytes = data.graph.byteLength;
  hnsw.dispose();

  out.hnsw = {
    params: { ...HNSW_DEFAULTS, efSearch: args.ef },
    builtOn: m,
    ...(note ? { note } : {}),
    buildS: r3(buildS),
    buildMsPerVector: r3((buildS * 1000) / m),
    fullBuildS: m === n ? r3(buildS) : r3(extrapolate(buildS, m, n)),
    fullBuildExtrapolated: m !== n,
    latencyMs: h.latency,
    recallAt10: recallAt(truth.tops, h.tops),
    exactFloat32OnSameVectorsMs: truth.latency,
    efSweep: sweep,
    serialiseMs: r3(serialiseMs),
    restoreMs: r3(restoreMs),
    restoredResultsIdentical: same,
    graphBytes,
    graphMb: MB(graphBytes),
    graphBytesPerVector: r3(graphBytes / m),
    bytesInMemory: graphBytes + sub.byteLength,
    bytesNote: 'graph = hnswlib file (links + its own float32 copy of the vectors); in memory HnswIndex also keeps float32 vectors for exact re-scoring',
    fullGraphMbEstimate: MB((graphBytes / m) * n),
  };
  return { result: out, build: { s: buildS, n: m } };
}

/** Exact float32 and int8 scan latency over more sizes (no HNSW), for the auto threshold. */
function sweepExact(args: Args, centre: Float32Array, queries: Float32Array[]) {
  const out: Record<string, unknown>[] = [];
  for (const n of [2000, 5000, 10000, 20000, 30000, 50000, 100000]) {
    const vectors = clustered(n, args.dim, centre, 1_000 + n);
    const f = runQueries(new ExactDenseIndex(vectors, args.dim), queries.slice(0, 100)).latency;
    const i = runQueries(new Int8DenseIndex(vectors, args.dim), queries.slice(0, 100)).latency;
    out.push({ n, exactFloat32Ms: f, exactInt8Ms: i });
    log(`  sweep n ${n}: float32 ${f.mean} ms, int8 ${i.mean} ms`);
  }
  return out;
}

async function main(): Promise<void> {
  const args = readArgs();
  // hnswlib-wasm prints with console.log: keep stdout for the JSON.
  console.log = (...a: unknown[]) => console.error(...a);
  const tStart = now();
  const centre = centres(args.clusters, args.dim, 7);
  const queries = rows(clustered(args.queries, args.dim, centre, 99), args.dim);
  const sizes: Record<string, unknown>[] = [];
  let prior: { s: number; n: number } | null = null;
  for (const n of [...args.sizes].sort((a, b) => a - b)) {
    const { result, build } = await benchSize(n, args, centre, queries, prior);
    sizes.push(result);
    prior = build;
  }
  const sweep = args.sweep ? sweepExact(args, centre, queries) : undefined;
  const cs = cpus();
  const result = {
    machine: { node: process.version, cpu: cs[0]?.model.trim() ?? 'unknown', cores: cs.length, availableParallelism: availableParallelism(), totalMemGiB: r3(totalmem() / 2 ** 30) },
    ...(args.int8Only ? { int8Only: true } : {}),
    data: { kind: 'seeded synthetic clustered embeddings', dim: args.dim, clusters: args.clusters, noiseRelativeNorm: NOISE, normalised: true, queries: args.queries, k: 10 },
    latency: 'ms per search(query, 10) call incl. normalising the query and top-k; one untimed warm-up pass of 20 queries first',
    autoRule: { hnswMinValues: HNSW_MIN_VALUES, choices: Object.fromEntries(args.sizes.map((n) => [n, chooseVectorIndex(n, args.dim)])) },
    sizes,
    ...(sweep ? { exactSweep: sweep } : {}),
    totalS: r3((now() - tStart) / 1000),
  };
  process.stdout.write(`${JSON.stringify(result, null, args.pretty ? 2 : undefined)}\n`);
}

main().catch((e: unknown) => {
  process.stderr.write(`${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
  process.exit(1);
});
