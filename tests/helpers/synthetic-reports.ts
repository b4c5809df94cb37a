/**
 * Synthetic reports for Compare tests and `npm run bench:reports`: RAGBench-validate runs over the same questions
 * (keys q0…), one evaluator per report, whose predicted scores are the gold labels plus seeded noise of `noise`.
 */
import type { JsonValue, Report } from '../../src/lib/reports/format.ts';
import { testReport } from './reports.ts';
import { seededRandom } from '../../src/lib/random.ts';

export interface SyntheticOptions {
  id: string;
  rows: number;
  /** Noise of the predicted scores (0: exactly the gold labels). */
  noise: number;
  seed: number;
  title?: string;
  /** Decimals predicted scores are rounded to (ties in AUROC); default 2. */
  digits?: number;
  kind?: Report['kind'];
  dataset?: string;
  config?: Record<string, JsonValue>;
  /** Keys start here (q<offset>…), so reports can share some rows or none. */
  keyOffset?: number;
  /** Summary bootstrap resamples (buildReport); default 0, fast. */
  iterations?: number;
  answer?: (i: number) => string;
}

const clamp = (x: number) => Math.min(1, Math.max(0, x));

/** Gold labels depend only on the row index (the same dataset in every report); predictions on the report's seed. */
export function syntheticReport(o: SyntheticOptions): Report {
  const gold = seededRandom(12345);
  const rand = seededRandom(o.seed);
  const round = (x: number) => Number(clamp(x).toFixed(o.digits ?? 2));
  const rows: Report['rows'] = [];
  for (let i = 0; i < (o.keyOffset ?? 0) + o.rows; i++) {
    const g = { relevance: gold(), utilization: gold(), completeness: gold(), adherence: gold() > 0.3 };
    if (i < (o.keyOffset ?? 0)) continue;
    const noise = () => (rand() - 0.5) * 2 * o.noise;
    const scores = {
      relevance: round(g.relevance + noise()), utilization: round(g.utilization + noise()),
      completeness: round(g.completeness + noise()), adherence: round((g.adherence ? 0.75 : 0.25) + noise()),
    };
    rows.push({
      key: `covidqa:q${i}`, group: 'covidqa', question: `Question ${i}?`, answer: o.answer ? o.answer(i) : `Answer ${i} of ${o.id}`,
      scores, gold: g,
    });
  }
  return testReport(rows, {
    id: o.id, kind: o.kind ?? 'ragbench-validate', title: o.title ?? o.id,
    config: o.config ?? { mode: 'validate', evaluator: 'lexical', noise: o.noise }, configHash: (o.seed >>> 0).toString(16).padStart(8, '0'),
    data: { dataset: o.dataset ?? 'rungalileo/ragbench', revision: null, subsets: ['covidqa'], source: 'local', kb: null },
    iterations: o.iterations ?? 0,
  });
}
