/**
 * IndexedDB cache of item embeddings, keyed by (knowledge-base index key, model id, dtype), so a reload reuses
 * them instead of running the model over every chunk again. Same guarantees as the index cache: schema version,
 * SHA-256 checksum, rebuild on mismatch, in-memory fallback when a save fails.
 */
import type { CdfTable } from '../retrieval/calibrate.ts';
import { sha256Hex } from './checksum.ts';
import { database, saveFailure } from './db.ts';

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

export async function loadVectors(key: string, expectedCount: number): Promise<VectorLoad> {
  let rec: VectorRecord | undefined;
  try {
    rec = (await (await database()).get(STORE, key)) as VectorRecord | undefined;
  } catch (e) {
    return { status: 'invalid', reason: `the embedding cache could not be read (${(e as Error).message})` };
  }
  if (!rec) return { status: 'miss' };
  if (rec.schemaVersion !== VECTOR_SCHEMA_VERSION) return { status: 'invalid', reason: 'the cached embeddings are from an older version of RAG Lab' };
  if (rec.count !== expectedCount || rec.vectors.length !== rec.count * rec.dim) {
    return { status: 'invalid', reason: `the cached embeddings do not fit the index (${rec.count} vectors of ${rec.dim} dimensions for ${expectedCount} chunks)` };
  }
  if ((await checksum(rec.dim, rec.count, rec.vectors, rec.cdf ?? null)) !== rec.checksum) {
    return { status: 'invalid', reason: 'the cached embeddings are corrupted (checksum mismatch)' };
  }
  return { status: 'hit', vectors: rec.vectors, dim: rec.dim, cdf: rec.cdf ?? null };
}

export async function saveVectors(key: string, vectors: Float32Array, dim: number, cdf: CdfTable | null): Promise<{ ok: true } | { ok: false; reason: string }> {
  try {
    const count = vectors.length / dim;
    const rec: VectorRecord = { key, schemaVersion: VECTOR_SCHEMA_VERSION, checksum: await checksum(dim, count, vectors, cdf), dim, count, vectors, cdf, savedAt: Date.now() };
    await (await database()).put(STORE, rec);
    return { ok: true };
  } catch (e) {
    return { ok: false, reason: saveFailure(e, 'embeddings') };
  }
}

/** Where embeddings are kept between runs: IndexedDB in the browser, files in the CLI, nothing in tests. */
export interface VectorStore {
  load(key: string, expectedCount: number): Promise<VectorLoad>;
  save(key: string, vectors: Float32Array, dim: number, cdf: CdfTable | null): Promise<{ ok: true } | { ok: false; reason: string }>;
}

export const indexedDbVectorStore: VectorStore = { load: loadVectors, save: saveVectors };

export const noVectorStore: VectorStore = {
  load: async () => ({ status: 'miss' }),
  save: async () => ({ ok: true }),
};
