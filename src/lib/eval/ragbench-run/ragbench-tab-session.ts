/**
 * The Benchmark tab's RAGBench run as one session, for the bench worker: the run's evaluator settings and
 * dependencies (evaluator-deps.ts, the NLI models and the pipeline's embedder / cross-encoder from the models worker),
 * each subset loaded on its own (a subset that cannot load is named and skipped), then validate mode (the result
 * cache keeps finished rows, so a new run resumes) or pipeline mode (ragbench-pipeline-session.ts; any evaluator, a
 * judge being the answering model, as in `eval-ragbench --mode pipeline`), and the views the tab shows, with the
 * run's report v1 (environment: the browser and the models worker's loaded models).
 */
import { ragbenchRowKey } from '../../data/ragbench.ts';
import { loadRunSubsets, SubsetBoard, type LoadedSubset } from './subset-loading.ts';
import type { BenchConfig, BenchProgress, BenchResult, BenchRowView, BenchSubsetSummary, JudgeEstimate, JudgeReport, PipelineView } from './ragbench-tab-config.ts';
import type { ResultStore } from './resumable-rows.ts';
import { costOf, priceFor } from '../core/cost.ts';
import { sampledJudgeEstimate } from '../ragbench/judge-runs.ts';
import { minDurationMs } from '../../llm/rate-limit.ts';
import { apiSetup } from '../core/api-setup.ts';
import { buildEvaluatorDeps, type EvaluatorModelLoader } from '../score/evaluator-deps.ts';
import { EVALUATORS, type EvaluatorSettings } from '../score/evaluators.ts';
import { effectiveMode, pipelineModelNeeds, pipelineSettingsText } from '../core/pipeline-settings.ts';
import { runRagbenchPipelineSession } from './pipeline-session.ts';
import { ragbenchPlan } from './ragbench-plan.ts';
import { nliModelKeys, ragbenchModelNeeds, runModelInfo, type ModelNeeds } from '../score/run-models.ts';
import { runValidateSession, validateConfigHash, type JudgeStats } from './ragbench-loops.ts';
import { mean } from '../../stats/summary.ts';
import { remainingMs } from '../core/eta.ts';
import { redactSecrets } from '../../llm/redact.ts';
import type { ChatProvider } from '../../llm/types.ts';
import type { ModelSpec, NliProbabilities, TextEmbedder } from '../../models/types.ts';
import { parseRagConfig, type RagConfig } from '../../rag/config.ts';
import type { JsonValue } from '../../reports/format.ts';
import type { RunEnvironment } from '../ragbench/report-from-run.ts';
import type { KnowledgeBase } from '../../retrieval/knowledge-base.ts';
import type { SearchModels } from '../../retrieval/search.ts';

/** The models worker as a run uses it (Comlink's remote of ModelsWorkerApi fits). */
export interface BenchModels {
  loaded(): Promise<ReadonlyArray<{ task: string; spec: ModelSpec; dim: number | null }>>;
  embed(texts: string[], kind: 'query' | 'passage'): Promise<Float32Array>;
  rerank(query: string, passages: string[]): Promise<number[]>;
  nli(premise: string, hypothesis: string): Promise<NliProbabilities>;
}

/** What a run draws on from its shell. */
export interface BenchEnv {
  models: BenchModels | null;
  /** One subset's rows (a local file, the shell's cache or the Hub), with its load progress. */
  loadSubset(subset: string, signal: AbortSignal, emit: Emit): Promise<LoadedSubset>;
  /** The result cache of validate runs. */
  store: ResultStore;
  /** Attaches an embedder's vectors to a knowledge base, cached under `kbKey` (store/dense-loader.ts attachDense). */
  attachDense(kb: KnowledgeBase, embedder: TextEmbedder, opts: { kbKey: string; signal: AbortSignal; onProgress: (stage: string, done: number, total: number) => void }): Promise<unknown>;
}

/**
 * The evaluator settings of a run (what its scores depend on), from the one translation of a run's settings
 * (ragbench-plan.ts, which the CLI calls too). Validate mode scores a RAGBench row's own response against its own
 * documents: no knowledge base of the app is involved, so none is part of the validate hash. In pipeline mode the
 * judge is the answering model of `rag` (the key given is for that endpoint only).
 */
export const evaluatorSettings = (c: BenchConfig, rag: RagConfig | null): EvaluatorSettings => ragbenchPlan(c, rag).settings;

