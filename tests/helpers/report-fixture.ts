/**
 * Small valid reports for sync tests (seeded, distinct per seed) and a tiny in-memory
 * ReportStore (the interface's rules: put replaces by id, remove moves into the archive, restore moves back).
 */
import type { Report } from '../../src/lib/reports/format.ts';
import type { ReportMeta, ReportOrigin, ReportStore } from '../../src/lib/reports/store-types.ts';
import { testReport, validateRow } from './reports.ts';

/** A RAGBench-validate report of `n` rows whose predicted adherence follows a seeded LCG (tests/helpers/reports.ts). */
export function syncReport(title: string, seed = 1, n = 8, id?: string): Report {
  let s = seed;
  const rnd = () => ((s = (s * 1103515245 + 12345) % 2147483648) / 2147483648);
  return testReport(Array.from({ length: n }, (_, i) => validateRow(i, rnd(), i % 3 !== 0)), { title, seed, ...(id ? { id } : {}) });
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
