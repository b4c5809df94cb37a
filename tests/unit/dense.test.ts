import { describe, expect, it } from 'vitest';
import { ExactDenseIndex, normalize } from '../../src/lib/retrieval/dense.ts';

const idOf = (i: number) => `d${i}`;

describe('ExactDenseIndex (cosine)', () => {
  // d0 = [1,0], d1 = [0,2], d2 = [3,3], d3 = [-1,0]
  const vectors = Float32Array.from([1, 0, 0, 2, 3, 3, -1, 0]);

  it('ranks by cosine similarity', () => {
    const idx = new ExactDenseIndex(vectors, 2);
    expect(idx.size).toBe(4);
    expect(idx.dim).toBe(2);
    expect(idx.metric).toBe('cosine');
    // q = [2,1], |q| = √5
    // cos(d0) = 2/√5 = 0.894427; cos(d1) = 2/(2√5) = 0.447214; cos(d2) = 9/(√5·3√2) = 3/√10 = 0.948683; cos(d3) = −0.894427
    const hits = idx.search(Float32Array.from([2, 1]), 4, idOf);
    expect(hits.map((h) => h.index)).toEqual([2, 0, 1, 3]);
    expect(hits[0]!.score).toBeCloseTo(0.948683, 6);
    expect(hits[1]!.score).toBeCloseTo(0.894427, 6);
    expect(hits[2]!.score).toBeCloseTo(0.447214, 6);
    expect(hits[3]!.score).toBeCloseTo(-0.894427, 6);
  });

  it('returns only k hits and honours accept', () => {
    const idx = new ExactDenseIndex(vectors, 2);
    expect(idx.search(Float32Array.from([2, 1]), 2, idOf).map((h) => h.index)).toEqual([2, 0]);
    expect(idx.search(Float32Array.from([2, 1]), 2, idOf, (i) => i !== 2).map((h) => h.index)).toEqual([0, 1]);
  });

  it('scoreItems gives the cosine of chosen items in the given order', () => {
    const idx = new ExactDenseIndex(vectors, 2);
    const s = idx.scoreItems(Float32Array.from([2, 1]), [3, 1]);
    expect(s).toHaveLength(2);
    expect(s[0]).toBeCloseTo(-0.894427, 6);
    expect(s[1]).toBeCloseTo(0.447214, 6);
  });

  it('does not modify the caller’s vectors or query', () => {
    const v = Float32Array.from([3, 4, 0, 5]);
    const q = Float32Array.from([6, 8]);
    const idx = new ExactDenseIndex(v, 2);
    idx.search(q, 2, idOf);
    expect([...v]).toEqual([3, 4, 0, 5]);
    expect([...q]).toEqual([6, 8]);
  });

  it('throws when the query has the wrong dimension', () => {
    const idx = new ExactDenseIndex(vectors, 2);
    expect(() => idx.search(Float32Array.from([1, 2, 3]), 1, idOf)).toThrow(/dimensions/);
    expect(() => idx.scoreItems(Float32Array.from([1]), [0])).toThrow(/dimensions/);
  });

  it('throws when the values are not a whole number of vectors, or dim is invalid', () => {
    expect(() => new ExactDenseIndex(Float32Array.from([1, 2, 3]), 2)).toThrow(/whole number/);
    expect(() => new ExactDenseIndex(Float32Array.from([1, 2]), 0)).toThrow();
    expect(() => new ExactDenseIndex(Float32Array.from([1, 2]), 1.5)).toThrow();
    expect(() => new ExactDenseIndex(Float32Array.from([1, 2]), -2)).toThrow();
  });

  it('accepts an empty index', () => {
    const idx = new ExactDenseIndex(new Float32Array(0), 3);
    expect(idx.size).toBe(0);
    expect(idx.search(Float32Array.from([1, 0, 0]), 5, idOf)).toEqual([]);
  });
});

describe('ExactDenseIndex (inner product)', () => {
  it('ranks by raw dot product, ties by id', () => {
    // q = [2,1]: d0 = [1,0] → 2; d1 = [0,2] → 2; d2 = [3,3] → 9; d3 = [-1,0] → −2
    const idx = new ExactDenseIndex(Float32Array.from([1, 0, 0, 2, 3, 3, -1, 0]), 2, 'ip');
    const hits = idx.search(Float32Array.from([2, 1]), 4, idOf);
    expect(hits).toEqual([
      { index: 2, score: 9 },
      { index: 0, score: 2 },
      { index: 1, score: 2 },
      { index: 3, score: -2 },
    ]);
  });

  it('computes dot products correctly for dimensions not divisible by 4', () => {
    // dim 5, q = [1,2,3,4,5]: v0 = [1,1,1,1,1] → 15; v1 = [0,0,0,0,1] → 5; v2 = [1,0,0,0,0] → 1; v3 = [0,0,0,-1,2] → −4 + 10 = 6
    const idx = new ExactDenseIndex(Float32Array.from([1, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0, 0, -1, 2]), 5, 'ip');
    expect(idx.scoreItems(Float32Array.from([1, 2, 3, 4, 5]), [0, 1, 2, 3])).toEqual([15, 5, 1, 6]);
    // dim 7: v = [1..7], q = [1,1,1,1,1,1,1] → 28
    const idx7 = new ExactDenseIndex(Float32Array.from([1, 2, 3, 4, 5, 6, 7]), 7, 'ip');
    expect(idx7.scoreItems(Float32Array.from([1, 1, 1, 1, 1, 1, 1]), [0])).toEqual([28]);
  });
});

describe('normalize', () => {
  it('scales to unit L2 norm in place', () => {
    const v = Float32Array.from([3, 4]);
    const out = normalize(v);
    expect(out).toBe(v);
    // |[3,4]| = 5 → [0.6, 0.8]
    expect(v[0]).toBeCloseTo(0.6, 6);
    expect(v[1]).toBeCloseTo(0.8, 6);
  });

  it('leaves a zero vector at zero', () => {
    expect([...normalize(new Float32Array(3))]).toEqual([0, 0, 0]);
  });
});