/** The NLI evaluator's models and RAGAS's embedder from the models worker; errors say what to load. */
function modelLoader(c: BenchConfig, m: BenchModels | null): EvaluatorModelLoader {
  return {
    async embedder() {
      const want = c.ragasEmbedder ?? null;
      if (want === null) return null;
      const info = m ? (await m.loaded()).find((x) => x.task === 'embedder') : undefined;
      if (!m || !info || info.dim === null) throw new Error(`RAGAS answer relevancy needs the embedder ${want}: load it under Settings → Models.`);
      if (`${info.spec.id}@${info.spec.dtype}` !== want) throw new Error(`The loaded embedder (${info.spec.id}@${info.spec.dtype}) differs from the settings (${want}): load it again.`);
      return { spec: info.spec, dim: info.dim, embed: (texts, kind) => m.embed([...texts], kind) };
    },
    async nliModels() {
      const have = m ? await m.loaded() : [];
      const nliInfo = have.find((x) => x.task === 'nli');
      if (!m || !nliInfo) throw new Error('The NLI evaluator needs the NLI model: load it first (Load NLI models).');
      const ce = have.find((x) => x.task === 'cross-encoder');
      const ids = nliModelKeys(nliInfo.spec, ce?.spec ?? null);
      if ((c.mode === 'validate' || c.nliModels) && JSON.stringify(ids) !== JSON.stringify(c.nliModels)) throw new Error(`The loaded NLI models (${ids.nli}${ids.reranker ? `, ${ids.reranker}` : ''}) differ from the settings: load them again.`);
      return { nli: { spec: nliInfo.spec, predict: (p, h) => m.nli(p, h) }, reranker: ce ? { spec: ce.spec, score: (q, ps) => m.rerank(q, [...ps]) } : null };
    },
  };
}

/**
 * The models and provider the chosen evaluator needs; errors say what to load or choose. `answerer`: pipeline mode's
 * answering provider, which is also its judge (as the CLI's pipeline mode shares its provider); validate mode sets
 * up the judge of its own settings.
 */
function evaluatorDeps(c: BenchConfig, s: EvaluatorSettings, apiKey: string | null, models: BenchModels | null, answerer: ChatProvider | null = null) {
  const j = s.judge;
  const limits = c.judge && (c.judge.rpm || c.judge.tpm) ? { rpm: c.judge.rpm, tpm: c.judge.tpm } : null;
  const judge = !EVALUATORS[c.evaluator].api || !j ? null
    : answerer ?? apiSetup({ provider: j.provider, baseUrl: j.baseUrl, model: j.model, apiKey, rates: limits }).provider;
  return buildEvaluatorDeps(c.evaluator, { models: modelLoader(c, models), judge });
}

/** The local models a RAGBench run uses: its pipeline's and evaluator's (ragbenchModelNeeds), and RAGAS's embedder when its settings name one. */
function runNeeds(c: BenchConfig, rag: RagConfig | null): ModelNeeds {
  const n = ragbenchModelNeeds(c.evaluator, rag);
  return { embedder: n.embedder || (EVALUATORS[c.evaluator].usesEmbedder && !!c.ragasEmbedder), reranker: n.reranker, nli: n.nli };
}

/** What the report says about where the run ran: the browser and the loaded models the run uses (never one it did not). */
async function runEnvironment(models: BenchModels | null, need: ModelNeeds): Promise<RunEnvironment> {
  const have = models ? await models.loaded() : [];
  const used = (task: string) => (task === 'embedder' ? need.embedder : task === 'cross-encoder' ? need.reranker : task === 'nli' ? need.nli : false);
  return {
    runtime: 'browser', agent: typeof navigator !== 'undefined' ? navigator.userAgent : 'unknown',
    models: have.filter((x) => used(x.task)).map((x) => runModelInfo(x.task, x.spec)),
  };
}

/** The run's settings as the report keeps them: the BenchConfig (it never holds a key). */
const reportConfig = (c: BenchConfig): Record<string, JsonValue> => ragbenchPlan(c).reportConfig;

/** What a run's progress callback takes before the worker adds the board of every subset's state. */
type Emit = (p: DistributiveOmit<BenchProgress, 'subsets'>) => void;
type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/** The run's per-subset board and a progress callback that sends it with every report. */
function progressBoard(config: BenchConfig, onProgress: (p: BenchProgress) => void): { board: SubsetBoard; emit: Emit } {
  const board = new SubsetBoard(config.subsets);
  return { board, emit: (p) => onProgress({ ...p, subsets: board.snapshot() } as BenchProgress) };
}

const num = (x: number) => (Number.isFinite(x) ? x : null);

const NEED_EMBEDDER = 'needs an embedding model: load one under Settings → Models, or choose sparse retrieval in the Ask tab.';
const NEED_RERANKER = 'Reranking needs a cross-encoder: load one under Settings → Models, or turn rerank off in the Ask tab.';

