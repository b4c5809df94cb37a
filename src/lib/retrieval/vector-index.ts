/**
 * Which dense index a corpus gets, building it, and its plain-data form for the cache.
 *
 *  - 'exact': float32 brute force (`ExactDenseIndex`), no build cost, exact.
 *  - 'int8': brute force over int8 codes (`Int8DenseIndex`), 4× less memory, ~exact (recall@10 ≈ 0.99+), about
 *    as fast as float32 in JS: a memory choice, never picked by 'auto'.
 *  - 'hnsw': hnswlib-wasm graph (`HnswIndex`), fast queries, slow to build (single-threaded wasm): worth it only
 *    for large corpora, and best built once and restored from the cache.
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
 * 'auto' switches from the exact float32 scan to HNSW at n × dim ≥ 15,360,000 values (40k vectors of 384 dims,
 * 20k of 768). MEASURED with `scripts/bench-vectors.ts` on this machine (2-core AMD EPYC, Node 20, 384-dim clustered
 * unit vectors, k = 10, 200 queries):
 *   exact float32 scan, mean per query: 2k 1.0 ms, 10k 5.0, 16k 6.6–8.2, 20k 10.2, 30k 15.4, 50k 25.5, 100k 51 ms
 *     (linear: ≈ 1.3 ns per value, so ≈ 20 ms at the threshold);
 *   HNSW (M 16, efConstruction 200, efSearch 64): 0.55 ms at 16k (recall@10 1.000), 0.58 ms at 100k (0.994);
 *     build 22 s for 16k, 131 s for 100k (≈ 1.3–1.4 ms per vector, single-threaded wasm); serialise 0.2 s / 2.8 s,
 *     restore 0.15 s / 1.5 s (16k / 100k); graph file 1,681 bytes per vector (26 MB / 160 MB).
 * Below the threshold the scan stays under ~20 ms per pass, and the build would not pay for itself: at 16k it costs
 * 22 s to save ~7 ms per query (≈ 3,000 queries to break even). Above it a scan becomes visible (a query can run
 * the dense pass up to five times as the candidate pool doubles: 100+ ms at 40k, 250 ms at 100k), while HNSW stays
 * under 1 ms and its one-time build (≈ 55 s at 40k × 384) is cached and restored in about a second.
 */
export const HNSW_MIN_VALUES = 40_000 * 384;

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
