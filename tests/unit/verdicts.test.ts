import { describe, expect, it } from 'vitest';
import type { H1Row, H2Row, RetrievalAnalysis } from '../../src/lib/eval/analysis/analysis.ts';
import { h1Verdict, h2Verdict, hypothesisVerdicts, HYPOTHESES, verdictLabel } from '../../src/lib/eval/analysis/verdicts.ts';

// Hand-made analysis results: only the figures the rules read.
const ent = (retriever: string, calibration: string, r: number | null, p: number | null, over: Partial<H1Row> = {}): H1Row => ({
  predictor: 'entropy', retriever, calibration, n: 300, pearson_r: r, p_value: p, spearman: null, kendall: null,
  ci95: null, spearman_ci95: null, kendall_ci95: null, expected: 'negative', note: null, ...over,
});
const pair = (a: string, b: string, delta: number | null, p: number | null, n = 300): H2Row => ({
  a, b, metric: 'ndcg@10', n, delta, ci95: null, p_value: p, p_randomization: null, wins: 0, ties: 0, losses: 0,
});
const MODES = ['sparse', 'dense', 'rrf', 'hybrid_fixed', 'hybrid_calibrated'];
const h2Of = (h2: H2Row[], modes = MODES, means: RetrievalAnalysis['means'] = [], metric = 'ndcg@10') => h2Verdict({ h2, modes, metric, means });

describe('H1 verdict: is cdf entropy the strongest negative predictor of each retriever?', () => {
  it('supported: cdf has the most negative significant r for sparse and dense (Holm over each retriever, by hand)', () => {
    const v = h1Verdict({ h1: [
      ent('sparse', 'raw', -0.1, 0.2), ent('sparse', 'zscore', -0.3, 0.001), ent('sparse', 'cdf', -0.5, 1e-5),
      ent('dense', 'minmax', -0.2, 0.01), ent('dense', 'cdf', -0.4, 1e-4),
    ] });
    expect(v.verdict).toBe('supported');
    expect(v.hypothesis).toBe(HYPOTHESES.h1);
    // sparse, m = 3: 1e-5·3 = 3e-5, 0.001·2 = 0.002, 0.2·1 = 0.2; dense, m = 2: 1e-4·2, 0.01·1.
    expect(v.retrievers.map((r) => [r.retriever, r.cdf_strongest, r.strongest?.calibration])).toEqual([['sparse', true, 'cdf'], ['dense', true, 'cdf']]);
    expect(v.retrievers[0]!.cdf!.p_holm).toBeCloseTo(3e-5, 15);
    expect(v.retrievers[1]!.cdf!.p_holm).toBeCloseTo(2e-4, 15);
    expect(v.reason).toBe('sparse: cdf entropy is the strongest negative predictor (r = −0.5000, Holm p < 0.001); dense: cdf entropy is the strongest negative predictor (r = −0.4000, Holm p < 0.001)');
  });

  it('not supported (seed B\'s case): z-score is the strongest; Holm lifts cdf\'s p 0.047 to 0.06 (step-down maximum)', () => {
    const v = h1Verdict({ h1: [ent('dense', 'raw', -0.2, 0.03), ent('dense', 'zscore', -0.4065, 1e-7), ent('dense', 'cdf', -0.1151, 0.047)] });
    expect(v.verdict).toBe('not_supported');
    // sorted: 1e-7·3 = 3e-7; 0.03·2 = 0.06; max(0.06, 0.047·1) = 0.06.
    expect(v.retrievers[0]!.cdf).toEqual({ r: -0.1151, p_holm: expect.closeTo(0.06, 12) });
    expect(v.retrievers[0]!.strongest).toEqual({ calibration: 'zscore', r: -0.4065, p_holm: expect.closeTo(3e-7, 15) });
    expect(v.reason).toBe('dense: zscore entropy is the strongest negative predictor (r = −0.4065, Holm p < 0.001), whereas cdf r = −0.1151, Holm p = 0.060');
  });

  it('partially: cdf is the strongest for sparse but not for dense', () => {
    const v = h1Verdict({ h1: [ent('sparse', 'raw', -0.2, 0.001), ent('sparse', 'cdf', -0.3, 0.001), ent('dense', 'zscore', -0.5, 0.001), ent('dense', 'cdf', -0.3, 0.001)] });
    expect(v.verdict).toBe('partially');
    expect(v.retrievers.map((r) => r.cdf_strongest)).toEqual([true, false]);
  });

  it('not supported when no calibration has a significant negative r (positive r, or p too large)', () => {
    const v = h1Verdict({ h1: [ent('sparse', 'raw', 0.4, 1e-6), ent('sparse', 'cdf', -0.3, 0.2)] });
    expect(v.verdict).toBe('not_supported');
    expect(v.retrievers[0]!.strongest).toBeNull();
    expect(v.reason).toBe('sparse: no entropy calibration has a significant negative r (cdf r = −0.3000, Holm p = 0.200)');
  });

  it('an exact tie of r counts cdf as the strongest', () => {
    expect(h1Verdict({ h1: [ent('sparse', 'zscore', -0.3, 0.001), ent('sparse', 'cdf', -0.3, 0.002)] }).verdict).toBe('supported');
  });

  it('n/a: no entropy rows, no cdf row, all n/a rows, too few queries', () => {
    const nqc: H1Row = { ...ent('sparse', 'cdf', 0.3, 0.001), predictor: 'nqc', calibration: null, expected: 'positive' };
    expect(h1Verdict({ h1: [nqc] })).toMatchObject({ verdict: 'n/a', reason: 'no entropy predictor (qpp.entropy.*) in the report', retrievers: [] });
    expect(h1Verdict({ h1: [ent('sparse', 'raw', -0.3, 0.001), ent('sparse', 'zscore', -0.5, 0.001)] }))
      .toMatchObject({ verdict: 'n/a', reason: 'sparse: not judged, no cdf entropy row' });
    const constant = h1Verdict({ h1: [ent('dense', 'raw', null, null, { note: 'the predictor is the same on all 300 queries: no correlation (n/a)' }), ent('dense', 'cdf', null, null, { note: 'the predictor is the same on all 300 queries: no correlation (n/a)' })] });
    expect(constant).toMatchObject({ verdict: 'n/a', reason: 'dense: not judged, cdf entropy has no r (the predictor is the same on all 300 queries: no correlation (n/a))' });
    expect(h1Verdict({ h1: [ent('sparse', 'raw', -0.9, 0.001, { n: 8 }), ent('sparse', 'cdf', -0.95, 0.001, { n: 8 })] }))
      .toMatchObject({ verdict: 'n/a', reason: 'sparse: not judged, only 8 queries with cdf entropy (fewer than 10)' });
  });

  it('a retriever that cannot be judged is named, and the verdict rests on the others', () => {
    const v = h1Verdict({ h1: [ent('sparse', 'cdf', -0.3, 0.001), ent('sparse', 'raw', -0.1, 0.01), ent('dense', 'raw', -0.3, 0.001)] });
    expect(v.verdict).toBe('supported');
    expect(v.reason).toMatch(/; dense: not judged, no cdf entropy row$/);
  });
});

