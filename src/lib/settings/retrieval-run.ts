/**
 * A retrieval run's settings (rag-lab eval-beir, the Benchmark tab's BEIR runs), declared once as schema.ts describes
 * them: RetrievalRunSettings (what the session, eval/retrieval/retrieval-session.ts, runs with), its defaults, and
 * RUN_SETTINGS: each setting's type, default, bounds or choices, flag and one line. `eval-beir`'s flags, their help
 * and ranges (FLAG_RANGES) and the tab's form fields derive from RUN_SETTINGS. Its values are flat; the session's nest
 * chunking and BM25 and say `growPool` (`flatOfRun` below; eval/retrieval/run-settings-map.ts goes the other way over
 * a protocol's preset). The session's `runSettings` checks every value against its entry here. A new setting: its field in RetrievalRunSettings and DEFAULT_RUN_SETTINGS (and its use), one entry in
 * RUN_SETTINGS, and a line in the map only when it is not a flat field of the session's settings.
 */
import { DEFAULT_BM25, type Bm25Options } from '../retrieval/bm25.ts';
import { CALIBRATIONS, type Calibration } from '../retrieval/calibrate.ts';
import { DEFAULT_CHUNKING, type ChunkOptions } from '../retrieval/chunk.ts';
import { DEFAULT_ENTROPY_BASIS, ENTROPY_BASES, type EntropyBasis } from '../retrieval/entropy.ts';
import { FIXED_ALPHA } from '../retrieval/fusion.ts';
import { bool, defaultsOf, int, num, oneOf, text, type SettingsOf } from './schema.ts';
import { SEARCH_SETTINGS, SEPARATE_K_SETTINGS } from './search.ts';
import { MODE_IDS, MODES } from '../retrieval/modes.ts';

export type RetrievalProtocol = 'default' | 'seed-b';
export const PROTOCOLS: readonly RetrievalProtocol[] = ['default', 'seed-b'];
export type VectorIndexKind = 'auto' | 'exact' | 'int8' | 'hnsw';
export type BmAnalyzer = 'english' | 'plain';
export const BM25_ANALYZERS: readonly BmAnalyzer[] = ['english', 'plain'];
export const INDEX_KINDS: readonly VectorIndexKind[] = ['auto', 'exact', 'int8', 'hnsw'];

/** Every setting that changes a retrieval run's numbers. */
export interface RetrievalRunSettings {
  protocol: RetrievalProtocol;
  /** Documents ranked per query. Default 100. */
  depth: number;
  /** Candidates per retriever; null = depth × 10 on chunked knowledge bases, depth on whole documents. */
  candidateK: number | null;
  /** Seed A's bm25_k, dense_k and fusion_top_k (search-types.ts); null = candidateK. Default null. */
  bm25K: number | null;
  denseK: number | null;
  fusionTopK: number | null;
  calibration: Calibration;
  entropyBasis: EntropyBasis;
  /** hybrid_fixed's sparse weight: α·minmax(BM25) + (1 − α)·minmax(dense). Default 0.5. */
  alpha: number;
  /** false: exactly candidateK candidates per retriever (seed B); true: the pool doubles while dedup leaves too few documents. */
  growPool: boolean;
  /** Chunking of a knowledge base built from documents (an artifact keeps its own). Default whole documents. */
  chunking: ChunkOptions | false;
  /** BM25 of a knowledge base built from documents (an artifact keeps its own). */
  bm25: Bm25Options;
  /**
   * BM25's tokens for a knowledge base built from documents: 'english' (stop words dropped, Porter stems: the
   * project's analyzer) or 'plain' (lower-cased words, nothing dropped or stemmed: seed B's BM25Okapi input).
   */
  analyzer: BmAnalyzer;
  /** Bootstrap resamples (and permutations) the analysis uses; null = the analysis default. */
  resamples: number | null;
  predictors: boolean;
  split: string;
  /** A seeded sample of this many judged queries; null = all. */
  maxQueries: number | null;
  seed: number;
  index: VectorIndexKind;
}

export const DEFAULT_RUN_SETTINGS: Readonly<RetrievalRunSettings> = Object.freeze({
  protocol: 'default', depth: 100, candidateK: null, bm25K: null, denseK: null, fusionTopK: null, calibration: 'cdf', entropyBasis: DEFAULT_ENTROPY_BASIS, alpha: FIXED_ALPHA, growPool: true,
  chunking: false, bm25: DEFAULT_BM25, analyzer: 'english', resamples: null, predictors: true, split: 'test', maxQueries: null, seed: 0, index: 'auto',
});

const D = DEFAULT_RUN_SETTINGS;
const POOLS = ['grow', 'fixed'] as const;
/** The modes each tuned setting changes (the tuner's space, tune/space.ts). */
const WITH_BM25 = ['sparse', 'rrf', 'hybrid_fixed', 'hybrid_calibrated', 'hybrid_fixed_rerank', 'hybrid_calibrated_rerank'];
const FUSED = ['rrf', 'hybrid_fixed', 'hybrid_calibrated', 'hybrid_fixed_rerank', 'hybrid_calibrated_rerank'];
const CALIBRATED = ['hybrid_calibrated', 'hybrid_calibrated_rerank'];
const RERANKED = MODE_IDS.filter((m) => MODES[m].needsReranker);
const DENSE = MODE_IDS.filter((m) => MODES[m].needsDense);

