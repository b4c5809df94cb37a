/** Seed B's analysis of a retrieval report as one request → outcome (the tab's compare worker): a failure in words, never a throw. */
import type { Report } from '../../reports/format.ts';
import { analyzeRetrievalReport, type AnalysisOptions, type AnalysisOutcome } from './analysis.ts';

export function analysisSession(report: Report, opts: Partial<AnalysisOptions>): AnalysisOutcome {
  try {
    return analyzeRetrievalReport(report, opts);
  } catch (e) {
    return { ok: false, message: `The analysis failed: ${(e as Error).message || String(e)}` };
  }
}
