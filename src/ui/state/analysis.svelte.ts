/**
 * The one owner of a shown retrieval report's analysis (RetrievalAnalysis.svelte): seed B's H1 and H2
 * (src/lib/eval/analysis/analysis.ts) computed in a compare worker — never on the main thread: 10,000 bootstrap resamples
 * per H1 row and per H2 pair, and 10,000 permutations — with its running flag, the result or an error in words, the
 * H1 row the scatter shows and the H2 filter. A new report while one is analysed terminates that worker and starts a
 * fresh one, so only the latest report's analysis is shown.
 */
import { h1Points, type AnalysisOptions, type H1Row, type RetrievalAnalysis } from '../../lib/eval/analysis/analysis.ts';
import type { Report } from '../../lib/reports/format.ts';
import { sha256Hex } from '../../lib/checksum.ts';
import { h1RowId } from '../reports/analysis-view.ts';
import { startAnalysisWorker } from '../clients/compare-client.ts';
import { WorkerSlot } from '../clients/worker-slot.ts';

/**
 * Analyses already computed in this page, by a SHA-256 of what the analysis reads (the rows, the seed, the
 * config's resamples, the options; not the title or notes): reopening a report shows its analysis at once. A full SciFact run (300
 * queries, 7 modes, 20 predictors) takes 20–55 s in the worker on a loaded 2-core machine (docs/analysis.md "Cost"), mostly H1's resamples.
 */
const done = new Map<string, RetrievalAnalysis>();
const DONE_MAX = 8;
const doneKey = (r: Report, opts: Partial<AnalysisOptions>) => sha256Hex(JSON.stringify([r.kind, r.seed, r.config['resamples'] ?? null, r.rows, opts]));

export class AnalysisState {
  report = $state.raw<Report | null>(null);
  result = $state.raw<RetrievalAnalysis | null>(null);
  running = $state(false);
  error = $state<string | null>(null);
  /** Why the report is not analysed (a share link's summary holds only some rows), or null. */
  skipped = $state<string | null>(null);
  /** The H1 row (h1RowId) the scatter shows. */
  picked = $state<string | null>(null);
  /** H2 shows the pairs with this mode ('' : every pair). */
  mode = $state('');
  private readonly worker = new WorkerSlot(startAnalysisWorker);
  private run = 0;

  get pickedRow(): H1Row | null {
    return this.result?.h1.find((r) => h1RowId(r) === this.picked) ?? null;
  }

  /** The picked row's points (one per query; a pass over the report's rows, cheap enough here). */
  get points(): { x: number[]; y: number[]; keys: string[] } | null {
    const row = this.pickedRow;
    return row && this.report && this.result ? h1Points(this.report, row, this.result.metric) : null;
  }

  /** The view went away: an analysis in flight is dropped and the worker ends. */
  dispose(): void {
    this.run++;
    this.running = false;
    this.worker.stop();
  }

  /** Analyses `report` in the compare worker (the latest call wins). */
  async analyze(report: Report, opts: Partial<AnalysisOptions> = {}): Promise<void> {
    const run = ++this.run;
    if (this.running) this.worker.stop();
    this.report = report;
    this.result = null;
    this.error = null;
    this.skipped = report.truncated
      ? `No analysis: this is a summary of the report (${report.rows.length} of ${report.truncated.rows} rows, chosen as the worst), and correlations or mode comparisons on it would mislead. Open the full report file to see H1 and H2.`
      : null;
    if (this.skipped) { this.running = false; return; }
    this.running = true;
    try {
      const key = await doneKey(report, opts);
      if (run !== this.run) return;
      let out = done.get(key);
      if (!out) {
        const res = await this.worker.get().api.analyze(report, opts);
        if (run !== this.run) return;
        if (!res.ok) { this.error = res.message; return; }
        out = res;
        done.set(key, out);
        if (done.size > DONE_MAX) done.delete(done.keys().next().value!);
      }
      this.result = out;
      // The scatter starts at the first row with a correlation (the picked one when it is still there).
      if (!out.h1.some((r) => h1RowId(r) === this.picked)) {
        const first = out.h1.find((r) => r.pearson_r !== null) ?? out.h1[0];
        this.picked = first ? h1RowId(first) : null;
      }
      if (this.mode && !out.modes.includes(this.mode)) this.mode = '';
    } catch (e) {
      if (run !== this.run) return;
      this.error = `The analysis could not be computed: ${(e as Error).message || String(e)}`;
    } finally {
      if (run === this.run) this.running = false;
    }
  }
}
