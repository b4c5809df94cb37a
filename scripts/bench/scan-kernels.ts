/**
 * `npm run bench`, section `scan`: the exact dense scans (scan-kernel.ts) beside a native flat inner product.
 *
 *  - RAG Lab: `ExactDenseIndex.search` (float32) and `Int8DenseIndex.search` (int8 codes) at k 20, with the
 *    WebAssembly SIMD kernels and with the JS fallback; the bare float32 kernel, one query and four at once
 *    (`FloatScan.scan4`, per query); the exact float32 search at growing n (for the exact-vs-HNSW choice).
 *  - Native reference: numpy's float32 matrix-vector product `X @ q` and matrix product `X @ Q.T` (32 queries)
 *    through OpenBLAS, on one thread (as a worker's scan runs) and on the machine's default threads, timed in a
 *    spawned `python3`. It stands in for FAISS flat (`IndexFlatIP.search` is the same BLAS-style flat inner
 *    product plus a top-k; FAISS is not installable here, numpy is). Skipped with a line when python3 or numpy is
 *    missing.
 * Figures are per vector (ns = ms·10⁶/n) and the ratio RAG Lab / native; medians and p95 over the queries.
 */
import { spawnSync } from 'node:child_process';
import { ExactDenseIndex } from '../../src/lib/retrieval/dense.ts';
import { Int8DenseIndex } from '../../src/lib/retrieval/quantized.ts';
import { FloatScan } from '../../src/lib/retrieval/scan-kernel.ts';
import { setWasmScan } from '../../src/lib/retrieval/scan-wasm.ts';
import { percentile } from '../../src/lib/stats/summary.ts';
import { clusterCentres, clusteredVectors } from './random-vectors.ts';
import { log, now, r3 } from './retrieval-timing.ts';

const DIM = 384;
const K = 20;
const QUERIES = 48;
const NUMPY_BATCH = 32;
const SCALING_SIZES = [16_564, 50_000, 100_000, 200_000];

interface Timing { medianMs: number; p95Ms: number; nsPerVector: number }

function time(n: number, reps: number, queries: readonly Float32Array[], f: (q: Float32Array) => unknown, per = 1): Timing {
  for (const q of queries) f(q); // warm-up
  const xs: number[] = [];
  for (let r = 0; r < reps; r++) for (const q of queries) {
    const t0 = now();
    f(q);
    xs.push((now() - t0) / per);
  }
  const med = percentile(xs, 50);
  return { medianMs: r3(med), p95Ms: r3(percentile(xs, 95)), nsPerVector: r3((med * 1e6) / n) };
}

const NUMPY = `
import json, sys, time, os
import numpy as np
n, dim, reps, batch = (int(a) for a in sys.argv[1:5])
rng = np.random.default_rng(1)
X = rng.standard_normal((n, dim), dtype=np.float32)
Q = rng.standard_normal((batch, dim), dtype=np.float32)
def t(f, r):
    for _ in range(5): f()
    xs = []
    for _ in range(r):
        t0 = time.perf_counter(); f(); xs.append((time.perf_counter() - t0) * 1e3)
    xs.sort()
    return {"medianMs": xs[len(xs) // 2], "p95Ms": xs[min(len(xs) - 1, int(len(xs) * 0.95))]}
out = {"numpy": np.__version__, "single": t(lambda: X @ Q[0], reps), "batch": t(lambda: X @ Q.T, max(5, reps // 8))}
out["batch"] = {k: v / batch for k, v in out["batch"].items()}
print(json.dumps(out))
`;

interface NumpyRow { numpy: string; single: { medianMs: number; p95Ms: number }; batch: { medianMs: number; p95Ms: number } }

/** numpy's timings (batch: per query) with `threads` BLAS threads (0: the default), or the reason it did not run. */
function numpy(n: number, reps: number, threads: number): NumpyRow | { skipped: string } {
  const env = { ...process.env };
  if (threads > 0) for (const v of ['OPENBLAS_NUM_THREADS', 'OMP_NUM_THREADS', 'MKL_NUM_THREADS']) env[v] = String(threads);
  const r = spawnSync('python3', ['-c', NUMPY, String(n), String(DIM), String(reps), String(NUMPY_BATCH)], { env, encoding: 'utf8', timeout: 120_000 });
  if (r.error || r.status !== 0) return { skipped: `python3 with numpy did not run (${r.error?.message ?? r.stderr.trim().split('\n').pop()})` };
  return JSON.parse(r.stdout) as NumpyRow;
}

