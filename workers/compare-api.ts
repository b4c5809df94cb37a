/** The typed surface of workers/compare.worker.ts: Compare's statistics off the main thread. */
import type { CompareOptions, CompareResult } from '../src/lib/reports/compare-types.ts';
import type { Report } from '../src/lib/reports/format.ts';

export interface CompareWorkerApi {
  compare(reports: Report[], opts: CompareOptions): Promise<CompareResult>;
}
