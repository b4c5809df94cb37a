/**
 * Pure parts of the α simulator (AlphaSimulator.svelte, state in state/alpha-sim.svelte.ts): the sliders' range, the
 * query picker's search, which α the simulation uses, and the text of a gold document's rank.
 */
import type { FusionCandidates } from '../../lib/retrieval/alpha-sim.ts';
import type { Calibration } from '../../lib/retrieval/calibrate.ts';
import type { MetaFilter } from '../../lib/retrieval/filter.ts';
import { MODES, type RetrievalMode } from '../../lib/retrieval/modes.ts';
import { reportAlphaNote } from './alpha-note.ts';

/** The entropy sliders' top: H of a uniform distribution over 100 candidates, log2(100) ≈ 6.64 bits. */
export const H_MAX = Math.log2(100);
export const H_STEP = 0.01;
/** Where the sliders start: half the range, on a step. */
export const H_START = Number((H_MAX / 2).toFixed(2));

/** Seed B's simulator: entropy sliders on a 0.05 step, both starting at 4.20 bits. */
export const SEED_H_STEP = 0.05;
export const SEED_H_DEFAULT = 4.2;
/** The Search tab's candidate_k default (url-state.ts): log2(20) ≈ 4.32 bits. */
const DEFAULT_CANDIDATE_K = 20;

export interface SliderRange {
  max: number;
  step: number;
  /** Where both sliders start when the query gives no H values. */
  start: number;
  /** The caption under the sliders: the range, and why the default moved when it did. */
  caption: string;
}

/** A number floored to the slider's step grid (so a slider can reach it), free of float noise. */
const floorToStep = (x: number, step: number) => Number((Math.floor(x / step + 1e-9) * step).toFixed(10));

/**
 * Seed B's slider range for a search whose entropy is taken over `candidateK` candidates: H of k scores is at most
 * log2 k (all equal), so the sliders run 0 … log2 k on a 0.05 step and start at 4.20 bits, or at the top step when
 * log2 k < 4.20 (k ≤ 18). A k that is not a whole number ≥ 1 counts as the default 20. The caption names the range;
 * where the sliders start is `startCaption`'s (from the values they show).
 */
export function sliderRange(candidateK: number): SliderRange {
  const k = Number.isInteger(candidateK) && candidateK >= 1 ? candidateK : DEFAULT_CANDIDATE_K;
  // H ≤ log2 k: the entropy of k equal scores
  const max = Math.log2(k);
  const top = floorToStep(max, SEED_H_STEP);
  return {
    max, step: SEED_H_STEP, start: top < SEED_H_DEFAULT ? top : SEED_H_DEFAULT,
    caption: `Entropy in bits, 0 … log2(${k}) ≈ ${max.toFixed(2)} (${k} equal candidate scores: candidate_k = ${k}).`,
  };
}

/**
 * Where the sliders start, said from the values they show (two decimals, as the sliders print them): a query's own
 * entropies (`seeded`), seed B's default 4.20, the top of a range below it, or the range's start.
 */
export function startCaption(range: SliderRange, start: { hDense: number; hSparse: number }, seeded: boolean): string {
  const d = start.hDense.toFixed(2), s = start.hSparse.toFixed(2);
  const top = floorToStep(range.max, range.step);
  const atTop = (x: number) => x >= top - 1e-9;
  if (seeded) {
    const clamp = atTop(start.hDense) || atTop(start.hSparse) ? ` (the range ends at log2 k ≈ ${range.max.toFixed(2)})` : '';
    return d === s ? `Both start at this query's entropy, ${d} bits${clamp}.` : `They start at this query's entropies: H_dense ${d}, H_sparse ${s} bits${clamp}.`;
  }
  if (d !== s) return `They start at H_dense ${d}, H_sparse ${s} bits.`;
  if (start.hDense === SEED_H_DEFAULT) return `Both start at seed B's default ${SEED_H_DEFAULT.toFixed(2)}.`;
  if (range.step === SEED_H_STEP && atTop(start.hDense) && top < SEED_H_DEFAULT) return `Both start at ${d}, the top of the range: seed B's default ${SEED_H_DEFAULT.toFixed(2)} is above log2 k ≈ ${range.max.toFixed(2)}.`;
  return `Both start at ${d}, half the range.`;
}

/** The report view's range: 0 … log2(100) on a 0.01 step, starting at half of it. */
export const REPORT_RANGE: SliderRange = Object.freeze({
  max: H_MAX, step: H_STEP, start: H_START,
  caption: `Entropy in bits, 0 … log2(100) ≈ ${H_MAX.toFixed(2)} (100 equal candidates).`,
});

/** A slider's value kept in [0, max]; a value that is not a finite number gives null (the caller keeps its own). */
export function clampH(x: number, max: number): number | null {
  return Number.isFinite(x) ? Math.min(max, Math.max(0, x)) : null;
}

/**
 * The state line under the weights (seed B: "Balanced Confidence: …"): balanced when |α − 0.5| < 0.05, leaning
 * towards BM25 (α > 0.5: the dense side is the more uncertain) or dense (α < 0.5), strongly past 0.75 / 0.25.
 */
