/// <reference lib="webworker" />
/**
 * Compare worker: the Compare tab's statistics (src/lib/reports/compare.ts: paired bootstrap, randomization test,
 * Holm) off the main thread. A thin shell: the reports arrive validated from the store.
 */
import * as Comlink from 'comlink';
import { compareReports } from '../src/lib/reports/compare.ts';
import type { CompareWorkerApi } from './compare-api.ts';

const api: CompareWorkerApi = {
  compare: async (reports, opts) => {
    try {
      return compareReports(reports, opts);
    } catch (e) {
      return { ok: false, message: `The comparison failed: ${(e as Error).message || String(e)}` };
    }
  },
};

Comlink.expose(api);
