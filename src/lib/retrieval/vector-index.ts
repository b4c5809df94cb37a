/**
 * Which dense index a corpus gets, building it, and its plain-data form for the cache.
 *
 *  - 'exact': float32 brute force (`ExactDenseIndex`), no build cost, exact.
 *  - 'int8': brute force over int8 codes (`Int8DenseIndex`), 4× less memory, ~exact (recall@10 ≈ 0.99+), ≈ 3×
 *    slower than the float32 SIMD scan (table lookups do not vectorise): a memory choice, never picked by 'auto'.
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
 * 'auto' switches from the exact float32 scan to HNSW at n × dim ≥ 15,000,000 values (≈ 39k vectors of 384 dims,
 * 19.5k of 768), so the embedded SOTU corpus (16,564 chunks × 384 = 6.4M values) keeps the exact scan and needs no
 * HNSW build (26–32 s here). The bar: hybrid_calibrated query latency without model time ≤ 5 ms p95.
 *
 * MEASURED on this machine (2-core AMD EPYC, Node 20, load ≈ 0), with the WebAssembly SIMD scan of scan-kernel.ts:
 *  - `npm run bench -- --scan-only`: exact float32 search (k 20) p95 0.74 ms at 16,564 × 384, 2.7 ms at 50k,
 *    5.0 ms at 100k, 10.7 ms at 200k (41–50 ns per vector; the JS scan it replaced: ≈ 300 ns, 7.8 ms at 16.5k).
 *  - `npm run bench`, fusion section (16,564 × 384): the rest of hybrid_calibrated (BM25, fusion, calibration)
 *    costs ≈ 0.3–0.6 ms (HNSW run: mean 1.3 ms with its search 0.7 ms); it grows with the corpus (BM25 postings).
 *    At 39k × 384 the exact scan's p95 ≈ 1.9 ms plus the rest ≈ 1.5 ms stays well inside 5 ms; at 100k the scan
 *    alone reaches it, so the switch sits at 15M values with room for a loaded machine (p95 doubles at load ≈ 2).
 *  - HNSW (M 16, efConstruction 200, efSearch 64): search ≈ 0.5 ms at 16k, recall 1.000 vs exact; build ≈ 1.3–1.9 ms
 *    per vector, restore 0.1–0.3 s, graph 27.8 MB at 16.5k: below the threshold it does not pay for itself.
 *  - Before the kernel (JS scan, 0.4–0.6 µs per vector) the threshold was 2,000,000 values (≈ 5.2k × 384).
 */
export const HNSW_MIN_VALUES = 15_000_000;

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

/**
 * The float32 vectors an index built or restored here holds (an HNSW graph keeps them L2-normalised for 'cosine',
 * which a cosine index of another kind reads the same), to build another kind over the same items (the tuner's index
 * dimension); null for int8 (its codes are lossy) and for other retrievers.
 */
export function indexVectors(index: DenseRetriever): Float32Array | null {
  if (index instanceof HnswIndex) return index.keptVectors;
  return exactVectors.get(index) ?? null;
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
