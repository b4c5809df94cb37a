/**
 * The tuner's parts on hand-computed values: the seeded split, the successive-halving rungs and the candidates each
 * rung keeps, the Pareto front, and the held-out figures and verdict.
 */
import { describe, expect, it } from 'vitest';
import { halvingCost, halvingRungs, rankByScore, successiveHalving, trialsWithin } from '../../src/lib/tune/halving.ts';
import { heldOutFigures, verdictSentence } from '../../src/lib/tune/held-out.ts';
import { paretoFront } from '../../src/lib/tune/pareto.ts';
import { tuneSplit } from '../../src/lib/tune/split.ts';

describe('the tuning / held-out split', () => {
  const ids = Array.from({ length: 10 }, (_, i) => `q${i}`);
  it('holds out round(n · f) ids, disjoint from the tuning ones, covering every id once', () => {
    const s = tuneSplit(ids, 0, 0.3);
    expect(s.heldOut).toHaveLength(3);
    expect(s.tuning).toHaveLength(7);
    expect([...s.heldOut, ...s.tuning].sort()).toEqual([...ids].sort());
    expect(tuneSplit(ids, 0, 0.25).heldOut).toHaveLength(3); // round(2.5) = 3
  });
  it('is the same for the same seed whatever the order or duplicates of the ids, and another for another seed', () => {
    const a = tuneSplit(ids, 7);
    expect(tuneSplit([...ids].reverse(), 7)).toEqual(a);
    expect(tuneSplit([...ids, 'q3', 'q1'], 7)).toEqual(a);
    expect(tuneSplit(ids, 8).heldOut).not.toEqual(a.heldOut);
  });
  it('refuses a fraction outside (0, 1)', () => {
    for (const f of [0, 1, -0.1, NaN]) expect(() => tuneSplit(ids, 0, f)).toThrow(/between 0 and 1/);
  });
});

describe('successive halving', () => {
  it('rungs: n_r = max(f, ⌈n/η^r⌉), q_r = ⌈Q/η^(R−r)⌉ (at least the minimum), the last on every query', () => {
    // n 40, Q 210, η 3, f 8: R = ⌈log3(5)⌉ = 2; q = ⌈210/9⌉ = 24, ⌈210/3⌉ = 70, 210; n = 40, ⌈40/3⌉ = 14, max(8, ⌈40/9⌉ = 5) = 8
    expect(halvingRungs(40, 210, { eta: 3, finalists: 8, minQueries: 20 })).toEqual([{ candidates: 40, queries: 24 }, { candidates: 14, queries: 70 }, { candidates: 8, queries: 210 }]);
    // 60 queries: ⌈60/9⌉ = 7 is raised to the minimum 20
    expect(halvingRungs(40, 60, { eta: 3, finalists: 8, minQueries: 20 })).toEqual([{ candidates: 40, queries: 20 }, { candidates: 14, queries: 20 }, { candidates: 8, queries: 60 }]);
    // no more candidates than finalists: one rung on every query; fewer queries than the minimum: all of them
    expect(halvingRungs(5, 210, { eta: 3, finalists: 8, minQueries: 20 })).toEqual([{ candidates: 5, queries: 210 }]);
    expect(halvingRungs(9, 6, { eta: 3, finalists: 3, minQueries: 20 })).toEqual([{ candidates: 9, queries: 6 }, { candidates: 3, queries: 6 }]);
    expect(halvingRungs(0, 10)).toEqual([]);
    expect(() => halvingRungs(10, 10, { eta: 1, finalists: 2, minQueries: 1 })).toThrow(/η/);
  });
  it('keeps the best of each rung on growing prefixes of the queries; ties by order, failures last', async () => {
    // candidate i scores i on its first queries and 10 − i once it sees more than 4: the late leaders are the early losers' opposite
    const calls: Array<[number, number]> = [];
    const r = await successiveHalving(9, 12, async (c, q) => { calls.push([c, q]); return c === 4 ? NaN : q <= 4 ? c : 10 - c; }, { eta: 3, finalists: 3, minQueries: 1 });
    expect(r.rungs).toEqual([{ candidates: 9, queries: 4 }, { candidates: 3, queries: 12 }]);
    // rung 0 on 4 queries: 8, 7, 6 lead (4 failed); rung 1 on 12: 10 − c puts 6 first
    expect(calls.filter(([, q]) => q === 12).map(([c]) => c)).toEqual([8, 7, 6]);
    expect(r.finalists).toEqual([6, 7, 8]);
    expect(r.reached[4]).toEqual({ rung: 0, score: NaN });
    expect(r.reached[6]).toEqual({ rung: 1, score: 4 });
    expect(rankByScore([3, 1, 2], (i) => (i === 2 ? NaN : 0.5))).toEqual([1, 3, 2]);
  });
});

