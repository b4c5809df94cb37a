/**
 * The retrieval benchmark's row cache: IndexedDB (fake-indexeddb here) returns what was put; a record edited,
 * of the wrong shape, of another format or under another key is refused with the reason (InvalidCachedRow) and the
 * benchmark computes that row again with a note; the memory cache copies rows in and out.
 */
import 'fake-indexeddb/auto';
import { describe, expect, test } from 'vitest';
import { InvalidCachedRow, runRetrievalBenchmark } from '../../src/lib/eval/retrieval/retrieval-bench.ts';
import type { ReportRow } from '../../src/lib/reports/format.ts';
import { retrievalReportRow } from '../../src/lib/eval/ragbench/report-from-run.ts';
import { KnowledgeBase } from '../../src/lib/retrieval/knowledge-base.ts';
import {
  getRawRetrievalRow, indexedDbRetrievalRowCache as idb, MemoryRetrievalRowCache, putRawRetrievalRow, RETRIEVAL_ROW_SCHEMA_VERSION, retrievalRowChecksum,
} from '../../src/lib/eval/retrieval/retrieval-cache.ts';

const SCORES = { 'ndcg@10': 0.5, 'mrr@10': 1, 'p@3': 1 / 3, 'p@5': 0.2, 'r@5': 0.5, 'r@100': 1 };
const row = (mode = 'sparse', id = 'q1'): ReportRow =>
  retrievalReportRow(mode, { id, text: 'river boat' }, SCORES, ['d1', 'd2'], { queryMs: 0.25, predictors: { 'qpp.nqc.sparse': 0.125, 'qpp.wig.sparse': null } });

async function refused(hash: string, key: string): Promise<string> {
  const e = await idb.get(hash, key).then(() => null, (x: unknown) => x);
  expect(e).toBeInstanceOf(InvalidCachedRow);
  return (e as InvalidCachedRow).reason;
}

describe('indexedDbRetrievalRowCache', () => {
  test('returns what was put, by (config hash, row key); another hash or key has nothing; clear drops one hash', async () => {
    await idb.put('aa', 'sparse:q1', row());
    await idb.put('bb', 'sparse:q1', row());
    expect(await idb.get('aa', 'sparse:q1')).toEqual(row());
    expect(await idb.get('aa', 'dense:q1')).toBeUndefined();
    expect(await idb.get('cc', 'sparse:q1')).toBeUndefined();
    const rec = (await getRawRetrievalRow('aa', 'sparse:q1'))!;
    expect(rec).toMatchObject({ key: 'aa|sparse:q1', hash: 'aa', row: 'sparse:q1', schemaVersion: RETRIEVAL_ROW_SCHEMA_VERSION });
    expect(rec.checksum).toBe(await retrievalRowChecksum('aa', 'sparse:q1', row()));
    await idb.clear('aa');
    expect(await idb.get('aa', 'sparse:q1')).toBeUndefined();
    expect(await idb.get('bb', 'sparse:q1')).toEqual(row());
  });

  test('an edited score, a wrong shape, another format or a record moved to another key is refused with the reason', async () => {
    await idb.put('h1', 'sparse:q1', row());
    const rec = (await getRawRetrievalRow('h1', 'sparse:q1'))!;
    await putRawRetrievalRow({ ...rec, value: { ...rec.value, scores: { ...rec.value.scores, 'ndcg@10': 0.9 } } });
    expect(await refused('h1', 'sparse:q1')).toBe('the cached row does not match its checksum');
    await putRawRetrievalRow({ ...rec, value: { ...rec.value, scores: { 'ndcg@10': 'high' } } });
    expect(await refused('h1', 'sparse:q1')).toMatch(/^the cached row has the wrong shape \(value\.scores\.ndcg@10: /);
    await putRawRetrievalRow({ ...rec, checksum: 'xyz' });
    expect(await refused('h1', 'sparse:q1')).toMatch(/wrong shape \(checksum: /);
    await putRawRetrievalRow({ ...rec, schemaVersion: 0 });
    expect(await refused('h1', 'sparse:q1')).toBe('the cached row is of format 0');
    await putRawRetrievalRow({ ...rec, key: 'h1|sparse:q2' });
    expect(await refused('h1', 'sparse:q2')).toBe('the cached row belongs to another run or row');
  });

  test('a run over a corrupted record computes that row again and says so; the others come from the cache', async () => {
    const kb = KnowledgeBase.build([
      { id: 'd1', title: '', text: 'river boat', meta: {} }, { id: 'd2', title: '', text: 'mountain snow', meta: {} }, { id: 'd3', title: '', text: 'boat engine', meta: {} },
    ], { chunking: false, cdfQueries: 0, indexTitle: false });
    const bench = { kb, queries: [{ id: 'q1', text: 'boat' }, { id: 'q2', text: 'mountain' }], qrels: new Map([['q1', new Map([['d3', 1]])], ['q2', new Map([['d2', 1]])]]),
      dataset: 'toy', modes: ['sparse' as const], models: {}, depth: 3, configHash: 'run1', cache: idb };
    const first = await runRetrievalBenchmark(bench);
    const rec = (await getRawRetrievalRow('run1', 'sparse:q2'))!;
    await putRawRetrievalRow({ ...rec, checksum: '0'.repeat(64) });
    const second = await runRetrievalBenchmark(bench);
    expect(second.modes[0]!.cached).toBe(1);
    expect(second.notes).toContain('1 cached rows failed their checks and were computed again (first: sparse:q2: the cached row does not match its checksum)');
    expect(second.rows[0]).toEqual(first.rows[0]);
    expect(second.rows[1]!.scores['ndcg@10']).toBe(first.rows[1]!.scores['ndcg@10']);
    // The row computed again replaced the bad record.
    expect(await idb.get('run1', 'sparse:q2')).toEqual(second.rows[1]);
  });
});

describe('MemoryRetrievalRowCache', () => {
  test('rows are copied in and out', async () => {
    const cache = new MemoryRetrievalRowCache();
    const r = row();
    await cache.put('h', 'sparse:q1', r);
    r.scores['ndcg@10'] = 0;
    const got = (await cache.get('h', 'sparse:q1'))!;
    expect(got.scores['ndcg@10']).toBe(0.5);
    got.scores['ndcg@10'] = 0.1;
    expect((await cache.get('h', 'sparse:q1'))!.scores['ndcg@10']).toBe(0.5);
    expect(await cache.get('h2', 'sparse:q1')).toBeUndefined();
    expect(cache.size).toBe(1);
  });
});
