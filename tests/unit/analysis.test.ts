import { describe, expect, it } from 'vitest';
import { analysisJson, analyzeRetrievalReport, drawsSourceText, h1Points, type RetrievalAnalysis } from '../../src/lib/eval/analysis/analysis.ts';
import { pearson } from '../../src/lib/stats/correlation.ts';
import { analysisText } from '../../src/lib/eval/analysis/analysis-text.ts';
import { generatedTitle } from '../../src/lib/reports/title.ts';
import { compareReports } from '../../src/lib/reports/compare.ts';
import { hypothesisVerdicts } from '../../src/lib/eval/analysis/verdicts.ts';
import type { Report } from '../../src/lib/reports/format.ts';
import { testReport, validateRow } from '../helpers/reports.ts';
import { multiModeReport, singleModeReport, spread } from '../helpers/retrieval-reports.ts';

const FAST = { iterations: 2000, permutations: 2000 };

function ok(r: ReturnType<typeof analyzeRetrievalReport>): RetrievalAnalysis {
  if (!r.ok) throw new Error(r.message);
  return r;
}

describe('analyzeRetrievalReport: H2', () => {
  it('identical modes: Δ 0, CI [0, 0], p 1 (bootstrap and randomization), every query a tie', () => {
    const x = spread(30, 1);
    const a = ok(analyzeRetrievalReport(multiModeReport({ sparse: x, dense: x }), FAST));
    expect(a.h2).toHaveLength(1);
    const h = a.h2[0]!;
    expect([h.a, h.b, h.n]).toEqual(['sparse', 'dense', 30]);
    expect(h.delta).toBe(0);
    expect(h.ci95).toEqual([0, 0]);
    expect(h.p_value).toBe(1);
    expect(h.p_randomization).toBe(1);
    expect([h.wins, h.ties, h.losses]).toEqual([0, 30, 0]);
  });

  it('every pair (a before b, report order), Δ = mean(a) − mean(b) and wins = a better, by hand', () => {
    // q0..q3: sparse 1, .5, .2, 0; dense .5, .5, .4, .1; rrf .9, .6, .2, .3
    const a = ok(analyzeRetrievalReport(multiModeReport({ sparse: [1, 0.5, 0.2, 0], dense: [0.5, 0.5, 0.4, 0.1], rrf: [0.9, 0.6, 0.2, 0.3] }), FAST));
    expect(a.modes).toEqual(['sparse', 'dense', 'rrf']);
    expect(a.h2.map((h) => `${h.a}-${h.b}`)).toEqual(['sparse-dense', 'sparse-rrf', 'dense-rrf']);
    const [sd, sr, dr] = a.h2;
    expect(sd!.delta).toBeCloseTo(1.7 / 4 - 1.5 / 4, 12);
    expect([sd!.wins, sd!.ties, sd!.losses]).toEqual([1, 1, 2]);
    expect(sr!.delta).toBeCloseTo(1.7 / 4 - 2.0 / 4, 12);
    expect([sr!.wins, sr!.ties, sr!.losses]).toEqual([1, 1, 2]);
    expect(dr!.delta).toBeCloseTo(1.5 / 4 - 2.0 / 4, 12);
    expect([dr!.wins, dr!.ties, dr!.losses]).toEqual([1, 0, 3]);
    for (const h of a.h2) expect(h.ci95![0]).toBeLessThanOrEqual(h.delta!);
  });

  it('H2 numbers are Compare\'s (compareReports on two single-mode reports of the same rows): one implementation', () => {
    const x = spread(40, 3), y = spread(40, 4).map((v, i) => (i % 3 ? v : x[i]!));
    const a = ok(analyzeRetrievalReport(multiModeReport({ sparse: x, dense: y, rrf: spread(40, 5) }, () => ({}), { seed: 11 }), { iterations: 3000, permutations: 2500 }));
    const h = a.h2.find((r) => r.a === 'sparse' && r.b === 'dense')!;
    const cmp = compareReports([singleModeReport('dense', y, { id: 'dense-report' }), singleModeReport('sparse', x, { id: 'sparse-report' })], { iterations: 3000, permutations: 2500, seed: 11 });
    if (!cmp.ok) throw new Error(cmp.message);
    const cell = cmp.metrics.find((m) => m.id === 'ndcg@10')!.cells[1]!;
    expect(cell.reportId).toBe('sparse-report');
    expect(h.delta).toBe(cell.delta);
    expect(h.ci95).toEqual(cell.deltaCi);
    expect(h.p_value).toBe(cell.pBootstrap);
    expect(h.p_randomization).toBe(cell.pRandomization);
    expect({ win: h.wins, tie: h.ties, loss: h.losses }).toEqual(cell.wtl);
    expect(h.ties).toBeGreaterThan(0);
    expect(a.settings.seed).toBe(11);
  });

  it('a mode lacking some queries: its pairs use the queries both have, and a warning says so', () => {
    const x = spread(20, 6);
    const a = ok(analyzeRetrievalReport(multiModeReport({ sparse: x, dense: [...x.slice(0, 15), null, null] }), FAST));
    expect(a.queries).toBe(20);
    expect(a.h2[0]!.n).toBe(15);
    expect(a.h2[0]!.delta).toBe(0);
    expect(a.warnings.join('\n')).toMatch(/Mode dense lacks ndcg@10 on 5 queries/);
  });
});