describe('a budget in time', () => {
  it('costs a plan in query evaluations (earlier rungs\' rows reused) and fits the most trials in the time', () => {
    // 12 on 21 queries: R = ⌈log3(12/8)⌉ = 1; 12 on 20, then 8 on 21: 12·20 + 8·(21 − 20) = 248.
    expect(halvingRungs(12, 21)).toEqual([{ candidates: 12, queries: 20 }, { candidates: 8, queries: 21 }]);
    expect(halvingCost(halvingRungs(12, 21))).toBe(248);
    expect(halvingCost(halvingRungs(9, 21))).toBe(9 * 20 + 8); // 188
    expect(halvingCost(halvingRungs(8, 21))).toBe(8 * 21); // 168: no halving
    // 1 ms a query: 200 ms fit 9 trials (10 cost 208), 170 ms fit 8, 100 ms fit 4 (4 · 21 = 84), 10 ms not even one.
    expect(trialsWithin(200, 1, 21, 12)).toBe(9);
    expect(trialsWithin(170, 1, 21, 12)).toBe(8);
    expect(trialsWithin(100, 1, 21, 12)).toBe(4);
    expect(trialsWithin(10, 1, 21, 12)).toBe(1);
    expect(trialsWithin(1e9, 1, 21, 12)).toBe(12); // at most `max`
    expect(trialsWithin(100, 0, 21, 12)).toBe(12); // no measured time: the cap
  });
});

describe('the Pareto front (quality up, cost down)', () => {
  it('keeps the points nothing dominates, cheapest first; identical points both; non-finite ones out', () => {
    const pts = [
      { quality: 0.70, cost: 2.0 }, // 0: front (best quality)
      { quality: 0.68, cost: 0.3 }, // 1: front (cheapest)
      { quality: 0.69, cost: 1.9 }, // 2: front
      { quality: 0.65, cost: 1.0 }, // 3: dominated by 1
      { quality: 0.70, cost: 2.5 }, // 4: dominated by 0 (same quality, costs more)
      { quality: 0.68, cost: 0.3 }, // 5: the same as 1
      { quality: NaN, cost: 0.1 },  // 6: no figure
    ];
    expect(paretoFront(pts)).toEqual([1, 5, 2, 0]);
    expect(paretoFront([])).toEqual([]);
  });
});

describe('held-out figures and the verdict', () => {
  it('Δ against the current settings with win / tie / loss, Holm only over the front', () => {
    const current = { label: 'sparse', scores: [0, 0, 1, 1, 0.5, 0.5, 0.2, 0.2] };
    const better = { label: 'hybrid_fixed --alpha 0.7', trial: 3, scores: [1, 1, 1, 1, 0.5, 0.5, 0.2, 0.2], inFront: true };
    const same = { label: 'sparse --b 0.9', trial: 5, scores: [...current.scores], inFront: false };
    const f = heldOutFigures(current, [better, same], { iterations: 2000, seed: 1 });
    expect(f.current.score).toBeCloseTo(0.425, 12); // (0+0+1+1+0.5+0.5+0.2+0.2)/8
    expect(f.others[0]).toMatchObject({ trial: 3, wins: 2, ties: 6, losses: 0 });
    expect(f.others[0]!.score).toBeCloseTo(0.675, 12);
    expect(f.others[0]!.delta).toBeCloseTo(0.25, 12);
    expect(f.others[1]).toMatchObject({ delta: 0, wins: 0, ties: 8, losses: 0 });
    // Holm over one front comparison is the p itself; the one off the front keeps its raw p
    expect(f.others[0]!.pHolm).toBe(f.others[0]!.p);
    expect(f.others[1]!.pHolm).toBe(f.others[1]!.p);
    expect(verdictSentence(null, f.current, 8, 'ndcg@10')).toMatch(/^The current settings \(sparse\) won on the tuning queries: nothing to adopt/);
    const tie = { ...f.others[0]!, pHolm: 0.3 };
    expect(verdictSentence(tie, f.current, 8, 'ndcg@10')).toMatch(/^On the 8 held-out queries the tuned setting cannot be told apart from the current settings: ndcg@10 0\.6750 against 0\.4250 .*Δ \+0\.2500.*p = 0\.300 .*2 wins, 6 ties, 0 losses/);
    expect(verdictSentence({ ...tie, pHolm: 0.01 }, f.current, 8, 'ndcg@10')).toMatch(/tuned setting is better/);
    expect(verdictSentence({ ...tie, pHolm: 0.01, delta: -0.1 }, f.current, 8, 'ndcg@10')).toMatch(/is worse: .*keep the current settings/);
  });
});
