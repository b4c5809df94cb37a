/** A report's charts against its table (src/ui/reports/chart-check.ts), on a full report and on its share-link summary. */
import { describe, expect, test } from 'vitest';
import { summaryAt, SHARE_STEPS } from '../../src/lib/reports/share-summary.ts';
import { chartTableMismatches, reportChartSpecs } from '../../src/ui/reports/chart-check.ts';
import { rocChart, withheldChartNote } from '../../src/ui/reports/report-charts.ts';
import { fmt, summaryTable } from '../../src/ui/reports/report-view.ts';
import { validateReport } from '../helpers/share-reports.ts';

const full = validateReport({ subsets: ['covidqa', 'hotpotqa'], perSubset: 166, contexts: 0, answerWords: 10 });
const shared = summaryAt(full, SHARE_STEPS[0]!);

describe('charts agree with the table', () => {
  test('a full 332-row report: the means and the ROC are the table\'s figures', () => {
    expect(full.rows).toHaveLength(332);
    const specs = reportChartSpecs(full);
    expect(specs.roc).not.toBeNull();
    expect(chartTableMismatches(full, specs)).toEqual([]);
  });

  test('a link\'s summary (20 of 332 rows): no chart drawn from the rows, the means still agree, the note has the full AUROC', () => {
    expect(shared.rows).toHaveLength(20);
    const specs = reportChartSpecs(shared);
    expect(specs.roc).toBeNull();
    expect(specs.scatter).toBeNull();
    expect(specs.means).not.toBeNull();
    expect(chartTableMismatches(shared, specs)).toEqual([]);
    const t = summaryTable(shared);
    const auroc = fmt(t.rows[t.rows.length - 1]!.cells['auroc']!.value, 3);
    expect(withheldChartNote(shared, 'roc')).toMatch(new RegExp(`^ROC needs all rows: open the full report \\(this summary carries 20 of 332 rows.*over all 332 rows: RAG Lab ${auroc} \\[`));
    expect(withheldChartNote(shared, 'scatter')).toMatch(/^Predicted vs gold needs all rows/);
    expect(withheldChartNote(full, 'roc')).toBeNull();
  });

  test('the check finds a contradiction: an ROC drawn from the 20 worst rows names another AUROC than the table', () => {
    const fromRows = rocChart({ ...shared, truncated: undefined })!;
    const found = chartTableMismatches(shared, { ...reportChartSpecs(shared), roc: fromRows });
    expect(found.some((m) => m.startsWith("roc: RAG Lab's AUROC is"))).toBe(true);
    expect(found).toContain('roc: drawn from 20 of 332 rows');
    const bad = reportChartSpecs(full);
    bad.means!.traces[0]!.y[0] = 0.123456;
    expect(chartTableMismatches(full, bad).some((m) => m.startsWith('means: covidqa'))).toBe(true);
  });
});
