/// <reference lib="webworker" />
/**
 * Benchmark worker: loads RAGBench subsets from local files (parsed here) or the Hub (parquet in byte ranges, the
 * dataset viewer as fallback), scores rows with the chosen evaluator (results cached per row in IndexedDB, so a
 * reload or crash resumes), summarises against gold and baselines with bootstrap intervals and small-sample
 * warnings, or runs the Ask tab's pipeline on the subset's questions.
 */
import * as Comlink from 'comlink';
import { formatIssue, ragbenchRowKey, type RagbenchRow } from '../src/lib/data/ragbench.ts';
import { parseRagbenchFile } from '../src/lib/data/ragbench-files.ts';
import { loadRagbenchSubset } from '../src/lib/data/ragbench-hub.ts';
import { configHash, invalidCacheNote, runSubset, type RowFailure, type ScoringConfig } from '../src/lib/eval/bench-run.ts';
import { lexicalRowEvaluator, sampleRows, type TraceEvaluator } from '../src/lib/eval/ragbench-validate.ts';
import { costOf, estimateJudgeRun, meteredProvider, priceFor, UsageMeter } from '../src/lib/eval/cost.ts';
import { repeatedJudgeRowEvaluator, RepeatTracker, rowJudgeInput } from '../src/lib/eval/judge-runs.ts';
import { minDurationMs, wrapProvider } from '../src/lib/llm/rate-limit.ts';
import { mean } from '../src/lib/eval/stats.ts';
import { metricIntervals, smallSampleWarnings } from '../src/lib/eval/bootstrap.ts';
import { createProvider } from '../src/lib/llm/registry.ts';
import { redactSecrets } from '../src/lib/llm/redact.ts';
import { indexedDbResultStore } from '../src/lib/store/result-cache.ts';
import type { BenchConfig, BenchProgress, BenchResult, BenchRowView, BenchSubsetSummary, BenchWorkerApi, JudgeReport, LocalFileReport, PipelineView } from './bench-api.ts';
import { buildRagbenchKb } from '../src/lib/data/ragbench-kb.ts';
import { kbConfigKey } from '../src/lib/data/kb-registry.ts';
import { lexicalPipelineEvaluator, runRagbenchPipeline } from '../src/lib/eval/ragbench-pipeline.ts';
import { effectiveMode, pipelineModelNeeds, pipelineSettingsText } from '../src/lib/eval/pipeline-settings.ts';
import type { TextEmbedder } from '../src/lib/models/types.ts';
import { parseRagConfig, type RagConfig } from '../src/lib/rag/config.ts';
import type { SearchModels } from '../src/lib/retrieval/search.ts';
import { sha256Hex } from '../src/lib/store/checksum.ts';
import { attachDense } from '../src/lib/store/dense-loader.ts';
import { nliRowEvaluator } from '../src/lib/eval/ragbench-validate.ts';
import type { ModelsWorkerApi } from './models-api.ts';

/** Bump when an evaluator's outputs change, so cached rows of the old code are not reused. */
const SCORING_VERSION = 1;
const loaded = new Map<string, RagbenchRow[]>();
/** Subsets loaded from local files, by subset name. */
const local = new Map<string, { file: string; rows: RagbenchRow[] }>();
let models: Comlink.Remote<ModelsWorkerApi> | null = null;
let controller: AbortController | null = null;

/**
 * Validate mode scores a RAGBench row's own response against its own documents: no knowledge base of the app is
 * involved, so none is part of this hash (rows cached before knowledge bases had ids stay valid).
 */
function scoringConfig(c: BenchConfig): ScoringConfig {
  // Rate limits change how fast rows are scored, not their scores: they stay out of the hash.
  if (c.evaluator === 'nli') return { evaluator: 'nli', mode: 'validate', version: SCORING_VERSION, settings: { ...c.nliModels } };
  const judge = c.evaluator === 'llm' && c.judge ? { provider: c.judge.provider, baseUrl: c.judge.baseUrl, model: c.judge.model, repeats: c.judge.repeats } : {};
  return { evaluator: c.evaluator, mode: 'validate', version: SCORING_VERSION, settings: judge };
}

