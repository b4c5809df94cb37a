/**
 * IndexedDB cache of item embeddings, keyed by (knowledge-base index key, model id, dtype), so a reload reuses
 * them instead of running the model over every chunk again. Same guarantees as the index cache: schema version,
 * SHA-256 checksum, rebuild on mismatch, in-memory fallback when a save fails.
 *
 * Beside the embeddings, the vector index built over them when building it costs time (HNSW: ≈ 22 s for 16k × 384):
 * store 'vector-indexes', key = embeddings key + index kind + metric + build parameters ({@link vectorIndexKey}).
 * A record holds the index's plain data ({@link VectorIndexData}: for HNSW hnswlib's graph file), the SHA-256 of
 * the embeddings it was built from ({@link vectorsFingerprint}: recomputed or changed embeddings never meet a stale
 * graph), its own checksum over every field and array, and {@link VECTOR_INDEX_SCHEMA_VERSION}.
 */
import type { CdfTable } from '../retrieval/calibrate.ts';
import type { DenseMetric } from '../retrieval/dense.ts';
import type { VectorIndexData, VectorIndexKind } from '../retrieval/vector-index.ts';
import { sha256Hex } from '../checksum.ts';
import { database, saveFailure } from './db.ts';
import { checkStored, VectorIndexRecordSchema, VectorRecordSchema } from './record-schemas.ts';

export const VECTOR_SCHEMA_VERSION = 1;
const STORE = 'vectors';

export interface VectorRecord {
  key: string;
  schemaVersion: number;
  checksum: string;
  dim: number;
  count: number;
  vectors: Float32Array;
  /** Corpus-CDF table of this model's query–item similarities. */
  cdf: CdfTable | null;
  savedAt: number;
}

function checksum(dim: number, count: number, vectors: Float32Array, cdf: CdfTable | null): Promise<string> {
  return sha256Hex(`${dim}:${count}:${cdf ? `${cdf.count}:${cdf.queries}` : '-'}`, vectors, ...(cdf ? [cdf.sorted] : []));
}

export type VectorLoad =
  | { status: 'hit'; vectors: Float32Array; dim: number; cdf: CdfTable | null }
  | { status: 'miss' }
  | { status: 'invalid'; reason: string };

export function vectorKey(kbKey: string, modelId: string, dtype: string): string {
  return `${kbKey}|${modelId}|${dtype}`;
}

/** A stored record of another format or shape is invalid (the caller recomputes and overwrites it), never used. */
export async function loadVectors(key: string, expectedCount: number): Promise<VectorLoad> {
  let stored: unknown;
  try {
    stored = await (await database()).get(STORE, key);
  } catch (e) {
    return { status: 'invalid', reason: `the embedding cache could not be read (${(e as Error).message})` };
  }
  if (stored === undefined) return { status: 'miss' };
  const check = checkStored(stored, VectorRecordSchema, VECTOR_SCHEMA_VERSION, 'the cached embeddings record',
    () => 'the cached embeddings are from an older version of RAG Lab');
  if (!check.ok) return { status: 'invalid', reason: check.reason };
  const rec = stored as VectorRecord;
  if (rec.count !== expectedCount || rec.vectors.length !== rec.count * rec.dim) {
    return { status: 'invalid', reason: `the cached embeddings do not fit the index (${rec.count} vectors of ${rec.dim} dimensions for ${expectedCount} chunks)` };
  }
  if ((await checksum(rec.dim, rec.count, rec.vectors, rec.cdf ?? null)) !== rec.checksum) {
    return { status: 'invalid', reason: 'the cached embeddings are corrupted (checksum mismatch)' };
  }
  return { status: 'hit', vectors: rec.vectors, dim: rec.dim, cdf: rec.cdf ?? null };
}

