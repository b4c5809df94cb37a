/** The typed surface of workers/compare.worker.ts: Compare's statistics off the main thread. */
import type { CompareOptions, CompareResult } from '../src/lib/reports/compare-types.ts';
import type { AnalysisOptions, AnalysisOutcome } from '../src/lib/eval/analysis/analysis.ts';
import type { Report } from '../src/lib/reports/format.ts';
import type { Column, PairedCell, PairedOptions } from '../src/lib/stats/paired.ts';

export interface CompareWorkerApi {
  compare(reports: Report[], opts: CompareOptions): Promise<CompareResult>;
  /** Seed B's analysis (H1, H2) of a retrieval report (src/lib/eval/analysis/analysis.ts). */
  analyze(report: Report, opts: Partial<AnalysisOptions>): Promise<AnalysisOutcome>;
  /** A second compare worker to run the randomization half of the table on (a port served by its `serveAsHelper`). */
  attachHelper(port: MessagePort): void;
  /** Answers `table` requests of another compare worker on this port. */
  serveAsHelper(port: MessagePort): void;
}

/** What a helper compare worker answers on its port. */
export interface CompareHelperApi {
  table(columns: Column[][], baseline: number, opts: PairedOptions): PairedCell[][];
}
