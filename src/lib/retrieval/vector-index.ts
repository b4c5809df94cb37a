/**
 * Which dense index a corpus gets, building it, and its plain-data form for the cache.
 *
 *  - 'exact': float32 brute force (`ExactDenseIndex`), no build cost, exact.
 *  - 'int8': brute force over int8 codes (`Int8DenseIndex`), 4× less memory, ~exact (recall@10 ≈ 0.99+), about
 *    as fast as float32 in JS: a memory choice, never picked by 'auto'.
 *  - 'hnsw': hnswlib-wasm graph (`HnswIndex`), fast queries, slow to build (single-threaded wasm): picked by 'auto'
 *    above {@link HNSW_MIN_VALUES}, built once and restored from the cache (store/dense-loader.ts).
 */
import { ExactDenseIndex, type DenseMetric, type DenseRetriever } from './dense.ts';
import { HnswIndex, type HnswIndexData, type HnswParams } from './hnsw.ts';
import { Int8DenseIndex, type Int8IndexData } from './quantized.ts';

export type VectorIndexKind = 'exact' | 'int8' | 'hnsw';
export type VectorIndexChoice = VectorIndexKind | 'auto';
export const VECTOR_INDEX_KINDS: readonly VectorIndexKind[] = ['exact', 'int8', 'hnsw'];

/** Bump when the layout of {@link ExactIndexData} changes. */
export const EXACT_INDEX_VERSION = 1;

export interface ExactIndexData {
  kind: 'exact';
  version: number;
  dim: number;
  size: number;
  metric: DenseMetric;
  /** The vectors as given to the index (row-major size × dim). */
  vectors: Float32Array;
}

export type VectorIndexData = ExactIndexData | Int8IndexData | HnswIndexData;

/**
 * 'auto' switches from the exact float32 scan to HNSW at n × dim ≥ 2,000,000 values (≈ 5.2k vectors of 384 dims,
 * 2.6k of 768), so the embedded SOTU corpus (16,564 chunks × 384 for all-MiniLM-L6-v2 = 6.4M values) gets HNSW.
 * The bar: hybrid_calibrated query latency without model time ≤ 5 ms p95 on ~16k chunks. HNSW's one-time build is
 * cached with the embeddings (store/dense-loader.ts: graph restored in ~0.1–0.3 s instead of rebuilt).
 *
 * MEASURED on this machine (2-core AMD EPYC, Node 20; shared with other jobs, so the least-loaded runs are quoted,
 * ranges under load in brackets):
 *  - `npm run bench`, fusion section (SOTU 800/120 chunks, 16,564 × 384 seeded clustered random vectors, 32 queries
 *    × 10 passes, top_k 5, candidate_k 20), hybrid_calibrated queryMs:
 *      exact scan: mean 9.9–10.7 ms, p95 10.6–15.1 ms  [load 4–8: mean 14–21, p95 19–30]  → misses the bar;
 *      HNSW (M 16, efConstruction 200, efSearch 64; restored from its serialised graph): mean 0.96 ms, p95 1.8 ms
 *      [load 4–6: p95 1.9–5.7; the excess is OS preemption, per-query CPU time p95 stays ≈ 2 ms]  → meets it.
 *    rrf and hybrid_fixed alike. HNSW recall vs the exact scan on those queries: 1.000 at 5 and at 20. No fusion
 *    query needed a second retrieval round, so the dense search ran once per query; were the pool to double, HNSW
 *    costs 0.58 / 0.63 / 0.76 / 1.6 / 3.1 ms at k 20 / 40 / 80 / 160 / 320 (the exact scan ≈ 9.5 ms at any k).
 *    HNSW build 26 s [28–59 s under load], serialise 0.25 s, restore 0.09–0.23 s, graph 27.8 MB; checking a cached
 *    graph (SHA-256 of the embeddings and of the record) adds ≈ 0.05 s.
 *  - Exact-scan hybrid_calibrated p95 by corpus size (SOTU prefixes, same vectors, least-loaded of 5 runs at load
 *    ≈ 5): 3k 1.9 ms, 4k 2.4, 5k 3.5, 6k 6.6, 7k 7.2, 8k 7.7, 10k 8.8, 12k 9.7 (the scan alone ≈ 0.4–0.6 µs per
 *    384-dim vector). The threshold sits between 5k and 6k × 384, where the exact scan stops meeting the 5 ms
 *    bar; below it the scan is fast enough and exact, and an HNSW build (≈ 1.3–1.6 ms per vector) would not pay
 *    for itself.
 *  - Earlier `scripts/bench-vectors.ts` numbers (k = 10, 200 queries): exact scan 2k 1.0 ms, 10k 5.0, 16k 6.6–8.2,
 *    100k 51 ms (≈ 1.3 ns per value); HNSW 0.55 ms at 16k (recall@10 1.000), 0.58 ms at 100k (0.994); build
 *    131 s, restore 1.5 s, 160 MB at 100k.
 */
