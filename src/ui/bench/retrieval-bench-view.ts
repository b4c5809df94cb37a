/**
 * What the Benchmark tab's retrieval part shows, computed without the DOM: the modes to choose from with their
 * availability (from the models worker's loaded list), the knowledge bases that can be benchmarked, the max-queries
 * field's check, the run-settings form (protocol preset, fields, what differs, the overrides checked by the core)
 * and the progress line (a picked folder's paths: build-files.ts; the α simulator's queries: alpha-sim-view.ts).
 */
import type { KbEntry } from '../../lib/data/kb-registry.ts';
import type { LocalKbMeta } from '../../lib/data/local-kb-meta.ts';
import { MODE_IDS, MODES, type RetrievalMode } from '../../lib/retrieval/modes.ts';
import { etaText } from '../../lib/eval/core/eta.ts';
import type { RetrievalBenchProgress } from '../../../workers/bench-api.ts';
import { protocolDescription, RunSettingsError, type RunOverrides } from '../../lib/eval/retrieval/retrieval-session.ts';
import { presetFlat, runFromGiven } from '../../lib/eval/retrieval/run-settings-map.ts';
import { DATASET_ONLY, RUN_SETTINGS, type BmAnalyzer, type RetrievalProtocol, type RetrievalRunSettings, type RunFlat, type RunFlatKey } from '../../lib/settings/retrieval-run.ts';
import { expected, valueFromText, type Setting } from '../../lib/settings/schema.ts';
import type { Calibration } from '../../lib/retrieval/calibrate.ts';
import type { EntropyBasis } from '../../lib/retrieval/entropy.ts';

export interface ModeChoice { mode: RetrievalMode; label: string; description: string; available: boolean; reason: string | null }

const TRAIN_OR_LOAD = 'train a corpus embedder on this dataset (below), or load one under Settings → Models';

/**
 * Every mode in MODE_IDS order, available or disabled with what to get (no dead end: training needs no download). The dense side is there when an embedder is
 * loaded or a corpus-trained model is in this browser (`trained`; the run decides which may run: run-embedder.ts);
 * a mode that lacks both models names both ("needs an embedding model and a cross-encoder").
 */
export function modeChoices(loaded: ReadonlyArray<{ task: string }>, trained = 0): ModeChoice[] {
  const dense = trained > 0 || loaded.some((m) => m.task === 'embedder'), reranker = loaded.some((m) => m.task === 'cross-encoder');
  return MODE_IDS.map((mode) => {
    const m = MODES[mode];
    const noDense = m.needsDense && !dense, noReranker = m.needsReranker && !reranker;
    const reason = noDense && noReranker ? `needs an embedding model and a cross-encoder: ${TRAIN_OR_LOAD.replace(', or load one', ', and load a cross-encoder')}`
      : noDense ? `needs an embedding model: ${TRAIN_OR_LOAD}` : noReranker ? 'needs a cross-encoder: load one under Settings → Models' : null;
    return { mode, label: m.label, description: m.description, available: reason === null, reason };
  });
}

export interface EmbedderChoice { value: string; label: string }

/**
 * The embedder choices: automatic (never a model trained on another corpus), the loaded pretrained embedder, and each
 * corpus-trained model of this browser labelled with what it was trained on (picking one of another corpus is the
 * user's explicit choice: the run and its report say "trained on <corpus>").
 */
export function embedderChoices(loaded: ReadonlyArray<{ task: string; spec: { id: string } }>, trained: ReadonlyArray<{ id: string; kbTitle: string }>): EmbedderChoice[] {
  const e = loaded.find((m) => m.task === 'embedder');
  const pretrained = e && !trained.some((t) => t.id === e.spec.id) && !e.spec.id.startsWith('corpus/') ? [{ value: e.spec.id, label: `${e.spec.id} (loaded, pretrained)` }] : [];
  return [
    { value: 'auto', label: 'Automatic (pretrained, or trained on this dataset)' },
    ...pretrained,
    ...trained.map((t) => ({ value: t.id, label: `${t.id}, trained on ${t.kbTitle}` })),
  ];
}

/** The line after "Train a corpus embedder on this dataset": what was trained and that automatic runs here use it. */
export function benchTrainedText(meta: { id: string; documents: number; dim: number; seconds: number }, unit: 'documents' | 'chunks'): string {
  return `Trained ${meta.id} on this dataset's ${meta.documents.toLocaleString('en')} ${unit} (${meta.dim}-d) in ${Number.isFinite(meta.seconds) ? meta.seconds.toFixed(1) : '?'} s: automatic runs on this dataset use it (it is not selected for other knowledge bases).`;
}

