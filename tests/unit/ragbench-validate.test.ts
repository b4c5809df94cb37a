/** Validate mode: our metrics and the dataset's baselines, checked against independent plain-loop computations. */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseRagbenchJsonl, RAGBENCH_SUBSETS, type RagbenchRow } from '../../src/lib/data/ragbench.ts';
import { LexicalEvaluator } from '../../src/lib/eval/metrics/lexical.ts';
import {
  baselineScores,
  lexicalRowEvaluator,
  sampleRows,
  validateRagbench,
  validationSummary,
} from '../../src/lib/eval/ragbench/validate-mode.ts';
import type { TraceScores } from '../../src/lib/eval/metrics/trace.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const DATA = process.env.RAG_LAB_RAGBENCH ?? resolve(ROOT, '../shared/data/ragbench/test');
const load = (subset: string) => parseRagbenchJsonl(readFileSync(join(DATA, `${subset}.jsonl`), 'utf8'), subset).rows;

/** Independent hallucination AUROC: over (hallucinated, supported) pairs, is the hallucination scored less adherent? */
function pairwiseHallucinationAuroc(rows: readonly RagbenchRow[], adherence: (r: RagbenchRow, i: number) => number | null): number {
  const pos: number[] = [];
  const neg: number[] = [];
  rows.forEach((r, i) => {
    const a = adherence(r, i);
    if (a === null || Number.isNaN(a) || r.adherence_score === null) return;
    (r.adherence_score ? neg : pos).push(a);
  });
  let num = 0;
  for (const p of pos) for (const n of neg) num += p < n ? 1 : p === n ? 0.5 : 0;
  return num / (pos.length * neg.length);
}

/** Independent RMSE: a plain loop over rows where both values exist. */
function loopRmse(rows: readonly RagbenchRow[], pred: (r: RagbenchRow, i: number) => number | null, gold: (r: RagbenchRow) => number | null): number {
  let s = 0;
  let n = 0;
  rows.forEach((r, i) => {
    const p = pred(r, i);
    const g = gold(r);
    if (p === null || g === null || Number.isNaN(p) || Number.isNaN(g)) return;
    s += (p - g) ** 2;
    n++;
  });
  return Math.sqrt(s / n);
}

describe('baselines on the shared test split match an independent computation', () => {
  it.each(RAGBENCH_SUBSETS)('%s', (subset) => {
    const rows = load(subset);
    const b = baselineScores(rows);
    const rel = (r: RagbenchRow) => r.relevance_score;
    const checks: [number, number][] = [
      [b.ragas.auroc, pairwiseHallucinationAuroc(rows, (r) => r.ragas_faithfulness)],
      [b.trulens.auroc, pairwiseHallucinationAuroc(rows, (r) => r.trulens_groundedness)],
      [b.gpt3.auroc, pairwiseHallucinationAuroc(rows, (r) => r.gpt3_adherence)],
      [b.ragas.rmse_relevance, loopRmse(rows, (r) => r.ragas_context_relevance, rel)],
      [b.trulens.rmse_relevance, loopRmse(rows, (r) => r.trulens_context_relevance, rel)],
      [b.gpt3.rmse_relevance, loopRmse(rows, (r) => r.gpt3_context_relevance, rel)],
      [b.gpt3.rmse_utilization, loopRmse(rows, (r) => r.gpt35_utilization, (r) => r.utilization_score)],
    ];
    for (const [app, independent] of checks) {
      expect(Number.isFinite(app)).toBe(true);
      expect(app).toBeCloseTo(independent, 3);
    }
  });

  it('the published means over the seven subsets (RAGAS 0.620, TruLens 0.638, GPT-3.5 0.580)', () => {
    const bs = RAGBENCH_SUBSETS.map((s) => baselineScores(load(s)));
    const mean = (f: (b: (typeof bs)[number]) => number) => bs.reduce((a, b) => a + f(b), 0) / bs.length;
    expect(mean((b) => b.ragas.auroc)).toBeCloseTo(0.620, 3);
    expect(mean((b) => b.trulens.auroc)).toBeCloseTo(0.638, 3);
    expect(mean((b) => b.gpt3.auroc)).toBeCloseTo(0.580, 3);
  });
});

