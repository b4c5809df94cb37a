import { describe, expect, test } from 'vitest';
import type { ReportRow } from '../../src/lib/reports/format.ts';
import { metricDef, metricsFor, REPORT_METRICS, rowVerdict } from '../../src/lib/reports/metrics.ts';
import { smallSampleNotes, summaryMetrics } from '../../src/lib/reports/build.ts';
import { validateRow } from '../helpers/reports.ts';

const m = (kind: Parameters<typeof metricDef>[0], id: string) => metricDef(kind, id)!;

describe('report metrics (hand-computed)', () => {
  test('AUROC: y = gold adherence false, score = 1 − predicted adherence', () => {
    // hallucinated rows have predicted adherence 0.2 and 0.6; supported 0.4 and 0.9.
    // scores (1 − adh): halluc 0.8, 0.4; supported 0.6, 0.1 → pairs halluc > supported: (0.8>0.6, 0.8>0.1, 0.4>0.1) = 3 of 4.
    const rows = [validateRow(0, 0.2, false), validateRow(1, 0.6, false), validateRow(2, 0.4, true), validateRow(3, 0.9, true)];
    expect(m('ragbench-validate', 'auroc').compute(rows)).toBeCloseTo(0.75, 12);
    // one class only: undefined
    expect(m('ragbench-validate', 'auroc').compute(rows.slice(0, 2))).toBeNaN();
  });

  test('RMSE over rows with both values; null gold left out', () => {
    const rows: ReportRow[] = [validateRow(0, 1, true), validateRow(1, 1, true)];
    rows[0]!.scores['relevance'] = 0.5; rows[0]!.gold['relevance'] = 0.1; // error 0.4
    rows[1]!.scores['relevance'] = 0.2; rows[1]!.gold['relevance'] = 0.5; // error 0.3
    // sqrt((0.16 + 0.09) / 2) = sqrt(0.125)
    expect(m('ragbench-validate', 'rmse_relevance').compute(rows)).toBeCloseTo(Math.sqrt(0.125), 12);
    expect(m('ragbench-validate', 'rmse_completeness').compute(rows)).toBeNaN(); // gold completeness null
    expect(m('ragbench-validate', 'rmse_relevance').perRow(rows[0]!)).toBeCloseTo(0.4, 12);
  });

  test('pipeline means leave out null scores; answered is a share of all rows', () => {
    const row = (adh: number | null, status: string, recall: number): ReportRow => ({
      key: `k${Math.random()}`, group: 'g', question: 'q', answer: 'a', status,
      scores: { relevance: null, utilization: null, adherence: adh, completeness: null, recall, relevant_recall: null }, gold: {},
    });
    const rows = [row(0.5, 'answered', 1), row(1, 'answered', 0), row(null, 'refused', 0.5)];
    expect(m('ragbench-pipeline', 'adherence').compute(rows)).toBeCloseTo(0.75, 12);
    expect(m('ragbench-pipeline', 'recall_at_k').compute(rows)).toBeCloseTo(0.5, 12);
    expect(m('ragbench-pipeline', 'answered').compute(rows)).toBeCloseTo(2 / 3, 12);
    expect(rowVerdict('ragbench-pipeline', rows[2]!)).toBe('refused');
    expect(rowVerdict('ragbench-pipeline', rows[0]!)).toBe('answered, supported');
  });

  test('verdicts', () => {
    expect(rowVerdict('ragbench-validate', validateRow(0, 0.49, true))).toBe('hallucinated');
    expect(rowVerdict('ragbench-validate', validateRow(0, 0.5, true))).toBe('supported');
    const r: ReportRow = { key: 'q', group: 'scifact', question: 'q', answer: '', scores: { 'ndcg@10': 0 }, gold: {} };
    expect(rowVerdict('retrieval', r)).toBe('miss');
  });

  test('every kind has metrics with unique ids', () => {
    for (const defs of Object.values(REPORT_METRICS)) expect(new Set(defs.map((d) => d.id)).size).toBe(defs.length);
  });

  test('summary: pooled and per group, intervals contain the estimate, seeded', () => {
    const rows = Array.from({ length: 40 }, (_, i) => validateRow(i, ((i * 7) % 10) / 10, i % 3 !== 0, i % 2 ? 'a' : 'b'));
    const s1 = summaryMetrics('ragbench-validate', rows, { iterations: 300, seed: 3 });
    const s2 = summaryMetrics('ragbench-validate', rows, { iterations: 300, seed: 3 });
    expect(s1).toEqual(s2);
    const pooled = s1.find((x) => x.id === 'auroc' && x.group === null)!;
    expect(pooled.value).toBeCloseTo(m('ragbench-validate', 'auroc').compute(rows), 12);
    expect(pooled.ci![0]).toBeLessThanOrEqual(pooled.value!);
    expect(pooled.ci![1]).toBeGreaterThanOrEqual(pooled.value!);
    expect(s1.filter((x) => x.group === 'a').length).toBe(metricsFor('ragbench-validate', rows).length);
    // Rows without RAGAS fields keep exactly the TRACe figures.
    expect(s1.filter((x) => x.group === null).map((x) => x.id)).toEqual(['auroc', 'rmse_relevance', 'rmse_utilization', 'rmse_completeness']);
  });

  test('small-sample warnings name the figure and the count', () => {
    const rows = Array.from({ length: 12 }, (_, i) => validateRow(i, 0.5, i !== 0));
    const w = smallSampleNotes('ragbench-validate', rows).map((x) => x.message);
    expect(w).toContain('AUROC from 1 hallucinated row: not meaningful (fewer than 10; score more rows)');
  });
});