/** The models worker's embedder and cross-encoder as the pipeline needs them for these settings; errors say what to load. */
async function pipelineModels(rag: RagConfig, models: BenchModels | null): Promise<{ search: SearchModels; embedder: TextEmbedder | null }> {
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

/** The Benchmark tab's judge figures from a session's judge statistics. */
function judgeView(j: JudgeStats | null, s: EvaluatorSettings): JudgeReport | null {
  if (!j || !s.judge) return null;
  const sum = j.overall;
  const price = priceFor(s.judge.provider, s.judge.model);
  return {
    usage: { calls: j.usage.summary.calls, inputTokens: j.usage.summary.inputTokens, outputTokens: j.usage.summary.outputTokens, usd: costOf(j.usage.summary, price).totalUsd, failedCalls: j.usage.failedCalls },
    repeats: sum.repeats, parseFailedCalls: sum.parseFailedCalls, callParseFailureRate: num(sum.callParseFailureRate),
    flippedRows: sum.flippedRows, comparableRows: sum.comparableRows, flipped: sum.flipped, meanStdAdherence: num(sum.meanStd.adherence),
  };
}

/**
 * Pipeline mode: each subset's documents become a knowledge base; the Ask tab's pipeline (retrieval mode, rerank,
 * query transform, sentence window, provider and model) answers N sampled questions, scored by the chosen evaluator.
 */
async function runPipeline(config: BenchConfig, env: BenchEnv, apiKey: string | null, signal: AbortSignal, onProgress: (p: BenchProgress) => void): Promise<BenchResult> {
  const parsed = parseRagConfig(config.rag);
  if (!parsed.ok) throw new Error(`The Ask tab's pipeline settings are not valid: ${parsed.message}`);
  const rag = parsed.config;
  const { provider } = apiSetup({ provider: rag.llm.provider, baseUrl: rag.llm.baseUrl, model: rag.llm.model, apiKey });
  const { search, embedder } = await pipelineModels(rag, env.models);
  const settings = evaluatorSettings(config, rag);
  const deps = await evaluatorDeps(config, settings, apiKey, env.models, provider);
  const { board, emit } = progressBoard(config, onProgress);
  const loadedSubsets = await loadRunSubsets(config.subsets, (subset) => env.loadSubset(subset, signal, emit), { signal, board });
  let started = Date.now();
  const s = await runRagbenchPipelineSession({
    evaluator: config.evaluator, settings, deps, subsets: loadedSubsets.subsets, rag, answerer: provider, models: search,
    attachVectors: embedder ? (kb, kbKey, subset) => env.attachDense(kb, embedder, {
      kbKey, signal, onProgress: (_stage, done, total) => emit({ phase: 'load', subset, loaded: done, total }),
    }).then(() => {}) : null,
    ...(config.n !== null ? { n: config.n } : {}), seed: config.seed, signal,
    redact: (m) => redactSecrets(m, [apiKey]),
    onProgress: (subset, done, total) => {
      if (done === 0) started = Date.now();
      board.set(subset, 'running');
      emit({ phase: 'score', subset, total, done, cached: 0, invalid: 0, failed: 0, pending: total - done, etaMs: remainingMs(Date.now() - started, done, total - done) });
    },
    onSubset: (r) => board.set(r.subset, 'done'),
    report: { config: reportConfig(config), environment: await runEnvironment(env.models, runNeeds(config, rag)), source: loadedSubsets.source, loadIssues: loadedSubsets.issues, skipped: loadedSubsets.skipped },
  });
  const text = pipelineSettingsText(rag);
  const views: PipelineView[] = s.results.map((r) => ({
    subset: r.subset, settings: text, n: r.n, k: r.k, kb: { documents: r.kb.documents, chunks: r.kb.chunks }, statuses: r.statuses as Record<string, number>,
    predicted: r.predicted, recallAtK: num(r.recallAtK), relevantRecallAtK: num(r.relevantRecallAtK),
    gold: { n: r.gold.n, relevance: num(r.gold.relevance), utilization: num(r.gold.utilization), completeness: num(r.gold.completeness), adherence: num(r.gold.adherence) },
    vsGold: { n: r.vsGold.n, hallucinations: r.vsGold.hallucinations, auroc: num(r.vsGold.auroc), rmse_relevance: num(r.vsGold.rmse_relevance),
      rmse_utilization: num(r.vsGold.rmse_utilization), rmse_completeness: num(r.vsGold.rmse_completeness), intervals: r.vsGold.intervals, warnings: r.vsGold.warnings },
    rows: r.rows.map((x) => ({ question: x.question, status: x.status, answer: x.answer, recall: num(x.recall), retrieved: x.retrieved })),
  }));
  return { pipeline: views, judge: judgeView(s.judge, settings), configHash: s.hash, subsets: [], rows: [], failures: [], loadIssues: loadedSubsets.issues, skipped: loadedSubsets.skipped, cacheNotes: [], meanAuroc: null, report: s.report };
}

/** Validate mode: the dataset's own answers scored by the chosen evaluator, resumable through the IndexedDB cache. */
async function runValidate(config: BenchConfig, env: BenchEnv, apiKey: string | null, signal: AbortSignal, onProgress: (p: BenchProgress) => void): Promise<BenchResult> {
  const settings = evaluatorSettings(config, null);
  const deps = await evaluatorDeps(config, settings, apiKey, env.models);
  const { board, emit } = progressBoard(config, onProgress);
  const loadedSubsets = await loadRunSubsets(config.subsets, (subset) => env.loadSubset(subset, signal, emit), { signal, board });
  const s = await runValidateSession({
    evaluator: config.evaluator, settings, deps, subsets: loadedSubsets.subsets, store: env.store,
    ...(config.n !== null ? { n: config.n } : {}), seed: config.seed, signal, concurrency: 2,
    redact: (m) => redactSecrets(m, [apiKey]),
    onProgress: (p) => { board.set(p.subset, 'running'); emit({ phase: 'score', ...p }); },
    onSubset: (run) => board.set(run.validation.subset, 'done'),
    report: { config: reportConfig(config), environment: await runEnvironment(env.models, runNeeds(config, null)), source: loadedSubsets.source, loadIssues: loadedSubsets.issues, skipped: loadedSubsets.skipped },
  });
  const subsets: BenchSubsetSummary[] = [];
  const rows: BenchRowView[] = [];
  for (const run of s.runs) {
    const v = run.validation;
    subsets.push({
      subset: v.subset, n: v.n, hallucinations: v.hallucinations, auroc: num(v.auroc), rmse_relevance: num(v.rmse_relevance),
      rmse_utilization: num(v.rmse_utilization), rmse_completeness: num(v.rmse_completeness), baselines: v.baselines,
      intervals: v.intervals!, warnings: v.warnings ?? [],
      baselineAdherence: {
        ragas: v.rows.map((r) => r.ragas_faithfulness ?? null),
        trulens: v.rows.map((r) => r.trulens_groundedness ?? null),
        gpt3: v.rows.map((r) => r.gpt3_adherence ?? null),
      },
      computed: run.computed,
    });
    v.rows.forEach((r, i) => rows.push({
      subset: v.subset, key: ragbenchRowKey(r), question: r.question, response: r.response, documents: r.documents,
      predicted: v.predictions[i]!,
      gold: { relevance: r.relevance_score ?? null, utilization: r.utilization_score ?? null, completeness: r.completeness_score ?? null, adherence: r.adherence_score ?? null },
    }));
  }
  return {
    pipeline: null, judge: judgeView(s.judge, settings), configHash: s.hash, subsets, rows, failures: s.failures,
    loadIssues: [...loadedSubsets.issues, ...s.uncachedNotes], skipped: loadedSubsets.skipped, cacheNotes: s.cacheNotes,
    meanAuroc: num(mean(subsets.map((x) => x.auroc).filter((x): x is number => x !== null))),
    report: s.report,
  };
}


/** Runs one Benchmark-tab RAGBench run (validate or pipeline) to its result. */
export function runBenchSession(config: BenchConfig, env: BenchEnv, apiKey: string | null, signal: AbortSignal, onProgress: (p: BenchProgress) => void): Promise<BenchResult> {
  return config.mode === 'pipeline' ? runPipeline(config, env, apiKey, signal, onProgress) : runValidate(config, env, apiKey, signal, onProgress);
}

/** The result cache's hash of a validate run of these settings (to forget its rows). */
export const benchValidateHash = (config: BenchConfig): Promise<string> => validateConfigHash(config.evaluator, evaluatorSettings(config, null));

/** Calls, tokens, cost and the shortest duration of an LLM-judge run, before it starts (`rowsOf` loads each subset). */
export async function benchEstimate(config: BenchConfig, rowsOf: (subset: string) => Promise<LoadedSubset>): Promise<JudgeEstimate> {
  if (!EVALUATORS[config.evaluator].repeatable || !config.judge) throw new Error('Estimates are for LLM-judge runs.');
  const j = config.judge;
  const subsets = [];
  for (const subset of config.subsets) subsets.push(await rowsOf(subset));
  const price = priceFor(j.provider, j.model);
  const { rows, estimate: est } = sampledJudgeEstimate(subsets, { n: config.n ?? undefined, seed: config.seed }, { repeats: Math.max(1, j.repeats), price });
  return {
    rows, calls: est.calls, inputTokens: est.inputTokens, outputTokens: est.outputTokens, usd: est.totalUsd,
    priceKnown: price.known, minDurationMs: minDurationMs(est.calls, est.inputTokens + est.outputTokens, { rpm: j.rpm, tpm: j.tpm }),
  };
}
