import { describe, expect, test } from 'vitest';
import type { H1Row, H2Row, RetrievalAnalysis } from '../../src/lib/eval/analysis/analysis.ts';
import { fmtP, h1RowId, h1ViewRows, h2Modes, h2ViewRows, settingsLine, signMet, verdictViews, withCi } from '../../src/ui/reports/analysis-view.ts';

const h1 = (over: Partial<H1Row>): H1Row => ({
  predictor: 'entropy', retriever: 'sparse', calibration: 'cdf', n: 30, pearson_r: -0.41234, p_value: 0.0234,
  spearman: -0.3, kendall: -0.2, ci95: [-0.61, -0.15], spearman_ci95: [-0.5, -0.05], kendall_ci95: [-0.4, 0.01],
  expected: 'negative', note: null, ...over,
});
const h2 = (a: string, b: string, over: Partial<H2Row> = {}): H2Row => ({
  a, b, metric: 'ndcg@10', n: 30, delta: 0.0312, ci95: [-0.004, 0.0671], p_value: 0.0004, p_randomization: 0.5,
  wins: 12, ties: 10, losses: 8, ...over,
});
const analysis = (over: Partial<RetrievalAnalysis> = {}): RetrievalAnalysis => ({
  ok: true, queries: 1234, modes: ['sparse', 'dense', 'hybrid_calibrated'], metric: 'ndcg@10',
  h1: [h1({})], h2: [h2('sparse', 'dense'), h2('sparse', 'hybrid_calibrated'), h2('dense', 'hybrid_calibrated')],
  means: [], warnings: [], settings: { iterations: 10_000, permutations: 10_000, seed: 7, source: { iterations: 'default', permutations: 'default' } }, ...over,
});

describe('formatting', () => {
  test('p-values: below 0.001, three decimals, n/a', () => {
    expect(fmtP(0.0004)).toBe('<0.001');
    expect(fmtP(0.001)).toBe('0.001');
    expect(fmtP(0.01234)).toBe('0.012');
    expect(fmtP(1)).toBe('1.000');
    expect(fmtP(null)).toBe('n/a');
  });

  test('a figure with its interval; n/a for a missing figure; signed for a difference', () => {
    expect(withCi(0.41234, [0.2, 0.58])).toBe('0.412 [0.200, 0.580]');
    expect(withCi(0.5, null)).toBe('0.500');
    expect(withCi(null, [0, 1])).toBe('n/a');
    expect(withCi(Number.NaN, null)).toBe('n/a');
    expect(withCi(-0.012, [-0.03, 0.004], true)).toBe('−0.012 [−0.030, +0.004]');
  });

  test('expected sign met or not', () => {
    expect(signMet({ pearson_r: -0.2, expected: 'negative' })).toBe(true);
    expect(signMet({ pearson_r: 0.2, expected: 'negative' })).toBe(false);
    expect(signMet({ pearson_r: 0.2, expected: 'positive' })).toBe(true);
    expect(signMet({ pearson_r: -0.01, expected: 'positive' })).toBe(false);
    expect(signMet({ pearson_r: null, expected: 'positive' })).toBeNull();
    expect(signMet({ pearson_r: 0, expected: 'negative' })).toBeNull();
  });
});

describe('H1 rows', () => {
  test('every column as text', () => {
    const [r] = h1ViewRows(analysis());
    expect(r).toEqual({
      id: 'entropy.sparse.cdf', predictor: 'entropy', retriever: 'sparse', calibration: 'cdf', n: '30',
      pearson: '-0.412 [-0.610, -0.150]', p: '0.023', spearman: '-0.300 [-0.500, -0.050]', kendall: '-0.200 [-0.400, 0.010]',
      expected: 'negative ✓', met: true, note: '',
    });
  });

  test('a constant predictor: n/a, no sign judged, its note; no calibration reads —', () => {
    const [r] = h1ViewRows(analysis({ h1: [h1({ predictor: 'wig', calibration: null, expected: 'positive', pearson_r: null, p_value: null, spearman: null, kendall: null, ci95: null, spearman_ci95: null, kendall_ci95: null, note: 'constant predictor' })] }));
    expect(r!.id).toBe('wig.sparse');
    expect(r!.calibration).toBe('—');
    expect([r!.pearson, r!.p, r!.spearman, r!.kendall]).toEqual(['n/a', 'n/a', 'n/a', 'n/a']);
    expect(r!.expected).toBe('positive');
    expect(r!.met).toBeNull();
    expect(r!.note).toBe('constant predictor');
  });

  test('the wrong sign is marked ✗', () => {
    expect(h1ViewRows(analysis({ h1: [h1({ pearson_r: 0.3 })] }))[0]!.expected).toBe('negative ✗');
    expect(h1RowId({ predictor: 'alpha', retriever: 'fusion', calibration: 'raw' })).toBe('alpha.fusion.raw');
  });
});

