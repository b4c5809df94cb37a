/**
 * One retrieval-benchmark run as a session: the settings (and seed B's protocol as a preset of them), the knowledge
 * base built from documents with them, the run's config and config hash, the key its document vectors are cached
 * under, the per-query loop (`runRetrievalBenchmark`) and the report. The Benchmark tab's bench worker and
 * `rag-lab eval-beir` both call this module, so the same run from either gets the same config hash and the same
 * per-query numbers.
 *
 * Seed B's protocol (../shared/seeds/001…, steps 2–8 and evaluate.py): 800/120-character chunks with source-document
 * dedup, candidate_k = 20 from each retriever (no pool growth), the cross-encoder over those candidates, corpus-CDF
 * calibration with entropy of the calibrated scores, BM25Okapi k1 = 1.5, b = 0.75, an exact (exhaustive) dense scan
 * as FAISS IndexFlatL2 is, and 1,000 paired bootstrap resamples for H2 (recorded as `resamples`, which the analysis
 * reads).
 */
import type { BeirQuery, Qrels } from '../../data/beir.ts';
import type { SourceDocument } from '../../retrieval/document.ts';
import type { JsonValue, Report } from '../../reports/format.ts';
import { DEFAULT_CHUNKING } from '../../retrieval/chunk.ts';
import { FIXED_ALPHA } from '../../retrieval/fusion.ts';
import { KnowledgeBase } from '../../retrieval/knowledge-base.ts';
import type { RetrievalMode } from '../../retrieval/modes.ts';
import type { SearchModels, SearchOptions } from '../../retrieval/search.ts';
import { sha256Hex } from '../../checksum.ts';
import * as v from 'valibot';
import {
  BM25_ANALYZERS, DEFAULT_RUN_SETTINGS, flatOfRun, PROTOCOLS, RUN_SETTINGS, type BmAnalyzer, type RetrievalProtocol, type RetrievalRunSettings,
} from '../../settings/retrieval-run.ts';
import { expected, valueSchema } from '../../settings/schema.ts';
import type { EmbedderCorpus } from './run-embedder.ts';
import { QPP_DEFAULTS } from '../analysis/qpp.ts';
import { retrievalReport, runRetrievalBenchmark, type RetrievalProgress, type RetrievalRowCache, type RetrievalRun } from './retrieval-bench.ts';

export { BM25_ANALYZERS, DEFAULT_RUN_SETTINGS, INDEX_KINDS, PROTOCOLS } from '../../settings/retrieval-run.ts';
export type { BmAnalyzer, RetrievalProtocol, RetrievalRunSettings, VectorIndexKind } from '../../settings/retrieval-run.ts';
/** The tokenizer options of each analyzer setting (tokenize.ts). */
export const ANALYZER_OPTIONS: Readonly<Record<BmAnalyzer, Readonly<{ stem: boolean; removeStopWords: boolean }>>> = Object.freeze({
  english: Object.freeze({ stem: true, removeStopWords: true }),
  plain: Object.freeze({ stem: false, removeStopWords: false }),
});
/** What each protocol sets (on top of the defaults); a field given explicitly wins over the preset. */
export const PROTOCOL_PRESETS: Readonly<Record<RetrievalProtocol, Readonly<Partial<RetrievalRunSettings>>>> = Object.freeze({
  default: Object.freeze({}),
  'seed-b': Object.freeze({
    chunking: Object.freeze({ ...DEFAULT_CHUNKING, chunkSize: 800, overlap: 120 }),
    candidateK: 20, growPool: false, calibration: 'cdf', entropyBasis: 'calibrated', resamples: 1000,
    bm25: Object.freeze({ k1: 1.5, b: 0.75 }),
    // "Chunks are lowercased, stripped of punctuation, whitespace-split" (seed B's BM25 tokenized corpus)
    analyzer: 'plain',
    // FAISS IndexFlatL2: an exhaustive scan
    index: 'exact',
  } satisfies Partial<RetrievalRunSettings>),
});

export class RunSettingsError extends Error {
  constructor(message: string) { super(message); this.name = 'RunSettingsError'; }
}

