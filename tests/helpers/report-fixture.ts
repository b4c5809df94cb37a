/**
 * Small valid reports for tests (buildReport on made-up RAGBench-validate rows, seeded) and a tiny in-memory
 * ReportStore (the interface's rules: put replaces by id, remove moves into the archive, restore moves back).
 */
import { buildReport } from '../../src/lib/reports/build.ts';
import type { Report } from '../../src/lib/reports/format.ts';
import type { ReportMeta, ReportOrigin, ReportStore } from '../../src/lib/reports/store-types.ts';

/** A RAGBench-validate report of `n` rows whose scores follow a seeded LCG. */
export function testReport(title: string, seed = 1, n = 8, id?: string): Report {
  let s = seed;
  const rnd = () => ((s = (s * 1103515245 + 12345) % 2147483648) / 2147483648);
  const rows = Array.from({ length: n }, (_, i) => ({
    key: `covidqa:${i}`, group: 'covidqa', question: `question ${i}?`, answer: `answer ${i}`,
    scores: { adherence: rnd(), relevance: rnd() }, gold: { adherence: i % 3 !== 0, relevance: rnd() },
  }));
  return buildReport({
    kind: 'ragbench-validate', evaluator: 'lexical', config: { evaluator: 'lexical', n }, configHash: 'abcdef0123456789',
    data: { dataset: 'rungalileo/ragbench', revision: null, subsets: ['covidqa'], source: 'local', kb: null },
    seed, n, rows, title, iterations: 50, ...(id ? { id } : {}),
    environment: { app: 'test', runtime: 'node', agent: 'vitest', models: [], llm: null, judge: null },
  });
}

const metaOf = (r: Report, origin: ReportOrigin, savedAt: string): ReportMeta => ({
  id: r.id, kind: r.kind, title: r.title, notes: r.notes, createdAt: r.createdAt, savedAt, draft: r.draft,
  dataset: r.data.dataset, evaluator: r.evaluator, n: r.rows.length, origin,
  headline: r.summary.metrics.filter((m) => m.group === null).map((m) => ({ id: m.id, value: m.value, ci: m.ci })),
});

export class TinyReportStore implements ReportStore {
  live = new Map<string, { r: Report; origin: ReportOrigin }>();
  gone = new Map<string, { r: Report; origin: ReportOrigin }>();
  async list() { return [...this.live.values()].map((x) => metaOf(x.r, x.origin, x.r.createdAt)); }
  async get(id: string) { return structuredClone(this.live.get(id)?.r ?? null); }
  async put(report: Report, origin: ReportOrigin) { this.live.set(report.id, { r: structuredClone(report), origin }); }
  async remove(id: string) { const x = this.live.get(id); if (x) { this.live.delete(id); this.gone.set(id, x); } }
  async listDeleted() { return [...this.gone.values()].map((x) => metaOf(x.r, x.origin, x.r.createdAt)); }
  async restore(id: string) { const x = this.gone.get(id); if (x) { this.gone.delete(id); this.live.set(id, x); } }
  async purge(id?: string) { if (id) this.gone.delete(id); else this.gone.clear(); }
  async getDeleted(id: string) { return structuredClone(this.gone.get(id)?.r ?? null); }
}
