/**
 * `npm run bench`: latency benchmark of the retrieval core. Prints one JSON object (a single line, or indented
 * with --pretty) to stdout; progress goes to stderr.
 *
 *  - BM25 knowledge-base build time and sparse query latency on BEIR SciFact (whole documents and 800/120
 *    chunks, the judged test queries) and on the embedded State of the Union corpus (800/120 chunks, a fixed
 *    list of queries).
 *  - Fusion cost: the SOTU chunks get seeded random clustered 384-dim vectors (200 Gaussian clusters on the unit
 *    sphere, noise 0.9: cosine to a cluster mate ≈ 0.55, like sentence embeddings) and the queries a seeded random
 *    encoder (a fresh sample of a cluster chosen by the query text), so rrf / hybrid_fixed / hybrid_calibrated run
 *    the real pipeline on realistic candidate lists. This measures what fusion costs, not what it is worth. Each
 *    mode runs twice: over the exact float32 scan and over HNSW (built once, serialised and restored, as a cached
 *    graph would be; restored graph used), plus each dense index alone, HNSW recall against the exact scan, the
 *    HNSW build / serialise / restore times, and how often a query needed more than one retrieval round (the
 *    candidate pool doubling of search.ts, which reruns the dense search).
 *
 *  - Exact scans (scripts/bench/scan-kernels.ts): the float32 and int8 exact searches per vector, WebAssembly and JS
 *    kernels, beside numpy's float32 flat inner product (standing in for FAISS flat); `--scan-only` runs only it.
 *
 * Every timed loop is preceded by one untimed warm-up pass. Query latency is `telemetry.queryMs` (non-model
 * stages); wall time around `search()` is reported beside it.
 *
 * Options: --scifact DIR (or env RAG_LAB_SCIFACT; default ../shared/data/scifact next to the repo),
 *          --reps N (passes over each query set, default 3; short sets get more, to reach --min-samples N timed
 *          queries, default 300), --build-reps N (timed builds, default 3), --scan-only, --pretty.
 */
// hnswlib-wasm serialises through IDBFS: HNSW serialise/restore needs IndexedDB in Node.
import 'fake-indexeddb/auto';
import { existsSync, readFileSync } from 'node:fs';
import { availableParallelism, cpus, platform, arch, totalmem } from 'node:os';
import { join } from 'node:path';
import { parseCorpus, parseQrels, parseQueries } from '../src/lib/data/beir.ts';
import { sotuDocuments } from '../src/lib/data/sotu.ts';
import { mean } from '../src/lib/stats/summary.ts';
import { seededRandom } from '../src/lib/random.ts';
import { buildCdf } from '../src/lib/retrieval/calibrate.ts';
import { DEFAULT_CHUNKING } from '../src/lib/retrieval/chunk.ts';
import type { DenseRetriever } from '../src/lib/retrieval/dense.ts';
import { HNSW_DEFAULTS, type HnswIndexData } from '../src/lib/retrieval/hnsw.ts';
import type { RetrievalMode } from '../src/lib/retrieval/modes.ts';
import { DEFAULT_SEARCH, type SearchOptions } from '../src/lib/retrieval/search.ts';
import {
  buildVectorIndex, chooseVectorIndex, HNSW_MIN_VALUES, restoreVectorIndex, serializeVectorIndex, type VectorIndexKind,
} from '../src/lib/retrieval/vector-index.ts';
import { vectorIndexChecksum, vectorsFingerprint } from '../src/lib/store/vector-cache.ts';
import { SOTU_BENCH_QUERIES } from './bench/sotu-queries.ts';
import { sotuCorpusJson } from '../cli/sotu-corpus.ts';
import { benchBuild, benchQueries, log, now, r3, summary, type QueryLoopResult, type Summary } from './bench/retrieval-timing.ts';
import { readArgs, repsFor, UsageError, type BenchArgs } from './bench/retrieval-args.ts';
import { benchScan } from './bench/scan-kernels.ts';
import { clusterCentres, clusteredRow, clusteredVectors, NOISE, RandomQueryEncoder } from './bench/random-vectors.ts';

