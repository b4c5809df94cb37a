// hnswlib-wasm moves index files through IDBFS: serialisation needs IndexedDB.
import 'fake-indexeddb/auto';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { seededRandom } from '../../src/lib/random.ts';
import { ExactDenseIndex, normalize, type DenseRetriever } from '../../src/lib/retrieval/dense.ts';
import { HnswIndex } from '../../src/lib/retrieval/hnsw.ts';
import { Int8DenseIndex } from '../../src/lib/retrieval/quantized.ts';
import {
  buildVectorIndex,
  chooseVectorIndex,
  HNSW_MIN_VALUES,
  restoreVectorIndex,
  serializeVectorIndex,
  VECTOR_INDEX_KINDS,
  vectorIndexKind,
  type VectorIndexKind,
} from '../../src/lib/retrieval/vector-index.ts';

// hnswlib-wasm logs every FS sync with console.log (not switchable): keep the test output readable. Installed
// before the library loads, because its printf binds console.log when the module starts.
const HNSWLIB_CHATTER = /^(b\. jsFS synced|d\. Calling sync callback|EmscriptenFileSystemManager: Mounting|warning: \d+ FS\.syncfs)/;
const consoleLog = console.log.bind(console);
vi.spyOn(console, 'log').mockImplementation((...args: unknown[]) => {
  if (!HNSWLIB_CHATTER.test(String(args[0]))) consoleLog(...args);
});

const idOf = (i: number) => `d${String(i).padStart(5, '0')}`;
const row = (v: Float32Array, dim: number, i: number) => v.subarray(i * dim, (i + 1) * dim);

/** n clustered unit vectors like embeddings (seeded): random centres + Gaussian noise of relative norm 0.9. */
function clustered(n: number, dim: number, clusters: number, seed: number, centreSeed = 1): Float32Array {
  const gauss = (rand: () => number) => () => Math.sqrt(-2 * Math.log(1 - rand())) * Math.cos(2 * Math.PI * rand());
  const gc = gauss(seededRandom(centreSeed));
  const centre = Float32Array.from({ length: clusters * dim }, gc);
  for (let i = 0; i < clusters; i++) normalize(centre.subarray(i * dim, (i + 1) * dim));
  const rand = seededRandom(seed), g = gauss(rand);
  const out = new Float32Array(n * dim);
  for (let i = 0; i < n; i++) {
    const c = Math.floor(rand() * clusters) * dim;
    for (let j = 0; j < dim; j++) out[i * dim + j] = centre[c + j]! + (0.9 / Math.sqrt(dim)) * g();
    normalize(out.subarray(i * dim, (i + 1) * dim));
  }
  return out;
}

describe('chooseVectorIndex', () => {
  it('uses the exact scan for small corpora and HNSW above the measured threshold', () => {
    expect(HNSW_MIN_VALUES).toBeGreaterThan(0);
    expect(chooseVectorIndex(0, 384)).toBe('exact');
    expect(chooseVectorIndex(5_000, 384)).toBe('exact');
    expect(chooseVectorIndex(16_564, 384)).toBe('exact'); // the embedded SOTU corpus: the SIMD scan is fast enough
    expect(chooseVectorIndex(100_000, 384)).toBe('hnsw');
    // the rule is on n × dim: the same corpus with a bigger model switches earlier
    const n = Math.ceil(HNSW_MIN_VALUES / 384);
    expect(chooseVectorIndex(n - 1, 384)).toBe('exact');
    expect(chooseVectorIndex(n, 384)).toBe('hnsw');
    expect(chooseVectorIndex(Math.ceil(n / 2), 768, 'auto')).toBe('hnsw');
  });

  it('lets an explicit kind override the size rule', () => {
    expect(chooseVectorIndex(100_000, 384, 'exact')).toBe('exact');
    expect(chooseVectorIndex(10, 384, 'hnsw')).toBe('hnsw');
    expect(chooseVectorIndex(10, 384, 'int8')).toBe('int8');
    expect(() => chooseVectorIndex(10, 384, 'faiss' as VectorIndexKind)).toThrow(/Unknown vector index kind: faiss/);
  });
});

