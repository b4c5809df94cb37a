import { describe, expect, it } from 'vitest';
import { ALPHA_EPSILON, entropiesSaturated, entropy, entropyAlpha } from '../../src/lib/retrieval/entropy.ts';

describe('entropy (non-negative scores: p = S / ΣS)', () => {
  it('[1, 1] → 1 bit', () => {
    // p = [1/2, 1/2]: −2·(1/2)·log2(1/2) = 1
    expect(entropy([1, 1])).toBeCloseTo(1, 12);
  });

  it('[1, 1, 2] → 1.5 bits', () => {
    // p = [1/4, 1/4, 1/2]: 1/4·2 + 1/4·2 + 1/2·1 = 1.5
    expect(entropy([1, 1, 2])).toBeCloseTo(1.5, 12);
  });

  it('is scale invariant: [3, 3, 6] also → 1.5 bits', () => {
    expect(entropy([3, 3, 6])).toBeCloseTo(1.5, 12);
  });

  it('a single positive score or a one-hot list → 0; zeros contribute nothing (no NaN)', () => {
    expect(entropy([5])).toBe(0);
    // p = [1, 0]: −1·log2(1) − 0 = 0
    expect(entropy([3, 0])).toBe(0);
    // p = [1/2, 1/2, 0] → 1
    expect(entropy([2, 2, 0])).toBeCloseTo(1, 12);
  });

  it('an all-zero list is uniform: log2(n)', () => {
    expect(entropy([0, 0, 0, 0])).toBeCloseTo(2, 12); // log2 4
    expect(entropy([0, 0, 0, 0, 0, 0, 0, 0])).toBeCloseTo(3, 12); // log2 8
    expect(entropy([0])).toBe(0);
  });

  it('an empty list → 0', () => {
    expect(entropy([])).toBe(0);
  });
});

describe('entropy (a negative score present: softmax)', () => {
  it('[0, −ln 3] → p = [3/4, 1/4] → 0.8112781 bits', () => {
    // e^0 = 1, e^{−ln 3} = 1/3, Z = 4/3 → p = [3/4, 1/4]
    // H = −(0.75·log2 0.75 + 0.25·log2 0.25) = 0.75·0.4150375 + 0.25·2 = 0.3112781 + 0.5 = 0.8112781
    expect(entropy([0, -Math.log(3)])).toBeCloseTo(0.8112781, 6);
  });

  it('[1, −1] → p = [e²/(e²+1), 1/(e²+1)] = [0.8807971, 0.1192029] → 0.5270653 bits', () => {
    // 0.8807971·(−log2 0.8807971 = 0.1831203) + 0.1192029·(−log2 0.1192029 = 3.0685227)
    // = 0.1612910 + 0.3657743 = 0.5270653
    // (the p = S/ΣS branch would give nonsense here: ΣS = 0)
    expect(entropy([1, -1])).toBeCloseTo(0.5270653, 6);
  });

  it('equal negative scores are uniform: [−1, −1, −1, −1] → 2 bits', () => {
    expect(entropy([-1, -1, -1, -1])).toBeCloseTo(2, 12);
  });

  it('is numerically stable for large magnitudes: [0, −1e6] ≈ 0 and [1000, −1000] ≈ 0', () => {
    // softmax ≈ [1, 0] → H ≈ 0
    expect(entropy([0, -1e6])).toBeCloseTo(0, 12);
    const h = entropy([1000, -1000]);
    expect(Number.isNaN(h)).toBe(false);
    expect(h).toBeCloseTo(0, 12);
    // [800, 800, −1]: softmax = [1/2, 1/2, e^−801/… ≈ 0] → 1 bit (e^800 alone would overflow to Infinity)
    expect(entropy([800, 800, -1])).toBeCloseTo(1, 9);
  });
});

describe('entropyAlpha', () => {
  it('α = Hd / (Hd + Hs + ε)', () => {
    // 1 / (1 + 3) = 0.25
    expect(entropyAlpha(1, 3)).toBeCloseTo(0.25, 9);
    // 2 / (2 + 2) = 0.5
    expect(entropyAlpha(2, 2)).toBeCloseTo(0.5, 9);
    expect(entropyAlpha(3, 0)).toBeCloseTo(1, 9);
  });

  it('uses ε = 1e-9 by default, so 0/0 gives 0 rather than NaN', () => {
    expect(ALPHA_EPSILON).toBe(1e-9);
    expect(entropyAlpha(0, 0)).toBe(0);
  });

  it('honours a custom ε', () => {
    // 1 / (1 + 1 + 2) = 0.25
    expect(entropyAlpha(1, 1, 2)).toBeCloseTo(0.25, 12);
    expect(entropyAlpha(1, 1, 0)).toBe(0.5);
  });

  it('a flatter dense list (higher Hd) gives more weight to sparse', () => {
    // Hd = entropy([1,1]) = 1, Hs = entropy([1,0]) = 0 → α ≈ 1
    expect(entropyAlpha(entropy([1, 1]), entropy([1, 0]))).toBeCloseTo(1, 8);
  });
});

describe('entropiesSaturated', () => {
  it('is true when both H are within 1 % of log2 k, on hand values', () => {
    // log2 20 = 4.32192809; 1 % of it = 0.04321928: the floor is 4.27870881
    const k20 = { sparse: 20, dense: 20 };
    expect(entropiesSaturated({ sparse: 4.322, dense: 4.322 }, k20)).toBe(true); // the "H 4.322 · 4.322"
    expect(entropiesSaturated({ sparse: 4.2788, dense: 4.3 }, k20)).toBe(true);
    expect(entropiesSaturated({ sparse: 4.2786, dense: 4.3 }, k20)).toBe(false); // sparse just under the floor
    expect(entropiesSaturated({ sparse: 4.3, dense: 3.9 }, k20)).toBe(false); // one side carries signal
    // each side its own k: log2 10 = 3.32192809 (floor 3.28870881), log2 80 = 6.32192809 (floor 6.25870881)
    expect(entropiesSaturated({ sparse: 3.3, dense: 6.26 }, { sparse: 10, dense: 80 })).toBe(true);
    expect(entropiesSaturated({ sparse: 3.3, dense: 6.25 }, { sparse: 10, dense: 80 })).toBe(false);
    // k equal scores give exactly log2 k
    expect(entropiesSaturated({ sparse: entropy(Array(20).fill(0.99)), dense: entropy(Array(20).fill(0.97)) }, k20)).toBe(true);
  });

  it('is false for a missing or non-finite H, or a side with fewer than 2 scores', () => {
    expect(entropiesSaturated({ sparse: null, dense: 4.32 }, { sparse: 20, dense: 20 })).toBe(false);
    expect(entropiesSaturated({ sparse: NaN, dense: 4.32 }, { sparse: 20, dense: 20 })).toBe(false);
    expect(entropiesSaturated({ sparse: 0, dense: 0 }, { sparse: 1, dense: 1 })).toBe(false);
    expect(entropiesSaturated({ sparse: 1, dense: 1 }, { sparse: 2, dense: 0 })).toBe(false);
  });
});
