/**
 * A retrieval run's flat settings (settings/retrieval-run.ts RUN_SETTINGS: the flags, the tab's form) to the session's
 * RetrievalRunSettings and back, over a protocol's preset: chunking and BM25 are nested there and the pool is
 * `growPool` (settings/retrieval-run.ts `flatOfRun` is the way back). Checked by `runSettings`.
 */
import { DEFAULT_CHUNKING } from '../../retrieval/chunk.ts';
import { flatOfRun, RUN_DEFAULTS, type RetrievalProtocol, type RetrievalRunSettings, type RunFlat, type RunFlatKey } from '../../settings/retrieval-run.ts';
import { runSettings } from './retrieval-session.ts';

/** Flat values as the session's settings, checked. */
export function runOfFlat(f: RunFlat): RetrievalRunSettings {
  const { pool, chunked, chunkSize, overlap, k1, b, ...same } = f;
  return runSettings(f.protocol, {
    ...same, growPool: pool === 'grow', chunking: chunked ? { ...DEFAULT_CHUNKING, chunkSize, overlap } : false, bm25: { k1, b },
  });
}

/** A protocol's preset as flat values. */
export const presetFlat = (protocol: RetrievalProtocol): RunFlat => flatOfRun(runSettings(protocol));

/** The settings given (flags, form fields) over their protocol's preset; a chunk size or overlap given implies chunks. */
export function runFromGiven(given: Partial<RunFlat>): RetrievalRunSettings {
  const protocol = given.protocol ?? RUN_DEFAULTS.protocol;
  const chunked = given.chunked ?? (given.chunkSize !== undefined || given.overlap !== undefined ? true : undefined);
  const set = Object.fromEntries(Object.entries({ ...given, ...(chunked !== undefined ? { chunked } : {}) }).filter(([, x]) => x !== undefined));
  return runOfFlat({ ...presetFlat(protocol), ...set, protocol });
}

// Each flat setting but the mapped ones is a field of the session's settings, of the same type, and each field of
// those has its setting (or is a mapped one): both fail to compile otherwise.
type Mapped = 'pool' | 'chunked' | 'chunkSize' | 'overlap' | 'k1' | 'b';
const _sameAsSession: Pick<RetrievalRunSettings, Exclude<RunFlatKey, Mapped>> = {} as Omit<RunFlat, Mapped>;
type Unlisted = Exclude<keyof RetrievalRunSettings, RunFlatKey | 'growPool' | 'chunking' | 'bm25'>;
const _everyField: [Unlisted] extends [never] ? true : Unlisted = true;
void _sameAsSession; void _everyField;