describe('H2 rows', () => {
  test('Δ with its interval, both p-values, W/T/L', () => {
    const rows = h2ViewRows(analysis());
    expect(rows).toHaveLength(3);
    expect(rows[0]).toEqual({ id: 'sparse|dense', a: 'sparse', b: 'dense', n: '30', delta: '+0.031 [−0.004, +0.067]', pBootstrap: '<0.001', pRandomization: '0.500', wtl: '12/10/8' });
  });

  test('identical runs: Δ 0.000, p 1.000', () => {
    const [r] = h2ViewRows(analysis({ h2: [h2('a', 'b', { delta: 0, ci95: [0, 0], p_value: 1, p_randomization: 1, wins: 0, ties: 30, losses: 0 })] }));
    expect(r!.delta).toBe('0.000 [0.000, 0.000]');
    expect(r!.pBootstrap).toBe('1.000');
    expect(r!.wtl).toBe('0/30/0');
  });

  test('the filter keeps the pairs with the mode; the modes in order of first appearance', () => {
    const a = analysis();
    expect(h2Modes(a)).toEqual(['sparse', 'dense', 'hybrid_calibrated']);
    expect(h2ViewRows(a, 'hybrid_calibrated').map((r) => r.id)).toEqual(['sparse|hybrid_calibrated', 'dense|hybrid_calibrated']);
    expect(h2ViewRows(a, 'dense').map((r) => r.id)).toEqual(['sparse|dense', 'dense|hybrid_calibrated']);
    expect(h2ViewRows(a, '')).toHaveLength(3);
    expect(h2ViewRows(a, 'rrf')).toHaveLength(0);
  });
});

test('the settings line says where the draws came from', () => {
  expect(settingsLine(analysis())).toBe('10,000 bootstrap resamples · 10,000 permutations · seed 7 · 1,234 judged queries · modes: sparse, dense, hybrid_calibrated · metric ndcg@10 · draws: the default');
  expect(settingsLine(analysis({ modes: [] }))).toContain('modes: none');
  const fromReport = analysis({ settings: { iterations: 1000, permutations: 1000, seed: 7, source: { iterations: 'report', permutations: 'report' } } });
  expect(settingsLine(fromReport)).toMatch(/^1,000 bootstrap resamples · 1,000 permutations · .* · draws: the report's config\.resamples$/);
});

test('the verdict lines under the H1 and H2 tables: hypothesis, symbol, label, reason, extra', () => {
  const a = analysis({
    modes: ['dense', 'rrf', 'hybrid_fixed', 'hybrid_calibrated'],
    means: [{ mode: 'rrf', n: 300, mean: 0.7028 }, { mode: 'hybrid_calibrated', n: 300, mean: 0.6981 }],
    h1: [h1({ retriever: 'dense', calibration: 'zscore', pearson_r: -0.4065, p_value: 1e-7 }), h1({ retriever: 'dense', pearson_r: -0.1151, p_value: 0.03 })],
    h2: [h2('rrf', 'hybrid_calibrated', { delta: 0.0047, p_value: 0.41 }), h2('hybrid_fixed', 'hybrid_calibrated', { delta: -0.0152, p_value: 0.012 })],
  });
  const v = verdictViews(a);
  expect(v.h1).toEqual({
    verdict: 'not_supported', hypothesis: 'CDF entropy has the strongest negative correlation with retrieval quality.', symbol: '❌', label: 'Not supported',
    reason: 'dense: zscore entropy is the strongest negative predictor (r = −0.4065, Holm p < 0.001), whereas cdf r = −0.1151, Holm p = 0.030.', extra: '',
  });
  expect(v.h2).toMatchObject({ verdict: 'partially', symbol: '⚠️', label: 'Partially supported', hypothesis: 'Calibrated entropy fusion significantly outperforms fixed-alpha and RRF baselines.' });
  expect(v.h2.reason).toMatch(/^hybrid_calibrated beats hybrid_fixed \(Δ ndcg@10 = \+0\.0152, .*\) and ties with rrf \(.*\)\.$/);
  expect(v.h2.extra).toBe('Best mean ndcg@10: rrf (0.7028 over 300 queries).');
  expect(verdictViews(analysis({ h1: [], h2: [] })).h1).toMatchObject({ verdict: 'n/a', symbol: '–', reason: 'no entropy predictor (qpp.entropy.*) in the report.' });
});
