import { describe, expect, test } from 'vitest';
import { sliderWeights, type FusionCandidates } from '../../src/lib/retrieval/alpha-sim.ts';
import { barPercent, candidateDepths, clampAlpha, clampH, filterQueries, goldRankText, H_MAX, H_START, percentText, REPORT_RANGE, reportQueries, searchSimSetup, simulationAlpha, sliderRange, startCaption, stateLine } from '../../src/ui/search/alpha-sim-view.ts';

const queries = [
  { id: 'q1', text: 'Vitamin D deficiency and bone loss' },
  { id: 'q2', text: 'Aspirin lowers the risk of stroke' },
  { id: 'q13', text: 'vitamin C and colds' },
];

const ent = (alpha: number) => ({ sparse: 3, dense: 2, alpha });
const cands = (over: Partial<FusionCandidates['entropy']> = {}): FusionCandidates => ({
  queryId: 'q1', query: 'x', candidates: [], gold: {}, candidateK: 100, k: { sparse: 100, dense: 100 }, modeAlpha: 0.1, calibration: 'raw', basis: 'raw',
  entropy: { raw: ent(0.1), minmax: ent(0.2), zscore: ent(0.3), cdf: ent(0.4), ...over },
});

describe('the query picker', () => {
  test('every word must match the id or the text, case-insensitive, in the run order', () => {
    expect(filterQueries(queries, '').total).toBe(3);
    expect(filterQueries(queries, 'vitamin').shown.map((q) => q.id)).toEqual(['q1', 'q13']);
    expect(filterQueries(queries, 'VITAMIN bone').shown.map((q) => q.id)).toEqual(['q1']);
    expect(filterQueries(queries, 'q1').shown.map((q) => q.id)).toEqual(['q1', 'q13']);
    expect(filterQueries(queries, 'zebra')).toEqual({ shown: [], total: 0 });
  });

  test('at most `limit` shown, every match counted', () => {
    const r = filterQueries(queries, '', 2);
    expect(r.shown.map((q) => q.id)).toEqual(['q1', 'q2']);
    expect(r.total).toBe(3);
  });

  test("a report's queries: once each from multi-mode keys, the key itself in an old single-mode report", () => {
    const rows = [
      { key: 'sparse:q1', group: 'sparse', question: 'one' },
      { key: 'sparse:q:2', group: 'sparse', question: 'two' },
      { key: 'dense:q1', group: 'dense', question: 'one' },
      { key: 'q9', group: 'scifact', question: 'nine' },
    ];
    expect(reportQueries(rows)).toEqual([{ id: 'q1', text: 'one' }, { id: 'q:2', text: 'two' }, { id: 'q9', text: 'nine' }]);
  });
});

describe('which α the simulation runs at', () => {
  test("the query's own α under the calibration until the user drags", () => {
    expect(simulationAlpha(cands(), 'cdf', null)).toBe(0.4);
    expect(simulationAlpha(cands(), 'raw', null)).toBe(0.1);
    expect(simulationAlpha(cands(), 'cdf', 0.75)).toBe(0.75);
    expect(simulationAlpha(cands(), 'cdf', 0)).toBe(0);
  });

  test('½ without candidates or without a finite own α', () => {
    expect(simulationAlpha(null, 'cdf', null)).toBe(0.5);
    expect(simulationAlpha(cands({ cdf: ent(Number.NaN) }), 'cdf', null)).toBe(0.5);
  });

  test('typed α is kept in [0, 1]; not a number is refused', () => {
    expect(clampAlpha(0.3)).toBe(0.3);
    expect(clampAlpha(-1)).toBe(0);
    expect(clampAlpha(2)).toBe(1);
    expect(clampAlpha(Number.NaN)).toBeNull();
  });
});

test('text and bars', () => {
  expect(H_MAX).toBeCloseTo(6.643856, 6);
  expect(H_START).toBe(3.32);
  expect(goldRankText(3)).toBe('rank 3');
  expect(goldRankText(null)).toBe('not in the candidates');
  expect(barPercent(0.4321)).toBe(43.2);
  expect(barPercent(1.2)).toBe(100);
  expect(barPercent(-0.1)).toBe(0);
});

