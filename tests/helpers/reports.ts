/** Small reports for tests, made with the real builder (src/lib/reports/build.ts). */
import { buildReport, type BuildReportInput } from '../../src/lib/reports/build.ts';
import type { Report, ReportRow } from '../../src/lib/reports/format.ts';

/** A validate-kind row: predicted adherence `adh`, gold adherence `gold` (true = supported). */
export function validateRow(i: number, adh: number, gold: boolean, group = 'emanual'): ReportRow {
  return {
    key: `${group}:q${i}\u241fgpt`, group, question: `question ${i}`, answer: `answer ${i}`,
    scores: { relevance: 0.5, utilization: 0.4, adherence: adh, completeness: 0.3 },
    gold: { relevance: 0.6, utilization: 0.2, completeness: null, adherence: gold },
  };
}

export function testReport(rows: ReportRow[], over: Partial<BuildReportInput> = {}): Report {
  return buildReport({
    kind: 'ragbench-validate', evaluator: 'lexical', config: { mode: 'validate', evaluator: 'lexical' }, configHash: 'abcdef012345',
    data: { dataset: 'rungalileo/ragbench', revision: null, subsets: [...new Set(rows.map((r) => r.group))], source: 'local', kb: null },
    seed: 0, n: null, rows,
    environment: { app: '0.1.0', runtime: 'node', agent: 'test', models: [], llm: null, judge: null },
    iterations: 200, createdAt: '2026-12-01T12:00:00.000Z',
    ...over,
  });
}
