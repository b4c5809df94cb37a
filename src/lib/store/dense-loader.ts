/**
 * Gives a knowledge base its dense side: item embeddings from the cache when valid, otherwise computed with
 * progress and cached; then the vector index (an HNSW graph restored from the cache when one was saved for exactly
 * these embeddings and build parameters, otherwise built and cached) and the dense corpus-CDF table.
 *
 * Nothing the cache does can stop dense search: an unusable cached record (old format, checksum mismatch, other
 * embeddings, a graph hnswlib cannot read) is rebuilt, a failed load or save keeps the result in memory only, and
 * `cacheNote` says which happened.
 */
import type { TextEmbedder } from '../models/types.ts';
import { isCoarseCdf } from '../retrieval/calibrate.ts';
import { denseCdfTable, embedItems } from '../retrieval/dense-build.ts';
import type { DenseMetric, DenseRetriever } from '../retrieval/dense.ts';
import { HNSW_DEFAULTS, HnswIndex, type HnswParams } from '../retrieval/hnsw.ts';
import type { KnowledgeBase } from '../retrieval/knowledge-base.ts';
import { checkVectors, screenVectors } from '../retrieval/vector-check.ts';
import {
  buildVectorIndex, chooseVectorIndex, restoreVectorIndex, serializeVectorIndex, type VectorIndexData, type VectorIndexKind,
} from '../retrieval/vector-index.ts';
import {
  indexedDbVectorStore, vectorIndexKey, vectorKey, vectorsFingerprint, type IndexLoad, type StoreSave, type VectorLoad, type VectorStore,
} from './vector-cache.ts';

/**
 * Progress stages. Restoring a cached index reports 'vector-index' (like a build, but fast); saving the index
 * reports 'embed-save' (after the embeddings).
 */
export type DenseStage = 'embed-cache' | 'embed' | 'vector-index' | 'dense-calibrate' | 'embed-save';

/** Index kinds worth caching: those with a build cost (the brute-force kinds are just the embeddings). */
const CACHED_INDEX_KINDS: ReadonlySet<VectorIndexKind> = new Set(['hnsw']);

export interface DenseSetup {
  /** Where the embeddings came from: this browser's (or the CLI's) cache, embedded now, or a knowledge-base artifact. */
  source: 'cache' | 'computed' | 'artifact';
  /** Why the cache was not used or written (null when all went well). */
  cacheNote: string | null;
  dim: number;
  index: VectorIndexKind;
  /** Where the vector index came from: restored from the cache, or built now (always 'built' for exact / int8). */
  indexSource: 'cache' | 'built';
  /** Wall time of building or restoring the vector index (without checksums and cache reads). */
  indexMs: number;
  /** Wall time of embedding the items (0 when read from the cache). */
  embedMs: number;
}

export interface AttachDenseOptions {
  /** The knowledge base's cache key (from openKnowledgeBase). */
  kbKey: string;
  /** Pseudo-queries for the dense CDF table. Default 100. */
  cdfQueries?: number;
  seed?: number;
  /** Vector index choice; default 'auto' (by corpus size). */
  index?: VectorIndexKind | 'auto';
  /** HNSW parameters (default `HNSW_DEFAULTS`); M, efConstruction and seed are part of the index cache key. */
  hnsw?: Partial<HnswParams>;
  batchSize?: number;
  onProgress?: (stage: DenseStage, done: number, total: number) => void;
  signal?: AbortSignal;
  /** Embedding and index cache. Default IndexedDB. */
  store?: VectorStore;
}

const METRIC: DenseMetric = 'cosine';

