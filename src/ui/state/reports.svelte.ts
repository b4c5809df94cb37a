/**
 * The saved reports (one owner): the list and the deleted archive as the store holds them. The Benchmark tab saves
 * each finished run here as a draft, imports and shared links save here, Hub sync pulls into the same store and
 * pushes what changes here (`onChange`).
 */
import type { Report } from '../../lib/reports/format.ts';
import type { ReportMeta, ReportOrigin, ReportStore } from '../../lib/reports/store-types.ts';

export type ReportChange = { type: 'put' | 'remove' | 'restore' | 'purge'; id: string | null };

export class ReportsState {
  list = $state.raw<ReportMeta[]>([]);
  deleted = $state.raw<ReportMeta[]>([]);
  error = $state<string | null>(null);
  /** Called after every change made here (Hub sync pushes it). */
  onChange: ((change: ReportChange) => void) | null = null;

  constructor(readonly store: ReportStore) {}

  async reload(): Promise<void> {
    try {
      [this.list, this.deleted] = await Promise.all([this.store.list(), this.store.listDeleted()]);
    } catch (e) {
      this.error = `Saved reports could not be read: ${(e as Error).message || String(e)}`;
    }
  }

  get(id: string): Promise<Report | null> {
    return this.store.get(id);
  }

  /** A finished run, saved automatically as a draft. */
  async saveDraft(report: Report): Promise<void> {
    await this.save({ ...report, draft: true }, 'run');
  }

  /** Saves (inserts or replaces by id). */
  async save(report: Report, origin: ReportOrigin): Promise<void> {
    await this.store.put(report, origin);
    await this.reload();
    this.onChange?.({ type: 'put', id: report.id });
  }
}
