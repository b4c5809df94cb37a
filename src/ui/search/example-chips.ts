/**
 * What an example chip of the Search tab does (ExampleQueries.svelte, SearchState.pickExample): it sets the query and,
 * when the example names a mode, that mode — or, when the mode needs a model that is not loaded, the best mode that
 * runs now, with one line saying why.
 */
import type { ExampleQuery } from '../../lib/retrieval/document.ts';
import { MODES, type RetrievalMode } from '../../lib/retrieval/modes.ts';
import type { ModeAvailability } from '../../../workers/search-api.ts';

/** Without the cross-encoder a rerank mode falls back to its own fusion, then to BM25 (which always runs). */
const FALLBACKS: Readonly<Record<RetrievalMode, readonly RetrievalMode[]>> = Object.freeze({
  sparse: [],
  dense: ['sparse'],
  rrf: ['sparse'],
  hybrid_fixed: ['sparse'],
  hybrid_calibrated: ['sparse'],
  hybrid_fixed_rerank: ['hybrid_fixed', 'sparse'],
  hybrid_calibrated_rerank: ['hybrid_calibrated', 'sparse'],
});

/** `want` when it is available, else the first available of its fallbacks (BM25 last); null availability: `want`. */
export function bestAvailableMode(want: RetrievalMode, modes: ModeAvailability | null): RetrievalMode {
  if (!modes) return want;
  return [want, ...FALLBACKS[want]].find((m) => modes[m].available) ?? 'sparse';
}

export interface ChipChoice {
  query: string;
  mode: RetrievalMode;
  /** Why the chip's mode was not used (a model is not loaded); null when it was, or the example names none. */
  notice: string | null;
}

/** The query and mode a chip searches with; an example without a mode keeps the current mode. */
export function chipChoice(ex: ExampleQuery, modes: ModeAvailability | null, current: RetrievalMode): ChipChoice {
  if (!ex.mode) return { query: ex.query, mode: current, notice: null };
  const mode = bestAvailableMode(ex.mode, modes);
  if (mode === ex.mode) return { query: ex.query, mode, notice: null };
  const a = modes?.[ex.mode];
  const why = a && !a.available ? ` ${a.reason}` : '';
  return { query: ex.query, mode, notice: `This example is meant for ${MODES[ex.mode].label}; it ran with ${MODES[mode].label}.${why}` };
}

/**
 * A link's mode (`mode=` in a shared Search URL) that cannot run here (a dense link in a fresh profile, no embedder):
 * it falls back as a chip's does, to the best mode that runs now, with one line saying why. null: it runs as linked.
 */
export function linkFallback(link: RetrievalMode, modes: ModeAvailability): { mode: RetrievalMode; notice: string } | null {
  const a = modes[link];
  if (a.available) return null;
  const mode = bestAvailableMode(link, modes);
  return { mode, notice: `This link asks for ${MODES[link].label}; it ran with ${MODES[mode].label}. ${a.reason}` };
}