export const RUN_SETTINGS = Object.freeze({
  protocol: oneOf(PROTOCOLS, { default: D.protocol, flag: 'protocol', meta: 'P', describe: "the preset the other settings start from (seed-b: seed B's evaluation protocol, below)" }),
  split: text({ default: D.split, flag: 'split', meta: 'NAME', describe: 'qrels split' }),
  maxQueries: int({ default: D.maxQueries, nullMeans: 'all', min: 1, max: 1_000_000, flag: 'max-queries', describe: 'a seeded sample of this many judged queries' }),
  seed: int({ default: D.seed, min: 0, max: 2 ** 31 - 1, flag: 'seed', meta: 'S', describe: 'seed of the query sample' }),
  depth: int({ default: D.depth, min: 1, max: 10_000, flag: 'depth', describe: 'documents ranked per query' }),
  candidateK: int({
    default: D.candidateK, nullMeans: 'depth, × 10 on chunks', min: 1, max: 1000, flag: 'candidate-k', describe: 'candidates from each retriever',
    tune: { values: [20, 50, null], modes: FUSED },
  }),
  ...SEPARATE_K_SETTINGS,
  // The rerank depth: the cross-encoder's pool (the search setting's declaration, with the tuner's values).
  fusionTopK: { ...SEPARATE_K_SETTINGS.fusionTopK, tune: { values: [null, 50, 100], modes: RERANKED } },
  pool: oneOf(POOLS, {
    default: D.growPool ? 'grow' : 'fixed', flag: 'pool', meta: 'P',
    describe: 'grow (the pool doubles while dedup leaves fewer documents than the depth) or fixed (exactly candidate_k per retriever: seed B)',
  }),
  chunked: bool({
    default: D.chunking !== false, flag: 'chunk', describe: 'index chunks and rank documents by their best chunk (of a dataset: an artifact keeps the settings it was built with)',
    tune: { values: [false, true], rebuild: true },
  }),
  chunkSize: int({
    default: DEFAULT_CHUNKING.chunkSize, min: 1, max: 1_000_000, flag: 'chunk-size', describe: 'characters of a chunk (implies --chunk)',
    tune: { values: [400, 800, 1600], rebuild: true, requires: { chunked: true } },
  }),
  overlap: int({ default: DEFAULT_CHUNKING.overlap, min: 0, max: 999_999, flag: 'overlap', describe: 'characters two chunks share (implies --chunk)' }),
  k1: num({ default: D.bm25.k1, min: 0, max: 10, flag: 'k1', meta: 'K', describe: 'BM25 k1', tune: { values: [0.6, 0.9, 1.2, 1.5, 2], modes: WITH_BM25 } }),
  b: num({ default: D.bm25.b, min: 0, max: 1, flag: 'b', meta: 'B', describe: 'BM25 b', tune: { values: [0.2, 0.4, 0.75, 0.9], modes: WITH_BM25 } }),
  analyzer: oneOf(BM25_ANALYZERS, {
    default: D.analyzer, flag: 'analyzer', meta: 'A', describe: "BM25's tokens: english (stop words dropped, Porter stems) or plain (lower-cased words, nothing dropped: seed B's)",
    tune: { values: BM25_ANALYZERS, modes: WITH_BM25, rebuild: true },
  }),
  calibration: oneOf(CALIBRATIONS, { default: D.calibration, flag: 'calibration', describe: 'score calibration of the calibrated modes', tune: { values: CALIBRATIONS, modes: CALIBRATED } }),
  entropyBasis: { ...SEARCH_SETTINGS.entropyBasis, tune: { values: ENTROPY_BASES, modes: CALIBRATED } },
  // The search setting's declaration (settings/search.ts), with the tuner's values.
  alpha: { ...SEARCH_SETTINGS.alpha, tune: { values: [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9], modes: ['hybrid_fixed', 'hybrid_fixed_rerank'] } },
  // The tuner builds each kind once over the same vectors (the kind 'auto' picks counts as 'auto') and tries the kinds
  // beside each finalist: they move latency (and, a little, recall), which the front shows.
  index: oneOf(INDEX_KINDS, { default: D.index, flag: 'index', meta: 'KIND', describe: 'vector index', tune: { values: ['exact', 'int8', 'hnsw'], modes: DENSE, finalists: true } }),
  predictors: bool({ default: D.predictors, flag: 'no-predictors', negate: true, describe: 'skip the query performance predictors (entropy under each calibration, alpha, clarity, NQC, WIG)' }),
  resamples: int({ default: D.resamples, nullMeans: "the analysis' own", min: 100, max: 100_000, flag: 'resamples', describe: 'bootstrap resamples and permutations of the analysis' }),
});

export type RunFlat = SettingsOf<typeof RUN_SETTINGS>;
export type RunFlatKey = keyof RunFlat;
/** The settings a knowledge base fixes (it was built with its chunking and BM25): a dataset's only. */
export const DATASET_ONLY: readonly RunFlatKey[] = ['chunked', 'chunkSize', 'overlap', 'k1', 'b', 'analyzer'];

/** The defaults (the default protocol's), as the help shows them. */
export const RUN_DEFAULTS: Readonly<RunFlat> = Object.freeze(defaultsOf(RUN_SETTINGS));

/** The session's settings as flat values (chunk size and overlap: the chunking's, else the default chunking's). */
export function flatOfRun(s: RetrievalRunSettings): RunFlat {
  const { chunking, bm25, growPool, ...same } = s;
  const chunks = chunking === false ? DEFAULT_CHUNKING : chunking;
  return {
    ...same, pool: growPool ? 'grow' as const : 'fixed' as const, chunked: chunking !== false, chunkSize: chunks.chunkSize, overlap: chunks.overlap, k1: bm25.k1, b: bm25.b,
  } satisfies Record<RunFlatKey, unknown>;
}