const perVector = (ms: number, n: number) => r3((ms * 1e6) / n);
const ratio = (a: number, b: number) => r3(a / b);

/** One shape: RAG Lab's scans and numpy's. */
async function shape(n: number, reps: number) {
  const centres = clusterCentres(200, DIM, 7);
  const vectors = clusteredVectors(n, DIM, centres, 8);
  const queries = Array.from({ length: QUERIES }, (_, i) => clusteredVectors(1, DIM, centres, 100 + i));
  const idOf = (i: number) => `c${i}`;
  const int8Data = new Int8DenseIndex(vectors, DIM).toData();
  const run = (wasm: boolean) => {
    setWasmScan(wasm);
    const exact = new ExactDenseIndex(vectors, DIM), int8 = Int8DenseIndex.fromData(int8Data), scan = new FloatScan(vectors, DIM);
    setWasmScan(true);
    return {
      exactSearch: time(n, reps, queries, (q) => exact.search(q, K, idOf)),
      int8Search: time(n, reps, queries, (q) => int8.search(q, K, idOf)),
      float32Kernel: time(n, reps, queries, (q) => scan.scan(q)),
      float32Kernel4Queries: time(n, reps, queries, (q) => scan.scan4([q, q, q, q]), 4),
    };
  };
  log(`scan: ${n} x ${DIM}, WebAssembly and JS kernels`);
  const wasm = run(true), js = run(false);
  log(`scan: ${n} x ${DIM}, numpy (1 thread, default threads)`);
  const np1 = numpy(n, reps * QUERIES, 1), npAll = numpy(n, reps * QUERIES, 0);
  const vsNative = 'skipped' in np1 ? np1 : {
    nativeNsPerVector: { single: perVector(np1.single.medianMs, n), batchPerQuery: perVector(np1.batch.medianMs, n) },
    exactSearchVsSingle: ratio(wasm.exactSearch.medianMs, np1.single.medianMs),
    int8SearchVsSingle: ratio(wasm.int8Search.medianMs, np1.single.medianMs),
    float32KernelVsSingle: ratio(wasm.float32Kernel.medianMs, np1.single.medianMs),
    float32Kernel4VsBatch: ratio(wasm.float32Kernel4Queries.medianMs, np1.batch.medianMs),
  };
  return { n, dim: DIM, k: K, queries: QUERIES, wasm, js, numpy1Thread: np1, numpyDefaultThreads: npAll, ratiosVsNumpy1Thread: vsNative };
}

export async function benchScan(sotuChunks: number, reps: number) {
  const shapes = [];
  for (const n of [sotuChunks, 13_000]) shapes.push(await shape(n, reps));
  // The exact float32 search as n grows (for the exact-vs-HNSW choice in vector-index.ts).
  const centres = clusterCentres(200, DIM, 7);
  const queries = Array.from({ length: 16 }, (_, i) => clusteredVectors(1, DIM, centres, 100 + i));
  const exactByN: Record<string, Timing> = {};
  for (const n of SCALING_SIZES) {
    log(`scan: exact search at ${n} x ${DIM}`);
    const exact = new ExactDenseIndex(clusteredVectors(n, DIM, centres, 9), DIM);
    exactByN[n] = time(n, Math.max(2, reps), queries, (q) => exact.search(q, K, (i) => `c${i}`));
  }
  for (const s of shapes) {
    const r = s.ratiosVsNumpy1Thread;
    log(`scan ${s.n} x ${DIM}: exact ${s.wasm.exactSearch.nsPerVector} ns/vector (JS ${s.js.exactSearch.nsPerVector}), int8 ${s.wasm.int8Search.nsPerVector} (JS ${s.js.int8Search.nsPerVector}); ` +
      ('skipped' in r ? r.skipped : `numpy 1 thread ${r.nativeNsPerVector.single}: ratio exact ${r.exactSearchVsSingle}, int8 ${r.int8SearchVsSingle}`));
  }
  return {
    note: 'per-vector figures; native = numpy float32 X @ q through OpenBLAS, standing in for FAISS flat (not installable here)',
    shapes,
    exactSearchByN: exactByN,
  };
}
