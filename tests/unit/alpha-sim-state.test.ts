import { describe, expect, test } from 'vitest';
import type { FusionCandidates } from '../../src/lib/eval/alpha-sim.ts';
import { barPercent, clampAlpha, filterQueries, goldRankText, H_MAX, H_START, reportQueries, simulationAlpha } from '../../src/ui/alpha-sim-view.ts';

const queries = [
  { id: 'q1', text: 'Vitamin D deficiency and bone loss' },
  { id: 'q2', text: 'Aspirin lowers the risk of stroke' },
  { id: 'q13', text: 'vitamin C and colds' },
];

const ent = (alpha: number) => ({ sparse: 3, dense: 2, alpha });
const cands = (over: Partial<FusionCandidates['entropy']> = {}): FusionCandidates => ({
  queryId: 'q1', query: 'x', candidates: [], gold: {}, candidateK: 100, modeAlpha: 0.1, calibration: 'raw', basis: 'raw',
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
