/**
 * What the Benchmark tab's retrieval part shows, computed without the DOM: the modes to choose from with their
 * availability (from the models worker's loaded list), the knowledge bases that can be benchmarked, the max-queries
 * field's check and the progress line (a picked folder's paths: build-files.ts; the α simulator's queries: alpha-sim-view.ts).
 */
import type { KbEntry } from '../lib/data/kb-registry.ts';
import type { LocalKbMeta } from '../lib/build/types.ts';
import { MODE_IDS, MODES, modeAvailability, type RetrievalMode } from '../lib/retrieval/modes.ts';
import type { RetrievalBenchProgress } from '../../workers/bench-api.ts';

export interface ModeChoice { mode: RetrievalMode; label: string; description: string; available: boolean; reason: string | null }

const LOAD_EMBEDDER = 'needs an embedding model: load one under Settings → Models';
const LOAD_RERANKER = 'needs a cross-encoder: load one under Settings → Models';

/** Every mode in MODE_IDS order, available or disabled with what to load. */
export function modeChoices(loaded: ReadonlyArray<{ task: string }>): ModeChoice[] {
  const caps = {
    dense: loaded.some((m) => m.task === 'embedder'), reranker: loaded.some((m) => m.task === 'cross-encoder'),
    denseReason: LOAD_EMBEDDER, rerankerReason: LOAD_RERANKER,
  };
  return MODE_IDS.map((mode) => {
    const a = modeAvailability(mode, caps);
    return { mode, label: MODES[mode].label, description: MODES[mode].description, available: a.available, reason: a.available ? null : a.reason };
  });
}

/** The chosen modes that can run now, in MODE_IDS order (a chosen mode whose model was unloaded is left out). */
export function runnableModes(chosen: readonly RetrievalMode[], choices: readonly ModeChoice[]): RetrievalMode[] {
  return choices.filter((c) => c.available && chosen.includes(c.mode)).map((c) => c.mode);
}

/** The "max queries" field: blank → all (null); otherwise a whole number ≥ 1, or a message saying what to type. */
export function parseMaxQueries(text: string): { ok: true; value: number | null } | { ok: false; message: string } {
  const t = text.trim();
  if (t === '') return { ok: true, value: null };
  const n = Number(t);
  if (!Number.isInteger(n) || n < 1) return { ok: false, message: `Max queries must be a whole number of at least 1, or blank for all (got "${t.slice(0, 20)}").` };
  return { ok: true, value: n };
}

export interface KbChoice { entry: KbEntry; queries: number | null; disabled: string | null }

/**
 * Knowledge bases the retrieval benchmark can read: those built in this browser that carry queries (how many: their
 * build summary), then the Hub artifacts the user added (whether they carry queries is known once opened). Local ones
 * without queries are listed disabled, with why.
 */
export function kbChoices(local: readonly LocalKbMeta[], entries: readonly KbEntry[]): KbChoice[] {
  const byName = new Map(local.map((m) => [m.name, m]));
  const out: KbChoice[] = [];
  for (const e of entries) {
    if (e.ref.kind === 'local') {
      const m = byName.get(e.ref.name);
      if (!m) continue;
      const q = m.summary.queries;
      out.push({ entry: e, queries: q, disabled: q > 0 ? null : 'no queries: build it from a BEIR dataset' });
    } else if (e.ref.kind === 'hub') out.push({ entry: e, queries: null, disabled: null });
  }
  return out.sort((a, b) => Number(a.disabled !== null) - Number(b.disabled !== null));
}

/** The progress line: "Loading corpus.parquet 3 / 10", "Embedding 120 / 5183", "sparse 12 / 50 (3 cached)". */
export function progressText(p: RetrievalBenchProgress | null): string {
  if (!p) return 'Starting…';
  if (p.phase === 'load') return `Loading (${p.stage}) ${p.done} / ${p.total}`;
  if (p.phase === 'embed') return `Embedding the documents ${p.done} / ${p.total}`;
  return `${MODES[p.mode].label} (${p.mode}): ${p.done} / ${p.total} queries${p.cached > 0 ? ` (${p.cached} cached)` : ''}`;
}
