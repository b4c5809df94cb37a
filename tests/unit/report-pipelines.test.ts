/**
 * Every headline describes one pipeline (issue 32): a multi-mode retrieval report's figures are per mode wherever
 * they are shown — the summary it is built with, the Reports list entry (and the store's upgrade of older entries),
 * the Hub index, the Markdown and CSV exports, the share summary, the report view's summary and header — and the
 * mean over every mode's rows appears nowhere. Reports saved by older versions (which carry the pooled figure) open
 * the same way.
 *
 * Hand-computed: sparse nDCG@10 = (1 + 0.5 + 0.25 + 0.25) / 4 = 0.5, dense = (0.25 + 0.5 + 0.75 + 0) / 4 = 0.375;
 * the pooled mean (2 + 1.5) / 8 = 0.4375 must not appear.
 */
import { describe, expect, it } from 'vitest';
import type { Report } from '../../src/lib/reports/format.ts';
import { reportCsv, reportMarkdown } from '../../src/lib/reports/export.ts';
import { entryOf } from '../../src/lib/reports/hub-layout.ts';
import { headlineByPipeline, reportMeta } from '../../src/lib/reports/meta.ts';
import { pairKey, reportFigures, rowPipeline } from '../../src/lib/reports/pipelines.ts';
import { shareSummary, summaryAt, SHARE_STEPS } from '../../src/lib/reports/share-summary.ts';
import { readShareFragment } from '../../src/lib/reports/share-link.ts';
import { countText, headlineText } from '../../src/ui/reports/report-format.ts';
import { reportHeader, summaryTable, warningLines } from '../../src/ui/reports/report-view.ts';
import { multiModeReport, singleModeReport } from '../helpers/retrieval-reports.ts';
import { testReport, validateRow } from '../helpers/reports.ts';

const SPARSE = [1, 0.5, 0.25, 0.25];
const DENSE = [0.25, 0.5, 0.75, 0];
const MEAN = { sparse: 0.5, dense: 0.375 };
const POOLED = 0.4375;

/** A report as this version builds it. */
const fresh = (): Report => multiModeReport({ sparse: SPARSE, dense: DENSE });

/** The same run as an older version saved it: evaluator "modes" and pooled (group null) figures and warnings in the summary. */
function older(): Report {
  const r = fresh();
  const pooled = r.summary.metrics.filter((m) => m.group === 'sparse').map((m) => ({ ...m, group: null, n: 8, value: m.id === 'ndcg@10' ? POOLED : m.value, ci: m.id === 'ndcg@10' ? [0.3, 0.55] as [number, number] : m.ci }));
  return {
    ...r, evaluator: 'modes',
    summary: { ...r.summary, metrics: [...pooled, ...r.summary.metrics], warnings: [{ group: null, message: 'nDCG@10 from 8 scored rows: not meaningful (fewer than 10)' }, ...r.summary.warnings] },
  };
}

const ndcgOf = (figures: ReadonlyArray<{ id: string; value: number | null }>) => figures.find((f) => f.id === 'ndcg@10')?.value;

describe('the figures of a report, per pipeline (pipelines.ts)', () => {
  it('a new multi-mode report is built with per-mode figures only: no pooled figure, no pooled warning', () => {
    const r = fresh();
    expect(r.summary.metrics.filter((m) => m.group === null)).toEqual([]);
    expect(r.summary.warnings.filter((w) => w.group === null)).toEqual([]);
    const figures = reportFigures(r);
    expect(figures.map((p) => p.pipeline)).toEqual(['sparse', 'dense']);
    expect(ndcgOf(figures[0]!.figures)).toBeCloseTo(MEAN.sparse, 12);
    expect(ndcgOf(figures[1]!.figures)).toBeCloseTo(MEAN.dense, 12);
  });

  it('an older report: its pooled figures are never a pipeline\'s; an old single-mode report is its evaluator\'s; RAGBench is one pipeline', () => {
    expect(reportFigures(older()).map((p) => [p.pipeline, ndcgOf(p.figures)])).toEqual([['sparse', MEAN.sparse], ['dense', MEAN.dense]]);
    const single = singleModeReport('sparse', SPARSE);
    expect(reportFigures(single).map((p) => [p.pipeline, ndcgOf(p.figures)])).toEqual([['sparse', MEAN.sparse]]);
    expect(rowPipeline(single, single.rows[0]!)).toEqual({ pipeline: 'sparse', item: 'q0' });
    expect(pairKey(single, single.rows[0]!)).toBe(fresh().rows[0]!.key);
    const ragbench = testReport([validateRow(0, 0.9, true, 'a'), validateRow(1, 0.1, false, 'b')], { iterations: 0 });
    expect(reportFigures(ragbench).map((p) => [p.pipeline, p.group])).toEqual([[null, null]]);
  });
});