const DIM = 384;
/** The embedded SOTU corpus's 800/120 chunks (what --scan-only scans; the full run uses the knowledge base's size). */
const SOTU_CHUNKS = 16_564;
const VECTOR_SEED = 384_001;
const CLUSTERS = 200;
const DENSE_CDF_QUERIES = 32;
const RESTORE_REPS = 3;
/** search.ts doubles the pool at most 4 times. */
const MAX_EXTRA_ROUNDS = 4;
const RANDOM_NOTE = 'random clustered vectors: measures fusion and index cost, not quality';
/** The bar: hybrid_calibrated query latency without model time, p95, on the ~16k SOTU chunks. */
const BAR = { mode: 'hybrid_calibrated' as RetrievalMode, p95Ms: 5 };
const FUSION_MODES: readonly RetrievalMode[] = ['rrf', 'hybrid_fixed', 'hybrid_calibrated'];

// ---------------------------------------------------------------------------------------------------------------

function machineInfo() {
  const cs = cpus();
  return {
    node: process.version,
    v8: process.versions.v8,
    platform: platform(),
    arch: arch(),
    cpuModel: cs[0]?.model.trim() ?? 'unknown',
    cores: cs.length,
    availableParallelism: availableParallelism(),
    totalMemGiB: r3(totalmem() / 2 ** 30),
  };
}

async function benchScifact(args: BenchArgs, searchOptions: Partial<SearchOptions>) {
  const dir = args.scifact;
  const files = ['corpus.jsonl', 'queries.jsonl', join('qrels', 'test.tsv')];
  const missing = files.filter((f) => !existsSync(join(dir, f)));
  if (missing.length > 0) {
    const reason = `${dir}: missing ${missing.join(', ')}`;
    if (args.scifactExplicit) throw new UsageError(`SciFact data not found (${reason})`);
    log(`SciFact skipped (${reason}); pass --scifact DIR or set RAG_LAB_SCIFACT`);
    return { skipped: reason };
  }
  const t0 = now();
  const docs = parseCorpus(readFileSync(join(dir, 'corpus.jsonl'), 'utf8'), join(dir, 'corpus.jsonl'));
  const allQueries = parseQueries(readFileSync(join(dir, 'queries.jsonl'), 'utf8'), join(dir, 'queries.jsonl'));
  const qrels = parseQrels(readFileSync(join(dir, files[2]!), 'utf8'), join(dir, files[2]!));
  const queries = allQueries.filter((q) => qrels.has(q.id)).map((q) => q.text);
  log(`SciFact: ${docs.length} documents, ${queries.length} judged test queries (loaded in ${(now() - t0).toFixed(0)} ms)`);

  const out: Record<string, unknown> = { data: dir, documents: docs.length, testQueries: queries.length };
  for (const [key, chunking] of [['whole', false], ['chunked_800_120', DEFAULT_CHUNKING]] as const) {
    const { kb, result } = benchBuild(`SciFact ${key}`, docs, { chunking }, args.buildReps);
    const reps = repsFor(args, queries.length);
    log(`SciFact ${key}: ${reps} x ${queries.length} sparse queries`);
    const sparse = await benchQueries(kb, queries, { ...searchOptions, mode: 'sparse' }, reps);
    out[key] = { ...result, sparse };
  }
  return out;
}

