/// <reference lib="webworker" />
/**
 * Compare worker: the Compare tab's statistics (src/lib/reports/compare.ts: paired bootstrap, randomization test,
 * Holm) off the main thread. A thin shell: the reports arrive validated from the store. With a helper attached (a
 * second compare worker), the bootstrap half of the table runs here and the randomization half there, at once.
 */
import * as Comlink from 'comlink';
import { analyzeRetrievalReport } from '../src/lib/eval/analysis.ts';
import { mergeTables, prepareCompare } from '../src/lib/reports/compare.ts';
import { pairedTable } from '../src/lib/stats/paired.ts';
import type { CompareHelperApi, CompareWorkerApi } from './compare-api.ts';

let helper: Comlink.Remote<CompareHelperApi> | null = null;

const helperApi: CompareHelperApi = {
  table: (columns, baseline, opts) => pairedTable(columns, baseline, opts),
};

const api: CompareWorkerApi = {
  attachHelper(port) {
    helper = Comlink.wrap<CompareHelperApi>(port);
  },
  serveAsHelper(port) {
    Comlink.expose(helperApi, port);
  },
  analyze: async (report, opts) => {
    try {
      return analyzeRetrievalReport(report, opts);
    } catch (e) {
      return { ok: false, message: `The analysis failed: ${(e as Error).message || String(e)}` };
    }
  },
  compare: async (reports, opts) => {
    try {
      const p = prepareCompare(reports, opts);
      if (!p.ok) return p;
      const { columns, baseline, settings } = p;
      if (!helper || settings.iterations === 0 || settings.permutations === 0) return p.finish(pairedTable(columns, baseline, settings));
      // The message to the helper is posted before this thread starts its own half.
      const perm = helper.table(columns, baseline, { ...settings, iterations: 0 });
      const boot = pairedTable(columns, baseline, { ...settings, permutations: 0 });
      return p.finish(mergeTables(boot, await perm));
    } catch (e) {
      return { ok: false, message: `The comparison failed: ${(e as Error).message || String(e)}` };
    }
  },
};

Comlink.expose(api);
