/**
 * IndexedDB result cache of benchmark rows (ResultStore): one record per (config hash, row key), carrying a format
 * version and a SHA-256 checksum over a canonical serialisation of (version, hash, row key, scores; the RAGAS
 * evaluator's four scores follow TRACe's, so a record without them hashes as it always did). A record of
 * another version, with a wrong checksum or scores out of shape is reported as invalid (runSubset scores the row
 * again and says so), never used.
 */
import type { CachedRows, ResultStore } from './resumable-rows.ts';
import { validCachedScores } from './resumable-rows.ts';
import { RAGAS_METRICS, type EvalScores } from '../metrics/ragas.ts';
import { sha256Hex } from '../../checksum.ts';
import { database } from '../../store/db.ts';

/** Bump when the record layout or the canonical serialisation changes. */
export const RESULT_SCHEMA_VERSION = 1;
const STORE = 'results';

export interface ResultRecord { key: string; hash: string; row: string; scores: EvalScores; schemaVersion: number; checksum: string; savedAt: number }

const SCORE_FIELDS = ['relevance', 'utilization', 'adherence', 'completeness'] as const;
/** JSON has no NaN: it is written as the string "NaN", so NaN and null (or a missing field) hash differently. */
const canonical = (x: unknown) => (typeof x === 'number' && Number.isNaN(x) ? 'NaN' : x ?? null);

/**
 * The checksum of a record: SHA-256 of JSON [version, hash, row, relevance, utilization, adherence, completeness],
 * then, when the record has RAGAS scores, faithfulness, answer_relevancy, context_precision, context_recall.
 */
export function resultChecksum(hash: string, row: string, scores: EvalScores, version = RESULT_SCHEMA_VERSION): Promise<string> {
  const s = scores as unknown as Record<string, unknown>;
  const ragas = (s['ragas'] ?? null) as Record<string, unknown> | null;
  const extra = ragas === null || typeof ragas !== 'object' ? [] : RAGAS_METRICS.map((f) => canonical(ragas[f]));
  return sha256Hex(JSON.stringify([version, hash, row, ...SCORE_FIELDS.map((f) => canonical(s[f])), ...extra]));
}

const rangeOf = (hash: string) => IDBKeyRange.bound(`${hash}|`, `${hash}|\uffff`);

/** The record's scores when it is intact (version, checksum over its primary key's hash and row, shape), else null. */
async function verified(rec: ResultRecord, hash: string): Promise<EvalScores | null> {
  const row = rec.key.slice(hash.length + 1);
  if (rec.schemaVersion !== RESULT_SCHEMA_VERSION || rec.hash !== hash || rec.row !== row) return null;
  if (typeof rec.scores !== 'object' || rec.scores === null) return null;
  if ((await resultChecksum(hash, row, rec.scores)) !== rec.checksum) return null;
  return validCachedScores(rec.scores);
}

export const indexedDbResultStore: ResultStore = {
  async getAll(hash) {
    const recs = (await (await database()).getAll(STORE, rangeOf(hash))) as ResultRecord[];
    const out: CachedRows = { scores: new Map(), invalid: new Set() };
    for (const rec of recs) {
      const scores = await verified(rec, hash);
      if (scores) out.scores.set(rec.row, scores);
      else out.invalid.add(rec.key.slice(hash.length + 1));
    }
    return out;
  },
  async put(hash, row, scores) {
    const clean: EvalScores = {
      relevance: scores.relevance, utilization: scores.utilization, adherence: scores.adherence, completeness: scores.completeness,
      ...(scores.ragas ? { ragas: { ...scores.ragas } } : {}),
    };
    const rec: ResultRecord = {
      key: `${hash}|${row}`, hash, row, scores: clean, schemaVersion: RESULT_SCHEMA_VERSION,
      checksum: await resultChecksum(hash, row, clean), savedAt: Date.now(),
    };
    await (await database()).put(STORE, rec);
  },
  async clear(hash) {
    await (await database()).delete(STORE, rangeOf(hash));
  },
};

/** For tests: the stored record of a row, and overwriting it as-is (to simulate an edited or corrupted record). */
export async function getRawResult(hash: string, row: string): Promise<ResultRecord | undefined> {
  return (await (await database()).get(STORE, `${hash}|${row}`)) as ResultRecord | undefined;
}

export async function putRawResult(rec: unknown): Promise<void> {
  await (await database()).put(STORE, rec);
}