describe('the Reports list and the Hub index: one line per mode', () => {
  it('a list entry names each figure\'s mode; its text is one line per mode with the mode\'s means', () => {
    for (const r of [fresh(), older()]) {
      const m = reportMeta(r, 'run', '2026-12-01T00:00:00.000Z');
      expect(m.headline.every((h) => h.pipeline === 'sparse' || h.pipeline === 'dense')).toBe(true);
      expect(m.headline.map((h) => h.value)).not.toContain(POOLED);
      const lines = headlineText(m);
      expect(lines.map((l) => l.mode)).toEqual(['sparse', 'dense']);
      expect(lines[0]!.figures[0]).toBe('nDCG@10 0.5000');
      expect(lines[1]!.figures[0]).toBe('nDCG@10 0.3750');
      expect(JSON.stringify(lines)).not.toContain('0.4375');
      expect(countText(m)).toBe('N = 8 rows over 2 modes');
    }
    expect(countText(reportMeta(singleModeReport('sparse', SPARSE), 'run'))).toBe('N = 4');
  });

  it('an entry saved by an older version (pooled, no mode) shows no pooled figure; a one-mode or RAGBench entry keeps its figures', () => {
    const stale = { ...reportMeta(older(), 'run'), headline: [{ id: 'ndcg@10', value: POOLED, ci: [0.3, 0.55] as [number, number] }] };
    expect(headlineByPipeline(stale)).toEqual([]);
    const oneMode = { ...stale, evaluator: 'sparse', headline: [{ id: 'ndcg@10', value: 0.5, ci: null }] };
    expect(headlineText(oneMode)).toEqual([{ mode: 'sparse', figures: ['nDCG@10 0.5000'] }]);
    const ragbench = reportMeta(testReport([validateRow(0, 0.9, true), validateRow(1, 0.1, false)], { iterations: 0 }), 'run');
    expect(headlineText(ragbench)).toEqual([{ mode: '', figures: ragbench.headline.map((h) => expect.stringContaining(h.id === 'auroc' ? 'AUROC' : 'RMSE')) }]);
  });

  it('the Hub index entry carries the per-mode figures', () => {
    const e = entryOf(older(), '2026-12-01T00:00:00.000Z');
    expect(e.headline.filter((h) => h.id === 'ndcg@10').map((h) => [h.pipeline, h.value])).toEqual([['sparse', MEAN.sparse], ['dense', MEAN.dense]]);
  });
});

describe('exports of a multi-mode retrieval report', () => {
  it('Markdown: one line per mode with its hand-computed means, and the pooled mean nowhere', () => {
    for (const r of [fresh(), older()]) {
      const md = reportMarkdown(r);
      const lines = md.split('\n');
      const sparse = lines.filter((l) => l.startsWith('| sparse |'));
      const dense = lines.filter((l) => l.startsWith('| dense |'));
      expect(sparse).toHaveLength(1);
      expect(dense).toHaveLength(1);
      // | mode | N | nDCG@10 | MRR@10 | …
      expect(sparse[0]!.split(' | ')[1]).toBe('4');
      expect(sparse[0]!.split(' | ')[2]).toBe(MEAN.sparse.toFixed(4));
      expect(dense[0]!.split(' | ')[2]).toBe(MEAN.dense.toFixed(4));
      expect(md).toMatch(/\| mode \| N \| nDCG@10 \| MRR@10 \|/);
      expect(md).not.toContain(POOLED.toFixed(4));
      expect(md).not.toMatch(/^\| all \|/m);
      expect(md).not.toContain('from 8 scored rows');
    }
  });

  it('CSV: every row names its mode and query id (an old single-mode report: its evaluator)', () => {
    const csv = reportCsv(older()).split('\r\n');
    expect(csv[0]!.startsWith('key,group,mode,query_id,status,question')).toBe(true);
    expect(csv[1]!.startsWith('sparse:q0,sparse,sparse,q0,')).toBe(true);
    expect(csv[5]!.startsWith('dense:q0,dense,dense,q0,')).toBe(true);
    expect(csv.join('\n')).not.toContain(String(POOLED));
    const old = reportCsv(singleModeReport('dense', DENSE)).split('\r\n');
    expect(old[1]!.startsWith('q0,scifact,dense,q0,')).toBe(true);
    // RAGBench CSVs keep their columns.
    expect(reportCsv(testReport([validateRow(0, 0.9, true)], { iterations: 0 })).startsWith('key,group,status,question')).toBe(true);
  });
});

