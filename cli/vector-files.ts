/** The CLI's embedding cache: one folder per key with `meta.json`, `vectors.f32` and `cdf.f64` (VectorStore). */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { sha256Hex } from '../src/lib/store/checksum.ts';
import { VECTOR_SCHEMA_VERSION, type VectorLoad, type VectorStore } from '../src/lib/store/vector-cache.ts';

interface Meta { schemaVersion: number; key: string; dim: number; count: number; checksum: string; cdf: { count: number; queries: number } | null }

const f32 = (b: Buffer) => new Float32Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength));
const f64 = (b: Buffer) => new Float64Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength));

export function fileVectorStore(root: string): VectorStore {
  const dirOf = async (key: string) => join(root, (await sha256Hex(key)).slice(0, 24));
  return {
    async load(key, expectedCount): Promise<VectorLoad> {
      const dir = await dirOf(key);
      if (!existsSync(join(dir, 'meta.json'))) return { status: 'miss' };
      try {
        const meta = JSON.parse(readFileSync(join(dir, 'meta.json'), 'utf8')) as Meta;
        if (meta.schemaVersion !== VECTOR_SCHEMA_VERSION || meta.key !== key) return { status: 'invalid', reason: 'the cached embeddings are from another version' };
        const vectors = f32(readFileSync(join(dir, 'vectors.f32')));
        const cdf = meta.cdf ? { sorted: f64(readFileSync(join(dir, 'cdf.f64'))), ...meta.cdf } : null;
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
        mkdirSync(dir, { recursive: true });
        writeFileSync(join(dir, 'vectors.f32'), new Uint8Array(vectors.buffer, vectors.byteOffset, vectors.byteLength));
        if (cdf) writeFileSync(join(dir, 'cdf.f64'), new Uint8Array(cdf.sorted.buffer, cdf.sorted.byteOffset, cdf.sorted.byteLength));
        const meta: Meta = {
          schemaVersion: VECTOR_SCHEMA_VERSION, key, dim, count: vectors.length / dim,
          checksum: await sha256Hex(key, vectors, ...(cdf ? [cdf.sorted] : [])),
          cdf: cdf ? { count: cdf.count, queries: cdf.queries } : null,
        };
        writeFileSync(join(dir, 'meta.json'), JSON.stringify(meta));
        return { ok: true };
      } catch (e) {
        return { ok: false, reason: `could not write ${root} (${(e as Error).message})` };
      }
    },
  };
}