export const HNSW_MIN_VALUES = 2_000_000;

/** The index kind for n vectors of `dim` dimensions; an explicit kind overrides the size rule. */
export function chooseVectorIndex(n: number, dim: number, override: VectorIndexChoice = 'auto'): VectorIndexKind {
  if (override !== 'auto') {
    if (!VECTOR_INDEX_KINDS.includes(override)) throw new Error(`Unknown vector index kind: ${String(override)}`);
    return override;
  }
  return n * dim >= HNSW_MIN_VALUES ? 'hnsw' : 'exact';
}

export interface BuildVectorIndexOptions {
  metric?: DenseMetric;
  /** HNSW parameters (defaults `HNSW_DEFAULTS`). */
  hnsw?: Partial<HnswParams>;
  signal?: AbortSignal;
}

/** Records the source vectors of exact indexes built or restored here, so they can be serialised. */
const exactVectors = new WeakMap<DenseRetriever, Float32Array>();

/**
 * Builds an index of `kind` over row-major n × dim `vectors` (not modified). `onProgress(done, total)` counts
 * vectors; the brute-force kinds report 0 and n.
 */
export async function buildVectorIndex(
  kind: VectorIndexKind,
  vectors: Float32Array,
  dim: number,
  onProgress?: (done: number, total: number) => void,
  options: BuildVectorIndexOptions = {},
): Promise<DenseRetriever> {
  const metric = options.metric ?? 'cosine';
  const n = Number.isInteger(dim) && dim > 0 ? Math.floor(vectors.length / dim) : 0;
  switch (kind) {
    case 'exact': {
      onProgress?.(0, n);
      const index = new ExactDenseIndex(vectors, dim, metric);
      exactVectors.set(index, vectors);
      onProgress?.(n, n);
      return index;
    }
    case 'int8': {
      onProgress?.(0, n);
      const index = new Int8DenseIndex(vectors, dim, metric);
      onProgress?.(n, n);
      return index;
    }
    case 'hnsw':
      return HnswIndex.build(vectors, dim, {
        ...options.hnsw,
        metric,
        ...(onProgress ? { onProgress } : {}),
        ...(options.signal ? { signal: options.signal } : {}),
      });
    default:
      throw new Error(`Unknown vector index kind: ${String(kind)}`);
  }
}

/** The kind of an index built here. */
export function vectorIndexKind(index: DenseRetriever): VectorIndexKind {
  if (index instanceof HnswIndex) return 'hnsw';
  if (index instanceof Int8DenseIndex) return 'int8';
  if (index instanceof ExactDenseIndex) return 'exact';
  throw new Error('vectorIndexKind: not an index built by buildVectorIndex');
}

/** Plain data (typed arrays + version) for the IndexedDB cache; HNSW gives its graph bytes instead of a rebuild. */
export async function serializeVectorIndex(index: DenseRetriever): Promise<VectorIndexData> {
  if (index instanceof HnswIndex) return index.toData();
  if (index instanceof Int8DenseIndex) return index.toData();
  const vectors = exactVectors.get(index);
  if (index instanceof ExactDenseIndex && vectors) {
    return { kind: 'exact', version: EXACT_INDEX_VERSION, dim: index.dim, size: index.size, metric: index.metric, vectors };
  }
  throw new Error('serializeVectorIndex: only indexes built or restored by buildVectorIndex/restoreVectorIndex can be serialised');
}

/**
 * Restores an index from {@link serializeVectorIndex} output. `expectedDim` is the current embedding model's
 * dimension: an index of another dimension is an error naming both, never a silently wrong index.
 */
export async function restoreVectorIndex(data: VectorIndexData, expectedDim: number): Promise<DenseRetriever> {
  if (data.dim !== expectedDim) {
    throw new Error(`restoreVectorIndex: the stored ${data.kind} index has ${data.dim} dimensions, the embedding model has ${expectedDim}`);
  }
  switch (data.kind) {
    case 'exact': {
      if (data.version !== EXACT_INDEX_VERSION) throw new Error(`restoreVectorIndex: unsupported exact index version ${data.version}`);
      if (data.vectors.length !== data.size * data.dim) {
        throw new Error(`restoreVectorIndex: ${data.vectors.length} values are not ${data.size} vectors of ${data.dim} dimensions`);
      }
      const index = new ExactDenseIndex(data.vectors, data.dim, data.metric);
      exactVectors.set(index, data.vectors);
      return index;
    }
    case 'int8':
      return Int8DenseIndex.fromData(data);
    case 'hnsw':
      return HnswIndex.restore(data, expectedDim);
    default:
      throw new Error(`restoreVectorIndex: unknown index kind ${String((data as { kind?: unknown }).kind)}`);
  }
}