/** The embedder a finished run used, in words: "corpus/x-lsi256@q8, trained on this dataset (scifact)"; or that none ran. */
export function runEmbedderText(e: { id: string; corpus: { title: string; thisDataset: boolean } | null } | null): string {
  if (!e) return 'No embedder ran (no dense mode).';
  if (!e.corpus) return `Embedder: ${e.id} (pretrained).`;
  return `Embedder: ${e.id}, ${e.corpus.thisDataset ? `trained on this dataset (${e.corpus.title})` : `trained on ${e.corpus.title}, another corpus (chosen explicitly)`}.`;
}

/** The chosen modes that can run now, in MODE_IDS order (a chosen mode whose model was unloaded is left out). */
export function runnableModes(chosen: readonly RetrievalMode[], choices: readonly ModeChoice[]): RetrievalMode[] {
  return choices.filter((c) => c.available && chosen.includes(c.mode)).map((c) => c.mode);
}

/** The "max queries" field: blank → all (null); otherwise a whole number ≥ 1, or a message saying what to type. */
export function parseMaxQueries(text: string): { ok: true; value: number | null } | { ok: false; message: string } {
  const t = text.trim();
  if (t === '') return { ok: true, value: null };
  const s = RUN_SETTINGS.maxQueries;
  const n = valueFromText(s, t);
  if (typeof n !== 'number') return { ok: false, message: `Max queries must be ${expected(s)}, or blank for all (got "${t.slice(0, 20)}").` };
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

/** The progress line: "Loading corpus.parquet 3 / 10", "Embedding the chunks 120 / 5183 · ETA 40 s", "sparse 12 / 50 (3 cached) · ETA 40 s". */
export function progressText(p: RetrievalBenchProgress | null): string {
  if (!p) return 'Starting…';
  if (p.phase === 'load') return `Loading (${p.stage}) ${p.done} / ${p.total}`;
  if (p.phase === 'embed') return `Embedding the ${p.unit ?? 'documents'} ${p.done} / ${p.total} · ${etaText(p.etaMs ?? null)}`;
  return `${MODES[p.mode].label} (${p.mode}): ${p.done} / ${p.total} queries${p.cached > 0 ? ` (${p.cached} cached)` : ''} · ${etaText(p.etaMs)}`;
}

// ---- the run's settings form (protocol preset + each setting as a field) ----

/** The protocols the form offers, each with what it sets in one line. */
export const PROTOCOL_CHOICES: ReadonlyArray<{ id: RetrievalProtocol; label: string; description: string }> = [
  { id: 'default', label: 'Default', description: protocolDescription('default') },
  { id: 'seed-b', label: 'Seed B', description: protocolDescription('seed-b') },
];

/** The settings fields as the form holds them (text as typed, choices as chosen). */
export interface RunFields {
  /** Blank: auto (depth, × 10 on chunks). */
  candidateK: string;
  /** Seed A's bm25_k, dense_k and fusion_top_k; blank: candidate_k. */
  bm25K: string;
  denseK: string;
  fusionTopK: string;
  pool: 'grow' | 'fixed';
  chunking: 'whole' | 'chunks';
  chunkSize: string;
  overlap: string;
  k1: string;
  b: string;
  analyzer: BmAnalyzer;
  calibration: Calibration;
  entropyBasis: EntropyBasis;
  /** The fixed hybrid's BM25 weight α. */
  alpha: string;
  /** Blank: the analysis default. */
  resamples: string;
}
export type RunField = keyof RunFields;
/** Each field's setting (settings/retrieval-run.ts RUN_SETTINGS: its type, bounds and choices) and its name in messages. */
const FIELD_SETTINGS: Readonly<Record<RunField, { key: RunFlatKey; label: string }>> = {
  candidateK: { key: 'candidateK', label: 'candidate_k' }, bm25K: { key: 'bm25K', label: 'bm25_k' }, denseK: { key: 'denseK', label: 'dense_k' },
  fusionTopK: { key: 'fusionTopK', label: 'fusion_top_k' }, pool: { key: 'pool', label: 'candidate pool' }, chunking: { key: 'chunked', label: 'chunking' },
  chunkSize: { key: 'chunkSize', label: 'chunk size' }, overlap: { key: 'overlap', label: 'overlap' }, k1: { key: 'k1', label: 'BM25 k1' }, b: { key: 'b', label: 'BM25 b' },
  analyzer: { key: 'analyzer', label: 'BM25 analyzer' }, calibration: { key: 'calibration', label: 'calibration' },
  entropyBasis: { key: 'entropyBasis', label: 'entropy basis' }, alpha: { key: 'alpha', label: 'fixed α' }, resamples: { key: 'resamples', label: 'resamples' },
};
export const RUN_FIELDS = Object.keys(FIELD_SETTINGS) as readonly RunField[];
/** The fields a knowledge-base source fixes (the artifact was built with its chunking and BM25). */
export const KB_FIXED_FIELDS: readonly RunField[] = RUN_FIELDS.filter((f) => DATASET_ONLY.includes(FIELD_SETTINGS[f].key));

/** The form's fields as a protocol's preset fills them (chunk size and overlap: the preset's, else the default chunking's). */
export function presetFields(protocol: RetrievalProtocol): RunFields {
  const flat = presetFlat(protocol);
  const text = (f: RunField) => { const x = flat[FIELD_SETTINGS[f].key]; return x === null ? '' : String(x); };
  return { ...Object.fromEntries(RUN_FIELDS.map((f) => [f, text(f)])), chunking: flat.chunked ? 'chunks' : 'whole' } as RunFields;
}

const sameValue = (a: string, b: string): boolean => {
  const x = a.trim(), y = b.trim();
  return x === y || (x !== '' && y !== '' && Number.isFinite(Number(x)) && Number(x) === Number(y));
};

/** The fields whose value differs from the protocol's preset ("1.50" and "1.5" are the same value; size and overlap only with chunks). */
export function changedFields(protocol: RetrievalProtocol, fields: RunFields): RunField[] {
  const preset = presetFields(protocol);
  const unused = (k: RunField) => fields.chunking === 'whole' && (k === 'chunkSize' || k === 'overlap');
  return RUN_FIELDS.filter((k) => !unused(k) && !sameValue(fields[k], preset[k]));
}

/**
 * The form's fields as the run's overrides: each field read as its setting reads a flag (its type and bounds), then
 * the whole checked by the core's `runSettings` over the protocol's preset (overlap below the chunk size…).
 * `dataset`: the source is a dataset (Hub dataset, local BEIR folder), so chunking and BM25 apply; a knowledge
 * base keeps its own and those fields are left out.
 */
export function runOverrides(protocol: RetrievalProtocol, f: RunFields, dataset: boolean): { ok: true; overrides: RunOverrides } | { ok: false; message: string } {
  const given: Partial<Record<RunFlatKey, unknown>> = { protocol, ...(dataset ? { chunked: f.chunking === 'chunks' } : {}) };
  for (const field of RUN_FIELDS) {
    const { key, label } = FIELD_SETTINGS[field];
    if (field === 'chunking' || (!dataset && DATASET_ONLY.includes(key)) || (f.chunking === 'whole' && (field === 'chunkSize' || field === 'overlap'))) continue;
    const s: Setting = RUN_SETTINGS[key];
    const raw = f[field].trim();
    if (raw === '') {
      if (s.nullMeans === undefined) return { ok: false, message: `${label} is empty: type a number` };
      given[key] = null;
      continue;
    }
    const x = valueFromText(s, raw);
    if (x === undefined) return { ok: false, message: `${label} must be ${expected(s)}, got "${raw.slice(0, 20)}"` };
    given[key] = x;
  }
  let r: RetrievalRunSettings;
  try {
    r = runFromGiven(given as Partial<RunFlat>);
  } catch (e) {
    if (e instanceof RunSettingsError) return { ok: false, message: e.message };
    throw e;
  }
  const overrides: RunOverrides = {
    candidateK: r.candidateK, bm25K: r.bm25K, denseK: r.denseK, fusionTopK: r.fusionTopK, growPool: r.growPool,
    calibration: r.calibration, entropyBasis: r.entropyBasis, alpha: r.alpha, resamples: r.resamples,
    ...(dataset ? { bm25: r.bm25, analyzer: r.analyzer, chunking: r.chunking } : {}),
  };
  return { ok: true, overrides };
}
