/** Resumable benchmark runs: the cache makes a re-run compute only missing rows and give the same totals. */
import 'fake-indexeddb/auto';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, test } from 'vitest';
import { parseRagbenchJsonl, ragbenchRowKey, type RagbenchRow } from '../../src/lib/data/ragbench.ts';
import { configHash, invalidCacheNote, MemoryResultStore, runSubset, type ScoringConfig } from '../../src/lib/eval/ragbench-run/resumable-rows.ts';
import { lexicalRowEvaluator, type TraceEvaluator } from '../../src/lib/eval/ragbench/validate-mode.ts';
import type { TraceScores } from '../../src/lib/eval/metrics/trace.ts';
import { getRawResult, indexedDbResultStore, putRawResult, resultChecksum } from '../../src/lib/eval/ragbench-run/result-cache.ts';
import { sha256Hex } from '../../src/lib/checksum.ts';

const DATA = process.env.RAG_LAB_RAGBENCH ?? resolve(import.meta.dirname, '../../../shared/data/ragbench/test');
const rows = parseRagbenchJsonl(readFileSync(join(DATA, 'emanual.jsonl'), 'utf8'), 'emanual').rows;
const CONFIG: ScoringConfig = { evaluator: 'lexical', settings: {}, mode: 'validate', version: 1 };

function counting(inner: TraceEvaluator) {
  const calls: string[] = [];
  const fn: TraceEvaluator = (row, signal) => { calls.push(ragbenchRowKey(row)); return inner(row, signal); };
  return { fn, calls };
}

describe('runSubset', () => {
  test('an aborted run resumes with only the missing rows, and totals equal an uninterrupted run', async () => {
    const hash = await configHash(CONFIG);
    const reference = await runSubset(rows, 'emanual', lexicalRowEvaluator(), new MemoryResultStore(), hash, { n: 40, seed: 3 });

    const store = new MemoryResultStore();
    const controller = new AbortController();
    const first = counting(lexicalRowEvaluator());
    const stopAfter: TraceEvaluator = (row, signal) => {
      if (first.calls.length === 15) controller.abort();
      return first.fn(row, signal);
    };
    await expect(runSubset(rows, 'emanual', stopAfter, store, hash, { n: 40, seed: 3, signal: controller.signal })).rejects.toThrow();
    const saved = (await store.getAll(hash)).scores;
    expect(saved.size).toBeGreaterThanOrEqual(15);
    expect(saved.size).toBeLessThan(40);

    const second = counting(lexicalRowEvaluator());
    const resumed = await runSubset(rows, 'emanual', second.fn, store, hash, { n: 40, seed: 3 });
    expect(second.calls.length).toBe(40 - saved.size);
    expect(second.calls.some((k) => saved.has(k))).toBe(false);
    expect(resumed.computed).toBe(40 - saved.size);
    expect(resumed.validation.n).toBe(40);
    expect(resumed.validation.auroc).toBeCloseTo(reference.validation.auroc, 12);
    expect(resumed.validation.rmse_relevance).toBeCloseTo(reference.validation.rmse_relevance, 12);
    expect(resumed.validation.baselines).toEqual(reference.validation.baselines);

    const third = counting(lexicalRowEvaluator());
    await runSubset(rows, 'emanual', third.fn, store, hash, { n: 40, seed: 3 });
    expect(third.calls).toEqual([]);
  });

  test('failed rows are listed, never cached, and retried by the next run', async () => {
    const hash = await configHash({ ...CONFIG, settings: { variant: 'flaky' } });
    const store = new MemoryResultStore();
    const lexical = lexicalRowEvaluator();
    const bad = new Set(rows.slice(0, 5).map(ragbenchRowKey));
    const flaky: TraceEvaluator = (row, s) => {
      if (bad.has(ragbenchRowKey(row))) throw new Error('provider error: 503');
      return lexical(row, s);
    };
    const sample: RagbenchRow[] = rows.slice(0, 20);
    const run1 = await runSubset(sample, 'emanual', flaky, store, hash);
    expect(run1.failures.map((f) => f.key).sort()).toEqual([...bad].sort());
    expect(run1.failures[0]!.reason).toContain('503');
    expect(run1.validation.n).toBe(15);
    expect((await store.getAll(hash)).scores.size).toBe(15);
    const retry = counting(lexical);
    const run2 = await runSubset(sample, 'emanual', retry.fn, store, hash);
    expect(retry.calls.sort()).toEqual([...bad].sort());
    expect(run2.failures).toEqual([]);
    expect(run2.validation.n).toBe(20);
  });

  test('the config hash ignores key order but not settings', async () => {
    const a = await configHash({ ...CONFIG, settings: { model: 'x', repeats: 1 } });
    const b = await configHash({ ...CONFIG, settings: { repeats: 1, model: 'x' } });
    const c = await configHash({ ...CONFIG, settings: { repeats: 2, model: 'x' } });
    expect(a).toBe(b);
    expect(a).not.toBe(c);
  });

  test('a cache that cannot save (quota) keeps the results and says so', async () => {
    const hash = await configHash({ ...CONFIG, settings: { variant: 'full-disk' } });
    const store = new MemoryResultStore();
    store.put = async () => { throw Object.assign(new Error('quota'), { name: 'QuotaExceededError' }); };
    const run = await runSubset(rows.slice(0, 10), 'emanual', lexicalRowEvaluator(), store, hash);
    expect(run.failures).toEqual([]);
    expect(run.validation.n).toBe(10);
    expect(run.uncached).toEqual({ rows: 10, reason: 'the browser storage quota is full' });
  });
});