export async function saveVectors(key: string, vectors: Float32Array, dim: number, cdf: CdfTable | null): Promise<StoreSave> {
  try {
    const count = vectors.length / dim;
    const rec: VectorRecord = { key, schemaVersion: VECTOR_SCHEMA_VERSION, checksum: await checksum(dim, count, vectors, cdf), dim, count, vectors, cdf, savedAt: Date.now() };
    await (await database()).put(STORE, rec);
    return { ok: true };
  } catch (e) {
    return { ok: false, reason: saveFailure(e, 'embeddings') };
  }
}

// ---- vector indexes (HNSW graphs) ----

/** Bump when {@link VectorIndexRecord} or what {@link vectorIndexChecksum} covers changes. */
export const VECTOR_INDEX_SCHEMA_VERSION = 1;
const INDEX_STORE = 'vector-indexes';

/** The build parameters that shape an index (not efSearch: that is a query-time setting, applied after a restore). */
export interface IndexBuildParams {
  M: number;
  efConstruction: number;
  seed: number;
}

/** What a cached index must match to be used instead of a build. */
export interface IndexExpectation {
  kind: VectorIndexKind;
  dim: number;
  /** Number of vectors (= knowledge-base items). */
  size: number;
  metric: DenseMetric;
  /** {@link vectorsFingerprint} of the embeddings the index is for. */
  vectorsChecksum: string;
  /** HNSW build parameters (checked against the record when given). */
  params?: Pick<IndexBuildParams, 'M' | 'efConstruction'>;
}

export interface VectorIndexRecord {
  key: string;
  schemaVersion: number;
  /** {@link vectorIndexChecksum} of `data` and `vectorsChecksum`. */
  checksum: string;
  /** {@link vectorsFingerprint} of the embeddings the index was built from. */
  vectorsChecksum: string;
  savedAt: number;
  data: VectorIndexData;
}

export type IndexLoad =
  | { status: 'hit'; data: VectorIndexData }
  | { status: 'miss' }
  | { status: 'invalid'; reason: string };

export type StoreSave = { ok: true } | { ok: false; reason: string };

/** The cache key of the index of `kind` over the embeddings stored under `vectorKey`. */
export function vectorIndexKey(vectorKey: string, kind: VectorIndexKind, metric: DenseMetric, params: IndexBuildParams): string {
  return `${vectorKey}|index:${kind}|${metric}${kind === 'hnsw' ? `|M${params.M}|efc${params.efConstruction}|seed${params.seed}` : ''}`;
}

/** SHA-256 of row-major n × dim embeddings (which vectors an index was built from). */
export function vectorsFingerprint(vectors: Float32Array, dim: number): Promise<string> {
  return sha256Hex(`${dim}:${dim > 0 ? vectors.length / dim : 0}`, vectors);
}

/** Checksum over every field of the index data (scalars as JSON, typed arrays by type, length and bytes). */
export function vectorIndexChecksum(data: VectorIndexData, vectorsChecksum: string): Promise<string> {
  const fields = data as unknown as Record<string, unknown>;
  const scalars: Record<string, unknown> = {};
  const arrays: Array<string | ArrayBufferView> = [];
  for (const name of Object.keys(fields).sort()) {
    const v = fields[name];
    if (ArrayBuffer.isView(v)) arrays.push(`${name}:${v.constructor.name}:${v.byteLength}`, v);
    else scalars[name] = v;
  }
  return sha256Hex(JSON.stringify({ scalars, vectorsChecksum }), ...arrays);
}

/**
 * A stored index record (as read, of any shape) checked against what the caller needs: a hit, or invalid with a
 * reason for the user.
 */
