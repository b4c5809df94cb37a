/**
 * A ReportStore in memory (tests, Node, and the fallback when the browser has no usable IndexedDB): the same
 * semantics as the IndexedDB store (`src/lib/store/report-store.ts`): `put` replaces by id, `remove` moves into
 * the archive, `restore` moves back (under a new id when the id was saved again meanwhile), `purge` deletes for good.
 * Reports are copied in and out, so a caller changing an object it passed or got does not change what is stored.
 */
import { newReportId, type Report } from './format.ts';
import { byCreated, bySaved, reportMeta } from './meta.ts';
import type { ReportMeta, ReportOrigin, ReportStore } from './store-types.ts';

interface Entry { meta: ReportMeta; report: Report }

export class MemoryReportStore implements ReportStore {
  private readonly saved = new Map<string, Entry>();
  private readonly archived = new Map<string, Entry>();

  async list(): Promise<ReportMeta[]> {
    return [...this.saved.values()].map((e) => ({ ...e.meta })).sort(byCreated);
  }

  async get(id: string): Promise<Report | null> {
    const e = this.saved.get(id);
    return e ? structuredClone(e.report) : null;
  }

  async put(report: Report, origin: ReportOrigin): Promise<void> {
    const copy = structuredClone(report);
    this.saved.set(copy.id, { meta: reportMeta(copy, origin), report: copy });
  }

  async remove(id: string): Promise<void> {
    const e = this.saved.get(id);
    if (!e) return;
    this.saved.delete(id);
    this.archived.set(id, { meta: { ...e.meta, savedAt: new Date().toISOString() }, report: e.report });
  }

  async listDeleted(): Promise<ReportMeta[]> {
    return [...this.archived.values()].map((e) => ({ ...e.meta })).sort(bySaved);
  }

  async restore(id: string): Promise<void> {
    const e = this.archived.get(id);
    if (!e) return;
    // A report saved under the same id since keeps it: the restored one gets a new id (nothing is overwritten).
    const report = this.saved.has(id) ? { ...e.report, id: newReportId() } : e.report;
    this.archived.delete(id);
    this.saved.set(report.id, { meta: reportMeta(report, e.meta.origin), report });
  }

  async purge(id?: string): Promise<void> {
    if (id === undefined) this.archived.clear();
    else this.archived.delete(id);
  }

  async getDeleted(id: string): Promise<Report | null> {
    const e = this.archived.get(id);
    return e ? structuredClone(e.report) : null;
  }
}
