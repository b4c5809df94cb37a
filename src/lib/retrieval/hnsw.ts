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
import type { HierarchicalNSW, HnswlibModule } from 'hnswlib-wasm/dist/hnswlib.js';
import { dot, normalize, type DenseMetric, type DenseRetriever } from './dense.ts';
import { sortRanked, type Scored } from './topk.ts';

export interface HnswParams {
  /** Graph degree (links per node per layer; 2·M on the bottom layer). */
  M: number;
  /** Candidate list size while inserting (build quality vs build time). */
  efConstruction: number;
  /** Candidate list size while searching (recall vs latency); hnswlib uses max(efSearch, k). */
  efSearch: number;
  /** Seed of hnswlib's level generator. */
  seed: number;
}

export const HNSW_DEFAULTS: Readonly<HnswParams> = Object.freeze({ M: 16, efConstruction: 200, efSearch: 64, seed: 100 });

/** Bump when the layout of {@link HnswIndexData} changes. */
export const HNSW_INDEX_VERSION = 1;

/** Plain data of an {@link HnswIndex}: `graph` is hnswlib's saveIndex file (graph + vectors + labels). */
export interface HnswIndexData {
  kind: 'hnsw';
  version: number;
  dim: number;
  size: number;
  metric: DenseMetric;
  M: number;
  efConstruction: number;
  efSearch: number;
  graph: Uint8Array;
}

export interface HnswBuildOptions extends Partial<HnswParams> {
  metric?: DenseMetric;
  /** Points per `addPoints` call between progress reports. Default 500. */
  batchSize?: number;
  onProgress?: (done: number, total: number) => void;
  signal?: AbortSignal;
}

type HnswlibApi = typeof import('hnswlib-wasm/dist/hnswlib.js');
interface Hnswlib {
  api: HnswlibApi;
  lib: HnswlibModule;
  /** Whether IDBFS (and so serialisation) works in this environment. */
  idb: boolean;
}

const FS_DIR = '/hnswlib-index';
const IDB_STORE = 'FILE_DATA';
const FILE_PREFIX = 'rag-lab-';
/** S_IFREG | 0644: a regular file for IDBFS. */
const FILE_MODE = 0o100644;

let loading: Promise<Hnswlib> | null = null;

/** Loads hnswlib-wasm once (lazily); later calls share the same promise. */
export function loadHnsw(): Promise<Hnswlib> {
  loading ??= startHnswlib().catch((e: unknown) => {
    loading = null;
    throw e;
  });
  return loading;
}

async function startHnswlib(): Promise<Hnswlib> {
  const g = globalThis as { window?: unknown; importScripts?: unknown };
  const shim = typeof g.window !== 'object' && typeof g.importScripts !== 'function';
  if (shim) {
    g.importScripts = () => {
      throw new Error('importScripts is a stub defined for loading hnswlib-wasm outside a browser');
    };
  }
  let api: HnswlibApi, lib: HnswlibModule;
  try {
    api = await import('hnswlib-wasm/dist/hnswlib.js');
    lib = await api.loadHnswlib();
  } finally {
    if (shim) delete g.importScripts;
  }
  let idb = typeof indexedDB !== 'undefined';
  if (idb) {
    try {
      // loadHnswlib starts an IndexedDB → FS sync without waiting for it; finish it before any other FS work.
      await waitSynced(lib, 15_000);
      await removeLeftovers({ api, lib, idb });
    } catch {
      idb = false; // IndexedDB present but unusable (e.g. blocked): build and search still work
    }
  }
  return { api, lib, idb };
}

/** One FS/IDBFS operation at a time (the module's FS and its sync state are global). */
let fsQueue: Promise<unknown> = Promise.resolve();
function exclusive<T>(work: () => Promise<T>): Promise<T> {
  const run = fsQueue.then(work, work);
  fsQueue = run.catch(() => undefined);
  return run;
}

let fileSeq = 0;
function tempName(): string {
  return `${FILE_PREFIX}${Date.now().toString(36)}-${(fileSeq++).toString(36)}-${Math.random().toString(36).slice(2, 8)}.hnsw`;
}

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

function paramsOf(o: Partial<HnswParams>): HnswParams {
  const p = { M: o.M ?? HNSW_DEFAULTS.M, efConstruction: o.efConstruction ?? HNSW_DEFAULTS.efConstruction, efSearch: o.efSearch ?? HNSW_DEFAULTS.efSearch, seed: o.seed ?? HNSW_DEFAULTS.seed };
  for (const [name, value] of Object.entries(p)) {
    if (!Number.isInteger(value) || value < (name === 'seed' ? 0 : 1)) throw new Error(`HnswIndex: ${name} must be a positive integer, got ${value}`);
  }
  if (p.M < 2) throw new Error(`HnswIndex: M must be at least 2, got ${p.M}`);
  return p;
}

function requireIdb(h: Hnswlib, what: string): void {
  if (!h.idb) {
    throw new Error(`HnswIndex: ${what} an index needs IndexedDB (hnswlib-wasm moves files through IDBFS); in Node import 'fake-indexeddb/auto' before loading it`);
  }
}

function free(index: HierarchicalNSW): void {
  (index as unknown as { delete?: () => void }).delete?.();
}

