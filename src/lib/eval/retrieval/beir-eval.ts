/**
 * The `rag-lab eval-beir --json` summary of a retrieval benchmark run (retrieval-bench.ts): per mode the mean IR
 * metrics and the per-query latency (non-model stages), and the modes that could not run with the reason.
 */
import type { Report } from '../../reports/format.ts';
import type { RetrievalMode } from '../../retrieval/modes.ts';
import { analysisJson, analyzeRetrievalReport } from '../analysis/analysis.ts';
import { analysisText } from '../analysis/analysis-text.ts';
import type { IrScores } from '../../stats/ir-metrics.ts';
import type { RetrievalRun } from './retrieval-bench.ts';

export interface ModeResult extends IrScores {
  mean_ms: number;
  p95_ms: number;
}

export interface BeirEvalResult {
  dataset: string;
  queries: number;
  modes: Partial<Record<RetrievalMode, ModeResult>>;
  /** Modes that could not run, with the reason. */
  skipped: Partial<Record<RetrievalMode, string>>;
}

/** The run's summary in eval-beir's --json shape (a latency without any timed query is NaN, null in JSON). */
export function beirEvalResult(run: RetrievalRun): BeirEvalResult {
  return {
    dataset: run.dataset,
    queries: run.judged,
    modes: Object.fromEntries(run.modes.map((m) => [m.mode, { ...m.means, mean_ms: m.mean_ms ?? NaN, p95_ms: m.p95_ms ?? NaN }])),
    skipped: Object.fromEntries(run.skipped.map((s) => [s.mode, s.reason])),
  };
}

/** The summary as eval-beir's table: a line naming the data, then a row per mode. */
export function formatTable(r: BeirEvalResult): string {
  const cols = ['ndcg@10', 'mrr@10', 'p@3', 'p@5', 'r@5', 'r@100', 'mean_ms', 'p95_ms'] as const;
  const head = ['mode'.padEnd(26), ...cols.map((c) => c.padStart(8))].join(' ');
  const rows = Object.entries(r.modes).map(([mode, m]) =>
    [mode.padEnd(26), ...cols.map((c) => (!Number.isFinite(m[c]) ? 'n/a' : c.endsWith('_ms') ? m[c].toFixed(3) : m[c].toFixed(4)).padStart(8))].join(' '));
  return [`${r.dataset}: ${r.queries} judged queries`, head, ...rows].join('\n');
}

/** What eval-beir prints after a run (each part where the command puts it), and its exit-2 message or null. */
export interface BeirEvalOutput {
  result: BeirEvalResult;
  /** Why --analyze gave no analysis, or null. */
  noAnalysis: string | null;
  /** The --json line (with --analyze, an "analysis" key holding rag-lab analyze --json's object). */
  json: string;
  table: string;
  /** The H1 / H2 tables (after a blank line), or null. */
  analysis: string | null;
  /** The analysis's warnings, then the skipped modes, as stderr lines. */
  stderr: string[];
  error: string | null;
}

export function beirEvalOutput(run: RetrievalRun, report: Report | null, opts: { analyze: boolean; modes: number }): BeirEvalOutput {
  const result = beirEvalResult(run);
  // --analyze: seed B's H1 and H2 of this run (rag-lab analyze's code and tables), so one command gives all three.
  const analysis = report && opts.analyze ? analyzeRetrievalReport(report) : null;
  const analysed = analysis?.ok ? analysis : null;
  const skipped = Object.entries(result.skipped);
  const ran = Object.keys(result.modes).length;
  return {
    result, noAnalysis: analysis && !analysis.ok ? analysis.message : null,
    json: JSON.stringify(analysed ? { ...result, analysis: analysisJson(analysed) } : result), table: formatTable(result),
    analysis: analysed && report ? ['', ...analysisText(analysed, report)].join('\n') : null,
    stderr: [...(analysed?.warnings ?? []).map((w) => `warning: ${w}`), ...skipped.map(([mode, reason]) => `${mode}: skipped: ${reason}`)],
    error: skipped.length === 0 ? null
      : ran === 0 ? 'no mode could run' : `${skipped.length} of ${opts.modes} modes skipped (${skipped.map(([m]) => m).join(', ')}); the results of the others are above`,
  };
}
