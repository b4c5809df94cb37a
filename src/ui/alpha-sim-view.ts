/**
 * Pure parts of the α simulator (AlphaSimulator.svelte, state in state/alpha-sim.svelte.ts): the sliders' range, the
 * query picker's search, which α the simulation uses, and the text of a gold document's rank.
 */
import type { FusionCandidates } from '../lib/eval/alpha-sim.ts';
import type { Calibration } from '../lib/retrieval/calibrate.ts';

/** The entropy sliders' top: H of a uniform distribution over 100 candidates, log2(100) ≈ 6.64 bits. */
export const H_MAX = Math.log2(100);
export const H_STEP = 0.01;
/** Where the sliders start: half the range, on a step. */
export const H_START = Number((H_MAX / 2).toFixed(2));

/** At most this many queries are listed in the picker at once (the search narrows them). */
export const QUERY_LIST_LIMIT = 200;

/**
 * The run's queries whose id or text contains every word of `search` (case-insensitive), at most `limit` of them,
 * in the run's order; `total` counts every match.
 */
export function filterQueries<Q extends { id: string; text: string }>(queries: readonly Q[], search: string, limit = QUERY_LIST_LIMIT): { shown: Q[]; total: number } {
  const words = search.toLowerCase().split(/\s+/).filter(Boolean);
  const shown: Q[] = [];
  let total = 0;
  for (const q of queries) {
    const hay = `${q.id} ${q.text}`.toLowerCase();
    if (!words.every((w) => hay.includes(w))) continue;
    total++;
    if (shown.length < limit) shown.push(q);
  }
  return { shown, total };
}

/** An α the user typed or dragged, kept in [0, 1]; null for anything that is not a number. */
export function clampAlpha(x: number): number | null {
  return Number.isFinite(x) ? Math.min(1, Math.max(0, x)) : null;
}

/**
 * The α the simulation runs at: the one the user set (dragged), else the query's own α under the calibration
 * (what hybrid_calibrated used for it), else ½ when no query is loaded.
 */
export function simulationAlpha(c: FusionCandidates | null, calibration: Calibration, userAlpha: number | null): number {
  if (userAlpha !== null) return userAlpha;
  const own = c?.entropy[calibration]?.alpha;
  return typeof own === 'number' && Number.isFinite(own) ? own : 0.5;
}

/** A gold document's place in the fused list: "rank 3", or "not in the candidates". */
export const goldRankText = (rank: number | null): string => (rank === null ? 'not in the candidates' : `rank ${rank}`);

/** A weight as a percentage of a bar's width (0 … 100, one decimal). */
export const barPercent = (w: number): number => Math.round(Math.min(1, Math.max(0, w)) * 1000) / 10;

/**
 * The queries of a retrieval report (id, text), once each in the order first seen: rows of a multi-mode report are
 * keyed `${mode}:${queryId}` with group = mode; an old single-mode report's key is the query id.
 */
export function reportQueries(rows: ReadonlyArray<{ key: string; group: string; question: string }>): Array<{ id: string; text: string }> {
  const seen = new Map<string, string>();
  for (const r of rows) {
    const id = r.key.startsWith(`${r.group}:`) ? r.key.slice(r.group.length + 1) : r.key;
    if (!seen.has(id)) seen.set(id, r.question);
  }
  return [...seen].map(([id, text]) => ({ id, text }));
}