export function stateLine(alpha: number): { label: string; text: string } {
  if (!Number.isFinite(alpha)) return { label: 'No α', text: 'the entropies give no weight.' };
  if (Math.abs(alpha - 0.5) < 0.05) return { label: 'Balanced confidence', text: 'equal weighting between lexical keywords and vector semantics.' };
  if (alpha >= 0.75) return { label: 'Strongly BM25-leaning', text: 'dense retrieval is far more uncertain, so lexical keywords dominate the fusion.' };
  if (alpha > 0.5) return { label: 'BM25-leaning', text: 'dense retrieval is the more uncertain one, so lexical keywords get more weight.' };
  if (alpha <= 0.25) return { label: 'Strongly dense-leaning', text: 'BM25 is far more uncertain, so vector semantics dominate the fusion.' };
  return { label: 'Dense-leaning', text: 'BM25 is the more uncertain one, so vector semantics get more weight.' };
}

/** A weight as seed B prints it: "50.0%". */
export const percentText = (w: number): string => `${(Math.min(1, Math.max(0, w)) * 100).toFixed(1)}%`;

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

/** The Search tab's simulator: its range and seed, and the query to re-fuse live (null: none to re-fuse). */
export interface SearchSimSetup {
  range: SliderRange;
  seed: { hDense: number; hSparse: number } | null;
  live: {
    key: string; query: string; candidateK: number; bm25K: number | null; denseK: number | null; calibration: Calibration; rerank: boolean;
    /** The search's filters: the re-fused candidates are drawn from the documents they keep. */
    filters: MetaFilter[]; filtered: boolean;
  } | null;
}

/** How deep the re-fused lists are, in words: "each retriever's top 20", or each one's when they differ. */
export function candidateDepths(k: { sparse: number; dense: number }): string {
  return k.sparse === k.dense ? `each retriever's top ${k.sparse}` : `BM25's top ${k.sparse} and the dense index's top ${k.dense}`;
}

/**
 * What the Search tab's simulator starts from: the range of the answered search's candidate_k (else the one typed),
 * seeded with its telemetry's H values when it has both (hybrid_calibrated modes), and the query to re-fuse when that
 * search fused both retrievers and dense search is available now.
 */
export function searchSimSetup(
  req: { query: string; mode: RetrievalMode; candidateK: number; bm25K?: number | null; denseK?: number | null; calibration: Calibration; filters: readonly MetaFilter[] } | null,
  t: { hDense: number | null; hSparse: number | null } | null,
  typedCandidateK: number, denseAvailable: boolean, kbId: string,
): SearchSimSetup {
  // H of k scores is at most log2 k: the range of the deeper list when bm25_k and dense_k differ.
  const range = sliderRange(req ? Math.max(req.bm25K ?? req.candidateK, req.denseK ?? req.candidateK) : typedCandidateK);
  const seed = t && t.hDense !== null && t.hSparse !== null && Number.isFinite(t.hDense) && Number.isFinite(t.hSparse) ? { hDense: t.hDense, hSparse: t.hSparse } : null;
  const m = req ? MODES[req.mode] : null;
  const live = req && m && m.needsDense && m.needsSparse && denseAvailable && req.query.trim() !== ''
    ? {
      key: JSON.stringify([kbId, req.query, req.candidateK, req.bm25K ?? null, req.denseK ?? null, req.calibration, req.filters]), query: req.query, candidateK: req.candidateK,
      bm25K: req.bm25K ?? null, denseK: req.denseK ?? null,
      calibration: req.calibration, rerank: m.needsReranker, filters: [...req.filters], filtered: req.filters.length > 0,
    }
    : null;
  return { range, seed, live };
}

/** What a retrieval report says about its run for the simulator: the embedder of its dense side (null: none). */
export interface ReportSimRun {
  /** The embedder the run's dense side used, when one of its modes needed it; null: a BM25-only run. */
  embedder: string | null;
  /** The report's α note (`reportAlphaNote`'s text): how many queries had both CDF entropies saturated, and why. */
  alphaNote: string | null;
}

/**
 * The report's run as the simulator needs it, from what every copy of the report keeps (saved, exported or shared:
 * the config's modes and embedder, the rows' `qpp.*` fields).
 */
export function reportSimRun(report: { config: Readonly<Record<string, unknown>>; rows: ReadonlyArray<{ key: string; group: string; scores: Readonly<Record<string, unknown>> }> }): ReportSimRun {
  const modes = Array.isArray(report.config.modes) ? report.config.modes.filter((m): m is RetrievalMode => typeof m === 'string' && m in MODES) : [];
  const embedder = typeof report.config.embedder === 'string' && report.config.embedder !== '' && modes.some((m) => MODES[m].needsDense) ? report.config.embedder : null;
  return { embedder, alphaNote: reportAlphaNote(report.rows, report.config)?.text ?? null };
}

/** The report host's line when no query of the run can be re-fused here (no candidate loader). */
export function noRealQueryText(run: ReportSimRun | null): string {
  if (run?.embedder) {
    return `This run had a dense side (${run.embedder}), but re-fusing one of its queries needs its knowledge base and that embedder loaded in this tab, ` +
      'which only the Benchmark tab\'s latest run has: a saved, imported or shared report carries its per-query figures, not its index. ' +
      'Run the retrieval benchmark again in the Benchmark tab to pick its queries here; the sliders above work without it.';
  }
  return 'The real-query part needs a run with a dense side: run the retrieval benchmark in the Benchmark tab with a dense mode (an embedder loaded), then pick one of its queries here.';
}
