/** The report view's logic (src/ui/reports/report-view.ts) and chart data (src/ui/reports/report-charts.ts) on small hand-checked reports. */
import { describe, expect, it } from 'vitest';
import type { ReportRow } from '../../src/lib/reports/format.ts';
import { meansChart, rocChart, scatterChart, thinIndices } from '../../src/ui/reports/report-charts.ts';
import {
  cellText, defaultSort, fmt, fmtCI, modeLatency, nextSort, reportHeader, rowColumns, rowDetail, sortRows, stagesText, summaryTable, warningLines,
} from '../../src/ui/reports/report-view.ts';
import { testReport, validateRow } from '../helpers/reports.ts';
import { multiModeReport } from '../helpers/retrieval-reports.ts';

/** 12 rows in two subsets: a has 4 hallucinated of 6, b 1 of 6. */
function twoGroups() {
  const rows: ReportRow[] = [];
  for (let i = 0; i < 6; i++) rows.push(validateRow(i, i / 5, i >= 4, 'a'));
  for (let i = 0; i < 6; i++) rows.push(validateRow(10 + i, 1 - i / 10, i !== 0, 'b'));
  return testReport(rows);
}

function pipelineRow(i: number, status: string, recall: number | null): ReportRow {
  return {
    key: `emanual:${i}`, group: 'emanual', question: `q${i}`, answer: status === 'answered' ? `a${i}` : '', status,
    scores: { relevance: 0.5, utilization: 0.5, adherence: status === 'answered' ? 1 : null, completeness: 0.5, recall, relevant_recall: recall },
    gold: { relevance: 0.7 }, retrieved: ['d1', 'd2'],
  };
}

describe('formatting', () => {
  it('shows fixed decimals and N/A for null, NaN and infinities', () => {
    expect(fmt(0.12345)).toBe('0.123');
    expect(fmt(1, 2)).toBe('1.00');
    for (const x of [null, undefined, NaN, Infinity, -Infinity]) expect(fmt(x)).toBe('N/A');
  });
  it('writes intervals as [lo, hi] with one decimal fewer than the figure (at least two), N/A when absent', () => {
    expect(fmtCI([0.1234, 0.9876], 3)).toBe('[0.12, 0.99]');
    expect(fmtCI([0.1234, 0.9876], 4)).toBe('[0.123, 0.988]');
    expect(fmtCI(null)).toBe('N/A');
    expect(fmtCI([NaN, 1])).toBe('N/A');
  });
});

describe('header', () => {
  it('names an untitled report by its generated title and lists the environment with devices and dtypes', () => {
    const r = testReport([validateRow(0, 1, true)], {
      title: '  ', n: 20, seed: 7,
      environment: { app: '0.2.0', runtime: 'browser', agent: 'Chromium', models: [{ task: 'nli', id: 'tiny-nli', dtype: 'q8', device: 'wasm' }], llm: null, judge: { provider: 'groq', model: 'llama' } },
    });
    const h = reportHeader(r);
    expect(h.title).toBe('RAGBench · emanual · lexical · seed 7 · N 20');
    expect(h.n).toBe('20');
    expect(h.seed).toBe(7);
    expect(h.truncated).toBeNull();
    expect(h.environment).toEqual(['RAG Lab 0.2.0 · browser (Chromium)', 'nli: tiny-nli (q8, wasm)', 'judge: groq/llama']);
    expect(h.dataset).toBe('rungalileo/ragbench · emanual · local');
  });
  it('says how many rows a truncated report includes', () => {
    const r = { ...testReport([validateRow(0, 1, true), validateRow(1, 0, false)]), truncated: { rows: 3000 } };
    expect(reportHeader(r).truncated).toBe('2 of 3000 rows included');
  });
});

