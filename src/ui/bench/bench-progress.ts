/**
 * The RAGBench run's progress as the Benchmark tab shows it: every picked subset with its state (done, running,
 * loading, queued, skipped with why), the current line ("Loading covidqa…", "covidqa: 12 done …") and the ETA, which
 * is shown only while the run is going.
 */
import type { SkippedSubset, SubsetState, SubsetStatus } from '../../lib/eval/ragbench-run/subset-loading.ts';
import { initialStatuses } from '../../lib/eval/ragbench-run/subset-loading.ts';
import type { BenchProgress } from '../../../workers/bench-api.ts';

/** The progress of a run that has just been started: the first subset loading, the rest queued. */
export function startProgress(subsets: readonly string[]): BenchProgress {
  return { phase: 'load', subset: subsets[0] ?? '', loaded: 0, total: 0, subsets: initialStatuses(subsets) };
}

/** The progress once the run has finished: every subset done but the skipped ones. */
export function finishedProgress(p: BenchProgress | null, subsets: readonly string[], skipped: readonly SkippedSubset[]): BenchProgress {
  const why = new Map(skipped.map((s) => [s.subset, s.reason]));
  const states: SubsetStatus[] = subsets.map((subset) => (why.has(subset) ? { subset, state: 'skipped', reason: why.get(subset)! } : { subset, state: 'done' }));
  const base = p ?? startProgress(subsets);
  return { ...base, ...(base.phase === 'score' ? { etaMs: 0 } : {}), subsets: states };
}

const WORD: Record<SubsetState, string> = { queued: 'queued', loading: 'loading', ready: 'loaded, queued', running: 'running', done: 'done', skipped: 'skipped' };

/** One subset's state in words: "covidqa: done", "emanual: skipped (Could not reach …)". */
export function subsetStateText(s: SubsetStatus): string {
  return `${s.subset}: ${WORD[s.state]}${s.state === 'skipped' && s.reason ? ` (${s.reason})` : ''}`;
}

/** The line of the phase: "Loading covidqa…", "Loading covidqa: 120 / 246 rows". */
export function loadText(p: Extract<BenchProgress, { phase: 'load' }>): string {
  return p.total > 0 ? `Loading ${p.subset}: ${p.loaded} / ${p.total} rows` : `Loading ${p.subset}…`;
}
