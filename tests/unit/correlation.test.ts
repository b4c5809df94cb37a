import { describe, expect, it } from 'vitest';
import {
  correlationCi, CORRELATION_CI_DEFAULTS, incompleteBeta, kendallTauB, logGamma, pearson, spearman, studentTwoSidedP,
} from '../../src/lib/stats/correlation.ts';
import { seededRandom } from '../../src/lib/random.ts';

/** Kendall τ-b by its definition over all pairs (the reference the O(n log n) version must match). */
function kendallByPairs(x: readonly number[], y: readonly number[]): number | null {
  let nc = 0, nd = 0, tx = 0, ty = 0;
  const n = x.length;
  for (let i = 0; i < n; i++) for (let j = i + 1; j < n; j++) {
    const dx = Math.sign(x[i]! - x[j]!), dy = Math.sign(y[i]! - y[j]!);
    if (dx === 0) tx++;
    if (dy === 0) ty++;
    if (dx * dy > 0) nc++;
    else if (dx * dy < 0) nd++;
  }
  const n0 = (n * (n - 1)) / 2;
  return n0 === tx || n0 === ty ? null : (nc - nd) / Math.sqrt((n0 - tx) * (n0 - ty));
}

describe('incomplete beta and Student t', () => {
  it('has an accurate ln Γ', () => {
    expect(logGamma(1)).toBeCloseTo(0, 14);
    expect(logGamma(2)).toBeCloseTo(0, 14);
    expect(logGamma(0.5)).toBeCloseTo(0.5 * Math.log(Math.PI), 14);
    expect(logGamma(6)).toBeCloseTo(Math.log(120), 13);
    expect(logGamma(0.25)).toBeCloseTo(1.2880225246980774, 13); // Γ(¼) = 3.6256099082219083
  });

  it('matches closed forms of I_x(a, b)', () => {
    for (const x of [0, 0.01, 0.2, 0.5, 0.73, 0.99, 1]) {
      expect(incompleteBeta(x, 1, 1)).toBeCloseTo(x, 13);
      expect(incompleteBeta(x, 3, 1)).toBeCloseTo(x ** 3, 13);
      expect(incompleteBeta(x, 1, 4)).toBeCloseTo(1 - (1 - x) ** 4, 13);
      // I_x(½, ½) = (2/π)·arcsin(√x)
      expect(incompleteBeta(x, 0.5, 0.5)).toBeCloseTo((2 / Math.PI) * Math.asin(Math.sqrt(x)), 12);
    }
    // I_x(2, 2) = 3x² − 2x³
    expect(incompleteBeta(0.3, 2, 2)).toBeCloseTo(3 * 0.09 - 2 * 0.027, 13);
    expect(() => incompleteBeta(1.5, 1, 1)).toThrow(/x in \[0, 1\]/);
  });

  it('gives the two-sided t p-value (df 1: Cauchy, df 2: closed form)', () => {
    for (const t of [0, 0.3, 1, 2.5, 12]) {
      expect(studentTwoSidedP(t, 1)).toBeCloseTo(1 - (2 / Math.PI) * Math.atan(Math.abs(t)), 12);
      expect(studentTwoSidedP(-t, 2)).toBeCloseTo(1 - Math.abs(t) / Math.sqrt(2 + t * t), 12);
    }
    // table value: t = 2.228 at df 10 is the 0.05 two-sided critical value
    expect(studentTwoSidedP(2.228138851986, 10)).toBeCloseTo(0.05, 9);
    expect(studentTwoSidedP(Infinity, 5)).toBe(0);
  });
});