describe('cached rows are validated and checksummed', () => {
  const N = 30;
  const opts = { n: N, seed: 5 };

  /** A run filling the IndexedDB cache of `variant`, and the keys of its rows. */
  async function cachedRun(variant: string) {
    const hash = await configHash({ ...CONFIG, settings: { variant } });
    await indexedDbResultStore.clear(hash);
    const clean = await runSubset(rows, 'emanual', lexicalRowEvaluator(), indexedDbResultStore, hash, opts);
    const keys = clean.validation.rows.map(ragbenchRowKey);
    return { hash, clean, keys };
  }

  test('records edited in place (score 40 instead of 0.4, a missing field, a wrong checksum) are recomputed and reported', async () => {
    const { hash, clean, keys } = await cachedRun('tampered');
    expect(clean.validation.n).toBe(N);
    expect(clean.invalidCached).toBe(0);
    const edited = keys.slice(0, 3);
    const [a, b, c] = await Promise.all(edited.map((k) => getRawResult(hash, k)));
    // An edit that also recomputes the checksum: only the range check catches it.
    const wild: TraceScores = { ...a!.scores, relevance: a!.scores.relevance * 100 + 40 };
    await putRawResult({ ...a!, scores: wild, checksum: await resultChecksum(hash, a!.row, wild) });
    const { completeness: _dropped, ...missing } = b!.scores;
    await putRawResult({ ...b!, scores: missing, checksum: await resultChecksum(hash, b!.row, missing as TraceScores) });
    await putRawResult({ ...c!, scores: { ...c!.scores, utilization: 0.123 } });

    const progress: number[] = [];
    const again = counting(lexicalRowEvaluator());
    const run = await runSubset(rows, 'emanual', again.fn, indexedDbResultStore, hash, { ...opts, onProgress: (p) => progress.push(p.invalid) });
    expect(again.calls.sort()).toEqual([...edited].sort());
    expect(run.invalidCached).toBe(3);
    expect(run.computed).toBe(3);
    expect(progress.at(-1)).toBe(3);
    expect(invalidCacheNote('emanual', run.invalidCached)).toBe('emanual: 3 cached rows were invalid (edited or corrupted) and were recomputed.');
    expect(run.validation.n).toBe(N);
    expect(run.validation.rmse_relevance).toBe(clean.validation.rmse_relevance);
    expect(run.validation.rmse_utilization).toBe(clean.validation.rmse_utilization);
    expect(run.validation.rmse_completeness).toBe(clean.validation.rmse_completeness);
    expect(run.validation.auroc).toBe(clean.validation.auroc);

    // The recomputed rows were saved again, intact: the next run uses every row.
    const third = counting(lexicalRowEvaluator());
    const last = await runSubset(rows, 'emanual', third.fn, indexedDbResultStore, hash, opts);
    expect(third.calls).toEqual([]);
    expect(last.invalidCached).toBe(0);
  });

  test('a record of another format version, or moved to another row, is not used', async () => {
    const { hash, clean, keys } = await cachedRun('moved');
    const [a, b] = await Promise.all(keys.slice(0, 2).map((k) => getRawResult(hash, k)));
    await putRawResult({ ...a!, schemaVersion: 0 });
    // b's intact record copied under a's neighbour's key: its checksum names b's row, not this one.
    const target = keys[2]!;
    await putRawResult({ ...b!, key: `${hash}|${target}`, row: target });
    const again = counting(lexicalRowEvaluator());
    const run = await runSubset(rows, 'emanual', again.fn, indexedDbResultStore, hash, opts);
    expect(again.calls.sort()).toEqual([keys[0]!, target].sort());
    expect(run.invalidCached).toBe(2);
    expect(run.validation.rmse_relevance).toBe(clean.validation.rmse_relevance);
  });

  test('runSubset rejects out-of-range scores from any store (NaN is a valid score, Infinity is not)', async () => {
    const hash = await configHash({ ...CONFIG, settings: { variant: 'memory' } });
    const store = new MemoryResultStore();
    const sample = rows.slice(0, 8);
    const clean = await runSubset(sample, 'emanual', lexicalRowEvaluator(), store, hash);
    const keys = clean.validation.rows.map(ragbenchRowKey);
    const first = (await store.getAll(hash)).scores.get(keys[0]!)!;
    await store.put(hash, keys[0]!, { ...first, adherence: 40 });
    await store.put(hash, keys[1]!, { ...first, completeness: Infinity });
    await store.put(hash, keys[2]!, { ...first, relevance: NaN });
    const again = counting(lexicalRowEvaluator());
    const run = await runSubset(sample, 'emanual', again.fn, store, hash);
    expect(again.calls.sort()).toEqual([keys[0]!, keys[1]!].sort());
    expect(run.invalidCached).toBe(2);
    expect(run.validation.rmse_completeness).toBe(clean.validation.rmse_completeness);
    // The NaN relevance was used as cached: that row is left out of the relevance RMSE.
    const i = run.validation.rows.findIndex((r) => ragbenchRowKey(r) === keys[2]);
    expect(Number.isNaN(run.validation.predictions[i]!.relevance)).toBe(true);
  });
});