/** The protocol's preset, then `overrides` (undefined fields ignored); checked, with a message naming the field. */
export function runSettings(protocol: RetrievalProtocol = 'default', overrides: Partial<RetrievalRunSettings> = {}): RetrievalRunSettings {
  if (!PROTOCOLS.includes(protocol)) throw new RunSettingsError(`unknown protocol "${String(protocol)}" (choose ${PROTOCOLS.join(' or ')})`);
  const given = Object.fromEntries(Object.entries(overrides).filter(([, v]) => v !== undefined)) as Partial<RetrievalRunSettings>;
  const s: RetrievalRunSettings = { ...DEFAULT_RUN_SETTINGS, ...PROTOCOL_PRESETS[protocol], ...given, protocol };
  if (typeof s.growPool !== 'boolean') throw new RunSettingsError(`the candidate pool setting must be grow or fixed (a boolean), got ${JSON.stringify(s.growPool)}`);
  if (typeof s.bm25 !== 'object' || s.bm25 === null) throw new RunSettingsError(`bm25 must be {k1, b}, got ${JSON.stringify(s.bm25)}`);
  // Each setting as its declaration checks it (settings/retrieval-run.ts RUN_SETTINGS: the bounds the flags and the form have).
  const flat = flatOfRun(s) as Record<string, unknown>;
  for (const [key, setting] of Object.entries(RUN_SETTINGS)) {
    if (!v.is(valueSchema(setting), flat[key])) throw new RunSettingsError(`${setting.flag ?? key} must be ${setting.nullMeans !== undefined ? 'unset or ' : ''}${expected(setting)}, got ${JSON.stringify(flat[key])}`);
  }
  if (!/^[\w.-]{1,64}$/.test(s.split)) throw new RunSettingsError(`split must be a name of letters, digits, '.', '-' or '_', got ${JSON.stringify(s.split)}`);
  if (s.chunking !== false && s.chunking.overlap >= s.chunking.chunkSize) {
    throw new RunSettingsError(`chunking needs a chunk size ≥ 1 and 0 ≤ overlap < chunk size, got ${s.chunking.chunkSize}/${s.chunking.overlap}`);
  }
  return s;
}

/** What a protocol's preset sets, in one line (from the preset itself, so the tab's form and eval-beir's help cannot drift). */
export function protocolDescription(protocol: RetrievalProtocol): string {
  const s = runSettings(protocol);
  return [
    s.chunking === false ? 'whole documents' : `${s.chunking.chunkSize}/${s.chunking.overlap}-character chunks with document dedup`,
    `candidate_k ${s.candidateK ?? 'auto (depth, × 10 on chunks)'} per retriever ${s.growPool ? 'with pool growth' : 'with no pool growth'}`,
    `${s.calibration} calibration with entropy of the ${s.entropyBasis} scores`,
    `BM25 k1 ${s.bm25.k1} b ${s.bm25.b} over ${s.analyzer === 'plain' ? 'plain lower-cased words' : 'English stems'}`,
    ...(s.index !== 'auto' ? [`${s.index} vector index`] : []),
    s.resamples === null ? "the analysis' own resamples" : `${s.resamples.toLocaleString('en')} resamples`,
  ].join(', ');
}

/** The settings a form or a link may set over a protocol's preset (the query sample and split are set apart). */
export type RunOverrides = Partial<Pick<RetrievalRunSettings, 'candidateK' | 'bm25K' | 'denseK' | 'fusionTopK' | 'calibration' | 'entropyBasis' | 'alpha' | 'growPool' | 'chunking' | 'bm25' | 'analyzer' | 'resamples' | 'depth'>>;

/** A knowledge base built from the run's documents with its chunking and BM25 (the CLI's --data and the tab's dataset sources). */
export function buildRunKb(docs: readonly SourceDocument[], s: Pick<RetrievalRunSettings, 'chunking' | 'bm25' | 'analyzer'>): KnowledgeBase {
  const chunking = s.chunking === false ? false : { ...DEFAULT_CHUNKING, ...s.chunking };
  // The English analyzer is the index's default: its knowledge base is built exactly as before the setting existed.
  return KnowledgeBase.build(docs, { chunking, bm25: { ...s.bm25 } }, undefined, s.analyzer === 'english' ? undefined : { ...ANALYZER_OPTIONS[s.analyzer] });
}

