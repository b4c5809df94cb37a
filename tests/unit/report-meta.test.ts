/** List entries of reports: the headline figures, their schema check, and which drafts a new draft prunes. */
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { draftsToPrune, reportMeta, ReportMetaSchema } from '../../src/lib/reports/meta.ts';
import type { ReportMeta } from '../../src/lib/reports/store-types.ts';
import { testReport, validateRow } from '../helpers/reports.ts';

const meta = (id: string, draft: boolean, savedAt: string): ReportMeta => ({
  id, kind: 'retrieval', title: '', notes: '', createdAt: '2026-01-01T00:00:00Z', savedAt, draft, dataset: 'd', evaluator: 'bm25', n: 1, headline: [], origin: 'run',
});

describe('report list entries', () => {
  it('carry the pooled figures only, and pass their own schema', () => {
    const rows = [...Array.from({ length: 12 }, (_, i) => validateRow(i, 0.9, true, 'a')), ...Array.from({ length: 12 }, (_, i) => validateRow(i, 0.1, false, 'b'))];
    const r = testReport(rows, { id: 'report-meta1' });
    const m = reportMeta(r, 'cli', '2026-02-02T00:00:00.000Z');
    expect(m.headline.map((h) => h.id)).toEqual(['auroc', 'rmse_relevance', 'rmse_utilization', 'rmse_completeness']);
    expect(m.headline[0]!.value).toBe(1);
    expect(m).toMatchObject({ n: 24, origin: 'cli', savedAt: '2026-02-02T00:00:00.000Z', id: 'report-meta1' });
    expect(v.safeParse(ReportMetaSchema, m).success).toBe(true);
    expect(v.safeParse(ReportMetaSchema, { ...m, headline: [{ id: 'x', value: Infinity, ci: null }] }).success).toBe(false);
    expect(reportMeta({ ...r, truncated: { rows: 3000 } }, 'shared').n).toBe(3000);
  });

  it('a new draft prunes the drafts beyond the newest `max`, never a kept report', () => {
    const list = [meta('k1', false, '2026-01-01'), meta('d1', true, '2026-01-05'), meta('d2', true, '2026-01-03'), meta('d3', true, '2026-01-04'), meta('k2', false, '2026-01-02')];
    expect(draftsToPrune(list, 2).map((m) => m.id)).toEqual(['d2']);
    expect(draftsToPrune(list, 1).map((m) => m.id)).toEqual(['d3', 'd2']);
    expect(draftsToPrune(list, 3)).toEqual([]);
  });
});
