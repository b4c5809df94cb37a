/** Pipeline mode against gold (pipeline-gold.ts): a hand-computed case, and the same figures as the pipeline report's summary. */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, test } from 'vitest';
import { parseRagbenchJsonl, type RagbenchRow } from '../../src/lib/data/ragbench.ts';
import { buildRagbenchKb } from '../../src/lib/data/ragbench-kb.ts';
import { goldComparison, goldComparisonJson, goldLabels, meanGoldJson } from '../../src/lib/eval/ragbench/pipeline-gold.ts';
import { runPipelineSession } from '../../src/lib/eval/ragbench-run/ragbench-loops.ts';
import { goldComparisonLines } from '../../src/lib/eval/ragbench-run/ragbench-tables.ts';
import type { TraceScores } from '../../src/lib/eval/metrics/trace.ts';
import type { ChatProvider, ChatResult } from '../../src/lib/llm/types.ts';
import type { NliClassifier, PairScorer } from '../../src/lib/models/types.ts';
import { cloneConfig, DEFAULT_RAG_CONFIG } from '../../src/lib/rag/config.ts';
import { compareReports } from '../../src/lib/reports/compare.ts';
import { metricsFor } from '../../src/lib/reports/metrics.ts';

const DATA = process.env.RAG_LAB_RAGBENCH ?? resolve(import.meta.dirname, '../../../shared/data/ragbench/test');
const emanual = parseRagbenchJsonl(readFileSync(join(DATA, 'emanual.jsonl'), 'utf8'), 'emanual').rows;

const row = (i: number, g: { rel: number | null; util: number | null; compl: number | null; adh: boolean | null }): RagbenchRow =>
  ({ ...emanual[i]!, relevance_score: g.rel, utilization_score: g.util, completeness_score: g.compl, adherence_score: g.adh });
const p = (adherence: number, relevance: number, utilization: number, completeness = NaN): TraceScores => ({ adherence, relevance, utilization, completeness });

describe('goldComparison', () => {
  // q1 supported, q2 hallucinated, q3 supported (no utilization label), q4 hallucinated but not answered (no scores).
  const rows = [row(0, { rel: 0.5, util: 0.2, compl: 1, adh: true }), row(1, { rel: 0, util: 0, compl: 0.5, adh: false }),
    row(2, { rel: 1, util: null, compl: 0, adh: true }), row(3, { rel: 0.5, util: 0.5, compl: 0.5, adh: false })];
  const preds = [p(0.9, 0.5, 0.4), p(0.2, 0.5, 0), p(0.1, 0, 0.3), p(NaN, NaN, NaN)];

  test('a hand-computed case: validate mode\'s AUROC and RMSEs over the scored questions with a label', () => {
    const g = goldComparison(rows, preds, { iterations: 0, seed: 0 });
    // AUROC: the hallucinated q2 (score 1 − 0.2 = 0.8) against q1 (0.1, below) and q3 (0.9, above): 1 win in 2 pairs.
    expect(g.auroc).toBeCloseTo(0.5, 12);
    // RMSE relevance: √((0² + 0.5² + 1²) / 3); utilization: √((0.2² + 0²) / 2), q3 has no label; completeness: no score.
    expect(g.rmse_relevance).toBeCloseTo(Math.sqrt(1.25 / 3), 12);
    expect(g.rmse_utilization).toBeCloseTo(Math.sqrt(0.02), 12);
    expect(g.rmse_completeness).toBeNaN();
    expect(g).toMatchObject({ n: 3, hallucinations: 1, intervals: null });
    expect(g.warnings).toEqual([
      'AUROC from 1 hallucinated row: not meaningful (fewer than 10; score more rows)',
      'RMSE relevance from 3 scored rows: not meaningful (fewer than 10)',
      'RMSE utilization from 2 scored rows: not meaningful (fewer than 10)',
    ]);
    expect(goldComparisonJson(g)).toMatchObject({ n: 3, auroc: 0.5, rmse_completeness: null, intervals: null });
    expect(meanGoldJson([g, { ...g, auroc: 1, rmse_completeness: 0.5 }])).toMatchObject({ auroc: 0.75, rmse_completeness: 0.5 });
    expect(goldLabels(rows[2]!)).toEqual({ relevance: 1, utilization: null, completeness: 0, adherence: true });
  });

  test('intervals: bootstrap resamples of the questions, the same figures and intervals with any resample count > 0', () => {
    const g = goldComparison(rows, preds, { iterations: 300, seed: 4 });
    expect(g.intervals!.rmse_relevance![0]).toBeLessThanOrEqual(g.rmse_relevance);
    expect(g.intervals!.rmse_relevance![1]).toBeGreaterThanOrEqual(g.rmse_relevance);
    expect(g.intervals!.rmse_completeness).toBeNull();
    expect(goldComparisonJson(g).intervals!['rmse_completeness']).toBeNull();
  });
});