describe('summary table', () => {
  it('has one row per group then the pooled one, each figure with its interval and n as the report holds them', () => {
    const r = twoGroups();
    const t = summaryTable(r);
    expect(t.columns.map((c) => c.id)).toEqual(['auroc', 'rmse_relevance', 'rmse_utilization', 'rmse_completeness']);
    expect(t.rows.map((x) => [x.label, x.rows, x.counts])).toEqual([['a', 6, [4]], ['b', 6, [1]], ['all', 12, [5]]]);
    for (const row of t.rows) {
      for (const c of t.columns) {
        const m = r.summary.metrics.find((x) => x.id === c.id && x.group === row.group)!;
        expect(row.cells[c.id]).toEqual({ value: m.value, ci: m.ci, n: m.n });
      }
    }
    // Group a: hallucinated rows 0..3 (adh 0, .2, .4, .6), supported 4, 5 (adh .8, 1): perfectly separated.
    expect(t.rows[0]!.cells['auroc']!.value).toBe(1);
    // RMSE relevance: every row predicts 0.5 against gold 0.6 → 0.1.
    expect(t.rows[2]!.cells['rmse_relevance']!.value).toBeCloseTo(0.1, 12);
    // Completeness has no gold: no figure.
    expect(t.rows[2]!.cells['rmse_completeness']!.value).toBeNull();
  });
  it('a single group is one row (no duplicate pooled row); the baselines sit beside our figure of the same metric', () => {
    const r = testReport([validateRow(0, 1, true), validateRow(1, 0, false)], {
      baselines: [{ group: 'emanual', evaluator: 'ragas', metric: 'auroc', value: 0.7 }, { group: 'emanual', evaluator: 'gpt3', metric: 'rmse_relevance', value: 0.2 }],
    });
    const t = summaryTable(r);
    expect(t.rows.map((x) => x.label)).toEqual(['emanual']);
    expect(t.columns.find((c) => c.id === 'auroc')!.baselines).toEqual(['ragas']);
    expect(t.columns.find((c) => c.id === 'rmse_relevance')!.baselines).toEqual(['gpt3']);
    expect(t.rows[0]!.baselines).toEqual({ 'ragas:auroc': 0.7, 'gpt3:rmse_relevance': 0.2 });
  });
  it('a figure this app has no definition for is shown under its id; a truncated report shows no row counts', () => {
    const base = testReport([validateRow(0, 1, true), validateRow(1, 0, false)]);
    const r = { ...base, truncated: { rows: 500 }, summary: { ...base.summary, metrics: [...base.summary.metrics, { id: 'future_metric', group: 'emanual', value: 0.5, ci: null, n: 480 }] } };
    const t = summaryTable(r);
    expect(t.columns.at(-1)).toMatchObject({ id: 'future_metric', label: 'future_metric' });
    expect(t.counts).toEqual([]);
    expect(t.rows[0]!.rows).toBe(480);
  });
  it('pipeline: counts answered questions', () => {
    const r = testReport([pipelineRow(0, 'answered', 1), pipelineRow(1, 'refused', 0), pipelineRow(2, 'answered', 0.5)], { kind: 'ragbench-pipeline' });
    const t = summaryTable(r);
    expect(t.counts.map((c) => c.label)).toEqual(['answered']);
    expect(t.rows[0]!.counts).toEqual([2]);
    expect(t.rows[0]!.cells['recall_at_k']!.value).toBeCloseTo(0.5, 12);
  });
  it('warnings name their group', () => {
    const lines = warningLines(testReport([validateRow(0, 1, true), validateRow(1, 0, false)]));
    expect(lines[0]).toBe('emanual: AUROC from 1 hallucinated row: not meaningful (fewer than 10; score more rows)');
  });
});

describe('rows table', () => {
  it('validate columns: group, question, each score beside its gold (relevance and adherence first), |adherence error|, verdict', () => {
    const r = twoGroups();
    expect(rowColumns(r).map((c) => c.id)).toEqual([
      'group', 'question', 'score:relevance', 'gold:relevance', 'score:adherence', 'gold:adherence', 'score:utilization', 'gold:utilization',
      'score:completeness', 'gold:completeness', 'gap:adherence', 'verdict',
    ]);
    expect(defaultSort(r)).toEqual({ column: 'gap:adherence', desc: true });
  });
  it('pipeline columns include status and recall first; default sort is the lowest recall first', () => {
    const r = testReport([pipelineRow(0, 'answered', 1), pipelineRow(1, 'refused', 0)], { kind: 'ragbench-pipeline' });
    const ids = rowColumns(r).map((c) => c.id);
    expect(ids.slice(0, 5)).toEqual(['group', 'question', 'status', 'score:recall', 'score:relevant_recall']);
    expect(ids).toContain('gold:relevance');
    expect(defaultSort(r)).toEqual({ column: 'score:recall', desc: false });
  });
  it('sorts by the adherence error (largest first), nulls last in both directions, ties in report order', () => {
    const rows = [validateRow(0, 0.9, false), validateRow(1, 0.2, true), validateRow(2, 0.5, true), validateRow(3, 0.4, false)];
    rows.push({ ...validateRow(4, 0, true), scores: { relevance: 0.5 } });
    const r = testReport(rows);
    const cols = rowColumns(r);
    const gap = cols.find((c) => c.id === 'gap:adherence')!;
    // |0.9−0|=.9, |0.2−1|=.8, |0.5−1|=.5, |0.4−0|=.4, row 4 none
    expect(sortRows(r.kind, r.rows, gap, true)).toEqual([0, 1, 2, 3, 4]);
    expect(sortRows(r.kind, r.rows, gap, false)).toEqual([3, 2, 1, 0, 4]);
    const rel = cols.find((c) => c.id === 'score:relevance')!;
    expect(sortRows(r.kind, r.rows, rel, true)).toEqual([0, 1, 2, 3, 4]);
    const q = cols.find((c) => c.id === 'question')!;
    expect(sortRows(r.kind, [...r.rows].reverse(), q, false)).toEqual([4, 3, 2, 1, 0]);
  });
  it('a click on the sorted column flips it; another numeric column starts descending, a text one ascending', () => {
    const cols = rowColumns(twoGroups());
    const cur = { column: 'gap:adherence', desc: true };
    expect(nextSort(cur, cols.find((c) => c.id === 'gap:adherence')!)).toEqual({ column: 'gap:adherence', desc: false });
    expect(nextSort(cur, cols.find((c) => c.id === 'score:relevance')!)).toEqual({ column: 'score:relevance', desc: true });
    expect(nextSort(cur, cols.find((c) => c.id === 'group')!)).toEqual({ column: 'group', desc: false });
  });
  it('cells: two decimals, gold adherence in words, N/A for missing values, verdicts from rowVerdict', () => {
    const r = testReport([validateRow(0, 0.25, false)]);
    const cols = rowColumns(r);
    const text = (id: string) => cellText(r.kind, r.rows[0]!, cols.find((c) => c.id === id)!);
    expect(text('score:adherence')).toBe('0.25');
    expect(text('gold:adherence')).toBe('hallucinated');
    expect(text('gold:completeness')).toBe('N/A');
    expect(text('gap:adherence')).toBe('0.25');
    expect(text('verdict')).toBe('hallucinated');
  });
  it('row detail lines up scores and gold field by field', () => {
    const d = rowDetail({ ...validateRow(0, 1, true), reference: { ragas_faithfulness: 0.5 } });
    expect(d.fields).toEqual(['relevance', 'utilization', 'adherence', 'completeness']);
    expect(d.predicted).toEqual(['0.500', '0.400', '1.000', '0.300']);
    expect(d.gold).toEqual(['0.600', '0.200', '1 (supported)', 'N/A']);
    expect(d.reference).toEqual([['ragas_faithfulness', '0.500']]);
  });
});

