/**
 * A retrieval run's modes and settings from `rag-lab eval-beir`'s flags (as strings and booleans, by flag name): the
 * protocol's preset, then each flag given. A bad value is a `RunSettingsError` naming the flag.
 */
import { CALIBRATIONS, type Calibration } from '../../retrieval/calibrate.ts';
import { QPP_DEFAULTS } from '../analysis/qpp.ts';
import { DEFAULT_CHUNKING } from '../../retrieval/chunk.ts';
import { ENTROPY_BASES, type EntropyBasis } from '../../retrieval/entropy.ts';
import { isMode, MODE_IDS, type RetrievalMode } from '../../retrieval/modes.ts';
import {
  BM25_ANALYZERS, DEFAULT_RUN_SETTINGS, INDEX_KINDS, PROTOCOLS, protocolDescription, runSettings, RunSettingsError,
  type BmAnalyzer, type RetrievalProtocol, type RetrievalRunSettings, type VectorIndexKind,
} from './retrieval-session.ts';

export type RunFlags = Record<string, string | boolean | undefined>;

/** `--modes`: a comma-separated list, or "all". */
export function modesFlag(value: string): RetrievalMode[] {
  const modes = value === 'all' ? [...MODE_IDS] : value.split(',').map((m) => m.trim()).filter(Boolean).map((m) => {
    if (!isMode(m)) throw new RunSettingsError(`unknown mode "${m}" (choose from ${MODE_IDS.join(', ')}, or all)`);
    return m;
  });
  if (modes.length === 0) throw new RunSettingsError(`--modes is empty (choose from ${MODE_IDS.join(', ')}, or all)`);
  return modes;
}

function numberFlag(name: string, value: string | undefined, check: (n: number) => boolean, what: string): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isFinite(n) || !check(n)) throw new RunSettingsError(`--${name} must be ${what}, got "${value}"`);
  return n;
}

const choice = <T extends string>(flag: string, value: string | undefined, allowed: readonly T[]): T | undefined => {
  if (value === undefined) return undefined;
  if (!(allowed as readonly string[]).includes(value)) throw new RunSettingsError(`--${flag} must be ${allowed.join(', ')}, got "${value}"`);
  return value as T;
};
const whole = (flag: string, value: string | undefined, lo: number) => numberFlag(flag, value, (n) => Number.isInteger(n) && n >= lo, `a whole number >= ${lo}`);

/** The run's settings from the flags: the protocol's preset, then each flag given. */
export function settingsFromFlags(v: RunFlags): RetrievalRunSettings {
  const str = (k: string) => (typeof v[k] === 'string' ? (v[k] as string) : undefined);
  const protocol = choice('protocol', str('protocol'), PROTOCOLS) as RetrievalProtocol;
  const preset = runSettings(protocol);
  const chunkSize = whole('chunk-size', str('chunk-size'), 1), overlap = whole('overlap', str('overlap'), 0);
  const chunked = v['chunk'] === true || chunkSize !== undefined || overlap !== undefined;
  const base = preset.chunking === false ? DEFAULT_CHUNKING : preset.chunking;
  const k1 = numberFlag('k1', str('k1'), (n) => n >= 0, 'a number >= 0'), b = numberFlag('b', str('b'), (n) => n >= 0 && n <= 1, 'a number in [0, 1]');
  const pool = choice('pool', str('pool'), ['grow', 'fixed'] as const);
  return runSettings(protocol, {
    ...(chunked ? { chunking: { ...base, ...(chunkSize !== undefined ? { chunkSize } : {}), ...(overlap !== undefined ? { overlap } : {}) } } : {}),
    ...(k1 !== undefined || b !== undefined ? { bm25: { k1: k1 ?? preset.bm25.k1, b: b ?? preset.bm25.b } } : {}),
    candidateK: whole('candidate-k', str('candidate-k'), 1),
    bm25K: whole('bm25-k', str('bm25-k'), 1), denseK: whole('dense-k', str('dense-k'), 1), fusionTopK: whole('fusion-top-k', str('fusion-top-k'), 1),
    ...(pool ? { growPool: pool === 'grow' } : {}),
    calibration: choice<Calibration>('calibration', str('calibration'), CALIBRATIONS),
    analyzer: choice<BmAnalyzer>('analyzer', str('analyzer'), BM25_ANALYZERS),
    entropyBasis: choice<EntropyBasis>('entropy-basis', str('entropy-basis'), ENTROPY_BASES),
    resamples: whole('resamples', str('resamples'), 100),
    maxQueries: whole('max-queries', str('max-queries'), 1),
    seed: whole('seed', str('seed'), 0),
    split: str('split'),
    predictors: v['no-predictors'] !== true,
    index: choice<VectorIndexKind>('index', str('index'), INDEX_KINDS),
  });
}

/** `text` in lines of at most `width` characters, the lines after the first indented by `indent`. */
const wrap = (text: string, width: number, indent: string) =>
  text.split(' ').reduce<string[]>((lines, w) => {
    if (lines.length && (lines.at(-1)! + ' ' + w).length <= width) lines[lines.length - 1] += ' ' + w;
    else lines.push(w);
    return lines;
  }, []).join(`\n${indent}`);
const PAD = ' '.repeat(20);

/** `rag-lab eval-beir`'s help for the run's settings flags (from the presets and defaults themselves, so it cannot drift). */
export const RUN_FLAGS_HELP = `  --split NAME      qrels split (default: test)
  --protocol P      default | seed-b
${PAD}${wrap(`seed-b, the evaluation protocol of seed B (the calibrated entropy-weighted hybrid retrieval study; docs/seeds.md): ${protocolDescription('seed-b')}; each flag below overrides its part`, 96, PAD)}
  --k1 K --b B      BM25 parameters (default: k1=${DEFAULT_RUN_SETTINGS.bm25.k1}, b=${DEFAULT_RUN_SETTINGS.bm25.b})
  --analyzer A      BM25 tokens: english (default: stop words dropped, Porter stems) | plain (lower-cased words,
                    nothing dropped or stemmed: seed-b's)
  --chunk           index ${DEFAULT_CHUNKING.chunkSize}/${DEFAULT_CHUNKING.overlap}-character chunks and rank documents by their best chunk
  --chunk-size N --overlap N
                    chunk size and overlap in characters (imply --chunk)
                    (--k1, --b and the chunking apply to --data; an artifact keeps the settings it was built with)
  --candidate-k N   candidates from each retriever (default: depth 100, × 10 on chunks)
  --bm25-k N --dense-k N --fusion-top-k N
                    seed A's separate k's: BM25's and the dense index's candidates, and the fused candidates passed
                    on (default: --candidate-k; the fused list whole, or --candidate-k in rerank modes)
  --pool P          grow (default: the pool doubles while dedup leaves fewer than 100 documents) | fixed
  --calibration C   ${CALIBRATIONS.join(' | ')} for the calibrated modes (default cdf)
  --entropy-basis B calibrated (default: H of the calibrated scores, as seed B
                    defines it) | raw (H of the raw scores)
  --resamples N     bootstrap resamples and permutations the analysis uses (default: analyze's own)
  --max-queries N   a seeded sample of N judged queries (default: all); --seed S (default 0)
  --no-predictors   skip the query performance predictors (entropy under each calibration, alpha, clarity, NQC,
                    WIG; computed per query on lists of ${QPP_DEFAULTS.listDepth} by default)
  --index KIND      vector index: auto | exact | int8 | hnsw (default auto; exact under --protocol seed-b)`;