async function rowsOf(config: BenchConfig, subset: string, signal: AbortSignal, onProgress: (p: BenchProgress) => void, issues: string[]): Promise<RagbenchRow[]> {
  if (config.localSubsets.includes(subset)) {
    const file = local.get(subset);
    if (!file) throw new Error(`The local file for ${subset} is no longer loaded (the page was reloaded): pick it again.`);
    return file.rows;
  }
  const cacheKey = `${config.hubUrl}|${config.datasetsHost}|${subset}`;
  let all = loaded.get(cacheKey);
  if (!all) {
    const res = await loadRagbenchSubset(subset, {
      hubUrl: config.hubUrl, viewerUrl: config.datasetsHost, signal,
      onProgress: (l, t) => onProgress({ phase: 'load', subset, loaded: l, total: t }),
    });
    all = res.rows;
    loaded.set(cacheKey, all);
    issues.push(...res.notes, ...res.skipped.map(formatIssue));
  }
  return all;
}

const num = (x: number) => (Number.isFinite(x) ? x : null);

const NEED_EMBEDDER = 'needs an embedding model: load one under Settings → Models, or choose sparse retrieval in the Ask tab.';
const NEED_RERANKER = 'Reranking needs a cross-encoder: load one under Settings → Models, or turn rerank off in the Ask tab.';

/** The models worker's embedder and cross-encoder as the pipeline needs them for these settings; errors say what to load. */
async function pipelineModels(rag: RagConfig): Promise<{ search: SearchModels; embedder: TextEmbedder | null }> {
  const needs = pipelineModelNeeds(rag);
  if (!needs.dense && !needs.reranker) return { search: {}, embedder: null };
  const m = models;
  const have = m ? await m.loaded() : [];
  let embedder: TextEmbedder | null = null;
  const search: SearchModels = {};
  if (needs.dense) {
    const info = have.find((x) => x.task === 'embedder');
    if (!m || !info || info.dim === null) throw new Error(`The ${effectiveMode(rag)} retrieval of the Ask tab's pipeline ${NEED_EMBEDDER}`);
    embedder = { spec: info.spec, dim: info.dim, embed: (texts, kind) => m.embed([...texts], kind) };
    search.encoder = { embedQuery: (q) => m.embed([q], 'query') };
  }
  if (needs.reranker) {
    if (!m || !have.some((x) => x.task === 'cross-encoder')) throw new Error(NEED_RERANKER);
    search.reranker = { rerank: (q, ps) => m.rerank(q, [...ps]) };
  }
  return { search, embedder };
}

/**
 * Pipeline mode: each subset's documents become a knowledge base; the Ask tab's pipeline (retrieval mode, rerank,
 * query transform, sentence window, provider and model) answers N sampled questions.
 */
async function runPipeline(config: BenchConfig, apiKey: string | null, ctl: AbortController, onProgress: (p: BenchProgress) => void): Promise<BenchResult> {
  const parsed = parseRagConfig(config.rag);
  if (!parsed.ok) throw new Error(`The Ask tab's pipeline settings are not valid: ${parsed.message}`);
  const rag = parsed.config;
  const provider = createProvider({ provider: rag.llm.provider, baseUrl: rag.llm.baseUrl ?? undefined, model: rag.llm.model, apiKey: apiKey ?? undefined });
  const { search, embedder } = await pipelineModels(rag);
  const settings = pipelineSettingsText(rag);
  // The knowledge bases the answers come from (each subset's documents) are part of what the hash names.
  const kbs = config.subsets.map((subset) => kbConfigKey({ kind: 'ragbench', subset }));
  const hash = (await sha256Hex(JSON.stringify(['pipeline', SCORING_VERSION, kbs, rag]))).slice(0, 24);
  const views: PipelineView[] = [];
  const loadIssues: string[] = [];
  for (const subset of config.subsets) {
    const rows = await rowsOf(config, subset, ctl.signal, onProgress, loadIssues);
    const rkb = buildRagbenchKb(rows, subset);
    if (embedder) {
      const docsHash = (await sha256Hex(rkb.docs.map((d) => d.text).join('\u0000'))).slice(0, 16);
      await attachDense(rkb.kb, embedder, {
        kbKey: `ragbench:${subset}:${docsHash}:${JSON.stringify(rkb.kb.options.chunking)}`, signal: ctl.signal,
        onProgress: (_stage, done, total) => onProgress({ phase: 'load', subset, loaded: done, total }),
      });
    }
    const started = Date.now();
    const r = await runRagbenchPipeline(rkb, rows, { provider, models: search }, lexicalPipelineEvaluator(), {
      ...(config.n !== null ? { n: config.n } : {}), seed: config.seed, config: rag, signal: ctl.signal,
      onProgress: (done, total) => {
        const perRow = done > 0 ? (Date.now() - started) / done : null;
        onProgress({ phase: 'score', subset, total, done, cached: 0, invalid: 0, failed: 0, pending: total - done, etaMs: perRow === null ? null : perRow * (total - done) });
      },
    });
    views.push({
      subset, settings, n: r.n, k: r.k, kb: { documents: r.kb.documents, chunks: r.kb.chunks }, statuses: r.statuses as Record<string, number>,
      predicted: r.predicted, recallAtK: num(r.recallAtK), relevantRecallAtK: num(r.relevantRecallAtK),
      gold: { n: r.gold.n, relevance: num(r.gold.relevance), utilization: num(r.gold.utilization), completeness: num(r.gold.completeness), adherence: num(r.gold.adherence) },
      rows: r.rows.map((x) => ({ question: x.question, status: x.status, answer: x.answer, recall: num(x.recall), retrieved: x.retrieved })),
    });
  }
  return { pipeline: views, judge: null, configHash: hash, subsets: [], rows: [], failures: [], loadIssues, cacheNotes: [], meanAuroc: null, report: null };
}