describe("seed B's simulator in the Search tab", () => {
  test('the range is 0 … log2 k on a 0.05 step; the default 4.20 unless log2 k is below it, then the top step', () => {
    const r20 = sliderRange(20);
    expect(r20.max).toBeCloseTo(4.321928, 6);
    expect(r20.step).toBe(0.05);
    expect(r20.start).toBe(4.2);
    expect(r20.caption).toContain('log2(20) ≈ 4.32');
    expect(startCaption(r20, { hDense: 4.2, hSparse: 4.2 }, false)).toBe("Both start at seed B's default 4.20.");
    // log2 19 = 4.248: 4.20 is still a step below the top.
    expect(sliderRange(19).start).toBe(4.2);
    // log2 18 = 4.170 < 4.20: the top step, 4.15, said in the caption.
    const r18 = sliderRange(18);
    expect(r18.start).toBe(4.15);
    expect(startCaption(r18, { hDense: r18.start, hSparse: r18.start }, false)).toMatch(/start at 4\.15, the top of the range: seed B's default 4\.20 is above log2 k ≈ 4\.17/);
    // log2 10 = 3.322 → 3.30; log2 1 = 0.
    expect(sliderRange(10).start).toBe(3.3);
    expect(sliderRange(1)).toMatchObject({ max: 0, start: 0 });
    expect(sliderRange(100).max).toBeCloseTo(6.643856, 6);
    // Not a whole number ≥ 1: the default candidate_k, 20.
    for (const bad of [0, -3, 2.5, Number.NaN, Infinity]) expect(sliderRange(bad).max, String(bad)).toBe(r20.max);
  });

  test('the start caption says the values the sliders show: a query seeded at log2(20) is not "seed B\'s default 4.20"', () => {
    const r20 = sliderRange(20);
    // the query: H 4.322 · 4.322, clamped to log2 20 = 4.3219, shown as 4.32
    const h = clampH(4.3219, r20.max)!;
    const seeded = startCaption(r20, { hDense: h, hSparse: h }, true);
    expect(seeded).toBe("Both start at this query's entropy, 4.32 bits (the range ends at log2 k ≈ 4.32).");
    expect(seeded).not.toContain('4.20');
    expect(startCaption(r20, { hDense: 3.1, hSparse: 2.4 }, true)).toBe("They start at this query's entropies: H_dense 3.10, H_sparse 2.40 bits.");
    expect(startCaption(REPORT_RANGE, { hDense: H_START, hSparse: H_START }, false)).toBe('Both start at 3.32, half the range.');
    expect(r20.caption).not.toContain('start');
  });

  test('an H value is kept in [0, max]; not a number is refused', () => {
    expect(clampH(5, 4.32)).toBe(4.32);
    expect(clampH(-1, 4.32)).toBe(0);
    expect(clampH(2.5, 4.32)).toBe(2.5);
    expect(clampH(Number.NaN, 4.32)).toBeNull();
  });

  test('the state line: balanced within 0.05 of ½, leaning past it, strongly from 0.75 / 0.25', () => {
    expect(stateLine(0.5).label).toBe('Balanced confidence');
    expect(stateLine(0.5).text).toBe('equal weighting between lexical keywords and vector semantics.');
    expect(stateLine(0.549).label).toBe('Balanced confidence');
    expect(stateLine(0.451).label).toBe('Balanced confidence');
    expect(stateLine(0.56)).toEqual({ label: 'BM25-leaning', text: 'dense retrieval is the more uncertain one, so lexical keywords get more weight.' });
    expect(stateLine(0.74).label).toBe('BM25-leaning');
    expect(stateLine(0.75).label).toBe('Strongly BM25-leaning');
    expect(stateLine(1).label).toBe('Strongly BM25-leaning');
    expect(stateLine(0.44)).toEqual({ label: 'Dense-leaning', text: 'BM25 is the more uncertain one, so vector semantics get more weight.' });
    expect(stateLine(0.26).label).toBe('Dense-leaning');
    expect(stateLine(0.25).label).toBe('Strongly dense-leaning');
    expect(stateLine(0).label).toBe('Strongly dense-leaning');
    expect(stateLine(Number.NaN).label).toBe('No α');
    // Seed B's defaults: H_dense = H_sparse = 4.20 → α = 4.2 / (8.4 + ε) ≈ 0.5, balanced, 50.0% each.
    const w = sliderWeights(4.2, 4.2);
    expect(stateLine(w.alpha).label).toBe('Balanced confidence');
    expect([percentText(w.sparse), percentText(w.dense)]).toEqual(['50.0%', '50.0%']);
    // H_dense = 3, H_sparse = 1: α = 3 / 4 = 0.75 (up to ε), just under: BM25-leaning at 75.0%.
    const w2 = sliderWeights(3, 1);
    expect(stateLine(w2.alpha).label).toBe('BM25-leaning');
    expect(percentText(w2.sparse)).toBe('75.0%');
    expect(percentText(w2.dense)).toBe('25.0%');
    expect(percentText(1.5)).toBe('100.0%');
  });

  test('the setup from a search: range of its candidate_k, seeded with its H values, live only for a fused search with dense available', () => {
    const req = { query: 'war on poverty', mode: 'hybrid_calibrated' as const, candidateK: 50, calibration: 'cdf' as const, filters: [] };
    const t = { hDense: 3.1, hSparse: 2.4 };
    const s = searchSimSetup(req, t, 20, true, 'sotu');
    expect(s.range.max).toBeCloseTo(Math.log2(50), 9);
    expect(s.seed).toEqual({ hDense: 3.1, hSparse: 2.4 });
    expect(s.live).toMatchObject({ query: 'war on poverty', candidateK: 50, calibration: 'cdf', rerank: false, filtered: false, filters: [] });
    // The search's filters go to the re-fusion, and another filter is another key (the candidates load again).
    const year = [{ field: 'year', min: 1900, max: 1950 }];
    const filtered = searchSimSetup({ ...req, mode: 'hybrid_calibrated_rerank', filters: year }, t, 20, true, 'sotu').live!;
    expect(filtered).toMatchObject({ rerank: true, filtered: true, filters: year });
    expect(filtered.key).not.toBe(searchSimSetup({ ...req, mode: 'hybrid_calibrated_rerank', filters: [{ field: 'year', min: 1900, max: 1960 }] }, t, 20, true, 'sotu').live!.key);
    // Another knowledge base or another candidate_k is another key (the simulator loads again).
    expect(searchSimSetup(req, t, 20, true, 'other').live!.key).not.toBe(s.live!.key);
    expect(searchSimSetup({ ...req, candidateK: 40 }, t, 20, true, 'sotu').live!.key).not.toBe(s.live!.key);
    // bm25_k / dense_k: the deeper list's range, another key, and both sent to the re-fusion.
    const split = searchSimSetup({ ...req, bm25K: 10, denseK: 80 }, t, 20, true, 'sotu');
    expect(split.range.max).toBeCloseTo(Math.log2(80), 9);
    expect(split.live).toMatchObject({ bm25K: 10, denseK: 80 });
    expect(split.live!.key).not.toBe(s.live!.key);
    expect(candidateDepths({ sparse: 20, dense: 20 })).toBe("each retriever's top 20");
    expect(candidateDepths({ sparse: 10, dense: 80 })).toBe("BM25's top 10 and the dense index's top 80");
    // No dense side, a one-retriever mode, or an empty query: sliders only.
    expect(searchSimSetup(req, t, 20, false, 'sotu').live).toBeNull();
    expect(searchSimSetup({ ...req, mode: 'dense' }, t, 20, true, 'sotu').live).toBeNull();
    expect(searchSimSetup({ ...req, mode: 'sparse' }, null, 20, true, 'sotu').live).toBeNull();
    expect(searchSimSetup({ ...req, query: '  ' }, t, 20, true, 'sotu').live).toBeNull();
    // A mode without entropies (rrf: H null) starts at the defaults but still re-fuses.
    const rrf = searchSimSetup({ ...req, mode: 'rrf' }, { hDense: null, hSparse: 1 }, 20, true, 'sotu');
    expect(rrf.seed).toBeNull();
    expect(rrf.live).not.toBeNull();
    // No search yet: the typed candidate_k, the defaults, nothing to re-fuse.
    const none = searchSimSetup(null, null, 20, true, 'sotu');
    expect(none).toMatchObject({ seed: null, live: null });
    expect(none.range.start).toBe(4.2);
  });
});