describe('buildVectorIndex / serializeVectorIndex / restoreVectorIndex', () => {
  const dim = 32, n = 1500;
  const vectors = clustered(n, dim, 30, 2);
  const queries = clustered(30, dim, 30, 3);
  const exact = new ExactDenseIndex(vectors, dim);
  const built = new Map<VectorIndexKind, DenseRetriever>();
  const progress = new Map<VectorIndexKind, [number, number][]>();

  beforeAll(async () => {
    for (const kind of VECTOR_INDEX_KINDS) {
      const p: [number, number][] = [];
      built.set(kind, await buildVectorIndex(kind, vectors, dim, (d, t) => p.push([d, t])));
      progress.set(kind, p);
    }
  });

  it.each(VECTOR_INDEX_KINDS)('%s: builds the right class with progress from 0 to n', (kind) => {
    const index = built.get(kind)!;
    expect(index).toBeInstanceOf({ exact: ExactDenseIndex, int8: Int8DenseIndex, hnsw: HnswIndex }[kind]);
    expect(vectorIndexKind(index)).toBe(kind);
    expect(index.size).toBe(n);
    expect(index.dim).toBe(dim);
    const p = progress.get(kind)!;
    expect(p[0]).toEqual([0, n]);
    expect(p.at(-1)).toEqual([n, n]);
  });

  it.each(VECTOR_INDEX_KINDS)('%s: finds the exact top 10 (recall ≥ 0.95) and honours accept', (kind) => {
    const index = built.get(kind)!;
    const accept = (i: number) => i % 5 !== 0;
    let hit = 0, hitFiltered = 0;
    for (let qi = 0; qi < queries.length / dim; qi++) {
      const q = row(queries, dim, qi);
      const truth = new Set(exact.search(q, 10, idOf).map((h) => h.index));
      hit += index.search(q, 10, idOf).filter((h) => truth.has(h.index)).length;
      const got = index.search(q, 10, idOf, accept);
      expect(got).toHaveLength(10);
      expect(got.every((h) => accept(h.index))).toBe(true);
      const truthF = new Set(exact.search(q, 10, idOf, accept).map((h) => h.index));
      hitFiltered += got.filter((h) => truthF.has(h.index)).length;
    }
    expect(hit / 300).toBeGreaterThanOrEqual(kind === 'exact' ? 1 : 0.95);
    expect(hitFiltered / 300).toBeGreaterThanOrEqual(kind === 'exact' ? 1 : 0.95);
    const few = (i: number) => i === 3 || i === 700;
    expect(index.search(row(queries, dim, 0), 10, idOf, few).map((h) => h.index).sort((a, b) => a - b)).toEqual([3, 700]);
  });

  it.each(VECTOR_INDEX_KINDS)('%s: serialises to structured-cloneable data and restores identical results', async (kind) => {
    const index = built.get(kind)!;
    const data = structuredClone(await serializeVectorIndex(index));
    expect(data.kind).toBe(kind);
    expect(data.dim).toBe(dim);
    expect(data.size).toBe(n);
    const back = await restoreVectorIndex(data, dim);
    expect(vectorIndexKind(back)).toBe(kind);
    for (let qi = 0; qi < queries.length / dim; qi++) {
      const q = row(queries, dim, qi);
      expect(back.search(q, 10, idOf)).toEqual(index.search(q, 10, idOf));
      expect(back.scoreItems(q, [1, 2, 3])).toEqual(index.scoreItems(q, [1, 2, 3]));
    }
    // restoring for a model of another dimension is an error naming both
    await expect(restoreVectorIndex(data, 384)).rejects.toThrow(new RegExp(`stored ${kind} index has 32 dimensions, the embedding model has 384`));
    // a restored index serialises again
    expect((await serializeVectorIndex(back)).kind).toBe(kind);
  });

  it('rejects unknown kinds and indexes it did not build', async () => {
    await expect(buildVectorIndex('faiss' as VectorIndexKind, vectors, dim)).rejects.toThrow(/Unknown vector index kind/);
    await expect(serializeVectorIndex(new ExactDenseIndex(vectors, dim))).rejects.toThrow(/only indexes built or restored/);
  });
});
