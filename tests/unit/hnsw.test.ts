// hnswlib-wasm moves index files through IDBFS: serialisation needs IndexedDB.
import 'fake-indexeddb/auto';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { ExactDenseIndex, normalize } from '../../src/lib/retrieval/dense.ts';
import { HNSW_DEFAULTS, HNSW_INDEX_VERSION, HnswIndex, type HnswIndexData } from '../../src/lib/retrieval/hnsw.ts';
import { parseHnswFile } from '../../src/lib/retrieval/hnsw-file.ts';
import { centres, clustered, idOf, row } from '../helpers/vectors.ts';

// hnswlib-wasm logs every FS sync with console.log (not switchable): keep the test output readable. Installed
// before the library loads, because its printf binds console.log when the module starts.
const HNSWLIB_CHATTER = /^(b\. jsFS synced|d\. Calling sync callback|EmscriptenFileSystemManager: Mounting|warning: \d+ FS\.syncfs)/;
const consoleLog = console.log.bind(console);
vi.spyOn(console, 'log').mockImplementation((...args: unknown[]) => {
  if (!HNSWLIB_CHATTER.test(String(args[0]))) consoleLog(...args);
});




/** Keys in hnswlib-wasm's IDBFS database (serialisation must leave none of ours behind). */
async function idbfsKeys(): Promise<IDBValidKey[]> {
  const db = await new Promise<IDBDatabase>((res, rej) => {
    const r = indexedDB.open('/hnswlib-index');
    r.onsuccess = () => res(r.result);
    r.onerror = () => rej(r.error);
  });
  try {
    return await new Promise((res, rej) => {
      const r = db.transaction('FILE_DATA').objectStore('FILE_DATA').getAllKeys();
      r.onsuccess = () => res(r.result);
      r.onerror = () => rej(r.error);
    });
  } finally {
    db.close();
  }
}

