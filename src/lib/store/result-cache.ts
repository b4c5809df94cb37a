/** IndexedDB result cache of benchmark rows (ResultStore): one record per (config hash, row key). */
import type { ResultStore } from '../eval/bench-run.ts';
import type { TraceScores } from '../eval/trace.ts';
import { database } from './db.ts';

const STORE = 'results';

interface ResultRecord { key: string; hash: string; row: string; scores: TraceScores; savedAt: number }

export const indexedDbResultStore: ResultStore = {
  async getAll(hash) {
    const d = await database();
    const range = IDBKeyRange.bound(`${hash}|`, `${hash}|\uffff`);
    const recs = (await d.getAll(STORE, range)) as ResultRecord[];
    return new Map(recs.map((r) => [r.row, r.scores]));
  },
  async put(hash, row, scores) {
    const rec: ResultRecord = { key: `${hash}|${row}`, hash, row, scores, savedAt: Date.now() };
    await (await database()).put(STORE, rec);
  },
  async clear(hash) {
    const d = await database();
    await d.delete(STORE, IDBKeyRange.bound(`${hash}|`, `${hash}|\uffff`));
  },
};
