import { describe, expect, it } from 'vitest';
import { compareReports } from '../../src/lib/reports/compare.ts';
import { reportMeta } from '../../src/lib/reports/meta.ts';
import { compareChart } from '../../src/ui/compare-chart.ts';
import { questionRows, whyNotPickable } from '../../src/ui/compare-view.ts';
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
});
