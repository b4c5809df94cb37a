/**
 * Approximate dense search with HNSW (hnswlib-wasm 0.8.2: hnswlib compiled to single-threaded wasm, no SIMD).
 *
 * - Metric: 'cosine' stores L2-normalised rows in hnswlib's 'ip' space (distance = 1 − dot); 'ip' stores rows as
 *   given. The graph only picks the candidates: every hit is re-scored with an exact float32 dot product against
 *   the kept vectors, so scores equal `ExactDenseIndex`'s and `scoreItems` is exact.
 * - Defaults {@link HNSW_DEFAULTS}: M 16, efConstruction 200, efSearch 64 (changeable with `setEfSearch`).
 * - `accept` filters run inside the graph search (hnswlib's filter callback); when the graph search yields fewer
 *   than k accepted items (a very selective filter) the accepted items are scanned exactly instead.
 * - Serialisation: hnswlib-wasm only writes files into its Emscripten FS (directory /hnswlib-index, mounted on
 *   IDBFS) and does not export `FS`. The bytes are therefore moved through IDBFS's own IndexedDB database
 *   ('/hnswlib-index', store 'FILE_DATA', key = file path): `writeIndex` + its sync put the file there, we read and
 *   delete the record; restore puts a record, syncs IndexedDB → FS, `readIndex`, then removes it again. The result
 *   is a plain Uint8Array (hnswlib's own format, vectors included) that the caller stores where it likes.
 *   In Node this needs an IndexedDB implementation (`import 'fake-indexeddb/auto'`); build and search do not.
 * - Loading is lazy (one module-level promise). hnswlib-wasm is built for the web only and refuses to start unless
 *   `window` or `importScripts` exists; outside both (Node) a throwing `importScripts` stub is defined while the
 *   module starts and removed afterwards. hnswlib-wasm logs its FS syncs with console.log (not switchable).
 */
import type { HierarchicalNSW } from 'hnswlib-wasm/dist/hnswlib.js';
import { dot, normalize, type DenseRetriever, type DenseMetric } from './dense.ts';
import { emptyHnswFile, estimateGraphBytes, parseHnswFile } from './hnsw-file.ts';
import {
  HNSW_DEFAULTS,
  HNSW_INDEX_VERSION,
  paramsOf,
  type HnswBuildOptions,
  type HnswIndexData,
  type HnswParams,
} from './hnsw-params.ts';
import {
  exclusive,
  FILE_MODE,
  FS_DIR,
  idbDelete,
  idbGet,
  idbPut,
  loadHnsw,
  requireIdb,
  tempName,
  waitSynced,
  type Hnswlib,
} from './hnswlib-fs.ts';
import { sortRanked, type Scored } from './topk.ts';

export { HNSW_DEFAULTS, HNSW_INDEX_VERSION, type HnswBuildOptions, type HnswIndexData, type HnswParams } from './hnsw-params.ts';

export class HnswIndex implements DenseRetriever {
  readonly size: number;
  readonly params: Readonly<HnswParams>;
  private efSearchValue: number;
  private graphBytes: number | null;

  private constructor(
    private readonly hnsw: Hnswlib,
    private index: HierarchicalNSW | null,
    /** Row-major size × dim, normalised with 'cosine' (the same float32 values hnswlib holds). */
    private readonly vectors: Float32Array,
    readonly dim: number,
    readonly metric: DenseMetric,
    params: HnswParams,
    graphBytes: number | null,
  ) {
    this.size = vectors.length / dim;
    this.params = Object.freeze({ ...params });
    this.efSearchValue = params.efSearch;
    this.graphBytes = graphBytes;
    this.index?.setEfSearch(params.efSearch);
  }

