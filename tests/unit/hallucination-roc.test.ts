/** Hallucination ROC / AUROC (src/lib/eval/hallucination-roc.ts), hand-checked; the summary metric uses it. */
import { describe, expect, test } from 'vitest';
import { hallucinationAurocOf, hallucinationPairs, hallucinationRoc } from '../../src/lib/stats/hallucination-roc.ts';
import { REPORT_METRICS } from '../../src/lib/reports/metrics.ts';
import type { ReportRow } from '../../src/lib/reports/format.ts';

// Hallucinated rows (gold false) have adherence 0.2 and 0.6; supported ones 0.4 and 0.9.
const gold = [false, false, true, true];
const adherence = [0.2, 0.6, 0.4, 0.9];

describe('hallucination ROC', () => {
  test('pairs: y = 1 where gold is false, score = 1 − adherence; unlabelled and non-finite left out', () => {
    expect(hallucinationPairs([false, true, null, true, false, undefined], [0.25, 0.5, 0.1, NaN, null, 0.3])).toEqual({ y: [1, 0], score: [0.75, 0.5] });
  });
  test('AUROC: 3 of the 4 (hallucinated, supported) pairs ranked right = 0.75', () => {
    // Scores 0.8 (H), 0.4 (H) against 0.6 (S), 0.1 (S): 0.8 beats both, 0.4 beats 0.1 only → 3/4.
    expect(hallucinationAurocOf(gold, adherence)).toBe(0.75);
    expect(hallucinationAurocOf([true, true], [0.1, 0.2])).toBeNaN();
    expect(hallucinationAurocOf([], [])).toBeNaN();
  });
  test('ROC points and the same AUROC', () => {
    // Scores 1 − adh: 0.8 (H), 0.6 (S), 0.4 (H), 0.1 (S) → points (0,.5) (.5,.5) (.5,1) (1,1).
    expect(hallucinationRoc(gold, adherence)).toEqual({ fpr: [0, 0, 0.5, 0.5, 1], tpr: [0, 0.5, 0.5, 1, 1], auroc: 0.75 });
  });
  test('the report summary\'s AUROC metric is this figure', () => {
    const rows = gold.map((g, i) => ({ id: `r${i}`, group: 'g', question: 'q', scores: { adherence: adherence[i]! }, gold: { adherence: g } }) as unknown as ReportRow);
    const metric = REPORT_METRICS['ragbench-validate'].find((m) => m.id === 'auroc')!;
    expect(metric.compute(rows)).toBe(0.75);
  });
});
