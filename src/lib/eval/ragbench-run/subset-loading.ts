/**
 * Loading the subsets of one benchmark run, each on its own: a subset that cannot load (the Hub unreachable, a bad
 * file) is named and skipped while the others are scored, and the run says which were skipped and why. Only when
 * none loads does the run fail, with every subset's reason. `SubsetBoard` is the run's per-subset state (queued,
 * loading, ready, running, done, skipped), which the progress line shows for all subsets at once.
 */
import type { RagbenchRow } from '../../data/ragbench.ts';

export type SubsetState = 'queued' | 'loading' | 'ready' | 'running' | 'done' | 'skipped';
export interface SubsetStatus { subset: string; state: SubsetState; reason?: string }
export interface SkippedSubset { subset: string; reason: string }

/** The per-subset state of a run, in the order the user picked the subsets. */
export class SubsetBoard {
  private readonly states: SubsetStatus[];
  constructor(subsets: readonly string[]) {
    this.states = subsets.map((subset) => ({ subset, state: 'queued' }));
  }
  set(subset: string, state: SubsetState, reason?: string): void {
    const s = this.states.find((x) => x.subset === subset);
    if (!s || s.state === 'skipped') return;
    // A subset that starts scoring ends the one before it (the session scores one subset at a time).
    if (state === 'running') for (const o of this.states) if (o.state === 'running' && o.subset !== subset) o.state = 'done';
    s.state = state;
    if (reason !== undefined) s.reason = reason;
  }
  snapshot(): SubsetStatus[] {
    return this.states.map((s) => ({ ...s }));
  }
}

/** The initial board of a run before the worker reports: the first subset loading, the rest queued. */
export function initialStatuses(subsets: readonly string[]): SubsetStatus[] {
  return subsets.map((subset, i) => ({ subset, state: i === 0 ? 'loading' : 'queued' }));
}

/** What one subset's loader gives: its rows, where they came from (hub | viewer | local) and notes (rows dropped…). */
export interface LoadedSubset { rows: RagbenchRow[]; source: string; issues: readonly string[] }

export interface LoadSubsetsResult {
  subsets: Array<{ subset: string; rows: RagbenchRow[] }>;
  skipped: SkippedSubset[];
  /** Notes of the loaders (rows dropped…); a report adds `skippedNote` of each skipped subset. */
  issues: string[];
  /** The sources joined with '+' ('local' when none). */
  source: string;
}

const messageOf = (e: unknown) => (e as Error)?.message || String(e);

/** The note a run keeps for a skipped subset. */
export const skippedNote = (s: SkippedSubset) => `${s.subset}: skipped, it could not be loaded (${s.reason})`;

/**
 * Loads each subset with `load`; one that throws is skipped with its reason (a cancel is not a failure: it stops
 * the run). Throws when no subset loads, naming each one and why.
 */
export async function loadRunSubsets(
  names: readonly string[], load: (subset: string) => Promise<LoadedSubset>, opts: { signal?: AbortSignal; board?: SubsetBoard } = {},
): Promise<LoadSubsetsResult> {
  const subsets: LoadSubsetsResult['subsets'] = [];
  const skipped: SkippedSubset[] = [];
  const issues: string[] = [];
  const sources = new Set<string>();
  for (const subset of names) {
    opts.signal?.throwIfAborted();
    opts.board?.set(subset, 'loading');
    try {
      const r = await load(subset);
      if (r.rows.length === 0) throw new Error('it has no rows');
      subsets.push({ subset, rows: r.rows });
      issues.push(...r.issues);
      sources.add(r.source);
      opts.board?.set(subset, 'ready');
    } catch (e) {
      if (opts.signal?.aborted) throw e;
      const reason = messageOf(e);
      skipped.push({ subset, reason });
      opts.board?.set(subset, 'skipped', reason);
    }
  }
  if (subsets.length === 0) {
    throw new Error(names.length === 0 ? 'Pick at least one subset.'
      : names.length === 1 ? `${names[0]} could not be loaded: ${skipped[0]!.reason}`
        : `No subset could be loaded: ${skipped.map((s) => `${s.subset}: ${s.reason}`).join(' · ')}`);
  }
  return { subsets, skipped, issues, source: [...sources].join('+') || 'local' };
}
