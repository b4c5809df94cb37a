/**
 * The bench worker's RAGBench subsets (ragbench-subsets.ts) and its one run at a time (run-slot.ts), in Node: picked
 * files parsed and listed, a refused file's reason, files remembered in a memory store, read back after a reload or
 * forgotten, the Hub cache, and a run's cancellation message and redacted errors.
 */
import { resolve } from 'node:path';
import { describe, expect, test } from 'vitest';
import { parseRagbenchJsonl, type RagbenchRow } from '../../src/lib/data/ragbench.ts';
import type { loadRagbenchSubset } from '../../src/lib/data/ragbench-hub.ts';
import { RagbenchSubsets, type PickedRagbenchFile } from '../../src/lib/eval/ragbench-run/ragbench-subsets.ts';
import { CANCELLED_MESSAGE, RunSlot } from '../../src/lib/eval/core/run-slot.ts';
import { MemoryRagbenchFileStore, type RagbenchFileStore } from '../../src/lib/store/ragbench-file-store.ts';
import { readJsonlRows } from '../helpers/ragbench-parquet.ts';

const DATA = process.env.RAG_LAB_RAGBENCH ?? resolve(import.meta.dirname, '../../../shared/data/ragbench/test');
const emanual = readJsonlRows(DATA, 'emanual');
const jsonl = (rows: readonly unknown[]) => rows.map((r) => JSON.stringify(r)).join('\n');
const picked = (name: string, text: string | Uint8Array): PickedRagbenchFile => ({ name, read: async () => (typeof text === 'string' ? new TextEncoder().encode(text) : text) });
const config = (localSubsets: string[] = [], hubUrl = 'http://hub.test') => ({ localSubsets, hubUrl, datasetsHost: 'http://viewer.test' });
const never = new AbortController().signal;
const noEmit = () => {};

describe('picked RAGBench files', () => {
  test('a JSONL file is parsed and listed with its skipped lines, remembered, and its rows are the local subset', async () => {
    const store = new MemoryRagbenchFileStore();
    const s = new RagbenchSubsets(store);
    const text = [jsonl(emanual.slice(0, 5)), '{oops'].join('\n');
    const [r] = await s.addFiles([picked('emanual.jsonl', text)]);
    expect(r).toMatchObject({ file: 'emanual.jsonl', subset: 'emanual', rows: 5, skipped: 1, error: null, remembered: 'yes' });
    expect(r!.issues).toHaveLength(1);
    expect(r!.issues[0]).toMatch(/^emanual\.jsonl line 6: /);
    const loaded = await s.rowsOf(config(['emanual']), 'emanual', never, noEmit);
    expect(loaded).toEqual({ rows: parseRagbenchJsonl(jsonl(emanual.slice(0, 5)), 'emanual').rows, source: 'local', issues: [] });
    expect((await store.list()).files.map((f) => [f.subset, f.file, f.size])).toEqual([['emanual', 'emanual.jsonl', new TextEncoder().encode(text).byteLength]]);
  });

  test('a later file of the same subset replaces the one before', async () => {
    const s = new RagbenchSubsets(new MemoryRagbenchFileStore());
    await s.addFiles([picked('emanual.jsonl', jsonl(emanual.slice(0, 5))), picked('emanual_test.jsonl', jsonl(emanual.slice(0, 2)))]);
    expect((await s.rowsOf(config(['emanual']), 'emanual', never, noEmit)).rows).toHaveLength(2);
  });

  test('a refused file says why, is not remembered, and leaves no local subset', async () => {
    const store = new MemoryRagbenchFileStore();
    const s = new RagbenchSubsets(store);
    const reports = await s.addFiles([picked('emanual.jsonl', ''), picked('emanual.jsonl', new Uint8Array([0xff, 0xfe, 0x00]))]);
    expect(reports).toEqual([
      { file: 'emanual.jsonl', subset: null, rows: 0, skipped: 0, issues: [], error: 'emanual.jsonl: the file is empty', remembered: null },
      { file: 'emanual.jsonl', subset: null, rows: 0, skipped: 0, issues: [], error: 'emanual.jsonl: not UTF-8 text and not a parquet file (RAGBench files are JSON Lines in UTF-8, or parquet)', remembered: null },
    ]);
    expect((await store.list()).files).toEqual([]);
    await expect(s.rowsOf(config(['emanual']), 'emanual', never, noEmit)).rejects.toThrow('the local file for emanual is no longer loaded (the page was reloaded): pick it again');
  });

  test('a store that refuses the write costs only the remembering', async () => {
    const store: RagbenchFileStore = { list: async () => ({ files: [], problems: [] }), remember: () => Promise.reject(new Error('quota')), forget: async () => {} };
    const [r] = await new RagbenchSubsets(store).addFiles([picked('emanual.jsonl', jsonl(emanual.slice(0, 3)))]);
    expect(r).toMatchObject({ subset: 'emanual', rows: 3, remembered: 'failed' });
  });
});

