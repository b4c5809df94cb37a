/**
 * A RAGBench run's report names only the models it used (issue 32: a lexical report named the loaded embedder): the
 * Benchmark tab's session (ragbench-tab-session.ts) with a models service that holds an embedder, a cross-encoder and an NLI
 * model.
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, test } from 'vitest';
import { parseRagbenchJsonl } from '../../src/lib/data/ragbench.ts';
import type { BenchConfig } from '../../src/lib/eval/ragbench-run/ragbench-tab-config.ts';
import { MemoryResultStore } from '../../src/lib/eval/ragbench-run/resumable-rows.ts';
import { runBenchSession, type BenchModels } from '../../src/lib/eval/ragbench-run/ragbench-tab-session.ts';

const DATA = process.env.RAG_LAB_RAGBENCH ?? resolve(import.meta.dirname, '../../../shared/data/ragbench/test');
const rows = parseRagbenchJsonl(readFileSync(join(DATA, 'emanual.jsonl'), 'utf8'), 'emanual').rows.slice(0, 3);

const models: BenchModels = {
  loaded: async () => [
    { task: 'embedder', spec: { id: 'corpus/holdout-manuals-lsi256', dtype: 'q8', device: 'wasm' }, dim: 4 },
    { task: 'cross-encoder', spec: { id: 'x/ce', dtype: 'q8', device: 'wasm' }, dim: null },
  ],
  embed: async () => new Float32Array(4), rerank: async (_q, ps) => ps.map(() => 0), nli: async () => ({ entailment: 1, neutral: 0, contradiction: 0 }),
};

const config: BenchConfig = {
  mode: 'validate', subsets: ['emanual'], n: null, seed: 0, evaluator: 'lexical', judge: null, rag: null, nliModels: null,
  datasetsHost: 'http://127.0.0.1:9', hubUrl: 'http://127.0.0.1:9', localSubsets: ['emanual'],
};

describe('RAGBench run models', () => {
  test('a lexical validate run records no model, though an embedder and a cross-encoder are loaded', async () => {
    const r = await runBenchSession(config, {
      models, store: new MemoryResultStore(), attachDense: async () => undefined,
      loadSubset: async () => ({ rows, source: 'local', issues: [] }),
    }, null, new AbortController().signal, () => {});
    expect(r.report?.environment.models).toEqual([]);
  });
});