  /** Builds the graph from row-major n × dim `vectors` (not modified), adding points in batches with progress. */
  static async build(vectors: Float32Array, dim: number, options: HnswBuildOptions = {}): Promise<HnswIndex> {
    if (!Number.isInteger(dim) || dim <= 0 || vectors.length % dim !== 0) {
      throw new Error(`HnswIndex: ${vectors.length} values are not a whole number of ${dim}-dimensional vectors`);
    }
    const params = paramsOf(options);
    const metric = options.metric ?? 'cosine';
    const n = vectors.length / dim;
    const v = vectors.slice();
    if (metric === 'cosine') for (let i = 0; i < n; i++) normalize(v.subarray(i * dim, (i + 1) * dim));
    const hnsw = await loadHnsw();
    if (n === 0) return new HnswIndex(hnsw, null, v, dim, metric, params, 0);
    const index = new hnsw.lib.HierarchicalNSW('ip', dim, '');
    try {
      index.initIndex(n, params.M, params.efConstruction, params.seed);
      const batch = Math.max(1, Math.floor(options.batchSize ?? 500));
      options.onProgress?.(0, n);
      for (let from = 0; from < n; from += batch) {
        options.signal?.throwIfAborted();
        const to = Math.min(n, from + batch);
        const rows: Float32Array[] = [];
        const labels: number[] = [];
        for (let i = from; i < to; i++) {
          rows.push(v.subarray(i * dim, (i + 1) * dim));
          labels.push(i);
        }
        index.addPoints(rows, labels, false);
        options.onProgress?.(to, n);
        if (to < n) await new Promise((r) => setTimeout(r, 0));
      }
    } catch (e) {
      free(index);
      throw e;
    }
    return new HnswIndex(hnsw, index, v, dim, metric, params, null);
  }

  /**
   * Loads a serialised index instead of rebuilding it. `expectedDim` (the embedding model's dimension) is checked
   * against the data, and the data's own dimension against the one recorded inside hnswlib's file.
   */
  static async restore(data: HnswIndexData, expectedDim?: number): Promise<HnswIndex> {
    if (data.kind !== 'hnsw' || data.version !== HNSW_INDEX_VERSION) {
      throw new Error(`HnswIndex: unsupported data (kind ${String(data.kind)}, version ${String(data.version)}; expected hnsw version ${HNSW_INDEX_VERSION})`);
    }
    if (expectedDim !== undefined && data.dim !== expectedDim) {
      throw new Error(`HnswIndex: the stored index has ${data.dim} dimensions, the vectors/model have ${expectedDim}`);
    }
    const file = parseHnswFile(data.graph);
    if (file.dim !== data.dim) {
      throw new Error(`HnswIndex: hnswlib's file holds ${file.dim}-dimensional vectors, the index record says ${data.dim}`);
    }
    if (file.count !== data.size) {
      throw new Error(`HnswIndex: hnswlib's file holds ${file.count} vectors, the index record says ${data.size}`);
    }
    const params: HnswParams = { M: file.M, efConstruction: file.efConstruction, efSearch: data.efSearch, seed: HNSW_DEFAULTS.seed };
    const hnsw = await loadHnsw();
    if (data.size === 0) return new HnswIndex(hnsw, null, new Float32Array(0), data.dim, data.metric, params, data.graph.byteLength);
    requireIdb(hnsw, 'restoring');
    const index = await exclusive(async () => {
      const name = tempName();
      await idbPut(`${FS_DIR}/${name}`, { timestamp: new Date(), mode: FILE_MODE, contents: data.graph });
      try {
        await hnsw.api.syncFileSystem('read');
        if (!hnsw.lib.EmscriptenFileSystemManager.checkFileExists(name)) {
          throw new Error('HnswIndex: the index file did not reach hnswlib-wasm’s file system (IDBFS sync failed)');
        }
        const idx = new hnsw.lib.HierarchicalNSW('ip', data.dim, '');
        try {
          await idx.readIndex(name, data.size);
        } catch (e) {
          free(idx);
          throw new Error(`HnswIndex: hnswlib could not read the stored index (${describe(e)})`);
        }
        return idx;
      } finally {
        await idbDelete(`${FS_DIR}/${name}`).catch(() => undefined);
        await hnsw.api.syncFileSystem('read').catch(() => undefined);
      }
    });
    if (index.getNumDimensions() !== data.dim || index.getCurrentCount() !== data.size) {
      const got = `${index.getCurrentCount()} × ${index.getNumDimensions()}`;
      free(index);
      throw new Error(`HnswIndex: hnswlib loaded ${got} vectors, expected ${data.size} × ${data.dim}`);
    }
    return new HnswIndex(hnsw, index, file.vectors, data.dim, data.metric, params, data.graph.byteLength);
  }

