/// <reference lib="webworker" />
/**
 * Compare worker: the Compare tab's statistics (src/lib/reports/compare-session.ts) and seed B's analysis
 * (src/lib/eval/analysis/analysis-session.ts) off the main thread. A thin shell: the reports arrive validated from the store.
 * With a helper attached (a second compare worker), the randomization half of the table runs there at once.
 */
import * as Comlink from 'comlink';
import { analysisSession } from '../src/lib/eval/analysis/analysis-session.ts';
import { compareSession } from '../src/lib/reports/compare-session.ts';
import { pairedTable } from '../src/lib/stats/paired.ts';
import type { CompareHelperApi, CompareWorkerApi } from './compare-api.ts';

let helper: Comlink.Remote<CompareHelperApi> | null = null;

const helperApi: CompareHelperApi = { table: (columns, baseline, opts) => pairedTable(columns, baseline, opts) };

const api: CompareWorkerApi = {
  attachHelper(port) { helper = Comlink.wrap<CompareHelperApi>(port); },
  serveAsHelper(port) { Comlink.expose(helperApi, port); },
  analyze: async (report, opts) => analysisSession(report, opts),
  compare: (reports, opts) => compareSession(reports, opts, helper ? (c, b, o) => helper!.table(c, b, o) : null),
};

Comlink.expose(api);