describe('analyzeRetrievalReport: H1', () => {
  const ndcg = spread(25, 8);
  const preds = (i: number) => ({
    'qpp.wig.sparse': -ndcg[i]!,
    'qpp.entropy.dense.cdf': 0.3,
    'qpp.entropy.sparse.raw': (i * 7) % 5,
    'qpp.alpha.fusion.raw': ndcg[i]! * 2 + 1,
    'qpp.entropy.sparse.minmax': i,
    'qpp.nqc.dense': ndcg[(i + 3) % 25]!,
  });
  const report = multiModeReport({ sparse: ndcg, dense: spread(25, 9), hybrid_calibrated: ndcg }, preds);
  const a = ok(analyzeRetrievalReport(report, FAST));

  it('one row per qpp.* field in H1 order: entropy (per retriever, raw…cdf), clarity, nqc, nqc_nonorm, wig, alpha', () => {
    expect(a.h1.map((r) => `${r.predictor}.${r.retriever}.${r.calibration}`)).toEqual([
      'entropy.sparse.raw', 'entropy.sparse.minmax', 'entropy.dense.cdf', 'nqc.dense.null', 'wig.sparse.null', 'alpha.hybrid_calibrated.raw',
    ]);
    expect(a.h1.map((r) => r.expected)).toEqual(['negative', 'negative', 'negative', 'positive', 'positive', 'negative']);
  });

  it('a predictor built as −NDCG gives r = −1, p ≈ 0, ρ = τ = −1; α = 2·NDCG + 1 gives +1', () => {
    const w = a.h1.find((r) => r.predictor === 'wig')!;
    expect(w.n).toBe(25);
    expect(w.pearson_r).toBeCloseTo(-1, 12);
    expect(w.p_value!).toBeLessThan(1e-12);
    expect(w.spearman).toBeCloseTo(-1, 12);
    expect(w.kendall).toBeCloseTo(-1, 12);
    expect(w.ci95![0]).toBeCloseTo(-1, 9);
    expect(w.ci95![1]).toBeCloseTo(-1, 9);
    expect(w.note).toBeNull();
    expect(a.h1.find((r) => r.predictor === 'alpha')!.pearson_r).toBeCloseTo(1, 12);
  });

  it('pairs each predictor with the metric of the mode it reads (.dense → dense)', () => {
    const n = a.h1.find((r) => r.predictor === 'nqc')!;
    const pts = h1Points(report, n);
    expect(pts.keys).toHaveLength(25);
    expect(pts.y).toEqual(spread(25, 9));
    expect(pts.x).toEqual(ndcg.map((_, i) => ndcg[(i + 3) % 25]!));
    expect(n.pearson_r).toBeCloseTo(pearson(pts.x, pts.y)!.r, 12);
    expect(h1Points(report, { predictor: 'wig', retriever: 'sparse', calibration: null }).x).toEqual(ndcg.map((v) => -v));
    expect(h1Points(report, { predictor: 'wig', retriever: 'rrf', calibration: null }).x).toEqual([]);
  });

  it('a constant predictor: every figure null (never NaN) with a note in words', () => {
    const c = a.h1.find((r) => r.calibration === 'cdf')!;
    expect([c.pearson_r, c.p_value, c.spearman, c.kendall, c.ci95, c.spearman_ci95, c.kendall_ci95]).toEqual([null, null, null, null, null, null, null]);
    expect(c.note).toMatch(/same on all 25 queries/);
    expect(JSON.stringify(a)).not.toMatch(/NaN/);
  });

  it('a metric that is off its most common value on few queries (NDCG@10 > 0 on 2 of 30): r is given, with a note', () => {
    const y = Array.from({ length: 30 }, (_, i) => (i === 3 ? 0.5 : i === 17 ? 1 : 0));
    const r = ok(analyzeRetrievalReport(multiModeReport({ dense: y }, (i) => ({ 'qpp.nqc.dense': (i * 7) % 11 })), FAST));
    expect(r.h1[0]!.pearson_r).not.toBeNull();
    expect(r.h1[0]!.note).toMatch(/only 2 queries of 30 have ndcg@10 off its most common value/);
    const spreadOut = ok(analyzeRetrievalReport(multiModeReport({ dense: spread(30, 4) }, (i) => ({ 'qpp.nqc.dense': (i * 7) % 11 })), FAST));
    expect(spreadOut.h1[0]!.note).toBeNull();
  });

  it('fewer than 3 pairs: null with a note; a missing mode: the predictor left out with a warning', () => {
    const r = ok(analyzeRetrievalReport(multiModeReport({ sparse: [0.1, 0.5], rrf: [0.2, 0.3] }, (i) => ({ 'qpp.wig.sparse': i, 'qpp.nqc.dense': i, 'qpp.alpha.fusion.cdf': i })), FAST));
    expect(r.h1).toHaveLength(1);
    expect(r.h1[0]!.pearson_r).toBeNull();
    expect(r.h1[0]!.note).toMatch(/only 2 queries .*at least 3/);
    const w = r.warnings.join('\n');
    expect(w).toMatch(/Mode dense is not in the report: qpp\.nqc\.dense left out of H1/);
    expect(w).toMatch(/Mode hybrid_calibrated is not in the report: qpp\.alpha\.fusion\.cdf/);
  });
});

