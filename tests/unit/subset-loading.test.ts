/**
 * A run's subsets load each on its own (subset-loading.ts): one that cannot load is named and skipped while the
 * others are scored, the session's report says which and why, and only a run where none loads fails, naming each.
 */
import 'fake-indexeddb/auto';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { openDB } from 'idb';
import { describe, expect, test } from 'vitest';
import { parseRagbenchJsonl } from '../../src/lib/data/ragbench.ts';
import { MemoryResultStore } from '../../src/lib/eval/ragbench-run/resumable-rows.ts';
import { runValidateSession } from '../../src/lib/eval/ragbench-run/ragbench-loops.ts';
import { loadRunSubsets, SubsetBoard } from '../../src/lib/eval/ragbench-run/subset-loading.ts';
import { STORES } from '../../src/lib/store/db.ts';
import { fitsLimit, IndexedDbRagbenchFileStore, RAGBENCH_FILES_STORE } from '../../src/lib/store/ragbench-file-store.ts';

const DATA = process.env.RAG_LAB_RAGBENCH ?? resolve(import.meta.dirname, '../../../shared/data/ragbench/test');
const covidqa = parseRagbenchJsonl(readFileSync(join(DATA, 'covidqa.jsonl'), 'utf8'), 'covidqa').rows;
const OFFLINE = 'Could not reach the Hugging Face Hub (127.0.0.1:9). You seem to be offline or the host is blocked: load the subset from a local file (jsonl or parquet) instead.';

/** A loader as the worker's: covidqa from its local file, every other subset from an unreachable Hub. */
const load = async (subset: string) => {
  if (subset === 'covidqa') return { rows: covidqa, source: 'local', issues: [] };
  throw new Error(OFFLINE);
};

describe('loadRunSubsets', () => {
  test('the unreachable subset is named and skipped, the local one is scored, and the report says so', async () => {
    const board = new SubsetBoard(['emanual', 'covidqa']);
    const l = await loadRunSubsets(['emanual', 'covidqa'], load, { board });
    expect(l.subsets.map((s) => [s.subset, s.rows.length])).toEqual([['covidqa', 246]]);
    expect(l.skipped).toEqual([{ subset: 'emanual', reason: OFFLINE }]);
    expect(l.source).toBe('local');
    expect(board.snapshot()).toEqual([{ subset: 'emanual', state: 'skipped', reason: OFFLINE }, { subset: 'covidqa', state: 'ready' }]);
    const s = await runValidateSession({
      evaluator: 'lexical', settings: { nliModels: null, judge: null }, deps: {}, subsets: l.subsets, store: new MemoryResultStore(),
      n: 10, seed: 0, bootstrap: 0,
      report: { config: {}, environment: { runtime: 'node', agent: 'test', models: [] }, source: l.source, skipped: l.skipped },
    });
    expect(s.runs.map((r) => [r.validation.subset, r.validation.n])).toEqual([['covidqa', 10]]);
    expect(s.report!.data.subsets).toEqual(['covidqa']);
    expect(s.report!.summary.notes).toContain(`emanual: skipped, it could not be loaded (${OFFLINE})`);
  });

  test('a run where no subset loads fails naming each subset and why', async () => {
    await expect(loadRunSubsets(['emanual'], load)).rejects.toThrow(`emanual could not be loaded: ${OFFLINE}`);
    await expect(loadRunSubsets(['emanual', 'hagrid'], load)).rejects.toThrow(`No subset could be loaded: emanual: ${OFFLINE} · hagrid: ${OFFLINE}`);
  });

  test('a cancel stops the run instead of skipping the subset', async () => {
    const ctl = new AbortController();
    const l = loadRunSubsets(['covidqa', 'emanual'], async (s) => { if (s === 'emanual') { ctl.abort(); throw new Error('aborted'); } return load(s); }, { signal: ctl.signal });
    await expect(l).rejects.toThrow('aborted');
  });

  test('the board: a subset that starts running ends the one before; a skipped one stays skipped', () => {
    const b = new SubsetBoard(['a', 'b', 'c']);
    b.set('c', 'skipped', 'bad file');
    b.set('a', 'running');
    b.set('b', 'running');
    b.set('c', 'running');
    expect(b.snapshot().map((s) => s.state)).toEqual(['done', 'running', 'skipped']);
  });
});

describe('remembered RAGBench files', () => {
  let n = 0;
  const store = (limit: number) => {
    const p = openDB(`ragbench-files-test-${n++}`, 1, { upgrade(d) { for (const s of STORES) d.createObjectStore(s, { keyPath: 'key' }); } });
    return new IndexedDbRagbenchFileStore(() => p, limit);
  };

  test('files within the limit come back byte for byte; one beyond it is kept by name only', async () => {
    const s = store(10);
    expect(await s.remember('covidqa', 'covidqa.jsonl', new Uint8Array([1, 2, 3, 4, 5, 6]))).toBe(true);
    // 6 + 5 > 10: not kept; replacing covidqa's own file does not count its old size.
    expect(await s.remember('emanual', 'emanual.jsonl', new Uint8Array(5))).toBe(false);
    expect(await s.remember('covidqa', 'mine.jsonl', new Uint8Array([9, 8, 7]))).toBe(true);
    const { files, problems } = await s.list();
    expect(problems).toEqual([]);
    expect(files.map((f) => [f.subset, f.file, f.size, f.bytes && [...f.bytes]])).toEqual([['covidqa', 'mine.jsonl', 3, [9, 8, 7]], ['emanual', 'emanual.jsonl', 5, null]]);
  });

  test('a damaged record is dropped with a reason', async () => {
    const p = openDB(`ragbench-files-test-${n++}`, 1, { upgrade(d) { for (const x of STORES) d.createObjectStore(x, { keyPath: 'key' }); } });
    const s = new IndexedDbRagbenchFileStore(() => p);
    await (await p).put(RAGBENCH_FILES_STORE, { key: 'covidqa', schemaVersion: 1, file: 'covidqa.jsonl', size: 'big', savedAt: 1, bytes: null });
    const { files, problems } = await s.list();
    expect(files).toEqual([]);
    expect(problems).toEqual(['A remembered RAGBench file has the wrong shape (size: Invalid type: Expected number but received "big"): pick the file again.']);
    expect(await (await p).count(RAGBENCH_FILES_STORE)).toBe(0);
  });

  test('fitsLimit sums the others and the new size against the limit', () => {
    expect(fitsLimit([3, 4], 3, 10)).toBe(true);
    expect(fitsLimit([3, 4], 4, 10)).toBe(false);
  });
});