function describe(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/** Resolves once the FS sync in flight has finished (hnswlib-wasm reports completion only through a flag). */
async function waitSynced(lib: HnswlibModule, timeoutMs: number): Promise<void> {
  const start = Date.now();
  while (!lib.EmscriptenFileSystemManager.isSynced()) {
    if (Date.now() - start > timeoutMs) {
      throw new Error(`HnswIndex: hnswlib-wasm's IndexedDB sync did not finish within ${Math.round(timeoutMs / 1000)} s`);
    }
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** Deletes files a crashed serialisation left in IDBFS's database (they would be loaded into memory at start). */
async function removeLeftovers(h: Hnswlib): Promise<void> {
  const keys = (await withStore('readonly', (s) => s.getAllKeys())) as IDBValidKey[];
  const ours = keys.filter((k) => typeof k === 'string' && k.startsWith(`${FS_DIR}/${FILE_PREFIX}`));
  if (ours.length === 0) return;
  for (const k of ours) await idbDelete(k);
  await h.api.syncFileSystem('read');
}

// ---- IDBFS's IndexedDB database, opened at its current version (never upgraded by us) ----

function request<T>(r: IDBRequest<T>): Promise<T> {
  return new Promise((resolve, reject) => {
    r.onsuccess = () => resolve(r.result);
    r.onerror = () => reject(r.error ?? new Error('IndexedDB request failed'));
  });
}

async function withStore<T>(mode: IDBTransactionMode, op: (s: IDBObjectStore) => IDBRequest<T>): Promise<T> {
  const db = await request(indexedDB.open(FS_DIR));
  db.onversionchange = () => db.close(); // never hold up another tab's upgrade
  try {
    if (!db.objectStoreNames.contains(IDB_STORE)) throw new Error(`HnswIndex: IDBFS database ${FS_DIR} has no ${IDB_STORE} store`);
    const tx = db.transaction(IDB_STORE, mode);
    const result = await request(op(tx.objectStore(IDB_STORE)));
    await new Promise<void>((resolve, reject) => {
      tx.oncomplete = () => resolve();
      tx.onerror = tx.onabort = () => reject(tx.error ?? new Error('IndexedDB transaction failed'));
    });
    return result;
  } finally {
    db.close();
  }
}

const idbGet = (key: string) => withStore('readonly', (s) => s.get(key));
const idbPut = (key: string, value: unknown) => withStore('readwrite', (s) => s.put(value, key));
const idbDelete = (key: IDBValidKey) => withStore('readwrite', (s) => s.delete(key));

// ---- hnswlib's file format (saveIndex, wasm32: size_t, labeltype and tableint are 4 bytes) ----

const HEADER_BYTES = 56;

export interface HnswFileInfo {
  dim: number;
  count: number;
  M: number;
  efConstruction: number;
  /** Row-major count × dim, row = label. */
  vectors: Float32Array;
}

/**
 * Reads the header and the stored vectors of an hnswlib index file, checking that its layout is consistent, so a
 * file of another dimension or a truncated/foreign file is an error instead of silent garbage.
 */
export function parseHnswFile(bytes: Uint8Array): HnswFileInfo {
  const bad = (why: string) => new Error(`HnswIndex: not a usable hnswlib index file (${why})`);
  if (bytes.byteLength < HEADER_BYTES) throw bad(`${bytes.byteLength} bytes`);
  const h = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const u = (at: number) => h.getUint32(at, true);
  const offsetLevel0 = u(0), maxElements = u(4), count = u(8), perElement = u(12), labelOffset = u(16), offsetData = u(20);
  const maxM0 = u(36), M = u(40), efConstruction = u(52);
  const linksLevel0 = maxM0 * 4 + 4;
  const dataBytes = labelOffset - offsetData;
  if (offsetLevel0 !== 0 || offsetData !== linksLevel0 || dataBytes <= 0 || dataBytes % 4 !== 0 || perElement !== labelOffset + 4 || count > maxElements || maxM0 !== 2 * M) {
    throw bad('inconsistent header');
  }
  const dim = dataBytes / 4;
  if (bytes.byteLength < HEADER_BYTES + count * perElement) throw bad(`truncated: ${bytes.byteLength} bytes for ${count} elements`);
  const vectors = new Float32Array(count * dim);
  const seen = new Uint8Array(count);
  for (let i = 0; i < count; i++) {
    const base = HEADER_BYTES + i * perElement;
    const label = u(base + labelOffset);
    if (label >= count || seen[label]) throw bad(`labels are not 0..${count - 1}`);
    seen[label] = 1;
    const row = label * dim;
    for (let j = 0; j < dim; j++) vectors[row + j] = h.getFloat32(base + offsetData + 4 * j, true);
  }
  return { dim, count, M, efConstruction, vectors };
}

/** Header-only file for an empty index (hnswlib is never asked to load it). */
function emptyHnswFile(dim: number, p: HnswParams): Uint8Array {
  const bytes = new Uint8Array(HEADER_BYTES);
  const h = new DataView(bytes.buffer);
  const linksLevel0 = 2 * p.M * 4 + 4;
  [0, 0, 0, linksLevel0 + dim * 4 + 4, linksLevel0 + dim * 4, linksLevel0].forEach((x, i) => h.setUint32(4 * i, x, true));
  h.setInt32(24, -1, true);
  h.setUint32(32, p.M, true);
  h.setUint32(36, 2 * p.M, true);
  h.setUint32(40, p.M, true);
  h.setFloat64(44, 1 / Math.log(p.M), true);
  h.setUint32(52, p.efConstruction, true);
  return bytes;
}

/**
 * hnswlib's file size: header + per element (level-0 links 4 + 8M, vector 4·dim, label 4, upper-level list size 4)
 * + upper-level link lists (expected 1/(M − 1) levels per element, 4 + 4M bytes each).
 */
function estimateGraphBytes(n: number, dim: number, M: number): number {
  return Math.round(HEADER_BYTES + n * (4 + 8 * M + 4 * dim + 4 + 4) + (n / (M - 1)) * (4 + 4 * M));
}
