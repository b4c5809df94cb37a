/**
 * The Compare tab's state: which saved reports are picked (from ReportsState.list), the baseline, and the result
 * the compare worker computed (statistics never run on the main thread). A new pick while a comparison runs
 * terminates that worker and starts a fresh one, so only the latest pick's result is shown.
 */
import type { CompareResult } from '../../lib/reports/compare-types.ts';
import type { Report } from '../../lib/reports/format.ts';
import type { ReportMeta } from '../../lib/reports/store-types.ts';
import { startCompareWorker } from '../clients/compare-client.ts';
import { whyNotPickable, type QuestionQuery } from '../compare/compare-view.ts';
import { WorkerSlot } from '../clients/worker-slot.ts';
import type { ReportsState } from './reports.svelte.ts';

export class CompareState {
  /** Picked report ids, in the order picked. */
  picked = $state<string[]>([]);
  baselineId = $state<string | null>(null);
  result = $state.raw<CompareResult | null>(null);
  /** The picked reports as loaded (answers for the side-by-side view), by id. */
  loaded = $state.raw<Map<string, Report>>(new Map());
  running = $state(false);
  error = $state<string | null>(null);
  query = $state<QuestionQuery>({ metric: '', against: '', order: 'desc', flippedOnly: false });
  onlyDiff = $state(true);
  /** The question whose answers are shown side by side. */
  openKey = $state<string | null>(null);
  private readonly worker = new WorkerSlot(startCompareWorker);
  private run = 0;

  constructor(readonly reports: ReportsState) {}

  get pickedMeta(): ReportMeta[] {
    return this.picked.map((id) => this.reports.list.find((m) => m.id === id)).filter((m): m is ReportMeta => !!m);
  }

  /** Why a report cannot be picked with the others (null: it can). */
  whyNot(meta: ReportMeta): string | null {
    return whyNotPickable(meta, this.pickedMeta);
  }

  toggle(id: string): void {
    if (this.picked.includes(id)) {
      this.picked = this.picked.filter((x) => x !== id);
      if (this.baselineId === id) this.baselineId = this.picked[0] ?? null;
    } else {
      const meta = this.reports.list.find((m) => m.id === id);
      if (!meta || this.whyNot(meta)) return;
      this.picked = [...this.picked, id];
      this.baselineId ??= id;
    }
    void this.compare();
  }

  setBaseline(id: string): void {
    if (!this.picked.includes(id)) return;
    this.baselineId = id;
    void this.compare();
  }

  /** Runs the comparison of the picked reports in the compare worker (the latest call wins). */
  async compare(): Promise<void> {
    const run = ++this.run;
    this.openKey = null;
    this.error = null;
    // Picked reports deleted meanwhile drop out of the pick.
    this.picked = this.picked.filter((id) => this.reports.list.some((m) => m.id === id));
    if (this.baselineId && !this.picked.includes(this.baselineId)) this.baselineId = this.picked[0] ?? null;
    if (this.picked.length < 2) {
      this.worker.stop();
      this.result = null;
      this.running = false;
      return;
    }
    if (this.running) this.worker.stop();
    this.running = true;
    try {
      const reports: Report[] = [];
      for (const id of this.picked) {
        const r = await this.reports.get(id);
        if (!r) throw new Error(`The report ${id} could not be read from the store.`);
        reports.push(r);
      }
      if (run !== this.run) return;
      this.loaded = new Map(reports.map((r) => [r.id, r]));
      const result = await this.worker.get().api.compare(reports, { baselineId: this.baselineId ?? undefined });
      if (run !== this.run) return;
      this.result = result;
      if (result.ok) {
        const others = result.reports.filter((x) => x.id !== result.baselineId).map((x) => x.id);
        const metric = result.metrics.some((m) => m.id === this.query.metric) ? this.query.metric : (result.metrics[0]?.id ?? '');
        this.query = { ...this.query, metric, against: others.includes(this.query.against) ? this.query.against : (others[0] ?? '') };
      }
    } catch (e) {
      if (run !== this.run) return;
      this.result = null;
      this.error = (e as Error).message || String(e);
    } finally {
      if (run === this.run) this.running = false;
    }
  }

  /** The tab closed: a comparison in flight is dropped (the next pick or open runs it again). */
  dispose(): void {
    this.run++;
    this.running = false;
    this.worker.stop();
  }
}
