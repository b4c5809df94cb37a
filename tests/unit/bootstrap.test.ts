/** Bootstrap intervals of AUROC and RMSE, and small-sample warnings, on hand-built rows. */
import { describe, expect, it } from 'vitest';
import type { RagbenchRow } from '../../src/lib/data/ragbench.ts';
import { metricIntervals, smallSampleWarnings } from '../../src/lib/eval/ragbench/bootstrap.ts';
import { hallucinationAuroc } from '../../src/lib/eval/ragbench/validate-mode.ts';
import { auroc, percentile } from '../../src/lib/stats/summary.ts';
import type { TraceScores } from '../../src/lib/eval/metrics/trace.ts';
import { seededRandom } from '../../src/lib/random.ts';

const row = (adherence: boolean | null, relevance: number | null = null): RagbenchRow =>
  ({ adherence_score: adherence, relevance_score: relevance, utilization_score: null, completeness_score: null }) as RagbenchRow;
const pred = (adherence: number, relevance = NaN): TraceScores => ({ adherence, relevance, utilization: NaN, completeness: NaN });

describe('hallucination AUROC on hand-computed values', () => {
  it('Mann–Whitney with a tie: 3.5 of 4 pairs ordered → 0.875', () => {
    // y = 1 − gold adherence = [1, 0, 0, 1]; score = 1 − predicted = [0.8, 0.1, 0.6, 0.6].
    // Pairs (hallucinated, supported): 0.8>0.1, 0.8>0.6, 0.6>0.1, 0.6=0.6 (½) → 3.5 / 4.
    const rows = [row(false), row(true), row(true), row(false)];
    expect(hallucinationAuroc(rows, [0.2, 0.9, 0.4, 0.4])).toBeCloseTo(0.875, 12);
  });
});

describe('metricIntervals (percentile bootstrap)', () => {
  it('RMSE of two rows: the resamples give |e1|, √((e1²+e2²)/2) or |e2|, so the 95% interval is [0.3, 0.9]', () => {
    const rows = [row(null, 0.2), row(null, 0)];
    const preds = [pred(NaN, 0.5), pred(NaN, 0.9)];
    const ci = metricIntervals(rows, preds, { seed: 1 }).rmse_relevance!;
    expect(ci[0]).toBeCloseTo(0.3, 12);
    expect(ci[1]).toBeCloseTo(0.9, 12);
  });

  it('a perfectly separating evaluator has the interval [1, 1]; metrics without data have none', () => {
    const rows = [...Array(8)].map((_, i) => row(i % 2 === 0));
    const preds = rows.map((r) => pred(r.adherence_score ? 0.9 : 0.1));
    const ci = metricIntervals(rows, preds, { seed: 2 });
    expect(ci.auroc).toEqual([1, 1]);
    expect(ci.rmse_relevance).toBeNull();
    expect(ci.rmse_completeness).toBeNull();
  });

  it('is deterministic for a seed and equals resampling by hand with the same generator', () => {
    const rand = seededRandom(42);
    const rows = [...Array(30)].map(() => row(rand() < 0.4));
    const preds = rows.map((r) => pred(Math.min(1, Math.max(0, (r.adherence_score ? 0.65 : 0.35) + (rand() - 0.5) * 0.6))));
    const a = metricIntervals(rows, preds, { seed: 7, iterations: 300 });
    expect(metricIntervals(rows, preds, { seed: 7, iterations: 300 })).toEqual(a);
    expect(metricIntervals(rows, preds, { seed: 8, iterations: 300 }).auroc).not.toEqual(a.auroc);
    // The same resamples, drawn here directly.
    const r = seededRandom(7);
    const stats: number[] = [];
    for (let it = 0; it < 300; it++) {
      const idx = rows.map(() => Math.floor(r() * rows.length));
      const s = auroc(idx.map((i) => (rows[i]!.adherence_score ? 0 : 1)), idx.map((i) => 1 - preds[i]!.adherence));
      if (!Number.isNaN(s)) stats.push(s);
    }
    expect(a.auroc![0]).toBeCloseTo(percentile(stats, 2.5), 12);
    expect(a.auroc![1]).toBeCloseTo(percentile(stats, 97.5), 12);
    const est = hallucinationAuroc(rows, preds.map((p) => p.adherence));
    expect(a.auroc![0]).toBeLessThan(est);
    expect(a.auroc![1]).toBeGreaterThan(est);
  });
});

describe('smallSampleWarnings', () => {
  it('20 rows with one hallucinated row: the AUROC is flagged', () => {
    const rows = [...Array(20)].map((_, i) => row(i !== 3));
    expect(smallSampleWarnings(rows, rows.map(() => pred(0.5)))).toEqual(['AUROC from 1 hallucinated row: not meaningful (fewer than 10; score more rows)']);
  });

  it('one class only: not defined; rows without a prediction do not count', () => {
    const rows = [row(true), row(true), row(false)];
    expect(smallSampleWarnings(rows, [pred(1), pred(1), pred(NaN)])).toEqual(['AUROC not defined: no hallucinated row among the 2 labelled rows']);
  });

  it('10 rows in each class: no AUROC warning; 5 scored relevance rows: an RMSE warning', () => {
    const rows = [...Array(20)].map((_, i) => row(i < 10, i < 5 ? 0.5 : null));
    const preds = rows.map((_, i) => pred(0.5, i < 5 ? 0.4 : NaN));
    expect(smallSampleWarnings(rows, preds)).toEqual(['RMSE relevance from 5 scored rows: not meaningful (fewer than 10)']);
  });
});
