/**
 * One translation of a RAGBench run's settings (ragbench-plan.ts): the Benchmark tab (bench-session.ts) and
 * `rag-lab eval-ragbench` (ragbench-run-settings.ts) give the same evaluator settings and the same recorded config
 * for the same settings (beyond what only one shell has: the tab's hosts, the CLI's bootstrap and concurrency).
 */
import { describe, expect, it } from 'vitest';
import type { RagbenchRow } from '../../src/lib/data/ragbench.ts';
import type { BenchConfig } from '../../src/lib/eval/ragbench-run/ragbench-tab-config.ts';
import { evaluatorSettings } from '../../src/lib/eval/ragbench-run/ragbench-tab-session.ts';
import { ragbenchPlan } from '../../src/lib/eval/ragbench-run/ragbench-plan.ts';
import { ragbenchRunSettings, type RagbenchRunOptions } from '../../src/lib/eval/ragbench-run/ragbench-run-settings.ts';
import { cloneConfig, DEFAULT_RAG_CONFIG, type RagConfig } from '../../src/lib/rag/config.ts';

const rows = (n: number) => Array.from({ length: n }, (_, i) => ({ id: `r${i}` }) as unknown as RagbenchRow);
const cli: RagbenchRunOptions = {
  mode: 'validate', data: new Map([['hagrid', rows(3)], ['covidqa', rows(2)]]), n: 2, seed: 4, evaluator: 'lexical', repeats: 1, temperature: undefined,
  api: null, rag: null, modelIds: { dtype: 'q8' }, device: 'cpu', bootstrap: 1000, concurrency: 2, runtime: { runtime: 'node', agent: 'node test' },
  source: 'local', withReport: true, redact: (m) => m,
};
const api = { providerId: 'openai', baseUrl: 'http://127.0.0.1:9/v1', model: 'm', limits: { rpm: 30 } };
const dense = (() => { const c = cloneConfig(DEFAULT_RAG_CONFIG); c.retrieval.mode = 'dense'; c.llm = { ...c.llm, provider: 'openai', baseUrl: api.baseUrl, model: 'm' }; return c; })();

/** The tab's BenchConfig for the same settings, as its evaluator form builds it (bench-evaluators.ts evaluatorConfig). */
function tabConfig(o: RagbenchRunOptions, extra: Partial<BenchConfig>): BenchConfig {
  return {
    mode: o.mode, subsets: [...o.data.keys()], n: o.n ?? null, seed: o.seed, evaluator: o.evaluator, judge: null, rag: o.rag, nliModels: null,
    datasetsHost: 'https://datasets.example', hubUrl: 'https://hub.example', localSubsets: [...o.data.keys()], ...extra,
  };
}

const cases: Array<[string, RagbenchRunOptions, Partial<BenchConfig>]> = [
  ['lexical validate', cli, {}],
  ['LLM judge, validate', { ...cli, evaluator: 'llm', repeats: 3, api }, { judge: { provider: 'openai', baseUrl: api.baseUrl, model: 'm', repeats: 3, rpm: 30, tpm: null } }],
  ['NLI validate', { ...cli, evaluator: 'nli', modelIds: { nli: 'x/nli', dtype: 'q8' } }, { nliModels: { nli: 'x/nli@q8', reranker: 'Xenova/ms-marco-MiniLM-L-6-v2@q8' } }],
  ['RAGAS pipeline, dense retrieval', { ...cli, mode: 'pipeline', evaluator: 'ragas', rag: dense, api: { ...api, limits: null }, modelIds: { embedder: 'e/1', dtype: 'q8' } }, { ragasEmbedder: 'e/1@q8' }],
  ['LLM judge, pipeline', { ...cli, mode: 'pipeline', evaluator: 'llm', rag: dense, api: { ...api, limits: null }, modelIds: { embedder: 'e/1', dtype: 'q8' } }, {}],
];

const shared = (config: Record<string, unknown>) => {
  const { datasetsHost: _h, hubUrl: _u, bootstrap: _b, concurrency: _c, ...rest } = config;
  return rest;
};

describe('ragbenchPlan: the tab and the CLI give the same plan for the same settings', () => {
  for (const [name, o, extra] of cases) {
    it(name, () => {
      const fromCli = ragbenchRunSettings(o).session;
      const bench = tabConfig(o, extra);
      const rag: RagConfig | null = o.rag;
      // The tab: bench-session.ts's evaluator settings and report config (both from ragbenchPlan).
      expect(fromCli.settings, 'evaluator settings').toEqual(evaluatorSettings(bench, rag));
      const tab = ragbenchPlan(bench, rag);
      expect(fromCli.settings).toEqual(tab.settings);
      expect([fromCli.n, fromCli.seed]).toEqual([tab.n, tab.seed]);
      const { judge: cliJudge, ...cliConfig } = shared(fromCli.report.config);
      const { judge: tabJudge, ...tabRest } = shared(tab.reportConfig);
      expect(cliConfig).toEqual(tabRest);
      // Pipeline mode's judge is the answering model: the tab's form records none, the CLI its API flags (the same model).
      if (o.mode === 'pipeline') expect(tabJudge).toBeNull();
      expect(o.mode === 'pipeline' ? cliJudge ?? null : cliJudge).toEqual(o.mode === 'pipeline' && tab.settings.judge ? expect.objectContaining(tab.settings.judge) : tabJudge);
    });
  }
});