async function main(): Promise<void> {
  const args = readArgs(process.argv.slice(2));
  // hnswlib-wasm prints its FS syncs with console.log: keep stdout for the JSON (before the library loads).
  console.log = (...a: unknown[]) => console.error(...a);
  const tStart = now();
  const searchOptions: Partial<SearchOptions> = {}; // the app's defaults, stated in the output
  const effective = { ...DEFAULT_SEARCH, ...searchOptions };
  const settings = {
    reps: args.reps,
    minSamples: args.minSamples,
    buildReps: args.buildReps,
    warmup: 'one untimed pass (one untimed build) before every timed loop',
    latency: 'queryMs = telemetry.queryMs (non-model stages of search()); wallMs = wall time around search()',
    search: { topK: effective.topK, candidateK: effective.candidateK, dedup: effective.dedup, calibration: effective.calibration, rejectThreshold: effective.rejectThreshold },
    kb: { bm25: 'defaults (k1 0.9, b 0.4)', cdfQueries: 'default (100)', chunking: `${DEFAULT_CHUNKING.chunkSize}/${DEFAULT_CHUNKING.overlap}` },
  };

  if (args.scanOnly) {
    const scan = await benchScan(SOTU_CHUNKS, args.reps);
    process.stdout.write(JSON.stringify({ benchmark: 'rag-lab exact scans', date: new Date().toISOString(), machine: machineInfo(), scan }, null, args.pretty ? 2 : undefined) + '\n');
    return;
  }

  // SciFact
  const scifact = await benchScifact(args, searchOptions);

  // State of the Union
  const tl = now();
  const sotuDocs = sotuDocuments(JSON.parse(sotuCorpusJson()));
  log(`SOTU: ${sotuDocs.length} addresses (loaded in ${(now() - tl).toFixed(0)} ms)`);
  const { kb, result: sotuBuild } = benchBuild('SOTU chunked_800_120', sotuDocs, { chunking: DEFAULT_CHUNKING }, args.buildReps);
  const sotuReps = repsFor(args, SOTU_BENCH_QUERIES.length);
  log(`SOTU: ${sotuReps} x ${SOTU_BENCH_QUERIES.length} sparse queries`);
  const sotuSparse = await benchQueries(kb, SOTU_BENCH_QUERIES, { ...searchOptions, mode: 'sparse' }, sotuReps);

  // Fusion on random clustered vectors, over the exact scan and over HNSW
  log(`fusion: ${kb.size} x ${DIM} random clustered vectors`);
  const tv = now();
  const centres = clusterCentres(CLUSTERS, DIM, VECTOR_SEED);
  const vectors = clusteredVectors(kb.size, DIM, centres, VECTOR_SEED + 2);
  const exact = await buildVectorIndex('exact', vectors, DIM);
  const encoder = new RandomQueryEncoder(DIM, centres, VECTOR_SEED);
  // A corpus-CDF table for the dense side as a loaded model would have, so hybrid_calibrated takes its cdf path.
  const all = Array.from({ length: kb.size }, (_, i) => i);
  const cdfRand = seededRandom(VECTOR_SEED + 1);
  const denseCdf = buildCdf(Array.from({ length: DENSE_CDF_QUERIES }, () =>
    exact.scoreItems(clusteredRow(new Float32Array(DIM), centres, Math.floor(cdfRand() * CLUSTERS), cdfRand), all)));
  kb.denseCdf = denseCdf;
  const setupMs = now() - tv;

  // HNSW: one build (single-threaded wasm, ~20 s at 16k), then serialise and restore as the cache would.
  log(`fusion: building HNSW over ${kb.size} x ${DIM} (M ${HNSW_DEFAULTS.M}, efConstruction ${HNSW_DEFAULTS.efConstruction})`);
  let tb = now();
  const built = await buildVectorIndex('hnsw', vectors, DIM);
  const hnswBuildMs = now() - tb;
  tb = now();
  const serialized = (await serializeVectorIndex(built)) as HnswIndexData;
  const serializeMs = now() - tb;
  const restoreRuns: number[] = [];
  let hnsw: DenseRetriever | null = null;
  for (let i = 0; i < RESTORE_REPS; i++) {
    (hnsw as { dispose?: () => void } | null)?.dispose?.();
    tb = now();
    hnsw = await restoreVectorIndex(serialized, DIM);
    restoreRuns.push(now() - tb);
  }
  const restored = hnsw!;
  // What a cached load adds on top of the restore: the embeddings' fingerprint and the record's checksum.
  tb = now();
  const fingerprint = await vectorsFingerprint(vectors, DIM);
  await vectorIndexChecksum(serialized, fingerprint);
  const checksumMs = now() - tb;
  log(`fusion: HNSW build ${(hnswBuildMs / 1000).toFixed(1)} s, serialise ${serializeMs.toFixed(0)} ms, restore ${restoreRuns.map((x) => x.toFixed(0)).join('/')} ms`);

  // The restored graph must answer like the built one (it is the same graph).
  const qvecs = SOTU_BENCH_QUERIES.map((q) => encoder.embed(q));
  const candK = Math.max(effective.candidateK, effective.topK);
  const sameAsBuilt = qvecs.every((q) => {
    const a = built.search(q, candK, kb.itemId), b = restored.search(q, candK, kb.itemId);
    return a.length === b.length && a.every((h, i) => h.index === b[i]!.index && h.score === b[i]!.score);
  });
  (built as { dispose?: () => void }).dispose?.();
  // Recall of HNSW against the exact scan at top_k and at the candidate pool.
  const recallAt = (k: number) => r3(mean(qvecs.map((q) => {
    const truth = new Set(exact.search(q, k, kb.itemId).map((h) => h.index));
    return restored.search(q, k, kb.itemId).filter((h) => truth.has(h.index)).length / truth.size;
  })));

  const indexes: Partial<Record<VectorIndexKind, {
    modes: Record<string, QueryLoopResult>; denseSearchOnly: { k: number; ms: Summary }; densePoolMs: Record<string, Summary>;
  }>> = {};
  for (const [kind, dense] of [['exact', exact], ['hnsw', restored]] as const) {
    kb.dense = dense;
    const modes: Record<string, QueryLoopResult> = {};
    for (const mode of FUSION_MODES) {
      log(`fusion: ${kind} ${mode}, ${sotuReps} x ${SOTU_BENCH_QUERIES.length} queries`);
      modes[mode] = await benchQueries(kb, SOTU_BENCH_QUERIES, { ...searchOptions, mode }, sotuReps, encoder);
    }
    // The dense index alone (what the 'dense' stage costs without the rest of search()).
    for (const q of qvecs) dense.search(q, candK, kb.itemId); // warm-up
    const scanMs: number[] = [];
    for (let rep = 0; rep < sotuReps; rep++) {
      for (const q of qvecs) {
        const t0 = now();
        dense.search(q, candK, kb.itemId);
        scanMs.push(now() - t0);
      }
    }
    // What each further retrieval round would cost: the dense search at the doubled pools (candidate_k · 2^r).
    const poolScaling: Record<string, Summary> = {};
    for (let r = 0, k = candK; r <= MAX_EXTRA_ROUNDS; r++, k *= 2) {
      const xs: number[] = [];
      for (const q of qvecs) {
        const t0 = now();
        dense.search(q, k, kb.itemId);
        xs.push(now() - t0);
      }
      poolScaling[`k${k}`] = summary(xs);
    }
    indexes[kind] = { modes, denseSearchOnly: { k: candK, ms: summary(scanMs) }, densePoolMs: poolScaling };
  }

  // How often rounds happen when the chunks of one address are alike (as real embeddings tend to be): vectors
  // near their address's own centre, so a query's dense candidates come from few addresses. Exact scan, one pass.
  log('fusion: retrieval rounds with address-correlated vectors (exact scan, one pass)');
  const docCentres = clusterCentres(sotuDocs.length, DIM, VECTOR_SEED + 3);
  const byDoc = new Float32Array(kb.size * DIM);
  const docRand = seededRandom(VECTOR_SEED + 4);
  for (let i = 0; i < kb.size; i++) clusteredRow(byDoc.subarray(i * DIM, (i + 1) * DIM), docCentres, kb.docIndexOf(i), docRand);
  kb.dense = await buildVectorIndex('exact', byDoc, DIM);
  const docEncoder = new RandomQueryEncoder(DIM, docCentres, VECTOR_SEED);
  const roundsByAddress: Record<string, QueryLoopResult['rounds'] & { candidatesDense: number }> = {};
  for (const mode of [...FUSION_MODES, 'dense'] as const) {
    const r = await benchQueries(kb, SOTU_BENCH_QUERIES, { ...searchOptions, mode }, 1, docEncoder);
    roundsByAddress[mode] = { ...r.rounds, candidatesDense: r.candidates.dense };
  }
  kb.dense = restored;
  const barOf = (kind: VectorIndexKind) => {
    const p95 = indexes[kind]!.modes[BAR.mode]!.queryMs.p95;
    return { p95, met: p95 <= BAR.p95Ms };
  };

  const result = {
    benchmark: 'rag-lab retrieval latency',
    version: 2,
    date: new Date().toISOString(),
    machine: machineInfo(),
    settings,
    scifact,
    sotu: {
      documents: sotuDocs.length,
      ...sotuBuild,
      queries: SOTU_BENCH_QUERIES.length,
      sparse: sotuSparse,
    },
    fusion: {
      note: RANDOM_NOTE,
      corpus: `SOTU chunked ${DEFAULT_CHUNKING.chunkSize}/${DEFAULT_CHUNKING.overlap}`,
      vectors: {
        n: kb.size, dim: DIM, metric: exact.metric, seed: VECTOR_SEED,
        distribution: `${CLUSTERS} Gaussian clusters on the unit sphere, noise ${NOISE} (seeded mulberry32, Box-Muller), L2-normalised`,
        queryEncoder: 'seeded clustered random vector per query string (cluster and noise from FNV-1a of the text xor seed); its time is model time, excluded from queryMs',
        denseCdf: `${DENSE_CDF_QUERIES} random clustered query vectors x ${kb.size} items`,
        setupMs: r3(setupMs),
      },
      hnsw: {
        params: { ...HNSW_DEFAULTS },
        buildMs: r3(hnswBuildMs),
        serializeMs: r3(serializeMs),
        graphBytes: serialized.graph.byteLength,
        restoreMs: { runs: restoreRuns.map(r3), mean: r3(mean(restoreRuns)) },
        cacheChecksumMs: r3(checksumMs),
        restoredSameAsBuilt: sameAsBuilt,
        recallVsExact: { [`@${effective.topK}`]: recallAt(effective.topK), [`@${candK}`]: recallAt(candK) },
      },
      indexes,
      retrievalRounds: {
        note: 'search() doubles the candidate pool (at most 4 times) when dedup leaves < top_k documents, rerunning the sparse and dense searches; rounds per query are in each mode\'s `rounds`, the dense cost per pool in `densePoolMs`',
        addressCorrelatedVectors: {
          vectors: `each chunk near its address's own random centre (${sotuDocs.length} centres, noise ${NOISE}); queries near a random address centre`,
          modes: roundsByAddress,
        },
      },
      bar: {
        target: `${BAR.mode} queryMs p95 <= ${BAR.p95Ms} ms on ${kb.size} x ${DIM}`,
        exact: barOf('exact'),
        hnsw: barOf('hnsw'),
        auto: { chooses: chooseVectorIndex(kb.size, DIM), hnswMinValues: HNSW_MIN_VALUES, values: kb.size * DIM },
      },
    },
    scan: await benchScan(kb.size, args.reps),
    totalMs: r3(now() - tStart),
  };
  process.stdout.write(JSON.stringify(result, null, args.pretty ? 2 : undefined) + '\n');
  log(`done in ${(result.totalMs / 1000).toFixed(1)} s`);
}

main().catch((e: unknown) => {
  if (e instanceof UsageError) {
    process.stderr.write(`bench: ${e.message}\n`);
    process.exit(2);
  }
  process.stderr.write(`bench: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
  process.exit(1);
});
