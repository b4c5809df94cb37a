import { describe, expect, it } from 'vitest';
import { compareReports } from '../../src/lib/reports/compare.ts';
import { reportMeta } from '../../src/lib/reports/meta.ts';
import { compareChart } from '../../src/ui/compare/compare-chart.ts';
import { compareModes, metricRowLabel, questionMetrics, questionRows, rowKeyOf, rowNoun, whyNotPickable } from '../../src/ui/compare/compare-view.ts';
import { multiModeReport, singleModeReport, spread } from '../helpers/retrieval-reports.ts';
import { syntheticReport } from '../helpers/synthetic-reports.ts';

const a = syntheticReport({ id: 'report-a', rows: 40, noise: 0.1, seed: 1, title: 'A' });
const b = syntheticReport({ id: 'report-b', rows: 40, noise: 0.4, seed: 2, title: 'B' });
const res = compareReports([a, b], { iterations: 200, permutations: 200 });
if (!res.ok) throw new Error(res.message);

describe('compare view helpers', () => {
  it('whyNotPickable: another kind or dataset is refused with the reason', () => {
    const ma = reportMeta(a, 'import');
    const retrieval = reportMeta({ ...b, kind: 'retrieval' }, 'import');
    const other = reportMeta({ ...b, data: { ...b.data, dataset: 'x/y' } }, 'import');
    expect(whyNotPickable(retrieval, [])).toBeNull();
    expect(whyNotPickable(retrieval, [ma])).toMatch(/a retrieval report: the picked ones are ragbench-validate/);
    expect(whyNotPickable(other, [ma])).toMatch(/on x\/y: the picked ones are on rungalileo\/ragbench/);
    expect(whyNotPickable(reportMeta(b, 'import'), [ma])).toBeNull();
  });

  it('questionRows: Δ = perRow(report) − perRow(baseline), sorted, flipped filter', () => {
    const desc = questionRows(res, { metric: 'rmse_relevance', against: 'report-b', order: 'desc', flippedOnly: false });
    expect(desc).toHaveLength(40);
    for (const r of desc) {
      const pa = r.q.byReport['report-a']!.perRow['rmse_relevance']!, pb = r.q.byReport['report-b']!.perRow['rmse_relevance']!;
      expect(r.sortDelta).toBeCloseTo(pb - pa, 12);
    }
    const ds = desc.map((r) => r.sortDelta!);
    expect(ds).toEqual([...ds].sort((x, y) => y - x));
    const asc = questionRows(res, { metric: 'rmse_relevance', against: 'report-b', order: 'asc', flippedOnly: false }).map((r) => r.sortDelta!);
    expect(asc).toEqual([...ds].reverse().sort((x, y) => x - y));
    const flipped = questionRows(res, { metric: 'auroc', against: 'report-b', order: 'desc', flippedOnly: true });
    expect(flipped.length).toBe(res.questions.filter((q) => q.flipped).length);
    expect(flipped.every((r) => r.q.flipped)).toBe(true);
  });

  it('compareChart: one bar trace per report, whiskers from the intervals', () => {
    const { traces } = compareChart(res);
    expect(traces.map((t) => t.name)).toEqual(['A (baseline)', 'B']);
    const m = res.metrics[1]!;
    const c = m.cells[1]!;
    expect(traces[1]!.y[1]).toBe(c.value);
    expect(traces[1]!.error_y.array[1]).toBeCloseTo(c.ci![1] - c.value!, 12);
    expect(traces[1]!.error_y.arrayminus[1]).toBeCloseTo(c.value! - c.ci![0], 12);
  });

  it('multi-mode retrieval reports: a row is a question in one mode; the mode picker keeps one mode; metrics named by mode', () => {
    const x = multiModeReport({ sparse: spread(12, 1), dense: spread(12, 2) });
    const y = { ...multiModeReport({ sparse: spread(12, 3), dense: spread(12, 4) }), id: 'other-report' };
    const r = compareReports([x, y], { iterations: 50, permutations: 50 });
    if (!r.ok) throw new Error(r.message);
    expect(compareModes(r)).toEqual(['sparse', 'dense']);
    expect(questionMetrics(r).map((m) => m.id)).toEqual(['ndcg@10', 'mrr@10', 'r@5', 'r@100', 'p@3', 'p@5']);
    expect(metricRowLabel(r.metrics.find((m) => m.pipeline === 'dense' && m.id === 'ndcg@10')!)).toBe('dense · nDCG@10');
    const all = questionRows(r, { metric: 'ndcg@10', against: 'other-report', order: 'desc', flippedOnly: false });
    expect(all).toHaveLength(24);
    const dense = questionRows(r, { metric: 'ndcg@10', against: 'other-report', order: 'desc', flippedOnly: false, mode: 'dense' });
    expect(dense).toHaveLength(12);
    expect(dense.every((q) => q.q.pipeline === 'dense')).toBe(true);
    // Each row's Δ pairs the same mode and query: y's dense q_i − x's dense q_i.
    for (const q of dense) {
      const i = Number(q.q.key.slice('dense:q'.length));
      expect(q.sortDelta).toBeCloseTo(spread(12, 4)[i]! - spread(12, 2)[i]!, 12);
    }
    const old = singleModeReport('dense', spread(12, 2), { id: 'old-dense' });
    const mixed = compareReports([old, y], { iterations: 50, permutations: 50 });
    if (!mixed.ok) throw new Error(mixed.message);
    expect(rowKeyOf(mixed.questions[0]!, 'old-dense')).toBe('q0');
    expect(rowKeyOf(mixed.questions[0]!, 'other-report')).toBe('dense:q0');
    expect(compareModes(res)).toEqual([]);
    const { traces } = compareChart(r);
    expect(traces[0]!.x[0]).toBe('sparse · nDCG@10');
  });
});

describe('what a compared row is called', () => {
  it('is a trial in tune reports (a setting both tunes tried), a question elsewhere', () => {
    expect(rowNoun({ kind: 'tune' })).toEqual({ one: 'trial', many: 'trials' });
    expect(rowNoun({ kind: 'retrieval' })).toEqual({ one: 'question', many: 'questions' });
  });
});
