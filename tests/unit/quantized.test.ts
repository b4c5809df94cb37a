import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../src/lib/random.ts';
import { ExactDenseIndex, normalize } from '../../src/lib/retrieval/dense.ts';
import { dequantize, INT8_INDEX_VERSION, Int8DenseIndex, quantizeInt8 } from '../../src/lib/retrieval/quantized.ts';

const idOf = (i: number) => `d${String(i).padStart(5, '0')}`;

/** Seeded random unit vectors (Box–Muller Gaussian directions). */
function centres(clusters: number, dim: number, seed: number): Float32Array {
  const rand = seededRandom(seed);
  const c = Float32Array.from({ length: clusters * dim }, () => Math.sqrt(-2 * Math.log(1 - rand())) * Math.cos(2 * Math.PI * rand()));
  for (let i = 0; i < clusters; i++) normalize(c.subarray(i * dim, (i + 1) * dim));
  return c;
}

/** n clustered unit vectors like embeddings: a random centre + Gaussian noise of relative norm `noise`. */
function clustered(n: number, dim: number, centre: Float32Array, seed: number, noise = 0.9): Float32Array {
  const rand = seededRandom(seed);
  const g = () => Math.sqrt(-2 * Math.log(1 - rand())) * Math.cos(2 * Math.PI * rand());
  const out = new Float32Array(n * dim);
  for (let i = 0; i < n; i++) {
    const c = Math.floor(rand() * (centre.length / dim)) * dim;
    for (let j = 0; j < dim; j++) out[i * dim + j] = centre[c + j]! + (noise / Math.sqrt(dim)) * g();
    normalize(out.subarray(i * dim, (i + 1) * dim));
  }
  return out;
}

const row = (v: Float32Array, dim: number, i: number) => v.subarray(i * dim, (i + 1) * dim);

describe('quantizeInt8 / dequantize', () => {
  it('quantizes a hand-computed row: scale = max|x|/127, q = round(x/scale)', () => {
    const { codes, scales } = quantizeInt8(Float32Array.from([1, -0.4, 0.25, 0, -1]), 5);
    const s = Math.fround(1 / 127);
    expect(scales[0]).toBe(s);
    // 1/s = 127; −0.4/s = −50.8 → −51; 0.25/s = 31.75 → 32; −1/s = −127
    expect(Array.from(codes)).toEqual([127, -51, 32, 0, -127]);
    expect(Array.from(dequantize(codes, scales, 5))).toEqual([127 * s, -51 * s, 32 * s, 0, -127 * s].map(Math.fround));
  });

  it('keeps every component within scale/2 and codes within [−127, 127]', () => {
    const dim = 48, rand = seededRandom(3);
    // rows of very different magnitudes, some with one large outlier component
    const v = Float32Array.from({ length: 200 * dim }, (_, i) => (rand() - 0.5) * 10 ** ((i % 7) - 3) * (i % 97 === 0 ? 40 : 1));
    const { codes, scales } = quantizeInt8(v, dim);
    const back = dequantize(codes, scales, dim);
    let worst = 0;
    for (let i = 0; i < 200; i++) {
      const s = scales[i]!;
      let max = 0;
      for (let j = 0; j < dim; j++) max = Math.max(max, Math.abs(v[i * dim + j]!));
      expect(s).toBe(Math.fround(max / 127));
      for (let j = 0; j < dim; j++) {
        const x = v[i * dim + j]!, q = codes[i * dim + j]!;
        expect(Math.abs(q)).toBeLessThanOrEqual(127);
        // the documented bound, in exact arithmetic on the stored values
        const err = Math.abs(x - q * s);
        expect(err).toBeLessThanOrEqual((s / 2) * (1 + 1e-9));
        worst = Math.max(worst, err / s);
        // the float32 dequantized value adds at most half an ulp of rounding
        expect(Math.abs(x - back[i * dim + j]!)).toBeLessThanOrEqual(s / 2 + Math.abs(x) * 2 ** -23);
      }
    }
    expect(worst).toBeGreaterThan(0.45); // the bound is tight, not vacuous
  });

  it('maps an all-zero row to zero codes and scale 0', () => {
    const { codes, scales } = quantizeInt8(new Float32Array(6), 3);
    expect(Array.from(codes)).toEqual([0, 0, 0, 0, 0, 0]);
    expect(Array.from(scales)).toEqual([0, 0]);
    expect(Array.from(dequantize(codes, scales, 3))).toEqual([0, 0, 0, 0, 0, 0]);
  });

  it('rejects bad shapes and non-finite values', () => {
    expect(() => quantizeInt8(new Float32Array(5), 2)).toThrow(/not a whole number of 2-dimensional/);
    expect(() => quantizeInt8(Float32Array.from([1, Number.NaN]), 2)).toThrow(/non-finite/);
    expect(() => dequantize(new Int8Array(4), new Float32Array(3), 2)).toThrow(/2 rows of codes but 3 scales/);
  });
});

