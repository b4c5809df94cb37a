/// <reference lib="webworker" />
/**
 * Benchmark worker: loads RAGBench subsets from the Hub's dataset viewer, scores rows with the chosen evaluator
 * (results cached per row in IndexedDB, so a reload or crash resumes), and summarises against gold and baselines.
 */
import * as Comlink from 'comlink';
import { formatIssue, loadRagbenchFromHub, ragbenchRowKey, type RagbenchRow } from '../src/lib/data/ragbench.ts';
import { configHash, runSubset, type RowFailure, type ScoringConfig } from '../src/lib/eval/bench-run.ts';
import { judgeRowEvaluator, lexicalRowEvaluator, type TraceEvaluator } from '../src/lib/eval/ragbench-validate.ts';
import { mean } from '../src/lib/eval/stats.ts';
import { createProvider } from '../src/lib/llm/registry.ts';
import { redactSecrets } from '../src/lib/llm/redact.ts';
import { indexedDbResultStore } from '../src/lib/store/result-cache.ts';
import type { BenchConfig, BenchResult, BenchRowView, BenchSubsetSummary, BenchWorkerApi } from './bench-api.ts';

/** Bump when an evaluator's outputs change, so cached rows of the old code are not reused. */
const SCORING_VERSION = 1;
const loaded = new Map<string, RagbenchRow[]>();
let controller: AbortController | null = null;

function scoringConfig(c: BenchConfig): ScoringConfig {
  return { evaluator: c.evaluator, mode: 'validate', version: SCORING_VERSION, settings: c.evaluator === 'llm' && c.judge ? { ...c.judge } : {} };
}

const num = (x: number) => (Number.isFinite(x) ? x : null);

const api: BenchWorkerApi = {
  async run(config, apiKey, onProgress) {
    controller?.abort();
    const ctl = new AbortController();
    controller = ctl;
    try {
      let evaluate: TraceEvaluator;
      if (config.evaluator === 'llm') {
        if (!config.judge) throw new Error('Choose a provider and model for the LLM judge.');
        const provider = createProvider({ ...config.judge, baseUrl: config.judge.baseUrl ?? undefined, apiKey: apiKey ?? undefined });
        evaluate = judgeRowEvaluator(provider, { model: config.judge.model });
      } else {
        evaluate = lexicalRowEvaluator();
      }
      const hash = await configHash(scoringConfig(config));
      const subsets: BenchSubsetSummary[] = [];
      const rows: BenchRowView[] = [];
      const failures: RowFailure[] = [];
      const loadIssues: string[] = [];
      for (const subset of config.subsets) {
        const cacheKey = `${config.datasetsHost}|${subset}`;
        let all = loaded.get(cacheKey);
        if (!all) {
          const res = await loadRagbenchFromHub(subset, {
            endpoint: config.datasetsHost, signal: ctl.signal,
            onProgress: (l, t) => onProgress({ phase: 'load', subset, loaded: l, total: t }),
          });
          all = res.rows;
          loaded.set(cacheKey, all);
          loadIssues.push(...res.skipped.map(formatIssue));
        }
        const run = await runSubset(all, subset, evaluate, indexedDbResultStore, hash, {
          ...(config.n !== null ? { n: config.n } : {}), seed: config.seed, signal: ctl.signal,
          onProgress: (p) => onProgress({ phase: 'score', ...p }),
          concurrency: config.evaluator === 'llm' ? 2 : 1,
        });
        const v = run.validation;
        failures.push(...run.failures);
        subsets.push({
          subset, n: v.n, hallucinations: v.hallucinations, auroc: num(v.auroc), rmse_relevance: num(v.rmse_relevance),
          rmse_utilization: num(v.rmse_utilization), rmse_completeness: num(v.rmse_completeness), baselines: v.baselines,
          baselineAdherence: {
            ragas: v.rows.map((r) => r.ragas_faithfulness ?? null),
            trulens: v.rows.map((r) => r.trulens_groundedness ?? null),
            gpt3: v.rows.map((r) => r.gpt3_adherence ?? null),
          },
          computed: run.computed,
        });
        v.rows.forEach((r, i) => rows.push({
          subset, key: ragbenchRowKey(r), question: r.question, response: r.response, documents: r.documents,
          predicted: v.predictions[i]!,
          gold: { relevance: r.relevance_score ?? null, utilization: r.utilization_score ?? null, completeness: r.completeness_score ?? null, adherence: r.adherence_score ?? null },
        }));
      }
      const result: BenchResult = {
        configHash: hash, subsets, rows, failures, loadIssues,
        meanAuroc: num(mean(subsets.map((s) => s.auroc).filter((x): x is number => x !== null))),
      };
      return result;
    } catch (e) {
      if (ctl.signal.aborted) throw new Error('The run was cancelled. Finished rows are kept and a new run resumes from them.');
      throw new Error(redactSecrets((e as Error).message || String(e), [apiKey]));
    } finally {
      if (controller === ctl) controller = null;
    }
  },

  cancel() {
    controller?.abort();
  },

  async clearCache(config) {
    await indexedDbResultStore.clear(await configHash(scoringConfig(config)));
  },
};

Comlink.expose(api);