describe('charts', () => {
  it('means: one bar trace per summary row with whiskers to the interval, then the baselines', () => {
    const r = testReport([...Array.from({ length: 6 }, (_, i) => validateRow(i, i / 5, i >= 3))], { baselines: [{ group: 'emanual', evaluator: 'ragas', metric: 'auroc', value: 0.6 }] });
    const c = meansChart(r)!;
    expect(c.traces.map((t) => t.name)).toEqual(['ours', 'RAGAS']);
    const ours = c.traces[0]!;
    const t = summaryTable(r);
    expect(ours.x).toEqual(t.columns.map((x) => x.label));
    const auroc = r.summary.metrics.find((m) => m.id === 'auroc' && m.group === 'emanual')!;
    expect(ours.y[0]).toBe(auroc.value);
    expect(ours.error_y!.array[0]).toBeCloseTo(auroc.ci![1] - auroc.value!, 12);
    expect(ours.error_y!.arrayminus[0]).toBeCloseTo(auroc.value! - auroc.ci![0], 12);
    // Completeness has no figure: null bar, no whisker.
    expect(ours.y[3]).toBeNull();
    expect(ours.error_y!.array[3]).toBe(0);
    expect(c.traces[1]!.y).toEqual([0.6, null, null, null]);
  });
  it('ROC: ours and each baseline carried by the rows, hand-checked points and AUROC', () => {
    // Hallucinated rows (gold false) have adherence 0.2 and 0.6; supported ones 0.4 and 0.9.
    const rows = [validateRow(0, 0.2, false), validateRow(1, 0.6, false), validateRow(2, 0.4, true), validateRow(3, 0.9, true)];
    rows[0] = { ...rows[0]!, reference: { ragas_faithfulness: 0 } };
    rows[2] = { ...rows[2]!, reference: { ragas_faithfulness: 1 } };
    const c = rocChart(testReport(rows))!;
    expect(c.traces.map((t) => t.name)).toEqual(['RAG Lab (AUROC 0.750)', 'RAGAS (AUROC 1.000)', 'chance']);
    // Scores 1 − adh: 0.8 (H), 0.6 (S), 0.4 (H), 0.1 (S) → points (0,.5) (.5,.5) (.5,1) (1,1).
    expect(c.traces[0]!.x).toEqual([0, 0, 0.5, 0.5, 1]);
    expect(c.traces[0]!.y).toEqual([0, 0.5, 0.5, 1, 1]);
    expect(rocChart(testReport([pipelineRow(0, 'answered', 1)], { kind: 'ragbench-pipeline' }))).toBeNull();
  });
  it('scatter: predicted against gold for each numeric field with both; boolean gold is left out', () => {
    const c = scatterChart(testReport([validateRow(0, 1, true), validateRow(1, 0, false)]))!;
    expect(c.traces.map((t) => t.name)).toEqual(['relevance', 'utilization']);
    expect(c.traces[0]!.x).toEqual([0.6, 0.6]);
    expect(c.traces[0]!.y).toEqual([0.5, 0.5]);
    expect(c.traces[1]!.y).toEqual([0.4, 0.4]);
  });
  it('large reports are thinned to evenly spaced points, first and last kept', () => {
    expect(thinIndices(4, 10)).toEqual([0, 1, 2, 3]);
    // round(k · 9 / 3) for k = 0..3
    expect(thinIndices(10, 4)).toEqual([0, 3, 6, 9]);
    const rows = Array.from({ length: 2500 }, (_, i) => validateRow(i, (i % 100) / 100, i % 3 !== 0));
    const c = scatterChart(testReport(rows, { iterations: 0 }))!;
    expect(c.traces[0]!.name).toBe('relevance (2000 of 2500 rows)');
    expect(c.traces[0]!.x).toHaveLength(2000);
  });
});