describe('Int8DenseIndex', () => {
  const dim = 64, n = 2000;
  const centre = centres(40, dim, 10);
  const vectors = clustered(n, dim, centre, 11);
  const queries = clustered(200, dim, centre, 12); // fresh samples from the same clusters
  const exact = new ExactDenseIndex(vectors, dim);
  const int8 = new Int8DenseIndex(vectors, dim);

  it('finds the exact float32 top 10 up to near-ties within the error bound (recall@10 ≥ 0.98)', () => {
    // Measured: 0.988 here, 0.987 at 16k × 384 and 0.979 at 100k × 384 (scripts/bench-vectors.ts): clustered data
    // has many near-ties around rank 10 and int8 rounding swaps some of them. Every swap must be explainable by
    // the documented bound: an intruder r can only outrank a true neighbour t if f(t) − f(r) ≤ B_t + B_r with
    // B_i = (scale_i/2)·‖query‖₁.
    const { scales } = int8.toData();
    let hit = 0, total = 0;
    for (let qi = 0; qi < 200; qi++) {
      const q = row(queries, dim, qi);
      const l1 = normalize(q.slice()).reduce((a, x) => a + Math.abs(x), 0);
      const bound = (i: number) => (scales[i]! / 2) * l1;
      const truth = exact.search(q, 10, idOf).map((h) => h.index);
      const got = int8.search(q, 10, idOf).map((h) => h.index);
      const t = new Set(truth), g = new Set(got);
      hit += got.filter((i) => t.has(i)).length;
      total += 10;
      const missed = truth.filter((i) => !g.has(i)), intruders = got.filter((i) => !t.has(i));
      const f = (i: number) => exact.scoreItems(q, [i])[0]!;
      for (const m of missed) for (const r of intruders) expect(f(m) - f(r)).toBeLessThanOrEqual(bound(m) + bound(r) + 1e-9);
    }
    expect(hit / total).toBeGreaterThanOrEqual(0.98);
  });

  it('scores within (scale/2)·‖query‖₁ of the float32 cosine', () => {
    const { scales } = int8.toData();
    for (let qi = 0; qi < 5; qi++) {
      const q = normalize(row(queries, dim, qi).slice());
      const l1 = q.reduce((a, x) => a + Math.abs(x), 0);
      const items = Array.from({ length: n }, (_, i) => i);
      const f = exact.scoreItems(q, items), s = int8.scoreItems(q, items);
      let typical = 0;
      for (let i = 0; i < n; i++) {
        expect(Math.abs(f[i]! - s[i]!)).toBeLessThanOrEqual((scales[i]! / 2) * l1 + 1e-6);
        typical += Math.abs(f[i]! - s[i]!);
      }
      expect(typical / n).toBeLessThan(0.002);
    }
  });

  it('is 4× smaller than float32 (plus one scale per vector)', () => {
    expect(int8.bytes).toBe(n * dim + 4 * n);
    expect(int8.size).toBe(n);
    expect(int8.dim).toBe(dim);
    expect(int8.metric).toBe('cosine');
  });

  it('honours accept: only accepted items, the best of them', () => {
    const q = row(queries, dim, 3);
    const accept = (i: number) => i % 3 === 1;
    const hits = int8.search(q, 10, idOf, accept);
    expect(hits).toHaveLength(10);
    expect(hits.every((h) => accept(h.index))).toBe(true);
    const truth = new Set(exact.search(q, 10, idOf, accept).map((h) => h.index));
    expect(hits.filter((h) => truth.has(h.index)).length).toBeGreaterThanOrEqual(9);
    expect(int8.search(q, 5, idOf, (i) => i === 7 || i === 8).map((h) => h.index).sort()).toEqual([7, 8]);
  });

  it('serialises to plain typed arrays and restores identical results', () => {
    const data = structuredClone(int8.toData());
    expect(data.kind).toBe('int8');
    expect(data.version).toBe(INT8_INDEX_VERSION);
    expect(data.codes).toBeInstanceOf(Int8Array);
    expect(data.scales).toBeInstanceOf(Float32Array);
    const back = Int8DenseIndex.fromData(data);
    for (let qi = 0; qi < 10; qi++) {
      const q = row(queries, dim, qi);
      expect(back.search(q, 10, idOf)).toEqual(int8.search(q, 10, idOf));
    }
    expect(() => Int8DenseIndex.fromData({ ...data, version: 99 })).toThrow(/version 99/);
    expect(() => Int8DenseIndex.fromData({ ...data, size: n + 1 })).toThrow(/expected 2001 vectors of 64 dimensions/);
  });

  it('rejects a query of the wrong dimension, naming both', () => {
    expect(() => int8.search(new Float32Array(32), 5, idOf)).toThrow(/32 dimensions, the index has 64/);
    expect(() => int8.scoreItems(new Float32Array(65), [0])).toThrow(/65 dimensions, the index has 64/);
  });

  it('does not modify the caller’s vectors; supports inner product', () => {
    const v = Float32Array.from([3, 4, 0, 5]);
    const ip = new Int8DenseIndex(v, 2, 'ip');
    expect(Array.from(v)).toEqual([3, 4, 0, 5]);
    // ip: [1,1]·[3,4] = 7, [1,1]·[0,5] = 5 (within scale/2·‖q‖₁ = (4/127/2)·2 and (5/127/2)·2)
    const s = ip.scoreItems(Float32Array.from([1, 1]), [0, 1]);
    expect(Math.abs(s[0]! - 7)).toBeLessThanOrEqual(4 / 127);
    expect(Math.abs(s[1]! - 5)).toBeLessThanOrEqual(5 / 127);
  });
});
