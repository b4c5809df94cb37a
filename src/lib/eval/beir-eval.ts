/**
 * The `rag-lab eval-beir --json` summary of a retrieval benchmark run (retrieval-bench.ts): per mode the mean IR
 * metrics and the per-query latency (non-model stages), and the modes that could not run with the reason.
 */
import type { RetrievalMode } from '../retrieval/modes.ts';
import type { IrScores } from './ir-metrics.ts';
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
