/**
 * A retrieval run's modes and settings from `rag-lab eval-beir`'s flags (as strings and booleans, by flag name): the
 * protocol's preset, then each flag given. A bad value is a `RunSettingsError` naming the flag.
 */
import { CALIBRATIONS, type Calibration } from '../retrieval/calibrate.ts';
import { DEFAULT_CHUNKING } from '../retrieval/chunk.ts';
import { ENTROPY_BASES, type EntropyBasis } from '../retrieval/entropy.ts';
import { isMode, MODE_IDS, type RetrievalMode } from '../retrieval/modes.ts';
import {
  BM25_ANALYZERS, INDEX_KINDS, PROTOCOLS, runSettings, RunSettingsError,
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