describe('H2 verdict: does hybrid_calibrated beat hybrid_fixed and rrf?', () => {
  it('supported: beats both (rows oriented: Δ of rrf − calibrated flips); Holm 0.01·2 = 0.02, max(0.02, 0.02·1)', () => {
    const v = h2Of([pair('rrf', 'hybrid_calibrated', -0.03, 0.02), pair('hybrid_fixed', 'hybrid_calibrated', -0.02, 0.01)]);
    expect(v.verdict).toBe('supported');
    expect(v.hypothesis).toBe(HYPOTHESES.h2);
    expect(v.pairs.map((p) => [p.b, p.delta, p.outcome])).toEqual([['hybrid_fixed', 0.02, 'beats'], ['rrf', 0.03, 'beats']]);
    expect(v.pairs.map((p) => p.p_holm)).toEqual([0.02, 0.02]);
  });

  it('partially (seed B\'s case): beats hybrid_fixed, ties with rrf', () => {
    const v = h2Of([pair('rrf', 'hybrid_calibrated', 0.0047, 0.41), pair('hybrid_fixed', 'hybrid_calibrated', -0.0152, 0.012)]);
    expect(v.verdict).toBe('partially');
    expect(v.reason).toBe('hybrid_calibrated beats hybrid_fixed (Δ ndcg@10 = +0.0152, p = 0.012, Holm p = 0.024) and ties with rrf (Δ ndcg@10 = −0.0047, p = 0.410, Holm p = 0.410)');
  });

  it('not supported: Holm makes p 0.03 and 0.04 both 0.06 (ties); a significant Δ < 0 loses', () => {
    const ties = h2Of([pair('hybrid_calibrated', 'hybrid_fixed', 0.01, 0.03), pair('hybrid_calibrated', 'rrf', 0.02, 0.04)]);
    expect(ties.verdict).toBe('not_supported');
    expect(ties.pairs.map((p) => [p.outcome, p.p_holm])).toEqual([['ties', 0.06], ['ties', 0.06]]);
    const loses = h2Of([pair('hybrid_calibrated', 'hybrid_fixed', 0.01, 0.5), pair('hybrid_calibrated', 'rrf', -0.05, 0.001)]);
    expect(loses.verdict).toBe('not_supported');
    expect(loses.reason).toMatch(/^hybrid_calibrated ties with hybrid_fixed .* and loses to rrf \(Δ ndcg@10 = −0\.0500, p = 0\.001, Holm p = 0\.002\)$/);
  });

  it('n/a: a mode missing, too few paired queries, no bootstrap p', () => {
    const noRrf = MODES.filter((m) => m !== 'rrf');
    expect(h2Of([pair('hybrid_fixed', 'hybrid_calibrated', -0.02, 0.01)], noRrf)).toMatchObject({ verdict: 'n/a', reason: 'mode rrf is not in the report' });
    expect(h2Of([], ['sparse', 'dense', 'hybrid_fixed'])).toMatchObject({ verdict: 'n/a', reason: 'modes hybrid_calibrated, rrf are not in the report' });
    const few = h2Of([pair('rrf', 'hybrid_calibrated', -0.3, 0.01, 6), pair('hybrid_fixed', 'hybrid_calibrated', -0.3, 0.01, 6)]);
    expect(few.verdict).toBe('n/a');
    expect(few.reason).toBe('only 6 paired queries for hybrid_calibrated vs hybrid_fixed (fewer than 10); only 6 paired queries for hybrid_calibrated vs rrf (fewer than 10)');
    expect(few.pairs.map((p) => p.outcome)).toEqual(['n/a', 'n/a']);
    expect(h2Of([pair('rrf', 'hybrid_calibrated', -0.03, 0.02), pair('hybrid_fixed', 'hybrid_calibrated', -0.02, null)]))
      .toMatchObject({ verdict: 'n/a', reason: 'no bootstrap p for hybrid_calibrated vs hybrid_fixed (0 resamples)' });
  });

  it('the extra line: the rerank pair (uncorrected p) and the best mean, without changing the verdict', () => {
    const rows = [pair('rrf', 'hybrid_calibrated', 0.0047, 0.41), pair('hybrid_fixed', 'hybrid_calibrated', -0.0152, 0.012)];
    const modes = [...MODES, 'hybrid_fixed_rerank', 'hybrid_calibrated_rerank'];
    const means = [{ mode: 'rrf', n: 300, mean: 0.7028 }, { mode: 'hybrid_calibrated', n: 300, mean: 0.6981 }, { mode: 'hybrid_calibrated_rerank', n: 300, mean: 0.7071 }, { mode: 'dense', n: 0, mean: null }];
    const v = h2Of([...rows, pair('hybrid_fixed_rerank', 'hybrid_calibrated_rerank', -0.0065, 0.2)], modes, means);
    expect(v.verdict).toBe(h2Of(rows).verdict);
    expect(v.rerank).toMatchObject({ a: 'hybrid_calibrated_rerank', b: 'hybrid_fixed_rerank', delta: 0.0065, p_holm: null, outcome: 'ties' });
    expect(v.best).toEqual({ mode: 'hybrid_calibrated_rerank', mean: 0.7071, n: 300 });
    expect(v.extra).toBe('With reranking, hybrid_calibrated_rerank ties with hybrid_fixed_rerank (Δ ndcg@10 = +0.0065, uncorrected p = 0.200). Best mean ndcg@10: hybrid_calibrated_rerank (0.7071 over 300 queries).');
    const plain = h2Of(rows, MODES, [{ mode: 'sparse', n: 20, mean: 0.5 }], 'mrr@10');
    expect(plain.rerank).toBeNull();
    expect(plain.extra).toBe('Best mean mrr@10: sparse (0.5000 over 20 queries).');
    expect(h2Of(rows).extra).toBeNull();
  });
});

describe('both verdicts', () => {
  it('hypothesisVerdicts gives H1 and H2; labels carry seed B\'s symbols', () => {
    const v = hypothesisVerdicts({ h1: [], h2: [], modes: ['sparse'], metric: 'ndcg@10', means: [] });
    expect([v.h1.verdict, v.h2.verdict]).toEqual(['n/a', 'n/a']);
    expect(verdictLabel('not_supported')).toBe('❌ Not supported');
    expect(verdictLabel('partially')).toBe('⚠️ Partially supported');
    expect(verdictLabel('supported')).toBe('✅ Supported');
    expect(verdictLabel('n/a')).toBe('– n/a');
  });
});