/** The analyzer setting a knowledge base's BM25 index was built with (an artifact's own; 'custom' for any other mix). */
export function analyzerOf(kb: KnowledgeBase): BmAnalyzer | 'custom' {
  const o = kb.bm25.analyzer.options;
  return BM25_ANALYZERS.find((a) => ANALYZER_OPTIONS[a].stem === o.stem && ANALYZER_OPTIONS[a].removeStopWords === o.removeStopWords) ?? 'custom';
}

/** Candidates per retriever: the setting, or depth × 10 on a chunked knowledge base (so depth documents survive dedup), depth otherwise. */
export function runCandidateK(s: Pick<RetrievalRunSettings, 'candidateK' | 'depth'>, kb: KnowledgeBase): number {
  return s.candidateK ?? (kb.options.chunking !== false ? s.depth * 10 : s.depth);
}

/** First 16 hex digits of the corpus text's SHA-256: a BEIR folder's data key. */
export const corpusHash = async (corpusText: string) => (await sha256Hex(corpusText)).slice(0, 16);

export interface RunIdentity {
  /** Content key of the data (the corpus, or the artifact's meta.json). */
  dataKey: string;
  dataset: string;
  /** The knowledge base's id when it is an artifact, else null. */
  kb: string | null;
  /** Models as `id@dtype`, null when the run has none. */
  embedder: string | null;
  reranker: string | null;
  /** What a corpus-trained embedder was trained on (run-embedder.ts); null or absent for a pretrained one or none. */
  embedderCorpus?: EmbedderCorpus | null;
}

/** The separate k's that are set (bm25K, denseK, fusionTopK), as search options and config fields. */
function separateKs(s: Pick<RetrievalRunSettings, 'bm25K' | 'denseK' | 'fusionTopK'>): { bm25K?: number; denseK?: number; fusionTopK?: number } {
  return {
    ...(s.bm25K !== null ? { bm25K: s.bm25K } : {}), ...(s.denseK !== null ? { denseK: s.denseK } : {}),
    ...(s.fusionTopK !== null ? { fusionTopK: s.fusionTopK } : {}),
  };
}

/** The search options a run's settings give every query (the candidates per retriever resolved: `runCandidateK`). */
export function runSearchOptions(s: RetrievalRunSettings, candidateK: number): Partial<SearchOptions> {
  return { candidateK, ...separateKs(s), calibration: s.calibration, entropyBasis: s.entropyBasis, alpha: s.alpha, growPool: s.growPool };
}

/** The predictors' entropy depths: each retriever's own k, as hybrid_calibrated's entropies take them. */
function qppEntropyK(s: Pick<RetrievalRunSettings, 'bm25K' | 'denseK'>, candidateK: number): { entropyK: number; entropyKDense?: number } {
  const sparse = s.bm25K ?? candidateK, dense = s.denseK ?? candidateK;
  return { entropyK: sparse, ...(dense !== sparse ? { entropyKDense: dense } : {}) };
}

/**
 * The run's config (what the report records: every setting, so Compare's config diff shows it) and its hash (what
 * decides a row's values, the row cache's key: data, knowledge-base options, models and settings — not the modes,
 * the query sample or where the data came from, which rows are keyed by or do not change).
 */