describe('RAGAS figures (hand-computed), listed only for reports whose rows carry them', () => {
  const ragasRow = (i: number, faithfulness: number | null, gold: boolean, recall: number | null = null): ReportRow => {
    const r = validateRow(i, 0.5, gold);
    r.scores = { relevance: null, utilization: null, adherence: null, completeness: null,
      ragas_faithfulness: faithfulness, ragas_answer_relevancy: null, ragas_context_precision: null, ragas_context_recall: recall };
    return r;
  };

  test('faithfulness AUROC: y = gold adherence false, score = 1 − faithfulness; means leave absent rows out', () => {
    // hallucinated rows: faithfulness 0.5, 1 → scores 0.5, 0; supported: 0.75, 1 → 0.25, 0.
    // pairs halluc > supported: (0.5 > 0.25, 0.5 > 0) = 2, ties (0 = 0) = ½, (0 > 0.25) = 0 → 2.5 of 4.
    const rows = [ragasRow(0, 0.5, false, 1), ragasRow(1, 1, false, 0), ragasRow(2, 0.75, true), ragasRow(3, 1, true, 0.5)];
    expect(m('ragbench-validate', 'ragas_faithfulness_auroc').compute(rows)).toBeCloseTo(2.5 / 4, 12);
    expect(m('ragbench-validate', 'ragas_faithfulness').compute(rows)).toBeCloseTo((0.5 + 1 + 0.75 + 1) / 4, 12);
    expect(m('ragbench-validate', 'ragas_context_recall').compute(rows)).toBeCloseTo(0.5, 12); // (1 + 0 + 0.5) / 3
    expect(m('ragbench-validate', 'ragas_answer_relevancy').compute(rows)).toBeNaN(); // absent everywhere, never 0
    const s = summaryMetrics('ragbench-validate', rows, { iterations: 0, seed: 0 }).filter((x) => x.group === null);
    expect(s.map((x) => x.id)).toEqual(['auroc', 'rmse_relevance', 'rmse_utilization', 'rmse_completeness', 'ragas_faithfulness_auroc',
      'ragas_faithfulness', 'ragas_answer_relevancy', 'ragas_context_precision', 'ragas_context_recall']);
    expect(s.find((x) => x.id === 'ragas_answer_relevancy')).toMatchObject({ value: null, n: 0 });
    expect(s.find((x) => x.id === 'ragas_context_recall')).toMatchObject({ n: 3 });
    expect(smallSampleNotes('ragbench-validate', rows).map((w) => w.message)).toContain('hallucination AUROC of RAGAS faithfulness from 2 hallucinated rows: not meaningful (fewer than 10; score more rows)');
  });

  test('metricsFor: a field carried by any row (null counts) lists its figures; pipeline reports get the four means', () => {
    expect(metricsFor('ragbench-pipeline', [ragasRow(0, null, true)]).map((d) => d.id).filter((id) => id.startsWith('ragas_')))
      .toEqual(['ragas_faithfulness', 'ragas_answer_relevancy', 'ragas_context_precision', 'ragas_context_recall']);
    expect(metricsFor('ragbench-pipeline', [validateRow(0, 1, true)]).map((d) => d.id)).toEqual(REPORT_METRICS['ragbench-pipeline'].filter((d) => !d.onlyWith).map((d) => d.id));
    expect(metricsFor('retrieval', [])).toBe(REPORT_METRICS.retrieval);
  });
});
