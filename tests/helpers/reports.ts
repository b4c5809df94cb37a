/** Test reports made with buildReport (the real summary code): validate-kind rows with hand-set scores and gold. */
import { buildReport, type BuildReportInput } from '../../src/lib/reports/build.ts';
import type { Report, ReportRow } from '../../src/lib/reports/format.ts';

export function validateRows(n: number, text: (i: number) => { question?: string; answer?: string } = () => ({})): ReportRow[] {
  return Array.from({ length: n }, (_, i) => {
    const t = text(i);
    return {
      key: `emanual:${i}`, group: 'emanual', question: t.question ?? `question ${i} about the remote`, answer: t.answer ?? `answer ${i}`,
      scores: { adherence: (i % 10) / 10, relevance: 0.5, utilization: 0.25, completeness: 0.75 },
      gold: { adherence: i % 3 !== 0, relevance: 0.4, utilization: 0.3, completeness: 0.7 },
    };
  });
}

export function testReport(opts: Partial<BuildReportInput> & { rows?: ReportRow[] } = {}): Report {
  return buildReport({
    kind: 'ragbench-validate', evaluator: 'lexical', config: { mode: 'validate', evaluator: 'lexical', subsets: ['emanual'], n: 30 },
    configHash: 'abcdef0123456789', data: { dataset: 'rungalileo/ragbench', revision: null, subsets: ['emanual'], source: 'local', kb: null },
    seed: 7, n: 30, rows: validateRows(30),
    environment: { app: '0.1.0', runtime: 'node', agent: 'test', models: [], llm: null, judge: null },
    iterations: 50, createdAt: '2026-01-02T03:04:05.000Z',
    ...opts,
  });
}