describe('HnswIndex', () => {
  const dim = 64, n = 2000;
  const centre = centres(40, dim, 20);
  // rows are NOT normalised here, to check that 'cosine' normalises them
  const vectors = clustered(n, dim, centre, 21).map((x, i) => x * (1 + (Math.floor(i / dim) % 5)));
  const queries = clustered(100, dim, centre, 22);
  const exact = new ExactDenseIndex(vectors, dim);
  let hnsw: HnswIndex;
  const progress: [number, number][] = [];

  beforeAll(async () => {
    hnsw = await HnswIndex.build(vectors, dim, { batchSize: 300, onProgress: (d, t) => progress.push([d, t]) });
  });

  it('uses the documented defaults and reports build progress in batches', () => {
    expect(HNSW_DEFAULTS).toMatchObject({ M: 16, efConstruction: 200, efSearch: 64 });
    expect(hnsw.params).toMatchObject({ M: 16, efConstruction: 200, efSearch: 64 });
    expect(hnsw.efSearch).toBe(64);
    expect(hnsw.size).toBe(n);
    expect(hnsw.dim).toBe(dim);
    expect(hnsw.metric).toBe('cosine');
    expect(progress[0]).toEqual([0, n]);
    expect(progress.at(-1)).toEqual([n, n]);
    expect(progress.map((p) => p[0])).toEqual([0, 300, 600, 900, 1200, 1500, 1800, 2000]);
  });

  it('has recall@10 ≥ 0.95 against the exact scan, with exact cosine scores', () => {
    let hit = 0;
    for (let qi = 0; qi < 100; qi++) {
      const q = row(queries, dim, qi);
      const truth = exact.search(q, 10, idOf);
      const got = hnsw.search(q, 10, idOf);
      expect(got).toHaveLength(10);
      const t = new Set(truth.map((h) => h.index));
      hit += got.filter((h) => t.has(h.index)).length;
      // hits are re-scored exactly: same numbers as the exact index, in ranking order
      expect(got.map((h) => h.score)).toEqual(exact.scoreItems(q, got.map((h) => h.index)));
      for (let i = 1; i < got.length; i++) expect(got[i - 1]!.score).toBeGreaterThanOrEqual(got[i]!.score);
    }
    expect(hit / 1000).toBeGreaterThanOrEqual(0.95);
  });

  it('scoreItems equals the exact cosine', () => {
    const q = row(queries, dim, 7);
    const items = [0, 5, 1999, 42];
    expect(hnsw.scoreItems(q, items)).toEqual(exact.scoreItems(q, items));
  });

  it('efSearch is changeable and validated', () => {
    hnsw.setEfSearch(10);
    expect(hnsw.efSearch).toBe(10);
    expect(hnsw.search(row(queries, dim, 0), 10, idOf)).toHaveLength(10); // hnswlib uses max(ef, k)
    hnsw.setEfSearch(HNSW_DEFAULTS.efSearch);
    expect(() => hnsw.setEfSearch(0)).toThrow(/efSearch must be a positive integer/);
  });

  it('returns at most size hits and nothing for k ≤ 0', async () => {
    const small = await HnswIndex.build(vectors.subarray(0, 5 * dim), dim);
    expect(small.search(row(queries, dim, 0), 10, idOf)).toHaveLength(5);
    expect(small.search(row(queries, dim, 0), 0, idOf)).toEqual([]);
    small.dispose();
    expect(() => small.search(row(queries, dim, 0), 3, idOf)).toThrow(/disposed/);
  });

  it('honours accept: only accepted items; a very selective filter is still exact', () => {
    const accept = (i: number) => i % 4 === 1;
    let hit = 0;
    for (let qi = 0; qi < 20; qi++) {
      const q = row(queries, dim, qi);
      const got = hnsw.search(q, 10, idOf, accept);
      expect(got).toHaveLength(10);
      expect(got.every((h) => accept(h.index))).toBe(true);
      const t = new Set(exact.search(q, 10, idOf, accept).map((h) => h.index));
      hit += got.filter((h) => t.has(h.index)).length;
    }
    expect(hit / 200).toBeGreaterThanOrEqual(0.95);
    const q = row(queries, dim, 3);
    const few = (i: number) => i === 17 || i === 1500 || i === 999;
    expect(hnsw.search(q, 10, idOf, few)).toEqual(exact.search(q, 10, idOf, few));
    expect(hnsw.search(q, 10, idOf, () => false)).toEqual([]);
  });

  it('rejects queries and vectors of the wrong dimension, naming both', async () => {
    expect(() => hnsw.search(new Float32Array(32), 5, idOf)).toThrow(/query has 32 dimensions, the index has 64/);
    expect(() => hnsw.scoreItems(new Float32Array(65), [0])).toThrow(/query has 65 dimensions, the index has 64/);
    await expect(HnswIndex.build(new Float32Array(10), 3)).rejects.toThrow(/10 values are not a whole number of 3-dimensional/);
  });

  describe('serialisation', () => {
    let data: HnswIndexData;
    beforeAll(async () => {
      data = await hnsw.toData();
    });

    it('gives hnswlib’s file as bytes with the vectors inside, and leaves nothing in IDBFS', async () => {
      expect(data).toMatchObject({ kind: 'hnsw', version: HNSW_INDEX_VERSION, dim, size: n, metric: 'cosine', M: 16, efConstruction: 200, efSearch: 64 });
      expect(data.graph).toBeInstanceOf(Uint8Array);
      expect(data.graph.byteLength).toBe(data.graph.buffer.byteLength); // no slack from the FS buffer
      const info = parseHnswFile(data.graph);
      expect(info).toMatchObject({ dim, count: n, M: 16, efConstruction: 200 });
      // the stored vectors are the normalised rows
      const v0 = normalize(row(vectors, dim, 0).slice());
      expect(Array.from(row(info.vectors, dim, 0))).toEqual(Array.from(v0));
      expect(hnsw.bytes).toBe(data.graph.byteLength + n * dim * 4);
      expect((await idbfsKeys()).filter((k) => String(k).includes('rag-lab-'))).toEqual([]);
    });

    it('restores identical results (also after a structured clone, as IndexedDB stores it)', async () => {
      const back = await HnswIndex.restore(structuredClone(data), dim);
      expect(back.size).toBe(n);
      expect(back.efSearch).toBe(64);
      for (let qi = 0; qi < 100; qi++) {
        const q = row(queries, dim, qi);
        expect(back.search(q, 10, idOf)).toEqual(hnsw.search(q, 10, idOf));
      }
      expect(back.scoreItems(row(queries, dim, 1), [3, 4])).toEqual(hnsw.scoreItems(row(queries, dim, 1), [3, 4]));
      // serialising the restored index gives the same bytes
      const again = await back.toData();
      expect(Buffer.from(again.graph).equals(Buffer.from(data.graph))).toBe(true);
      back.dispose();
      expect((await idbfsKeys()).filter((k) => String(k).includes('rag-lab-'))).toEqual([]);
    });

    it('refuses data of another dimension or a damaged file instead of returning garbage', async () => {
      await expect(HnswIndex.restore(data, 384)).rejects.toThrow(/stored index has 64 dimensions, the vectors\/model have 384/);
      await expect(HnswIndex.restore({ ...data, dim: 32 })).rejects.toThrow(/file holds 64-dimensional vectors, the index record says 32/);
      await expect(HnswIndex.restore({ ...data, size: 10 })).rejects.toThrow(/holds 2000 vectors, the index record says 10/);
      await expect(HnswIndex.restore({ ...data, graph: data.graph.subarray(0, 5000) })).rejects.toThrow(/truncated/);
      await expect(HnswIndex.restore({ ...data, graph: new Uint8Array(100) })).rejects.toThrow(/not a usable hnswlib index file/);
      await expect(HnswIndex.restore({ ...data, version: 2 })).rejects.toThrow(/version 2/);
    });
  });

  it('handles an empty index', async () => {
    const empty = await HnswIndex.build(new Float32Array(0), 8);
    expect(empty.size).toBe(0);
    expect(empty.search(new Float32Array(8), 5, idOf)).toEqual([]);
    const back = await HnswIndex.restore(await empty.toData(), 8);
    expect(back.size).toBe(0);
    expect(back.search(new Float32Array(8), 5, idOf)).toEqual([]);
  });
});