export async function attachDense(kb: KnowledgeBase, embedder: TextEmbedder, opts: AttachDenseOptions): Promise<DenseSetup> {
  const progress = opts.onProgress ?? (() => {});
  const key = vectorKey(opts.kbKey, embedder.spec.id, embedder.spec.dtype);
  const notes: string[] = [];
  progress('embed-cache', 0, 1);
  const store = opts.store ?? indexedDbVectorStore;
  let cached = await guardedLoad<VectorLoad>(() => store.load(key, kb.size), 'the embedding cache');
  if (cached.status === 'invalid') notes.push(`The cached embeddings were not usable: ${cached.reason}. They were recomputed.`);
  let vectors: Float32Array, dim: number, source: DenseSetup['source'], embedMs = 0;
  if (cached.status === 'hit' && checkVectors(cached.vectors, cached.dim).bad) {
    // Cached vectors come from outside this run (IndexedDB): rows of NaN/Infinity mean a corrupt record.
    notes.push('The cached embeddings were not usable: some rows hold NaN or infinite values. They were recomputed.');
    cached = { status: 'invalid', reason: 'non-finite rows' };
  }
  if (cached.status === 'hit') {
    ({ vectors, dim } = cached);
    source = 'cache';
  } else {
    const t0 = performance.now();
    ({ vectors, dim } = await embedItems(kb, embedder, {
      ...(opts.batchSize ? { batchSize: opts.batchSize } : {}),
      onProgress: (d, t) => progress('embed', d, t),
      ...(opts.signal ? { signal: opts.signal } : {}),
    }));
    embedMs = performance.now() - t0;
    source = 'computed';
  }
  // A model that returns NaN for some passages: those chunks are left out of dense search (vector-check.ts).
  const screened = screenVectors('the computed embeddings', vectors, dim, notes);
  if (!screened) throw new Error(notes[notes.length - 1]);
  vectors = screened.values;

  const kind = chooseVectorIndex(kb.size, dim, opts.index ?? 'auto');
  const hnsw: HnswParams = { ...HNSW_DEFAULTS, ...opts.hnsw };
  progress('vector-index', 0, kb.size);
  // The index cache: only for kinds with a build cost, and only with a store that keeps indexes.
  const useIndexCache = CACHED_INDEX_KINDS.has(kind) && Boolean(store.loadIndex || store.saveIndex);
  const indexKey = vectorIndexKey(key, kind, METRIC, hnsw);
  const fingerprint = useIndexCache ? await vectorsFingerprint(vectors, dim) : '';
  let index: DenseRetriever | null = null;
  let indexMs = 0;
  if (useIndexCache && store.loadIndex) {
    const load = store.loadIndex.bind(store);
    const got = await guardedLoad<IndexLoad>(
      () => load(indexKey, { kind, dim, size: kb.size, metric: METRIC, vectorsChecksum: fingerprint, params: hnsw }),
      'the vector index cache',
    );
    if (got.status === 'invalid') notes.push(`The cached ${kind} index was not usable: ${got.reason}. It was rebuilt.`);
    if (got.status === 'hit') {
      const t0 = performance.now();
      try {
        index = await restoreVectorIndex(got.data, dim);
        if (index instanceof HnswIndex && index.efSearch !== hnsw.efSearch) index.setEfSearch(hnsw.efSearch);
        indexMs = performance.now() - t0;
      } catch (e) {
        notes.push(`The cached ${kind} index could not be restored (${message(e)}). It was rebuilt.`);
      }
    }
  }
  const indexSource: DenseSetup['indexSource'] = index ? 'cache' : 'built';
  if (!index) {
    const t0 = performance.now();
    index = await buildVectorIndex(kind, vectors, dim, (d, t) => progress('vector-index', d, t), {
      metric: METRIC,
      hnsw,
      ...(opts.signal ? { signal: opts.signal } : {}),
    });
    indexMs = performance.now() - t0;
  }
  progress('vector-index', kb.size, kb.size);

  // A cached table saved before issue 32 kept 4,096 of its scores (isCoarseCdf): built again, whole.
  const cachedCdf = cached.status === 'hit' && cached.cdf && !isCoarseCdf(cached.cdf) ? cached.cdf : null;
  let cdf = cachedCdf;
  if (!cdf && (opts.cdfQueries ?? 100) > 0) {
    progress('dense-calibrate', 0, 1);
    cdf = await denseCdfTable(kb, index, embedder, opts.cdfQueries ?? 100, opts.seed ?? kb.options.seed);
    progress('dense-calibrate', 1, 1);
  }

  const saveEmbeddings = source === 'computed' || (cached.status === 'hit' && !cachedCdf && cdf !== null);
  const saveIndex = useIndexCache && indexSource === 'built' && store.saveIndex ? store.saveIndex.bind(store) : null;
  if (saveEmbeddings || saveIndex) progress('embed-save', 0, 1);
  if (saveEmbeddings) {
    const saved = await guardedSave(() => store.save(key, vectors, dim, cdf));
    if (!saved.ok) notes.push(`Caching the embeddings failed: ${saved.reason}.`);
  }
  if (saveIndex) {
    let data: VectorIndexData | null = null;
    try {
      data = await serializeVectorIndex(index);
    } catch (e) {
      notes.push(`The ${kind} index could not be serialised for the cache (${message(e)}); it stays in memory only and will be rebuilt next time.`);
    }
    if (data) {
      const ready = data;
      const saved = await guardedSave(() => saveIndex(indexKey, ready, fingerprint));
      if (!saved.ok) notes.push(`Caching the ${kind} index failed: ${saved.reason}.`);
    }
  }
  if (saveEmbeddings || saveIndex) progress('embed-save', 1, 1);

  // Replace the previous dense index; an HNSW graph holds wasm memory until disposed.
  const previous = kb.dense;
  kb.dense = index;
  kb.denseCdf = cdf;
  kb.denseSkip = screened.skip;
  if (previous && previous !== index && previous instanceof HnswIndex) previous.dispose();
  return { source, cacheNote: notes.length > 0 ? notes.join(' ') : null, dim, index: kind, indexSource, indexMs, embedMs };
}

function message(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/** A store's load that throws counts as an unusable record (the caller recomputes), never as a failure. */
async function guardedLoad<T extends VectorLoad | IndexLoad>(load: () => Promise<T>, what: string): Promise<T | { status: 'invalid'; reason: string }> {
  try {
    return await load();
  } catch (e) {
    return { status: 'invalid', reason: `${what} could not be read (${message(e)})` };
  }
}

/** A store's save that throws counts as a failed save (the result stays in memory). */
async function guardedSave(save: () => Promise<StoreSave>): Promise<StoreSave> {
  try {
    return await save();
  } catch (e) {
    return { ok: false, reason: message(e) };
  }
}
