/** Retrieval reports for the analysis tests, made with the real builder: multi-mode (rows `${mode}:${queryId}`) or old single-mode. */
import { buildReport } from '../../src/lib/reports/build.ts';
import type { Report, ReportRow } from '../../src/lib/reports/format.ts';

export const queryId = (i: number) => `q${i}`;

/** One retrieval row; every IR metric but ndcg@10 is a fixed 0.5 (the analysis reads the metric it is given). */
export function retrievalRow(key: string, group: string, i: number, ndcg: number | null, extra: Record<string, number | null> = {}): ReportRow {
  return {
    key, group, question: `query ${i}`, answer: '', retrieved: [],
    scores: { 'ndcg@10': ndcg, 'mrr@10': 0.5, 'p@3': 0.5, 'p@5': 0.5, 'r@5': 0.5, 'r@100': 0.5, query_ms: 1, ...extra }, gold: {},
  };
}

function report(rows: ReportRow[], evaluator: string, seed: number, extra: Report['summary']['extra']): Report {
  return buildReport({
    kind: 'retrieval', evaluator, config: { mode: 'retrieval' }, configHash: 'abcdef012345',
    data: { dataset: 'scifact', revision: null, subsets: [], source: 'local', kb: null },
    seed, n: null, rows, extra, iterations: 0, createdAt: '2026-12-01T12:00:00.000Z',
    environment: { app: '0.1.0', runtime: 'node', agent: 'test', models: [], llm: null, judge: null },
  });
}

/**
 * A multi-mode report: ndcg[mode][i] is query i's NDCG@10 under the mode (null: the mode has no number for it;
 * undefined past the end: no row), predictors(i) the qpp.* fields of query i (the same on every mode's row).
 */
export function multiModeReport(ndcg: Record<string, ReadonlyArray<number | null>>, predictors: (i: number) => Record<string, number | null> = () => ({}), opts: { seed?: number; extra?: Report['summary']['extra'] } = {}): Report {
  const rows = Object.entries(ndcg).flatMap(([mode, xs]) => xs.map((x, i) => retrievalRow(`${mode}:${queryId(i)}`, mode, i, x, predictors(i))));
  return report(rows, 'retrieval-bench', opts.seed ?? 7, opts.extra ?? {});
}

/** An old single-mode report (key = query id, group = dataset, evaluator = the mode). */
export function singleModeReport(mode: string, ndcg: ReadonlyArray<number | null>, opts: { seed?: number; id?: string } = {}): Report {
  const r = report(ndcg.map((x, i) => retrievalRow(queryId(i), 'scifact', i, x)), mode, opts.seed ?? 7, {});
  return opts.id ? { ...r, id: opts.id } : r;
}

/** n NDCG-like values in [0, 1] from a seeded LCG (deterministic, spread). */
export function spread(n: number, seed: number): number[] {
  let s = seed >>> 0;
  return Array.from({ length: n }, () => { s = (Math.imul(s, 1664525) + 1013904223) >>> 0; return Math.round((s / 4294967296) * 1000) / 1000; });
}