  /** hnswlib's index file as bytes plus what is needed to restore it. */
  async toData(): Promise<HnswIndexData> {
    const base = { kind: 'hnsw' as const, version: HNSW_INDEX_VERSION, dim: this.dim, size: this.size, metric: this.metric, M: this.params.M, efConstruction: this.params.efConstruction, efSearch: this.efSearchValue };
    const index = this.index;
    if (!index) {
      if (this.size > 0) throw new Error('HnswIndex: the index was disposed');
      return { ...base, graph: emptyHnswFile(this.dim, this.params) };
    }
    requireIdb(this.hnsw, 'serialising');
    const { api, lib } = this.hnsw;
    const graph = await exclusive(async () => {
      const name = tempName();
      const key = `${FS_DIR}/${name}`;
      try {
        // writeIndex saves into the FS and starts an FS → IndexedDB sync (no callback): wait for that sync.
        await index.writeIndex(name);
        await waitSynced(lib, 60_000 + this.size);
        const entry = (await idbGet(key)) as { contents?: Uint8Array } | undefined;
        if (!entry?.contents) throw new Error('HnswIndex: the written index did not reach IndexedDB (IDBFS sync failed)');
        const c = entry.contents;
        // IDBFS stores MEMFS's buffer, which may be larger than the file: keep exactly the file's bytes.
        return c.byteOffset === 0 && c.byteLength === c.buffer.byteLength ? c : c.slice();
      } finally {
        await idbDelete(key).catch(() => undefined);
        await api.syncFileSystem('read').catch(() => undefined);
      }
    });
    this.graphBytes = graph.byteLength;
    return { ...base, graph };
  }

  get efSearch(): number {
    return this.efSearchValue;
  }

  setEfSearch(ef: number): void {
    if (!Number.isInteger(ef) || ef <= 0) throw new Error(`HnswIndex: efSearch must be a positive integer, got ${ef}`);
    this.efSearchValue = ef;
    this.index?.setEfSearch(ef);
  }

  /** The kept float32 vectors (L2-normalised for 'cosine'), row-major: what another index of the same items is built from. */
  get keptVectors(): Float32Array {
    return this.vectors;
  }

  /**
   * Approximate memory: hnswlib's graph (exact once serialised or restored, else estimated from M) plus the kept
   * float32 vectors used for exact re-scoring.
   */
  get bytes(): number {
    return (this.graphBytes ?? estimateGraphBytes(this.size, this.dim, this.params.M)) + this.vectors.byteLength;
  }

  private prepare(query: Float32Array): Float32Array {
    if (query.length !== this.dim) {
      throw new Error(`HnswIndex: query has ${query.length} dimensions, the index has ${this.dim}`);
    }
    return this.metric === 'cosine' ? normalize(query.slice()) : query;
  }

  search(query: Float32Array, k: number, idOf: (index: number) => string, accept?: (index: number) => boolean): Scored[] {
    const q = this.prepare(query);
    const want = Math.min(Math.floor(k), this.size);
    if (want <= 0) return [];
    const index = this.live();
    const found = index.searchKnn(q, want, accept ? (label: number) => accept(label) : undefined);
    if (accept && found.neighbors.length < want) return this.exactFiltered(q, k, idOf, accept);
    // hnswlib's distance is 1 − dot in float32; the exact dot product keeps scores identical to ExactDenseIndex.
    const hits = found.neighbors.map((i) => ({ index: i, score: dot(this.vectors, i * this.dim, q) })).filter((h) => Number.isFinite(h.score));
    return sortRanked(hits, idOf);
  }

  /** Exact scan of the accepted items only (a filter so selective that the graph search ran out of them). */
  private exactFiltered(q: Float32Array, k: number, idOf: (index: number) => string, accept: (index: number) => boolean): Scored[] {
    const hits: Scored[] = [];
    for (let i = 0; i < this.size; i++) {
      if (!accept(i)) continue;
      const score = dot(this.vectors, i * this.dim, q);
      if (Number.isFinite(score)) hits.push({ index: i, score });
    }
    return sortRanked(hits, idOf).slice(0, Math.max(0, k));
  }

  scoreItems(query: Float32Array, items: readonly number[]): number[] {
    const q = this.prepare(query);
    return items.map((i) => dot(this.vectors, i * this.dim, q));
  }

  /** Frees hnswlib's memory; the index cannot search afterwards. */
  dispose(): void {
    if (this.index) free(this.index);
    this.index = null;
  }

  private live(): HierarchicalNSW {
    if (!this.index) throw new Error('HnswIndex: the index was disposed');
    return this.index;
  }
}

function free(index: HierarchicalNSW): void {
  (index as unknown as { delete?: () => void }).delete?.();
}

function describe(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