describe('analyzeRetrievalReport: warnings and refusals', () => {
  it('5 queries: a warning that the intervals are wide', () => {
    const a = ok(analyzeRetrievalReport(multiModeReport({ sparse: spread(5, 1), dense: spread(5, 2) }, (i) => ({ 'qpp.wig.sparse': i })), FAST));
    expect(a.queries).toBe(5);
    expect(a.warnings.join('\n')).toMatch(/Only 5 queries with ndcg@10: intervals are wide/);
    expect(a.h1[0]!.note).toMatch(/5 queries: the interval is wide/);
    const big = ok(analyzeRetrievalReport(multiModeReport({ sparse: spread(12, 1), dense: spread(12, 2) }, (i) => ({ 'qpp.wig.sparse': i })), FAST));
    expect(big.warnings.join('\n')).not.toMatch(/intervals are wide/);
  });

  it('an old single-mode report: its evaluator is the mode; no predictors and no H2 are said', () => {
    const a = ok(analyzeRetrievalReport(singleModeReport('sparse', spread(12, 3)), FAST));
    expect(a.modes).toEqual(['sparse']);
    expect(a.queries).toBe(12);
    expect(a.h1).toEqual([]);
    expect(a.h2).toEqual([]);
    const w = a.warnings.join('\n');
    expect(w).toMatch(/made before predictors were recorded, so H1 needs a run of this version/);
    expect(w).toMatch(/One mode \(sparse\): no pair of modes to compare, so no H2/);
  });

  it('rows that repeat a (mode, query): the first is used and a warning counts the rest', () => {
    const base = multiModeReport({ sparse: spread(12, 3), dense: spread(12, 4) });
    const same: Report = { ...base, rows: base.rows.map((r) => ({ ...r, key: `${r.group}:q-same` })) };
    const a = ok(analyzeRetrievalReport(same, FAST));
    expect(a.queries).toBe(1);
    expect(a.warnings.join('\n')).toMatch(/22 of 24 rows repeat a \(mode, query\) an earlier row already holds: only the first of each was used, so the analysis rests on 1 query\./);
    expect(ok(analyzeRetrievalReport(base, FAST)).warnings.join('\n')).not.toMatch(/repeat a \(mode, query\)/);
  });

  it("rag-lab analyze's first line: singular for one query and one mode, the report's generated title", () => {
    const one = singleModeReport('sparse', [0.5]);
    const head = analysisText(ok(analyzeRetrievalReport(one, FAST)), one)[0]!;
    expect(head).toBe(`Analysis of "${generatedTitle(one)}": retrieval on ${one.data.dataset}, 1 query with ndcg@10; mode sparse`);
    const two = multiModeReport({ sparse: spread(3, 1), dense: spread(3, 2) });
    expect(analysisText(ok(analyzeRetrievalReport(two, FAST)), two)[0]).toMatch(/, 3 queries with ndcg@10; modes sparse, dense$/);
  });

  it('modes that could not run (summary.extra.skipped_modes) are listed with their reasons', () => {
    const a = ok(analyzeRetrievalReport(multiModeReport({ sparse: spread(12, 3), dense: spread(12, 4) }, () => ({}), { extra: { skipped_modes: { hybrid_fixed_rerank: 'no reranker loaded' } } }), FAST));
    expect(a.warnings.join('\n')).toMatch(/could not run.*hybrid_fixed_rerank \(no reranker loaded\)/);
    expect(a.modes).toEqual(['sparse', 'dense']);
  });

  it('refuses another kind, an unknown metric; takes --metric and the report seed', () => {
    const v = analyzeRetrievalReport(testReport([validateRow(0, 0.5, true)]));
    expect(v).toEqual({ ok: false, message: expect.stringMatching(/ragbench-validate report: .*reads retrieval reports/) });
    const m = analyzeRetrievalReport(multiModeReport({ sparse: [0.1, 0.2, 0.3] }), { metric: 'ndcg@5' });
    expect(m).toEqual({ ok: false, message: expect.stringMatching(/No row of this report has a number for ndcg@5 \(its metrics: ndcg@10, mrr@10/) });
    const mrr = ok(analyzeRetrievalReport(multiModeReport({ sparse: [0.1, 0.2, 0.3], dense: [0.3, 0.2, 0.1] }, () => ({}), { seed: 42 }), { ...FAST, metric: 'mrr@10' }));
    expect(mrr.h2[0]!.metric).toBe('mrr@10');
    expect(mrr.h2[0]!.delta).toBe(0);
    expect(mrr.settings).toEqual({ iterations: 2000, permutations: 2000, seed: 42, source: { iterations: 'option', permutations: 'option' } });
  });
});

describe('analysisJson', () => {
  it('has exactly the issue\'s keys, in its order', () => {
    const x = spread(15, 2);
    const a = ok(analyzeRetrievalReport(multiModeReport({ sparse: x, dense: spread(15, 3) }, (i) => ({ 'qpp.entropy.sparse.raw': x[i]!, 'qpp.clarity.dense': 1 })), FAST));
    const j = JSON.parse(JSON.stringify(analysisJson(a)));
    expect(Object.keys(j)).toEqual(['queries', 'h1', 'h2', 'verdicts']);
    expect(j.verdicts).toEqual(JSON.parse(JSON.stringify(hypothesisVerdicts(a))));
    expect(Object.keys(j.verdicts.h1)).toEqual(['verdict', 'hypothesis', 'reason', 'retrievers']);
    expect(j.verdicts.h2).toMatchObject({ verdict: 'n/a', reason: 'modes hybrid_calibrated, hybrid_fixed, rrf are not in the report' });
    expect(j.queries).toBe(15);
    expect(j.h1).toHaveLength(2);
    for (const r of j.h1) expect(Object.keys(r)).toEqual(['predictor', 'retriever', 'calibration', 'pearson_r', 'p_value', 'spearman', 'kendall', 'ci95']);
    expect(j.h1[0]).toMatchObject({ predictor: 'entropy', retriever: 'sparse', calibration: 'raw' });
    expect(j.h1[1]).toMatchObject({ predictor: 'clarity', retriever: 'dense', calibration: null, pearson_r: null, ci95: null });
    expect(j.h2).toHaveLength(1);
    expect(Object.keys(j.h2[0])).toEqual(['a', 'b', 'metric', 'delta', 'ci95', 'p_value', 'wins', 'ties', 'losses']);
    expect(j.h2[0]).toMatchObject({ a: 'sparse', b: 'dense', metric: 'ndcg@10' });
  });
});

describe('draws from the report\'s config.resamples', () => {
  const base = multiModeReport({ sparse: spread(12, 1), dense: spread(12, 2) });
  const withResamples = (resamples: unknown): Report => ({ ...base, config: { ...base.config, resamples: resamples as number } });

  it('an integer from 100 to 100,000 sets both defaults; an explicit option wins for its kind', () => {
    const a = ok(analyzeRetrievalReport(withResamples(1000)));
    expect(a.settings).toMatchObject({ iterations: 1000, permutations: 1000, source: { iterations: 'report', permutations: 'report' } });
    const b = ok(analyzeRetrievalReport(withResamples(100_000), { iterations: 500 }));
    expect(b.settings).toMatchObject({ iterations: 500, permutations: 100_000, source: { iterations: 'option', permutations: 'report' } });
    expect(drawsSourceText(a.settings)).toBe("draws: the report's config.resamples");
    expect(drawsSourceText(b.settings, { iterations: '--iterations', permutations: '--permutations' })).toBe("resamples: --iterations, permutations: the report's config.resamples");
    // The numbers are those of 1,000 draws asked for, not of the default 10,000.
    expect(a.h2).toEqual(ok(analyzeRetrievalReport(base, { iterations: 1000, permutations: 1000 })).h2);
    expect(a.h2).not.toEqual(ok(analyzeRetrievalReport(base)).h2);
    expect(a.warnings.join('\n')).not.toMatch(/resamples/);
  });

  it('absent: the defaults (10,000); out of range, fractional or not a number: the defaults with a warning', () => {
    const d = ok(analyzeRetrievalReport(base));
    expect(d.settings).toMatchObject({ iterations: 10_000, permutations: 10_000, source: { iterations: 'default', permutations: 'default' } });
    expect(drawsSourceText(d.settings)).toBe('draws: the default');
    for (const [bad, shown] of [[99, '99'], [100_001, '100001'], [1000.5, '1000.5'], ['1000', '"1000"']] as const) {
      const a = ok(analyzeRetrievalReport(withResamples(bad), { iterations: 200 }));
      expect(a.settings, String(bad)).toMatchObject({ iterations: 200, permutations: 10_000, source: { iterations: 'option', permutations: 'default' } });
      expect(a.warnings).toContain(`The report's config.resamples is ${shown}, not an integer from 100 to 100,000: the default draws are used.`);
    }
    const both = ok(analyzeRetrievalReport(withResamples(5), FAST));
    expect(both.warnings.join('\n')).not.toMatch(/config\.resamples/);
  });
});