describe('pearson', () => {
  it('gives hand-computed r and p', () => {
    // x = 1..5, y = 2,1,4,3,5: means 3, 3; Σdxdy = 8, Σdx² = Σdy² = 10 → r = 0.8; n = 5 (df 3)
    const res = pearson([1, 2, 3, 4, 5], [2, 1, 4, 3, 5])!;
    expect(res.r).toBeCloseTo(0.8, 14);
    // t = 0.8·√(3/0.36) = 4/√3 ≈ 2.3094; P(|T₃| ≥ 2.3094) = 0.104088 (t table)
    expect(res.p).toBeCloseTo(0.1040880387, 9);
  });

  it('p from Student t with n − 2 df: r = 0.5, n = 10 → 0.1411; r = 0.3, n = 30 → 0.1073', () => {
    const pOf = (r: number, n: number) => studentTwoSidedP(r * Math.sqrt((n - 2) / (1 - r * r)), n - 2);
    // t = 0.5·√(8/0.75) = 1.63299 at df 8; t = 0.3·√(28/0.91) = 1.66410 at df 28 (t table / scipy.stats.t.sf·2)
    expect(pOf(0.5, 10)).toBeCloseTo(0.1411132812, 9);
    expect(pOf(0.3, 30)).toBeCloseTo(0.1072459481, 9);
    // n = 4 (df 2): t² = 2r²/(1−r²) → p = 1 − |r| exactly; check through pearson itself
    const res = pearson([1, 2, 3, 4], [1, 3, 2, 4])!; // r = 0.8
    expect(res.r).toBeCloseTo(0.8, 14);
    expect(res.p).toBeCloseTo(0.2, 12);
    // n = 3 (df 1): p = 1 − (2/π)·atan(|t|), t = r/√(1−r²); x = 1,2,3, y = 1,3,2: r = 0.5
    const r3 = pearson([1, 2, 3], [1, 3, 2])!;
    expect(r3.r).toBeCloseTo(0.5, 14);
    expect(r3.p).toBeCloseTo(1 - (2 / Math.PI) * Math.atan(0.5 / Math.sqrt(0.75)), 12);
  });

  it('is ±1 with p 0 on perfect lines', () => {
    expect(pearson([1, 2, 3, 4], [3, 5, 7, 9])).toEqual({ r: 1, p: 0 });
    expect(pearson([1, 2, 3, 4], [8, 6, 4, 2])).toEqual({ r: -1, p: 0 });
  });

  it('is null for fewer than 3 pairs, a constant side or a value that is not finite; throws on lengths', () => {
    expect(pearson([1, 2], [2, 1])).toBeNull();
    expect(pearson([1, 1, 1, 1], [1, 2, 3, 4])).toBeNull();
    expect(pearson([1, 2, 3, 4], [5, 5, 5, 5])).toBeNull();
    expect(pearson([1, 2, NaN, 4], [1, 2, 3, 4])).toBeNull();
    expect(pearson([1, 2, Infinity, 4], [1, 2, 3, 4])).toBeNull();
    expect(() => pearson([1, 2, 3], [1, 2])).toThrow(/3 predictor values but 2 metric values/);
  });
});

describe('spearman', () => {
  it('is Pearson of the average ranks, ties sharing their mean rank', () => {
    // x = 10, 20, 20, 30 → ranks 1, 2.5, 2.5, 4; y = 1, 3, 2, 4 → ranks 1, 3, 2, 4
    // dx = −1.5, 0, 0, 1.5; dy = −1.5, .5, −.5, 1.5 → Σdxdy = 4.5, Σdx² = 4.5, Σdy² = 5 → ρ = 4.5/√22.5
    expect(spearman([10, 20, 20, 30], [1, 3, 2, 4])).toBeCloseTo(4.5 / Math.sqrt(22.5), 14);
    // monotone but not linear: ρ = 1 while r < 1
    const x = [1, 2, 3, 4, 5], y = x.map((v) => Math.exp(v));
    expect(spearman(x, y)).toBeCloseTo(1, 14);
    expect(pearson(x, y)!.r).toBeLessThan(0.95);
    expect(spearman(x, y.map((v) => -v))).toBeCloseTo(-1, 14);
  });
  it('is null for constant sides and tiny inputs', () => {
    expect(spearman([2, 2, 2], [1, 2, 3])).toBeNull();
    expect(spearman([1, 2], [1, 2])).toBeNull();
  });
});

