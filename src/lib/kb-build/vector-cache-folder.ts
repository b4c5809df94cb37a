/**
 * The embedding cache in a folder (a VectorStore; the CLI's, over node:fs): one folder per key with `meta.json`,
 * `vectors.f32` and `cdf.f64`; and one folder per vector-index key with `index.json` (the record without its
 * arrays) and one `<field>.bin` per typed array of the index data (for HNSW `graph.bin`, hnswlib's file). Index
 * records are checked like the browser's (`checkIndexRecord`: schema version, SHA-256 over every field, the
 * embeddings they were built from). What files with what bytes is here; the reads and writes are the folder's.
 */
import { sha256Hex } from '../checksum.ts';
import type { VectorIndexData } from '../retrieval/vector-index.ts';
import {
  checkIndexRecord, vectorIndexChecksum, VECTOR_INDEX_SCHEMA_VERSION, VECTOR_SCHEMA_VERSION,
  type IndexLoad, type VectorIndexRecord, type VectorLoad, type VectorStore,
} from '../store/vector-cache.ts';

/** The folder's file operations (paths joined with `join`); faults are thrown. */
export interface CacheFolder {
  join(...parts: string[]): string;
  exists(path: string): boolean;
  read(path: string): Uint8Array;
  readText(path: string): string;
  write(path: string, data: Uint8Array | string): void;
  mkdir(path: string): void;
  /** Whether an IndexedDB is there for hnswlib-wasm's IDBFS (installed when missing; false: impossible). */
  indexedDb(): Promise<boolean>;
}

interface Meta { schemaVersion: number; key: string; dim: number; count: number; checksum: string; cdf: { count: number; queries: number } | null }

const f32 = (b: Uint8Array) => new Float32Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength));
const f64 = (b: Uint8Array) => new Float64Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength));
const bytesOf = (v: ArrayBufferView) => new Uint8Array(v.buffer, v.byteOffset, v.byteLength);

/** The typed arrays an index record may hold, by constructor name (stored in `index.json`). */
const ARRAY_TYPES = {
  Uint8Array, Int8Array, Uint16Array, Int16Array, Uint32Array, Int32Array, Float32Array, Float64Array,
} as const;
type ArrayType = keyof typeof ARRAY_TYPES;

interface IndexMeta {
  schemaVersion: number;
  key: string;
  checksum: string;
  vectorsChecksum: string;
  savedAt: number;
  /** The index data's non-array fields. */
  scalars: Record<string, unknown>;
  /** Its typed-array fields, each in `<field>.bin`. */
  arrays: Array<{ field: string; type: ArrayType; file: string }>;
}

function readArray(type: ArrayType, b: Uint8Array): ArrayBufferView {
  const Ctor = ARRAY_TYPES[type];
  if (b.byteLength % Ctor.BYTES_PER_ELEMENT !== 0) throw new Error(`${type} file of ${b.byteLength} bytes`);
  const copy = new Uint8Array(b.byteLength);
  copy.set(b);
  return new Ctor(copy.buffer);
}