describe('RAGAS scores in the cache', () => {
  /** A RAGAS-like evaluator: TRACe NaN, faithfulness by the row's position, answer relevancy a cosine (may be < 0). */
  const ragasLike: TraceEvaluator = (row) => {
    const i = rows.indexOf(row);
    return { relevance: NaN, utilization: NaN, adherence: NaN, completeness: NaN, ragas: { faithfulness: (i % 4) / 4, answer_relevancy: -0.25, context_precision: NaN, context_recall: NaN } };
  };

  test('kept through IndexedDB with their checksum, validated (a faithfulness of 2 is recomputed), and the subset figures equal', async () => {
    const hash = await configHash({ ...CONFIG, evaluator: 'ragas', settings: { variant: 'ragas' } });
    await indexedDbResultStore.clear(hash);
    const first = await runSubset(rows, 'emanual', ragasLike, indexedDbResultStore, hash, { n: 12, seed: 1 });
    expect(first.validation.ragas!.n).toEqual({ faithfulness: 12, answer_relevancy: 12, context_precision: 0, context_recall: 0 });
    expect(first.validation.ragas!.means.answer_relevancy).toBe(-0.25);
    const keys = first.validation.rows.map(ragbenchRowKey);
    const rec = (await getRawResult(hash, keys[0]!))!;
    expect(rec.scores.ragas).toMatchObject({ answer_relevancy: -0.25 });
    const wild = { ...rec.scores, ragas: { ...rec.scores.ragas!, faithfulness: 2 } };
    await putRawResult({ ...rec, scores: wild, checksum: await resultChecksum(hash, rec.row, wild) });
    const again = counting(ragasLike);
    const second = await runSubset(rows, 'emanual', again.fn, indexedDbResultStore, hash, { n: 12, seed: 1 });
    expect(again.calls).toEqual([keys[0]]);
    expect(second.invalidCached).toBe(1);
    expect(second.validation.ragas).toEqual(first.validation.ragas);
  });

  test('a record without RAGAS scores has the checksum it always had: JSON [version, hash, row, relevance, utilization, adherence, completeness]', async () => {
    const s = { relevance: 0.5, utilization: NaN, adherence: 1, completeness: 0 };
    expect(await resultChecksum('h', 'r', s)).toBe(await sha256Hex(JSON.stringify([1, 'h', 'r', 0.5, 'NaN', 1, 0])));
    expect(await resultChecksum('h', 'r', { ...s, ragas: { faithfulness: 1, answer_relevancy: NaN, context_precision: 0, context_recall: 0.5 } }))
      .toBe(await sha256Hex(JSON.stringify([1, 'h', 'r', 0.5, 'NaN', 1, 0, 1, 'NaN', 0, 0.5])));
  });
});