const api: BenchWorkerApi = {
  attachModels(port) {
    models = Comlink.wrap<ModelsWorkerApi>(port);
  },

  async run(config, apiKey, onProgress) {
    controller?.abort();
    const ctl = new AbortController();
    controller = ctl;
    try {
      if (config.mode === 'pipeline') return await runPipeline(config, apiKey, ctl, onProgress);
      let evaluate: TraceEvaluator;
      const meter = new UsageMeter();
      const tracker = new RepeatTracker(config.judge?.repeats ?? 1);
      if (config.evaluator === 'llm') {
        const j = config.judge;
        if (!j) throw new Error('Choose a provider and model for the LLM judge.');
        const base = createProvider({ provider: j.provider, baseUrl: j.baseUrl ?? undefined, model: j.model, apiKey: apiKey ?? undefined });
        const metered = meteredProvider(base, meter);
        const provider = j.rpm || j.tpm ? wrapProvider(metered, { rpm: j.rpm, tpm: j.tpm }) : metered;
        evaluate = repeatedJudgeRowEvaluator(provider, { model: j.model, repeats: Math.max(1, j.repeats) }, (row, r) => tracker.add(ragbenchRowKey(row), r));
      } else if (config.evaluator === 'nli') {
        const m = models;
        const have = m ? await m.loaded() : [];
        const nliInfo = have.find((x) => x.task === 'nli');
        if (!m || !nliInfo) throw new Error('The NLI evaluator needs the NLI model: load it first (Load NLI models).');
        const ce = have.find((x) => x.task === 'cross-encoder');
        const ids = { nli: `${nliInfo.spec.id}@${nliInfo.spec.dtype}`, reranker: ce ? `${ce.spec.id}@${ce.spec.dtype}` : null };
        if (JSON.stringify(ids) !== JSON.stringify(config.nliModels)) throw new Error(`The loaded NLI models (${ids.nli}${ids.reranker ? `, ${ids.reranker}` : ''}) differ from the settings: load them again.`);
        evaluate = nliRowEvaluator({
          nli: { spec: nliInfo.spec, predict: (p, h) => m.nli(p, h) },
          reranker: ce ? { spec: ce.spec, score: (q, ps) => m.rerank(q, [...ps]) } : null,
        });
      } else {
        evaluate = lexicalRowEvaluator();
      }
      const hash = await configHash(scoringConfig(config));
      const subsets: BenchSubsetSummary[] = [];
      const rows: BenchRowView[] = [];
      const failures: RowFailure[] = [];
      const loadIssues: string[] = [];
      const cacheNotes: string[] = [];
      for (const subset of config.subsets) {
        const all = await rowsOf(config, subset, ctl.signal, onProgress, loadIssues);
        const run = await runSubset(all, subset, evaluate, indexedDbResultStore, hash, {
          ...(config.n !== null ? { n: config.n } : {}), seed: config.seed, signal: ctl.signal,
          onProgress: (p) => onProgress({ phase: 'score', ...p }),
          concurrency: config.evaluator === 'llm' ? 2 : 1,
        });
        const v = run.validation;
        failures.push(...run.failures);
        if (run.invalidCached > 0) cacheNotes.push(invalidCacheNote(subset, run.invalidCached));
        if (run.uncached) loadIssues.push(`${subset}: ${run.uncached.rows} rows were scored but not saved (${run.uncached.reason}); a reload would score them again.`);
        subsets.push({
          subset, n: v.n, hallucinations: v.hallucinations, auroc: num(v.auroc), rmse_relevance: num(v.rmse_relevance),
          rmse_utilization: num(v.rmse_utilization), rmse_completeness: num(v.rmse_completeness), baselines: v.baselines,
          intervals: metricIntervals(v.rows, v.predictions, { seed: config.seed }),
          warnings: smallSampleWarnings(v.rows, v.predictions),
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
      let judge: JudgeReport | null = null;
      if (config.evaluator === 'llm' && config.judge) {
        const sum = tracker.summary();
        const price = priceFor(config.judge.provider, config.judge.model);
        judge = {
          usage: { calls: meter.summary.calls, inputTokens: meter.summary.inputTokens, outputTokens: meter.summary.outputTokens, usd: costOf(meter.summary, price).totalUsd, failedCalls: meter.failedCalls },
          repeats: sum.repeats, parseFailedCalls: sum.parseFailedCalls, callParseFailureRate: num(sum.callParseFailureRate),
          flippedRows: sum.flippedRows, comparableRows: sum.comparableRows, flipped: sum.flipped, meanStdAdherence: num(sum.meanStd.adherence),
        };
      }
      const result: BenchResult = {
        pipeline: null, judge, configHash: hash, subsets, rows, failures, loadIssues, cacheNotes,
        meanAuroc: num(mean(subsets.map((s) => s.auroc).filter((x): x is number => x !== null))),
        report: null,
      };
      return result;
    } catch (e) {
      if (ctl.signal.aborted) throw new Error('The run was cancelled. Finished rows are kept and a new run resumes from them.');
      throw new Error(redactSecrets((e as Error).message || String(e), [apiKey]));
    } finally {
      if (controller === ctl) controller = null;
    }
  },

  async estimate(config, onProgress) {
    if (config.evaluator !== 'llm' || !config.judge) throw new Error('Estimates are for LLM-judge runs.');
    const j = config.judge;
    const inputs = [];
    for (const subset of config.subsets) {
      const all = await rowsOf(config, subset, new AbortController().signal, onProgress, []);
      inputs.push(...sampleRows(all, config.n ?? undefined, config.seed).map(rowJudgeInput));
    }
    const price = priceFor(j.provider, j.model);
    const est = estimateJudgeRun(inputs, { repeats: Math.max(1, j.repeats), price });
    return {
      rows: inputs.length, calls: est.calls, inputTokens: est.inputTokens, outputTokens: est.outputTokens, usd: est.totalUsd,
      priceKnown: price.known, minDurationMs: minDurationMs(est.calls, est.inputTokens + est.outputTokens, { rpm: j.rpm, tpm: j.tpm }),
    };
  },

  async loadFiles(files) {
    const out: LocalFileReport[] = [];
    for (const f of files) {
      try {
        const r = await parseRagbenchFile(f.name, await f.arrayBuffer());
        local.set(r.subset, { file: f.name, rows: r.rows });
        out.push({ file: f.name, subset: r.subset, rows: r.rows.length, skipped: r.skipped.length, issues: r.skipped.slice(0, 20).map(formatIssue), error: null });
      } catch (e) {
        out.push({ file: f.name, subset: null, rows: 0, skipped: 0, issues: [], error: (e as Error).message || String(e) });
      }
    }
    return out;
  },

  cancel() {
    controller?.abort();
  },

  async clearCache(config) {
    await indexedDbResultStore.clear(await configHash(scoringConfig(config)));
  },
};

Comlink.expose(api);