describe('kendallTauB', () => {
  it('gives hand values, with ties', () => {
    // 1..5 vs 2,1,4,3,5: 10 pairs, discordant (1,2),(3,4) → (8 − 2)/10
    expect(kendallTauB([1, 2, 3, 4, 5], [2, 1, 4, 3, 5])).toBeCloseTo(0.6, 14);
    // x = 1,2,2,3, y = 1,3,2,4: 6 pairs, 1 tied in x (the 2s, counted neither concordant nor discordant), 0 in y;
    // n_c = 5, n_d = 0 → 5/√((6−1)(6−0)) = 5/√30
    expect(kendallTauB([1, 2, 2, 3], [1, 3, 2, 4])).toBeCloseTo(5 / Math.sqrt(30), 14);
    // ties on both sides in the same pair: x = 1,1,2, y = 5,5,6 → n_c = 2, n_x = n_y = 1 → 2/√(2·2) = 1
    expect(kendallTauB([1, 1, 2], [5, 5, 6])).toBeCloseTo(1, 14);
    expect(kendallTauB([1, 2, 3, 4], [4, 3, 2, 1])).toBeCloseTo(-1, 14);
  });
  it('matches the all-pairs definition on random data with many ties', () => {
    const rand = seededRandom(3);
    for (let t = 0; t < 50; t++) {
      const n = 3 + Math.floor(rand() * 60);
      const x = Array.from({ length: n }, () => Math.floor(rand() * 6));
      const y = Array.from({ length: n }, () => Math.floor(rand() * 4) + (rand() < 0.5 ? 0.5 : 0));
      const want = kendallByPairs(x, y);
      if (want === null) expect(kendallTauB(x, y)).toBeNull();
      else expect(kendallTauB(x, y)).toBeCloseTo(want, 12);
    }
  });
  it('is null for a constant side', () => {
    expect(kendallTauB([1, 1, 1, 1], [1, 2, 3, 4])).toBeNull();
    expect(kendallTauB([1, 2, 3], [0, 0, 0])).toBeNull();
  });
});

describe('correlationCi', () => {
  const rand = seededRandom(11);
  const x = Array.from({ length: 40 }, () => rand());
  const y = x.map((v) => v + 0.3 * rand());
  const r = (a: readonly number[], b: readonly number[]) => pearson(a, b)?.r ?? null;

  it('is deterministic for a seed, contains r, and changes with the seed', () => {
    const a = correlationCi(x, y, r, { iterations: 2000, seed: 5 })!;
    const b = correlationCi(x, y, r, { iterations: 2000, seed: 5 })!;
    expect(a).toEqual(b);
    const obs = r(x, y)!;
    expect(a[0]).toBeLessThan(obs);
    expect(a[1]).toBeGreaterThan(obs);
    expect(a[1]).toBeLessThanOrEqual(1);
    expect(correlationCi(x, y, r, { iterations: 2000, seed: 6 })).not.toEqual(a);
    // a wider level gives a wider interval on the same resamples
    const wide = correlationCi(x, y, r, { iterations: 2000, seed: 5, level: 0.99 })!;
    expect(wide[0]).toBeLessThanOrEqual(a[0]);
    expect(wide[1]).toBeGreaterThanOrEqual(a[1]);
    expect(CORRELATION_CI_DEFAULTS).toEqual({ iterations: 10_000, seed: 0, level: 0.95 });
  });

  it('works with every statistic and skips resamples where it is undefined', () => {
    const k = correlationCi(x, y, kendallTauB, { iterations: 500 })!;
    expect(k[0]).toBeLessThan(kendallTauB(x, y)!);
    expect(k[1]).toBeGreaterThan(kendallTauB(x, y)!);
    // 3 pairs: many resamples repeat one pair (constant → null); the rest still give an interval
    const small = correlationCi([1, 2, 3], [1, 3, 2], spearman, { iterations: 500 });
    expect(small).not.toBeNull();
  });

  it('is null when no resample gives a number, and refuses bad options', () => {
    expect(correlationCi([1, 1, 1, 1], [1, 2, 3, 4], r, { iterations: 100 })).toBeNull();
    expect(correlationCi([], [], r)).toBeNull();
    expect(() => correlationCi([1, 2, 3], [1, 2], r)).toThrow(/3 predictor values but 2/);
    expect(() => correlationCi(x, y, r, { iterations: 0 })).toThrow(/iterations/);
    expect(() => correlationCi(x, y, r, { level: 1 })).toThrow(/level/);
  });
});