describe('validateRagbench', () => {
  const rows = load('emanual');

  it('our AUROC and RMSEs from the lexical evaluator match the independent computation', async () => {
    const ev = new LexicalEvaluator();
    const preds = rows.map((r) => ev.evaluate({ question: r.question, documents: r.documents_sentences, response: r.response_sentences }));
    const v = await validateRagbench(rows, 'emanual', lexicalRowEvaluator());
    expect(v.n).toBe(132);
    expect(v.hallucinations).toBe(14);
    expect(v.auroc).toBeCloseTo(pairwiseHallucinationAuroc(rows, (_, i) => preds[i]!.adherence), 3);
    expect(v.rmse_relevance).toBeCloseTo(loopRmse(rows, (_, i) => preds[i]!.relevance, (r) => r.relevance_score), 3);
    expect(v.rmse_utilization).toBeCloseTo(loopRmse(rows, (_, i) => preds[i]!.utilization, (r) => r.utilization_score), 3);
    expect(v.rmse_completeness).toBeCloseTo(loopRmse(rows, (_, i) => preds[i]!.completeness, (r) => r.completeness_score), 3);
    expect(v.auroc).toBeGreaterThan(0.6);
  });

  it('gold labels as predictions: AUROC 1, RMSE 0; a constant: AUROC 0.5; NaN predictions are left out', async () => {
    const gold = (r: RagbenchRow): TraceScores => ({
      relevance: r.relevance_score ?? NaN, utilization: r.utilization_score ?? NaN,
      adherence: r.adherence_score ? 1 : 0, completeness: r.completeness_score ?? NaN,
    });
    const perfect = await validateRagbench(rows, 'emanual', gold);
    expect([perfect.auroc, perfect.rmse_relevance, perfect.rmse_utilization, perfect.rmse_completeness]).toEqual([1, 0, 0, 0]);
    const flat = await validateRagbench(rows, 'emanual', () => ({ relevance: 0.5, utilization: NaN, adherence: 0.7, completeness: NaN }));
    expect(flat.auroc).toBe(0.5);
    expect(flat.rmse_utilization).toBeNaN();
    expect(flat.rmse_relevance).toBeCloseTo(loopRmse(rows, () => 0.5, (r) => r.relevance_score), 12);
    const summary = validationSummary([flat]);
    expect(summary.subsets.emanual).toMatchObject({ n: 132, auroc: 0.5, rmse_utilization: null, rmse_completeness: null });
    expect(summary.mean_auroc).toBe(0.5);
  });

  it('seeded sampling, progress, concurrency and abort', async () => {
    const a = sampleRows(rows, 20, 7);
    expect(a).toHaveLength(20);
    expect(sampleRows(rows, 20, 7)).toEqual(a);
    expect(sampleRows(rows, 20, 8)).not.toEqual(a);
    expect(a.map((r) => rows.indexOf(r))).toEqual([...a.map((r) => rows.indexOf(r))].sort((x, y) => x - y));
    expect(new Set(a).size).toBe(20);
    expect(sampleRows(rows, 1000, 1)).toEqual(rows);

    const progress: number[] = [];
    let inFlight = 0;
    let maxInFlight = 0;
    const slow = async () => {
      maxInFlight = Math.max(maxInFlight, ++inFlight);
      await new Promise((ok) => setTimeout(ok, 1));
      inFlight--;
      return { relevance: 0, utilization: 0, adherence: 1, completeness: 0 };
    };
    const v = await validateRagbench(rows, 'emanual', slow, { n: 12, seed: 7, concurrency: 3, onProgress: (d, t) => { expect(t).toBe(12); progress.push(d); } });
    expect(v.rows).toEqual(sampleRows(rows, 12, 7));
    expect(progress).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
    expect(maxInFlight).toBe(3);
    expect(v.baselines).toEqual(baselineScores(v.rows));

    const ctl = new AbortController();
    let calls = 0;
    const aborting = validateRagbench(rows, 'emanual', () => { if (++calls === 5) ctl.abort(new Error('cancelled')); return { relevance: 0, utilization: 0, adherence: 1, completeness: 0 }; }, { signal: ctl.signal });
    await expect(aborting).rejects.toThrow('cancelled');
    expect(calls).toBe(5);
  });

  it('bootstrap interval of our AUROC brackets it and is reproducible', async () => {
    const a = await validateRagbench(rows, 'emanual', lexicalRowEvaluator(), { bootstrap: 200, seed: 3 });
    const b = await validateRagbench(rows, 'emanual', lexicalRowEvaluator(), { bootstrap: 200, seed: 3 });
    expect(a.auroc_ci).toEqual(b.auroc_ci);
    expect(a.auroc_ci![0]).toBeLessThan(a.auroc);
    expect(a.auroc_ci![1]).toBeGreaterThan(a.auroc);
  });
});