export function folderVectorStore(root: string, fs: CacheFolder): VectorStore {
  const dirOf = async (key: string) => fs.join(root, (await sha256Hex(key)).slice(0, 24));
  return {
    async load(key, expectedCount): Promise<VectorLoad> {
      const dir = await dirOf(key);
      if (!fs.exists(fs.join(dir, 'meta.json'))) return { status: 'miss' };
      try {
        const meta = JSON.parse(fs.readText(fs.join(dir, 'meta.json'))) as Meta;
        if (meta.schemaVersion !== VECTOR_SCHEMA_VERSION || meta.key !== key) return { status: 'invalid', reason: 'the cached embeddings are from another version' };
        const vectors = f32(fs.read(fs.join(dir, 'vectors.f32')));
        const cdf = meta.cdf ? { sorted: f64(fs.read(fs.join(dir, 'cdf.f64'))), ...meta.cdf } : null;
        if (meta.count !== expectedCount || vectors.length !== meta.count * meta.dim) return { status: 'invalid', reason: 'the cached embeddings do not fit the index' };
        if ((await sha256Hex(key, vectors, ...(cdf ? [cdf.sorted] : []))) !== meta.checksum) return { status: 'invalid', reason: 'the cached embeddings are corrupted (checksum mismatch)' };
        return { status: 'hit', vectors, dim: meta.dim, cdf };
      } catch (e) {
        return { status: 'invalid', reason: `the cached embeddings could not be read (${(e as Error).message})` };
      }
    },
    async save(key, vectors, dim, cdf) {
      try {
        const dir = await dirOf(key);
        fs.mkdir(dir);
        fs.write(fs.join(dir, 'vectors.f32'), bytesOf(vectors));
        if (cdf) fs.write(fs.join(dir, 'cdf.f64'), bytesOf(cdf.sorted));
        const meta: Meta = {
          schemaVersion: VECTOR_SCHEMA_VERSION, key, dim, count: vectors.length / dim,
          checksum: await sha256Hex(key, vectors, ...(cdf ? [cdf.sorted] : [])),
          cdf: cdf ? { count: cdf.count, queries: cdf.queries } : null,
        };
        fs.write(fs.join(dir, 'meta.json'), JSON.stringify(meta));
        return { ok: true };
      } catch (e) {
        return { ok: false, reason: `could not write ${root} (${(e as Error).message})` };
      }
    },
    async loadIndex(key, expect): Promise<IndexLoad> {
      if (!(await fs.indexedDb())) return { status: 'miss' };
      const dir = await dirOf(key);
      if (!fs.exists(fs.join(dir, 'index.json'))) return { status: 'miss' };
      let rec: VectorIndexRecord;
      try {
        const meta = JSON.parse(fs.readText(fs.join(dir, 'index.json'))) as IndexMeta;
        if (meta.key !== key) return { status: 'invalid', reason: 'the cached vector index belongs to another key (hash collision or a copied folder)' };
        const data: Record<string, unknown> = { ...meta.scalars };
        for (const a of meta.arrays) {
          if (!(a.type in ARRAY_TYPES)) throw new Error(`unknown array type ${String(a.type)}`);
          data[a.field] = readArray(a.type, fs.read(fs.join(dir, a.file)));
        }
        rec = { key, schemaVersion: meta.schemaVersion, checksum: meta.checksum, vectorsChecksum: meta.vectorsChecksum, savedAt: meta.savedAt, data: data as unknown as VectorIndexData };
      } catch (e) {
        return { status: 'invalid', reason: `the cached vector index could not be read (${(e as Error).message})` };
      }
      return checkIndexRecord(rec, expect);
    },
    async saveIndex(key, data, vectorsChecksum) {
      try {
        if (!(await fs.indexedDb())) return { ok: false, reason: 'hnswlib-wasm needs IndexedDB to serialise an index and fake-indexeddb is not installed' };
        const dir = await dirOf(key);
        fs.mkdir(dir);
        const scalars: Record<string, unknown> = {};
        const arrays: IndexMeta['arrays'] = [];
        for (const [field, v] of Object.entries(data)) {
          if (!ArrayBuffer.isView(v)) { scalars[field] = v; continue; }
          const type = v.constructor.name;
          if (!(type in ARRAY_TYPES)) throw new Error(`cannot store a ${type} field (${field})`);
          const file = `${field}.bin`;
          fs.write(fs.join(dir, file), bytesOf(v));
          arrays.push({ field, type: type as ArrayType, file });
        }
        const meta: IndexMeta = {
          schemaVersion: VECTOR_INDEX_SCHEMA_VERSION, key, checksum: await vectorIndexChecksum(data, vectorsChecksum), vectorsChecksum,
          savedAt: Date.now(), scalars, arrays,
        };
        fs.write(fs.join(dir, 'index.json'), JSON.stringify(meta));
        return { ok: true };
      } catch (e) {
        return { ok: false, reason: `could not write the vector index to ${root} (${(e as Error).message})` };
      }
    },
  };
}