describe('the share summary of a multi-mode retrieval report', () => {
  it('carries the per-mode figures only, and rows of every mode', async () => {
    const r = older();
    const step = SHARE_STEPS.findIndex((s) => s.rows === 5);
    const s = summaryAt(r, SHARE_STEPS[step]!);
    expect(s.summary.metrics.some((m) => m.group === null)).toBe(false);
    expect(s.summary.warnings.some((w) => w.group === null)).toBe(false);
    expect(new Set(s.rows.map((x) => x.group))).toEqual(new Set(['sparse', 'dense']));
    // The worst of each mode first, modes in turn: sparse's 0.25, dense's 0, sparse's other 0.25, dense's 0.25.
    expect(s.rows.slice(0, 4).map((x) => [x.group, x.scores['ndcg@10']])).toEqual([['sparse', 0.25], ['dense', 0], ['sparse', 0.25], ['dense', 0.25]]);
    const link = await shareSummary(r);
    if (!link.ok) throw new Error(link.message);
    const opened = await readShareFragment(`#${link.fragment}`);
    if (opened.kind !== 'inline') throw new Error('expected an inline report');
    const text = JSON.stringify(opened.report.summary);
    expect(text).not.toContain(String(POOLED));
    expect(headlineText(reportMeta(opened.report, 'shared')).map((l) => [l.mode, l.figures[0]])).toEqual([['sparse', 'nDCG@10 0.5000'], ['dense', 'nDCG@10 0.3750']]);
  });
});

describe('the report view (the Reports tab, the Benchmark tab and a shared link)', () => {
  it('the summary table has one row per mode and no pooled row, even for an older report', () => {
    for (const r of [fresh(), older()]) {
      const t = summaryTable(r);
      expect(t.groupLabel).toBe('mode');
      expect(t.rows.map((x) => x.group)).toEqual(['sparse', 'dense']);
      expect(t.rows.map((x) => x.cells['ndcg@10']!.value)).toEqual([MEAN.sparse, MEAN.dense]);
      expect(warningLines(r).some((w) => w.startsWith('nDCG@10 from 8'))).toBe(false);
    }
  });

  it('the header says what a row is: queries × modes, rows per subset; a summary says how many rows it holds', () => {
    expect(reportHeader(fresh()).sample).toBe('all 4 judged queries × 2 modes = 8 rows');
    const withQueries = { ...fresh(), summary: { ...fresh().summary, extra: { queries: 300, modes: [] } } };
    expect(reportHeader({ ...withQueries, rows: withQueries.rows.slice(0, 5), truncated: { rows: 1500 } }).sample).toBe('all 300 judged queries × 2 modes = 1500 rows (5 in this summary)');
    expect(reportHeader({ ...fresh(), n: 50 }).sample).toBe('a sample of 50 queries × 2 modes = 8 rows');
    expect(reportHeader(singleModeReport('sparse', SPARSE)).sample).toBe('all judged queries · 4 rows');
    const ragbench = testReport([validateRow(0, 0.9, true, 'a'), validateRow(1, 0.1, false, 'b')], { iterations: 0, n: 1 });
    expect(reportHeader(ragbench).sample).toBe('1 row per subset (2 subsets) · 2 rows');
    expect(reportHeader({ ...ragbench, n: null }).sample).toBe('all rows of each subset (2 subsets) · 2 rows');
  });
});
