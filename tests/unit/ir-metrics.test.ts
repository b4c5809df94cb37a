import { describe, expect, it } from 'vitest';
import { irScores, meanScores, mrrAt, ndcgAt, precisionAt, recallAt, type IrScores } from '../../src/lib/stats/ir-metrics.ts';

const rel = new Map([['a', 2], ['b', 1]]);
const run = ['b', 'x', 'a'];
// IDCG over gains [2, 1]: 2/log2(2) + 1/log2(3) = 2 + 0.63092975 = 2.63092975
const IDCG = 2.63092975;

describe('ndcgAt (graded gains)', () => {
  it('run [b, x, a] with rel {a:2, b:1}', () => {
    // DCG@3 = 1/log2(2) + 0/log2(3) + 2/log2(4) = 1 + 0 + 1 = 2 → NDCG = 2/2.63092975 = 0.76018753
    expect(ndcgAt(run, rel, 3)).toBeCloseTo(0.76018753, 7);
    expect(ndcgAt(run, rel, 10)).toBeCloseTo(2 / IDCG, 7);
  });

  it('cuts the run and the ideal list at k', () => {
    // k = 1: DCG = 1; IDCG@1 = 2 → 0.5
    expect(ndcgAt(run, rel, 1)).toBeCloseTo(0.5, 12);
    // k = 2: DCG = 1; IDCG@2 = 2.63092975 → 0.38009377
    expect(ndcgAt(run, rel, 2)).toBeCloseTo(0.38009377, 7);
  });

  it('is 1 for the ideal ranking and 0 when nothing relevant is retrieved', () => {
    expect(ndcgAt(['a', 'b'], rel, 10)).toBeCloseTo(1, 12);
    expect(ndcgAt(['x', 'y'], rel, 10)).toBe(0);
    expect(ndcgAt([], rel, 10)).toBe(0);
  });

  it('is 0 when no document is relevant; zero and negative judgements add no gain', () => {
    expect(ndcgAt(['a'], new Map([['a', 0]]), 10)).toBe(0);
    expect(ndcgAt(['a'], new Map(), 10)).toBe(0);
    // rel {a: −1, b: 1}, run [a, b]: DCG = 0 + 1/log2(3) = 0.63092975; IDCG = 1 → 0.63092975
    expect(ndcgAt(['a', 'b'], new Map([['a', -1], ['b', 1]]), 10)).toBeCloseTo(0.63092975, 7);
  });
});

describe('mrrAt', () => {
  it('is 1/rank of the first relevant document within k', () => {
    expect(mrrAt(run, rel, 10)).toBe(1); // b at rank 1
    expect(mrrAt(['x', 'y', 'a'], rel, 10)).toBeCloseTo(1 / 3, 12);
    expect(mrrAt(['x', 'a'], rel, 10)).toBe(0.5);
  });

  it('is 0 when the first relevant document is beyond k or absent', () => {
    expect(mrrAt(['x', 'y', 'a'], rel, 2)).toBe(0);
    expect(mrrAt(['x'], rel, 10)).toBe(0);
    expect(mrrAt(['c'], new Map([['c', 0]]), 10)).toBe(0);
  });
});

describe('precisionAt', () => {
  it('relevant in top k / k', () => {
    expect(precisionAt(run, rel, 3)).toBeCloseTo(2 / 3, 12); // b, a
    expect(precisionAt(run, rel, 2)).toBe(0.5); // b
    expect(precisionAt(run, rel, 1)).toBe(1);
  });

  it('divides by k even when the run is shorter', () => {
    expect(precisionAt(run, rel, 5)).toBeCloseTo(2 / 5, 12);
    expect(precisionAt(['a'], rel, 10)).toBeCloseTo(0.1, 12);
  });
});

describe('recallAt', () => {
  it('relevant in top k / all relevant (grade > 0 only)', () => {
    const r = new Map([['a', 2], ['b', 1], ['c', 0]]); // 2 relevant
    expect(recallAt(['b', 'x'], r, 5)).toBe(0.5);
    expect(recallAt(['b', 'c', 'a'], r, 3)).toBe(1);
    expect(recallAt(['b', 'c', 'a'], r, 2)).toBe(0.5);
  });

  it('is 0 when nothing is relevant', () => {
    expect(recallAt(['a'], new Map([['a', 0]]), 5)).toBe(0);
  });
});

describe('irScores / meanScores', () => {
  it('computes the six metrics at their cut-offs', () => {
    const s = irScores(run, rel);
    expect(s['ndcg@10']).toBeCloseTo(0.76018753, 7);
    expect(s['mrr@10']).toBe(1);
    expect(s['p@3']).toBeCloseTo(2 / 3, 12);
    expect(s['p@5']).toBeCloseTo(0.4, 12);
    expect(s['r@5']).toBe(1);
    expect(s['r@100']).toBe(1);
    expect(Object.keys(s).sort()).toEqual(['mrr@10', 'ndcg@10', 'p@3', 'p@5', 'r@100', 'r@5']);
  });

  it('uses the cut-offs: a relevant document at rank 6 counts for r@100 but not r@5 or p@5', () => {
    const r = new Map([['z', 1]]);
    const s = irScores(['a', 'b', 'c', 'd', 'e', 'z'], r);
    expect(s['r@5']).toBe(0);
    expect(s['p@5']).toBe(0);
    expect(s['r@100']).toBe(1);
    expect(s['mrr@10']).toBeCloseTo(1 / 6, 12);
    // DCG = 1/log2(7) = 0.35620719; IDCG = 1
    expect(s['ndcg@10']).toBeCloseTo(0.35620719, 7);
  });

  it('meanScores averages each metric over queries', () => {
    const a: IrScores = { 'ndcg@10': 1, 'mrr@10': 1, 'p@3': 1 / 3, 'p@5': 0.2, 'r@5': 1, 'r@100': 1 };
    const b: IrScores = { 'ndcg@10': 0, 'mrr@10': 0.5, 'p@3': 0, 'p@5': 0.4, 'r@5': 0, 'r@100': 0.5 };
    const m = meanScores([a, b]);
    expect(m['ndcg@10']).toBeCloseTo(0.5, 12);
    expect(m['mrr@10']).toBeCloseTo(0.75, 12);
    expect(m['p@3']).toBeCloseTo(1 / 6, 12);
    expect(m['p@5']).toBeCloseTo(0.3, 12);
    expect(m['r@5']).toBeCloseTo(0.5, 12);
    expect(m['r@100']).toBeCloseTo(0.75, 12);
    // inputs untouched
    expect(a['ndcg@10']).toBe(1);
  });

  it('meanScores of no queries is NaN for every metric (no data, not a score of 0)', () => {
    expect(meanScores([])).toEqual({ 'ndcg@10': NaN, 'mrr@10': NaN, 'p@3': NaN, 'p@5': NaN, 'r@5': NaN, 'r@100': NaN });
  });
});