export async function checkIndexRecord(stored: unknown, expect: IndexExpectation): Promise<IndexLoad> {
  const check = checkStored(stored, VectorIndexRecordSchema, VECTOR_INDEX_SCHEMA_VERSION, 'the cached vector index',
    (found) => `the cached vector index is from another version of RAG Lab (format ${found}, now ${VECTOR_INDEX_SCHEMA_VERSION})`);
  if (!check.ok) return { status: 'invalid', reason: check.reason };
  const rec = stored as VectorIndexRecord;
  try {
    if ((await vectorIndexChecksum(rec.data, rec.vectorsChecksum)) !== rec.checksum) {
      return { status: 'invalid', reason: 'the cached vector index is corrupted (checksum mismatch)' };
    }
  } catch {
    return { status: 'invalid', reason: 'the cached vector index is corrupted (unreadable record)' };
  }
  const d = rec.data;
  if (rec.vectorsChecksum !== expect.vectorsChecksum) {
    return { status: 'invalid', reason: 'the cached vector index was built from other embeddings than the current ones' };
  }
  if (d.kind !== expect.kind || d.dim !== expect.dim || d.size !== expect.size || d.metric !== expect.metric) {
    return { status: 'invalid', reason: `the cached vector index does not fit (${d.kind}, ${d.size} × ${d.dim}, ${d.metric}; needed ${expect.kind}, ${expect.size} × ${expect.dim}, ${expect.metric})` };
  }
  if (expect.params && d.kind === 'hnsw' && (d.M !== expect.params.M || d.efConstruction !== expect.params.efConstruction)) {
    return { status: 'invalid', reason: `the cached HNSW graph has other build parameters (M ${d.M}, efConstruction ${d.efConstruction}; needed ${expect.params.M}, ${expect.params.efConstruction})` };
  }
  return { status: 'hit', data: d };
}

export async function loadVectorIndex(key: string, expect: IndexExpectation): Promise<IndexLoad> {
  let stored: unknown;
  try {
    stored = await (await database()).get(INDEX_STORE, key);
  } catch (e) {
    return { status: 'invalid', reason: `the vector index cache could not be read (${(e as Error).message})` };
  }
  if (stored === undefined) return { status: 'miss' };
  return checkIndexRecord(stored, expect);
}

export async function saveVectorIndex(key: string, data: VectorIndexData, vectorsChecksum: string): Promise<StoreSave> {
  try {
    const rec: VectorIndexRecord = { key, schemaVersion: VECTOR_INDEX_SCHEMA_VERSION, checksum: await vectorIndexChecksum(data, vectorsChecksum), vectorsChecksum, savedAt: Date.now(), data };
    await (await database()).put(INDEX_STORE, rec);
    return { ok: true };
  } catch (e) {
    return { ok: false, reason: saveFailure(e, 'vector index') };
  }
}

/** For tests: the stored index record as-is, and overwriting it (to simulate corruption or an old format). */
export async function getRawIndexRecord(key: string): Promise<VectorIndexRecord | undefined> {
  return (await (await database()).get(INDEX_STORE, key)) as VectorIndexRecord | undefined;
}

export async function putRawIndexRecord(rec: VectorIndexRecord): Promise<void> {
  await (await database()).put(INDEX_STORE, rec);
}

/**
 * Where embeddings are kept between runs: IndexedDB in the browser, files in the CLI, nothing in tests.
 * `loadIndex` / `saveIndex` (optional: a store without them has every index rebuilt) keep built vector indexes.
 */
export interface VectorStore {
  load(key: string, expectedCount: number): Promise<VectorLoad>;
  save(key: string, vectors: Float32Array, dim: number, cdf: CdfTable | null): Promise<StoreSave>;
  loadIndex?(key: string, expect: IndexExpectation): Promise<IndexLoad>;
  saveIndex?(key: string, data: VectorIndexData, vectorsChecksum: string): Promise<StoreSave>;
}

export const indexedDbVectorStore: VectorStore = { load: loadVectors, save: saveVectors, loadIndex: loadVectorIndex, saveIndex: saveVectorIndex };

/** Caches nothing (and has no index methods, so indexes are neither serialised nor saved). */
export const noVectorStore: VectorStore = {
  load: async () => ({ status: 'miss' }),
  save: async () => ({ ok: true }),
};