describe('remembered RAGBench files after a reload', () => {
  test('restored files are parsed again and are the local subsets; one over the limit is named as forgotten', async () => {
    const small = jsonl(emanual.slice(0, 4));
    const store = new MemoryRagbenchFileStore(new TextEncoder().encode(small).byteLength + 10);
    const first = new RagbenchSubsets(store);
    const large = jsonl(readJsonlRows(DATA, 'covidqa').slice(0, 4));
    const reports = await first.addFiles([picked('emanual.jsonl', small), picked('covidqa.jsonl', large)]);
    expect(reports.map((r) => [r.subset, r.remembered])).toEqual([['emanual', 'yes'], ['covidqa', 'too-large']]);

    const reloaded = new RagbenchSubsets(store);
    await expect(reloaded.rowsOf(config(['emanual']), 'emanual', never, noEmit)).rejects.toThrow(/no longer loaded/);
    const r = await reloaded.restore();
    expect(r.files).toEqual([{ file: 'emanual.jsonl', subset: 'emanual', rows: 4, skipped: 0, issues: [], error: null, remembered: 'restored' }]);
    expect(r.forgotten).toEqual([{ file: 'covidqa.jsonl', subset: 'covidqa', size: new TextEncoder().encode(large).byteLength }]);
    expect(r.problems).toEqual([]);
    expect((await reloaded.rowsOf(config(['emanual']), 'emanual', never, noEmit)).rows).toHaveLength(4);
  });

  test('a remembered file that no longer parses is forgotten with its reason; an unreadable store is one problem', async () => {
    const store = new MemoryRagbenchFileStore();
    await store.remember('emanual', 'emanual.jsonl', new TextEncoder().encode('{oops'));
    const r = await new RagbenchSubsets(store).restore();
    expect(r.files).toEqual([]);
    expect(r.problems).toHaveLength(1);
    expect(r.problems[0]).toMatch(/^emanual\.jsonl: no valid row in 1/);
    expect((await store.list()).files).toEqual([]);

    const broken: RagbenchFileStore = { list: () => Promise.reject(new Error('the database is closed')), remember: async () => true, forget: async () => {} };
    expect(await new RagbenchSubsets(broken).restore()).toEqual({
      files: [], forgotten: [], problems: ['The remembered RAGBench files could not be read (the database is closed): pick them again.'],
    });
  });
});

describe('Hub subsets', () => {
  const rows = parseRagbenchJsonl(jsonl(emanual.slice(0, 3)), 'emanual').rows;
  function hub(source: 'parquet' | 'viewer') {
    const calls: string[] = [];
    const load = (async (subset, opts) => {
      calls.push(`${opts?.hubUrl} ${subset}`);
      opts?.onProgress?.(3, 3);
      return { subset, rows, skipped: [{ subset, line: 7, source: 'row_idx', message: 'bad row' }], total: 4, source, notes: [`${subset}: parquet (main): not found`] };
    }) as typeof loadRagbenchSubset;
    return { calls, load };
  }

  test('the first load reports progress and notes; the second is a cache hit; another Hub loads again', async () => {
    const h = hub('parquet');
    const s = new RagbenchSubsets(new MemoryRagbenchFileStore(), h.load);
    const emitted: unknown[] = [];
    const a = await s.rowsOf(config(), 'emanual', never, (p) => emitted.push(p));
    expect(a).toEqual({ rows, source: 'hub', issues: ['emanual: parquet (main): not found', 'emanual row 7: bad row'] });
    expect(emitted).toEqual([{ phase: 'load', subset: 'emanual', loaded: 0, total: 0 }, { phase: 'load', subset: 'emanual', loaded: 3, total: 3 }]);
    emitted.length = 0;
    const b = await s.rowsOf(config(), 'emanual', never, (p) => emitted.push(p));
    expect(b).toEqual({ rows, source: 'hub', issues: [] });
    expect(emitted).toEqual([]);
    await s.rowsOf(config([], 'http://other.test'), 'emanual', never, noEmit);
    expect(h.calls).toEqual(['http://hub.test emanual', 'http://other.test emanual']);
  });

  test('rows from the dataset viewer are named so; a subset not picked as local goes to the Hub even with a local file', async () => {
    const h = hub('viewer');
    const s = new RagbenchSubsets(new MemoryRagbenchFileStore(), h.load);
    await s.addFiles([picked('emanual.jsonl', jsonl(emanual.slice(0, 5)))]);
    const r: { rows: RagbenchRow[]; source: string } = await s.rowsOf(config(), 'emanual', never, noEmit);
    expect([r.source, r.rows.length]).toEqual(['viewer', 3]);
  });
});

describe('RunSlot', () => {
  test('a cancelled run says its finished rows are kept; a new run aborts the one before', async () => {
    const slot = new RunSlot();
    const waitAbort = (signal: AbortSignal) => new Promise<never>((_, reject) => signal.addEventListener('abort', () => reject(new Error('aborted'))));
    const first = slot.run(null, waitAbort);
    slot.cancel();
    await expect(first).rejects.toThrow(CANCELLED_MESSAGE);
    expect(CANCELLED_MESSAGE).toBe('The run was cancelled. Finished rows are kept and a new run resumes from them.');

    const second = slot.run(null, waitAbort);
    const third = slot.run(null, async (signal) => (signal.aborted ? 'aborted' : 'ran'));
    await expect(second).rejects.toThrow(CANCELLED_MESSAGE);
    expect(await third).toBe('ran');
  });

  test("another error leaves with the run's secret redacted; a finished run is not cancelled by a later cancel", async () => {
    const slot = new RunSlot();
    const key = 'my-secret-key-1234';
    await expect(slot.run(key, async () => { throw new Error(`401 for key ${key}`); })).rejects.toThrow('401 for key [redacted]');
    let seen: AbortSignal | null = null;
    expect(await slot.run(null, async (signal) => { seen = signal; return 1; })).toBe(1);
    slot.cancel();
    expect(seen!.aborted).toBe(false);
  });
});
