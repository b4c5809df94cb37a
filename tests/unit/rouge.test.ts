import { describe, expect, it } from 'vitest';
import { lcsLength, rougeL, rougeLF1, rougeTokens } from '../../src/lib/eval/metrics/rouge.ts';

describe('ROUGE-L', () => {
  it('tokenises into lower-cased words', () => {
    expect(rougeTokens('The Cat, sat! U.S. don’t 2.5 x-ray')).toEqual(['the', 'cat', 'sat', 'u.s', 'don’t', '2.5', 'x-ray']);
  });

  it('LCS of hand-worked sequences', () => {
    // a b c d e f vs a c e g f: a, c, e, f → 4
    expect(lcsLength('abcdef'.split(''), 'acegf'.split(''))).toBe(4);
    expect(lcsLength(['x'], ['y'])).toBe(0);
    expect(lcsLength([], ['y'])).toBe(0);
  });

  it('P, R, F1 by hand', () => {
    // cand: the cat sat on the mat (6) ; ref: the cat is on the mat (6)
    // LCS: the cat on the mat = 5 → P = 5/6, R = 5/6, F1 = 5/6
    const r = rougeL('The cat sat on the mat', 'the cat is on the mat');
    expect(r.precision).toBeCloseTo(5 / 6, 12);
    expect(r.recall).toBeCloseTo(5 / 6, 12);
    expect(r.f1).toBeCloseTo(5 / 6, 12);
    // cand: police killed the gunman (4) ; ref: the gunman was shot down by police (7)
    // LCS = 2 ("the gunman") → P = 2/4, R = 2/7, F1 = 2·(1/2)(2/7)/((1/2)+(2/7)) = (2/7)/(11/14) = 4/11
    const s = rougeL('police killed the gunman', 'the gunman was shot down by police');
    expect(s.precision).toBeCloseTo(0.5, 12);
    expect(s.recall).toBeCloseTo(2 / 7, 12);
    expect(s.f1).toBeCloseTo(4 / 11, 12);
  });

  it('asymmetric lengths: P and R swap when the texts swap, F1 does not', () => {
    // cand: a b (2) ; ref: a x b y (4) → LCS 2, P = 1, R = 0.5, F1 = 2/3
    const r = rougeL('a b', 'a x b y');
    expect([r.precision, r.recall]).toEqual([1, 0.5]);
    expect(r.f1).toBeCloseTo(2 / 3, 12);
    const q = rougeL('a x b y', 'a b');
    expect([q.precision, q.recall]).toEqual([0.5, 1]);
    expect(q.f1).toBeCloseTo(2 / 3, 12);
  });

  it('is 0 when either side is empty or nothing is shared; 1 for identical texts', () => {
    expect(rougeLF1('', 'a b')).toBe(0);
    expect(rougeLF1('a b', '  ')).toBe(0);
    expect(rougeLF1('a b', 'c d')).toBe(0);
    expect(rougeLF1('Same words here.', 'same words HERE')).toBe(1);
  });
});