describe('a pipeline session with the NLI evaluator', () => {
  const rag = cloneConfig(DEFAULT_RAG_CONFIG);
  Object.assign(rag.llm, { provider: 'openai', model: 'answerer', baseUrl: 'http://127.0.0.1:9/v1' });
  rag.retrieval.rejectThreshold = 0;
  const answerer: ChatProvider = {
    id: 'openai',
    chat: async () => { throw new Error('the pipeline streams its answers'); },
    stream: async (req, onDelta): Promise<ChatResult> => { onDelta({ delta: 'Open the settings menu [1].' }); return { text: 'Open the settings menu [1].', usage: null, finishReason: 'stop', model: req.model }; },
  };
  // Entailment that varies with the premise, so the adherence scores differ between questions.
  const nli: NliClassifier = { spec: { id: 'fake-nli', dtype: 'q8', device: 'cpu' }, predict: async (premise) => { const e = (premise.length % 10) / 10; return { entailment: e, neutral: 1 - e, contradiction: 0 }; } };
  const reranker: PairScorer = { spec: { id: 'fake-ce', dtype: 'q8', device: 'cpu' }, score: async (q, ps) => ps.map((x) => (x.length % 7) - 3) };
  const run = (seed: number) => runPipelineSession({
    evaluator: 'nli', settings: { nliModels: { nli: 'fake-nli@q8', reranker: 'fake-ce@q8' } }, deps: { nli: { nli, reranker } },
    subsets: [{ subset: 'emanual', rows: emanual, kb: buildRagbenchKb(emanual, 'emanual') }], rag, answerer, models: {}, n: 12, seed, bootstrap: 200,
    report: { config: { mode: 'pipeline', evaluator: 'nli' }, environment: { runtime: 'node', agent: 'test', models: [] }, source: 'local' },
  });

  test('its figures against gold are the report summary\'s, with the same intervals; the report records the evaluator and is comparable', async () => {
    const s = await run(1);
    const r = s.results[0]!;
    const report = s.report!;
    expect(report.evaluator).toBe('nli');
    expect(report.config['scoring']).toEqual({ evaluator: 'nli', nli: 'fake-nli@q8', reranker: 'fake-ce@q8' });
    expect(metricsFor('ragbench-pipeline', report.rows).map((m) => m.id)).toEqual(expect.arrayContaining(['auroc', 'rmse_relevance', 'rmse_utilization', 'rmse_completeness']));
    const fig = (id: string) => report.summary.metrics.find((m) => m.id === id && m.group === null)!;
    for (const id of ['auroc', 'rmse_relevance', 'rmse_utilization'] as const) {
      expect(Number.isFinite(r.vsGold[id])).toBe(true);
      expect(fig(id).value).toBeCloseTo(r.vsGold[id], 12);
      expect(fig(id).ci).toEqual(r.vsGold.intervals![id]);
    }
    // No gold answer in pipeline mode: NLI's completeness is absent, so is its RMSE.
    expect(r.vsGold.rmse_completeness).toBeNaN();
    expect(fig('rmse_completeness').value).toBeNull();
    expect(report.rows.every((x) => typeof x.gold['adherence'] === 'boolean' || x.gold['adherence'] === null)).toBe(true);
    const lines = goldComparisonLines(s.results);
    expect(lines[2]).toMatch(/^ {2}emanual: n \d+, halluc \d+ · AUROC \d\.\d{3} \[\d\.\d{3}, \d\.\d{3}\] · RMSE rel \d\.\d{3} \[/);
    expect(lines.at(-1)).toMatch(/^AUROC and RMSE vs gold: RAGBench's gold labels judge RAGBench's own answer to each question, not ours/);
    // Two NLI pipeline reports compare on their shared questions, the figures against gold among Compare's.
    const other = (await run(1)).report!;
    const c = compareReports([report, other]);
    expect(c.ok).toBe(true);
    if (c.ok) expect(c.metrics.map((m) => m.id)).toEqual(expect.arrayContaining(['auroc', 'rmse_relevance']));
  });
});