export async function retrievalRunConfig(
  s: RetrievalRunSettings, kb: KnowledgeBase, id: RunIdentity, extra: { modes: readonly RetrievalMode[]; source?: JsonValue },
): Promise<{ config: Record<string, JsonValue>; configHash: string; candidateK: number }> {
  const candidateK = runCandidateK(s, kb);
  const o = kb.options;
  // Seed A's separate k's enter the hash only when set (a run without them keys its rows as before); the config records them always.
  const ks = separateKs(s);
  const qpp = s.predictors ? { ...QPP_DEFAULTS, ...qppEntropyK(s, candidateK) } : null;
  const hashed = {
    kbOptions: JSON.parse(JSON.stringify(o)) as JsonValue, analyzer: analyzerOf(kb), depth: s.depth, candidateK, ...ks, calibration: s.calibration,
    entropyBasis: s.entropyBasis, growPool: s.growPool, dedup: true, split: s.split, index: s.index,
    // α enters the hash only when it is not the default (a run at 0.5 keys its rows as before the setting existed).
    ...(s.alpha !== FIXED_ALPHA ? { alpha: s.alpha } : {}),
    embedder: id.embedder, reranker: id.reranker, predictors: s.predictors, qpp,
    // A trained embedder's corpus enters the hash (a model retrained under the same id makes other rows); absent otherwise, so older hashes stay.
    ...(id.embedder && id.embedderCorpus ? { embedderCorpus: id.embedderCorpus.corpusHash } : {}),
  };
  const configHash = (await sha256Hex(JSON.stringify(['retrieval', 3, id.dataKey, hashed]))).slice(0, 24);
  const config: Record<string, JsonValue> = {
    kind: 'retrieval', protocol: s.protocol, dataset: id.dataset, kb: id.kb, ...(extra.source !== undefined ? { source: extra.source } : {}),
    modes: [...extra.modes], split: s.split, maxQueries: s.maxQueries, seed: s.seed, depth: s.depth, candidateK,
    bm25K: s.bm25K, denseK: s.denseK, fusionTopK: s.fusionTopK,
    calibration: s.calibration, entropyBasis: s.entropyBasis, alpha: s.alpha, growPool: s.growPool, dedup: true,
    chunking: o.chunking === false ? null : { chunkSize: o.chunking.chunkSize, overlap: o.chunking.overlap },
    k1: o.bm25.k1, b: o.bm25.b, analyzer: analyzerOf(kb), index: s.index, embedder: id.embedder, reranker: id.reranker,
    ...(id.embedder && id.embedderCorpus ? { embedderTrainedOn: { title: id.embedderCorpus.title, corpusSha256: id.embedderCorpus.corpusHash, thisDataset: id.embedderCorpus.thisDataset } } : {}),
    predictors: s.predictors, qpp, resamples: s.resamples,
  };
  return { config, configHash, candidateK };
}

export interface RetrievalSessionInput {
  kb: KnowledgeBase;
  queries: readonly BeirQuery[];
  qrels: Qrels;
  settings: RetrievalRunSettings;
  identity: RunIdentity;
  /** Where the data came from, as the report records it (the tab's source; never a token). */
  source?: JsonValue;
  modes: readonly RetrievalMode[];
  models: SearchModels;
  /** Modes known not to run before the loop (e.g. their model failed to load), with the reason. */
  unavailable?: ReadonlyArray<{ mode: RetrievalMode; reason: string }>;
  data: Report['data'];
  environment: Report['environment'];
  runNotes?: readonly string[];
  cache?: RetrievalRowCache | null;
  runLines?: string[];
  onProgress?: (p: RetrievalProgress) => void;
  signal?: AbortSignal;
}

export interface RetrievalSession {
  run: RetrievalRun;
  /** Null when no mode ran. */
  report: Report | null;
  config: Record<string, JsonValue>;
  configHash: string;
}

/** The run: config and hash, the per-query loop over the modes that can run, then the report. */
export async function runRetrievalSession(input: RetrievalSessionInput): Promise<RetrievalSession> {
  const s = input.settings;
  const { config, configHash, candidateK } = await retrievalRunConfig(s, input.kb, input.identity, { modes: input.modes, ...(input.source !== undefined ? { source: input.source } : {}) });
  const unavailable = new Map((input.unavailable ?? []).map((u) => [u.mode, u.reason]));
  const run = await runRetrievalBenchmark({
    kb: input.kb, queries: input.queries, qrels: input.qrels, dataset: input.identity.dataset,
    modes: input.modes.filter((m) => !unavailable.has(m)), models: input.models, depth: s.depth,
    search: runSearchOptions(s, candidateK),
    qpp: qppEntropyK(s, candidateK), predictors: s.predictors, maxQueries: s.maxQueries, seed: s.seed, configHash,
    ...(input.cache !== undefined ? { cache: input.cache } : {}), ...(input.runLines ? { runLines: input.runLines } : {}),
    ...(input.onProgress ? { onProgress: input.onProgress } : {}), ...(input.signal ? { signal: input.signal } : {}),
  });
  run.skipped = [...[...unavailable].map(([mode, reason]) => ({ mode, reason })), ...run.skipped];
  const report = run.modes.length === 0 ? null : retrievalReport(run, {
    config, configHash, data: input.data, environment: input.environment, seed: s.seed, n: s.maxQueries,
    runNotes: [...(input.runNotes ?? [])],
  });
  return { run, report, config, configHash };
}
