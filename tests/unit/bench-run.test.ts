/** Resumable benchmark runs: the cache makes a re-run compute only missing rows and give the same totals. */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, test } from 'vitest';
import { parseRagbenchJsonl, ragbenchRowKey, type RagbenchRow } from '../../src/lib/data/ragbench.ts';
import { configHash, MemoryResultStore, runSubset, type ScoringConfig } from '../../src/lib/eval/bench-run.ts';
import { lexicalRowEvaluator, type TraceEvaluator } from '../../src/lib/eval/ragbench-validate.ts';

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
    const saved = await store.getAll(hash);
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
    expect((await store.getAll(hash)).size).toBe(15);
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
