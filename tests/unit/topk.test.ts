import { describe, expect, it } from 'vitest';
import { ranksBefore, sortRanked, topK } from '../../src/lib/retrieval/topk.ts';

// index:   0    1    2    3    4
const ids = ['e', 'c', 'a', 'd', 'b'];
const scores = [1, 3, 3, 2, 3];
const idOf = (i: number) => ids[i]!;
const all = [0, 1, 2, 3, 4];

describe('topK', () => {
  it('orders by score descending, equal scores by id ascending', () => {
    // score 3: c(1), a(2), b(4) → by id a, b, c; then d(3) with 2, then e(0) with 1
    expect(topK(scores, all, 5, idOf).map((s) => s.index)).toEqual([2, 4, 1, 3, 0]);
  });

  it('breaks ties deterministically whatever the candidate order', () => {
    const expected = [2, 4, 1];
    for (const order of [[0, 1, 2, 3, 4], [4, 3, 2, 1, 0], [1, 4, 0, 2, 3], [3, 0, 4, 1, 2]]) {
      expect(topK(scores, order, 3, idOf).map((s) => s.index)).toEqual(expected);
    }
  });

  it('returns index and score pairs', () => {
    expect(topK(scores, all, 2, idOf)).toEqual([{ index: 2, score: 3 }, { index: 4, score: 3 }]);
  });

  it('returns every candidate when k exceeds their number, and [] for k ≤ 0 or no candidates', () => {
    expect(topK(scores, [0, 3], 10, idOf).map((s) => s.index)).toEqual([3, 0]);
    expect(topK(scores, all, 0, idOf)).toEqual([]);
    expect(topK(scores, all, -1, idOf)).toEqual([]);
    expect(topK(scores, [], 3, idOf)).toEqual([]);
  });

  it('applies the accept filter before selecting', () => {
    // drop a(2) and b(4): remaining c(3), d(2), e(1)
    const accept = (i: number) => i !== 2 && i !== 4;
    expect(topK(scores, all, 2, idOf, accept).map((s) => s.index)).toEqual([1, 3]);
    expect(topK(scores, all, 5, idOf, () => false)).toEqual([]);
  });

  it('only considers the given candidates', () => {
    expect(topK(scores, [0, 3], 1, idOf).map((s) => s.index)).toEqual([3]);
  });

  it('agrees with a full sort for every k on a larger input with many ties', () => {
    const n = 200;
    const sc = Array.from({ length: n }, (_, i) => (i * 37) % 11); // many ties
    const id = (i: number) => `id${String(i).padStart(4, '0')}`;
    const full = Array.from({ length: n }, (_, i) => i).sort((x, y) => (sc[y]! - sc[x]!) || (id(x) < id(y) ? -1 : 1));
    for (const k of [1, 2, 3, 10, 57, 199, 200, 250]) {
      const got = topK(sc, Array.from({ length: n }, (_, i) => (i * 113) % n), k, id).map((s) => s.index);
      expect(got).toEqual(full.slice(0, k));
    }
  });

  it('accepts a typed array of scores and a generator of candidates', () => {
    function* gen() { yield 0; yield 1; yield 2; }
    expect(topK(Float64Array.from([0.5, 0.9, 0.1]), gen(), 2, (i) => `d${i}`).map((s) => s.index)).toEqual([1, 0]);
  });
});

describe('ranksBefore / sortRanked', () => {
  it('ranksBefore: higher score first, then smaller id', () => {
    expect(ranksBefore({ index: 0, score: 2 }, { index: 1, score: 1 }, idOf)).toBe(true);
    expect(ranksBefore({ index: 1, score: 1 }, { index: 0, score: 2 }, idOf)).toBe(false);
    // equal scores: a(2) before c(1)
    expect(ranksBefore({ index: 2, score: 3 }, { index: 1, score: 3 }, idOf)).toBe(true);
    expect(ranksBefore({ index: 1, score: 3 }, { index: 2, score: 3 }, idOf)).toBe(false);
  });

  it('sortRanked sorts in place and keeps extra fields', () => {
    const items = [
      { index: 0, score: 1, tag: 'e' },
      { index: 1, score: 3, tag: 'c' },
      { index: 2, score: 3, tag: 'a' },
    ];
    const out = sortRanked(items, idOf);
    expect(out).toBe(items);
    expect(out.map((x) => x.tag)).toEqual(['a', 'c', 'e']);
  });
});
