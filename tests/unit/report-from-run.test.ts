/** Report rows from runs (src/lib/reports/from-run.ts). */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, test } from 'vitest';
import { parseRagbenchJsonl } from '../../src/lib/data/ragbench.ts';
import type { PipelineRowResult } from '../../src/lib/eval/ragbench/pipeline-mode.ts';
import { baselineEntries, finiteOrNull, pipelineReportRow, retrievalReportRow, validateReportRow } from '../../src/lib/eval/ragbench/report-from-run.ts';
import { ReportRowSchema } from '../../src/lib/reports/format.ts';
import * as v from 'valibot';

const DATA = process.env.RAG_LAB_RAGBENCH ?? resolve(import.meta.dirname, '../../../shared/data/ragbench/test');
const row = parseRagbenchJsonl(readFileSync(join(DATA, 'emanual.jsonl'), 'utf8'), 'emanual').rows[0]!;

describe('report rows', () => {
  test('validate: NaN scores become null, gold and reference from the row, key with the subset', () => {
    const r = validateReportRow('emanual', row, { relevance: 0.5, utilization: NaN, adherence: 1, completeness: Infinity });
    expect(v.safeParse(ReportRowSchema, r).success).toBe(true);
    expect(r.key).toBe(`emanual:${row.id}\u241f${row.generation_model_name}`);
    expect(r.scores).toEqual({ relevance: 0.5, utilization: null, adherence: 1, completeness: null });
    expect(r.gold['adherence']).toBe(row.adherence_score);
    expect(r.reference!['ragas_faithfulness']).toBe(finiteOrNull(row.ragas_faithfulness));
  });

  test('pipeline: status, error, retrieved ids, both recalls and the gold labels of the question', () => {
    const base: PipelineRowResult = {
      key: 'k', id: 'q7', question: 'q?', status: 'error', reason: 'HTTP 500', answer: '', retrieved: ['c1', 'c2'], retrievedDocs: [1], goldDocs: [1, 2],
      relevantDocs: [1], recall: 0.5, relevantRecall: 1, contexts: [], scores: { relevance: NaN, utilization: NaN, adherence: NaN, completeness: NaN }, usage: null, ms: 3,
      gold: { relevance: 0.25, utilization: null, completeness: 1, adherence: false },
    };
    const r = pipelineReportRow('emanual', base);
    expect(v.safeParse(ReportRowSchema, r).success).toBe(true);
    expect(r).toMatchObject({ key: 'emanual:q7', status: 'error', error: 'HTTP 500', retrieved: ['c1', 'c2'] });
    expect(r.gold).toEqual({ relevance: 0.25, utilization: null, completeness: 1, adherence: false });
    expect(r.scores).toEqual({ relevance: null, utilization: null, adherence: null, completeness: null, recall: 0.5, relevant_recall: 1 });
    expect(pipelineReportRow('emanual', { ...base, status: 'answered', evalError: 'judge down' }).error).toBe('judge down');
    expect('error' in pipelineReportRow('emanual', { ...base, status: 'rejected' })).toBe(false);
  });

  test('retrieval: key mode:query, the mode as group, the top 10 ids, the IR scores, query_ms and the predictors', () => {
    const ids = Array.from({ length: 30 }, (_, i) => `d${i}`);
    const r = retrievalReportRow('dense', { id: '1', text: 'query' }, { 'ndcg@10': 0.5, 'mrr@10': 1, 'p@3': 1 / 3, 'p@5': 0.2, 'r@5': 0.5, 'r@100': 1 }, ids,
      { queryMs: 1.5, predictors: { 'qpp.nqc.dense': 0.25, 'qpp.entropy.dense.cdf': NaN } });
    expect(v.safeParse(ReportRowSchema, r).success).toBe(true);
    expect(r.retrieved).toEqual(ids.slice(0, 10));
    expect(r).toMatchObject({ key: 'dense:1', group: 'dense', question: 'query', answer: '' });
    expect(r.scores['p@3']).toBeCloseTo(1 / 3, 12);
    expect(r.scores).toMatchObject({ query_ms: 1.5, 'qpp.nqc.dense': 0.25, 'qpp.entropy.dense.cdf': null });
    expect(retrievalReportRow('sparse', { id: '1', text: 'q' }, { 'ndcg@10': 0, 'mrr@10': 0, 'p@3': 0, 'p@5': 0, 'r@5': 0, 'r@100': 0 }, []).scores.query_ms).toBeNull();
  });

  test('baselines: one entry per evaluator and figure, NaN as null', () => {
    const b = baselineEntries('emanual', { ragas: { auroc: 0.6, rmse_relevance: 0.2 }, trulens: { auroc: NaN, rmse_relevance: 0.3 }, gpt3: { auroc: 0.5, rmse_relevance: 0.1, rmse_utilization: 0.4 } });
    expect(b).toHaveLength(7);
    expect(b).toContainEqual({ group: 'emanual', evaluator: 'trulens', metric: 'auroc', value: null });
  });
});