describe('end-to-end latency of a multi-mode retrieval report', () => {
  const stages = { embed: 12.4, sparse: 1.06, dense: 0.94, fuse: 0.2, rerank: 310.2, other: 0 };
  const extra = {
    queries: 2, unjudged: 0, skipped_modes: {},
    modes: [
      { mode: 'sparse', queries: 2, mean_ms: 1.5, p95_ms: 2, latency: 'end-to-end', stages: { embed: 0, sparse: 1.2, dense: 0, fuse: 0, rerank: 0, other: 0.04 } },
      { mode: 'hybrid_fixed_rerank', queries: 2, mean_ms: 325, p95_ms: 400, latency: 'end-to-end', stages },
    ],
  };
  const latencyRow = (i: number) => ({ total_ms: 10 + i, 'ms.embed': 5, 'ms.sparse': 1, 'ms.dense': 1, 'ms.fuse': 0, 'ms.rerank': 3, 'ms.other': 0, 'qpp.nqc.sparse': 0.1 });
  const r = multiModeReport({ sparse: [1, 0.5], hybrid_fixed_rerank: [0.5, 1] }, latencyRow, { extra });

  it('writes the stages compactly, zero and missing ones left out', () => {
    expect(stagesText(stages)).toBe('embed 12 · sparse 1.1 · dense 0.9 · fuse 0.2 · rerank 310');
    expect(stagesText({ sparse: 0.04, dense: null })).toBe('sparse 0.04');
    expect(stagesText({ embed: 0 })).toBe('N/A');
    expect(stagesText(null)).toBe('N/A');
  });

  it('titles the latency end to end and adds a stages (mean ms) column', () => {
    expect(modeLatency(r)!.get('hybrid_fixed_rerank')).toMatchObject({ mean_ms: 325, p95_ms: 400, endToEnd: true, stages });
    const t = summaryTable(r);
    expect(t.latency.map((c) => c.title)).toEqual([
      'mean query latency, end to end (query embedding, both searches, fusion, rerank), ms',
      '95th percentile of the query latency, end to end (query embedding, both searches, fusion, rerank), ms',
    ]);
    expect(t.stages).toMatchObject({ label: 'stages (mean ms)' });
    expect(t.rows.map((x) => [x.group, x.latency, x.stages])).toEqual([
      ['sparse', [1.5, 2], 'sparse 1.2 · other 0.04'],
      ['hybrid_fixed_rerank', [325, 400], 'embed 12 · sparse 1.1 · dense 0.9 · fuse 0.2 · rerank 310'],
    ]);
  });

  it('an older report (no latency field) keeps "non-model stages" and has no stages column', () => {
    const old = multiModeReport({ sparse: [1, 0.5] }, () => ({}), { extra: { queries: 2, unjudged: 0, skipped_modes: {}, modes: [{ mode: 'sparse', queries: 2, mean_ms: 1, p95_ms: 2 }] } });
    const t = summaryTable(old);
    expect(t.latency.map((c) => c.title)).toEqual(['mean query latency, non-model stages, ms', '95th percentile of the query latency, non-model stages, ms']);
    expect(t.stages).toBeNull();
    expect(t.rows[0]!.stages).toBeUndefined();
  });

  it('rows show total_ms (one decimal) before query_ms and hide the ms.* stages as they hide qpp.*', () => {
    const cols = rowColumns(r);
    const keys = cols.flatMap((c) => (c.kind === 'score' ? [c.key] : []));
    expect(keys).toEqual(['ndcg@10', 'mrr@10', 'r@5', 'r@100', 'p@3', 'p@5', 'total_ms', 'query_ms']);
    const total = cols.find((c) => c.id === 'score:total_ms')!;
    expect(cellText('retrieval', r.rows[1]!, total)).toBe('11.0');
  });
});
