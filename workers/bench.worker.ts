/// <reference lib="webworker" />
/**
 * Benchmark worker: loads RAGBench subsets from local files (parsed here) or the Hub (parquet in byte ranges, the
 * dataset viewer as fallback) and runs the benchmark session (src/lib/eval/session.ts, the same as the CLI's):
 * validate mode scores rows with the chosen evaluator (results cached per row in IndexedDB, so a reload or crash
 * resumes), pipeline mode runs the Ask tab's pipeline on the subset's questions. Each run comes back with its
 * report v1 (environment from the models worker's loaded models and the browser's user agent). The retrieval
 * benchmark on BEIR datasets (runRetrieval, loadBeirFiles, fusionCandidates) is in bench-retrieval.ts.
 */
import { ragbenchVectorKey } from '../src/lib/cache-keys.ts';
import * as Comlink from 'comlink';
import { formatIssue, ragbenchRowKey, type RagbenchRow } from '../src/lib/data/ragbench.ts';
import { loadRunSubsets, SubsetBoard, type LoadedSubset, type LoadSubsetsResult } from '../src/lib/eval/subset-loading.ts';
import { parseRagbenchFile } from '../src/lib/data/ragbench-files.ts';
import { loadRagbenchSubset } from '../src/lib/data/ragbench-hub.ts';
import { buildRagbenchKb } from '../src/lib/data/ragbench-kb.ts';
import { costOf, estimateJudgeRun, priceFor } from '../src/lib/eval/cost.ts';
import type { EvaluatorDeps, EvaluatorSettings } from '../src/lib/eval/evaluators.ts';
import { rowJudgeInput } from '../src/lib/eval/judge-runs.ts';
import { effectiveMode, pipelineModelNeeds, pipelineSettingsText } from '../src/lib/eval/pipeline-settings.ts';
import { sampleRows } from '../src/lib/eval/ragbench-validate.ts';
import { runPipelineSession, runValidateSession, validateConfigHash, type JudgeStats } from '../src/lib/eval/session.ts';
import { mean } from '../src/lib/stats/summary.ts';
import { remainingMs } from '../src/lib/eta.ts';
import { minDurationMs, wrapProvider } from '../src/lib/llm/rate-limit.ts';
import { createProvider } from '../src/lib/llm/registry.ts';
import { redactSecrets } from '../src/lib/llm/redact.ts';
import type { TextEmbedder } from '../src/lib/models/types.ts';
import { parseRagConfig, type RagConfig } from '../src/lib/rag/config.ts';
import type { JsonValue } from '../src/lib/reports/format.ts';
import type { RunEnvironment } from '../src/lib/eval/report-from-run.ts';
import type { SearchModels } from '../src/lib/retrieval/search.ts';
import { sha256Hex } from '../src/lib/checksum.ts';
import { attachDense } from '../src/lib/store/dense-loader.ts';
import { IndexedDbRagbenchFileStore } from '../src/lib/store/ragbench-file-store.ts';
import { indexedDbResultStore } from '../src/lib/store/result-cache.ts';
import type { BenchConfig, BenchProgress, BenchResult, BenchRowView, BenchSubsetSummary, BenchWorkerApi, JudgeReport, LocalFileReport, PipelineView } from './bench-api.ts';
import type { ModelsWorkerApi } from './models-api.ts';
import * as retrieval from './bench-retrieval.ts';

const loaded = new Map<string, { rows: RagbenchRow[]; source: 'hub' | 'viewer' }>();
/** Subsets loaded from local files, by subset name. */
const local = new Map<string, { file: string; rows: RagbenchRow[] }>();
/** Picked files remembered across a reload (IndexedDB, bounded). */
const fileStore = new IndexedDbRagbenchFileStore();
let models: Comlink.Remote<ModelsWorkerApi> | null = null;

/** Parses one local file into the worker's `local` map; the report names the subset, or why the file was refused. */
async function parseLocal(name: string, bytes: Uint8Array): Promise<LocalFileReport> {
  try {
    const r = await parseRagbenchFile(name, bytes);
    local.set(r.subset, { file: name, rows: r.rows });
    return { file: name, subset: r.subset, rows: r.rows.length, skipped: r.skipped.length, issues: r.skipped.slice(0, 20).map(formatIssue), error: null, remembered: null };
  } catch (e) {
    return { file: name, subset: null, rows: 0, skipped: 0, issues: [], error: (e as Error).message || String(e), remembered: null };
  }
}
let controller: AbortController | null = null;

/**
 * The evaluator settings of a run (what its scores depend on). Validate mode scores a RAGBench row's own response
 * against its own documents: no knowledge base of the app is involved, so none is part of the validate hash (rows
 * cached before knowledge bases had ids stay valid). In pipeline mode the LLM judge is the answering model's provider
 * and endpoint (the key given is for that endpoint only), with the judge's repeats.
 */
function evaluatorSettings(c: BenchConfig, rag: RagConfig | null): EvaluatorSettings {
  const judge = c.evaluator !== 'llm' ? null
    : rag ? { provider: rag.llm.provider, baseUrl: rag.llm.baseUrl, model: rag.llm.model, repeats: c.judge?.repeats ?? 1 }
      : c.judge ? { provider: c.judge.provider, baseUrl: c.judge.baseUrl, model: c.judge.model, repeats: c.judge.repeats } : null;
  return { nliModels: c.nliModels, judge };
}

/** The models and provider the chosen evaluator needs; errors say what to load or choose. */
async function evaluatorDeps(c: BenchConfig, s: EvaluatorSettings, apiKey: string | null): Promise<EvaluatorDeps> {
  if (c.evaluator === 'llm') {
    const j = s.judge;
    if (!j) throw new Error('Choose a provider and model for the LLM judge.');
    const base = createProvider({ provider: j.provider as BenchJudgeProvider, baseUrl: j.baseUrl ?? undefined, model: j.model, apiKey: apiKey ?? undefined });
    const limits = c.judge && (c.judge.rpm || c.judge.tpm) ? { rpm: c.judge.rpm, tpm: c.judge.tpm } : null;
    return { judge: limits ? wrapProvider(base, limits) : base };
  }
  if (c.evaluator === 'nli') {
    const m = models;
    const have = m ? await m.loaded() : [];
    const nliInfo = have.find((x) => x.task === 'nli');
    if (!m || !nliInfo) throw new Error('The NLI evaluator needs the NLI model: load it first (Load NLI models).');
    const ce = have.find((x) => x.task === 'cross-encoder');
    const ids = { nli: `${nliInfo.spec.id}@${nliInfo.spec.dtype}`, reranker: ce ? `${ce.spec.id}@${ce.spec.dtype}` : null };
    if (c.mode === 'validate' && JSON.stringify(ids) !== JSON.stringify(c.nliModels)) throw new Error(`The loaded NLI models (${ids.nli}${ids.reranker ? `, ${ids.reranker}` : ''}) differ from the settings: load them again.`);
    return { nli: { nli: { spec: nliInfo.spec, predict: (p, h) => m.nli(p, h) }, reranker: ce ? { spec: ce.spec, score: (q, ps) => m.rerank(q, [...ps]) } : null } };
  }
  return {};
}

type BenchJudgeProvider = NonNullable<BenchConfig['judge']>['provider'];

/** What the report says about where the run ran: the browser and the models worker's loaded models. */
async function runEnvironment(): Promise<RunEnvironment> {
  const have = models ? await models.loaded() : [];
  return {
    runtime: 'browser', agent: typeof navigator !== 'undefined' ? navigator.userAgent : 'unknown',
    models: have.map((x) => ({ task: x.task, id: x.spec.id, dtype: x.spec.dtype, device: x.spec.device })),
  };
}

/** The run's settings as the report keeps them: the BenchConfig (it never holds a key). */
const reportConfig = (c: BenchConfig): Record<string, JsonValue> => JSON.parse(JSON.stringify(c)) as Record<string, JsonValue>;

/** What a run's progress callback takes before the worker adds the board of every subset's state. */
type Emit = (p: DistributiveOmit<BenchProgress, 'subsets'>) => void;
type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/** The run's per-subset board and a progress callback that sends it with every report. */
function progressBoard(config: BenchConfig, onProgress: (p: BenchProgress) => void): { board: SubsetBoard; emit: Emit } {
  const board = new SubsetBoard(config.subsets);
  return { board, emit: (p) => onProgress({ ...p, subsets: board.snapshot() } as BenchProgress) };
}

/** Each subset loaded on its own: one that cannot load is named and skipped while the others run (subset-loading.ts). */
function loadSubsets(config: BenchConfig, signal: AbortSignal, board: SubsetBoard, emit: Emit): Promise<LoadSubsetsResult> {
  return loadRunSubsets(config.subsets, (subset) => rowsOf(config, subset, signal, emit), { signal, board });
}

async function rowsOf(config: BenchConfig, subset: string, signal: AbortSignal, emit: Emit): Promise<LoadedSubset> {
  if (config.localSubsets.includes(subset)) {
    const file = local.get(subset);
    if (!file) throw new Error(`the local file for ${subset} is no longer loaded (the page was reloaded): pick it again`);
    return { rows: file.rows, source: 'local', issues: [] };
  }
  const cacheKey = `${config.hubUrl}|${config.datasetsHost}|${subset}`;
  const cached = loaded.get(cacheKey);
  if (cached) return { ...cached, issues: [] };
  emit({ phase: 'load', subset, loaded: 0, total: 0 });
  const res = await loadRagbenchSubset(subset, {
    hubUrl: config.hubUrl, viewerUrl: config.datasetsHost, signal,
    onProgress: (l, t) => emit({ phase: 'load', subset, loaded: l, total: t }),
  });
  const all = { rows: res.rows, source: res.source === 'parquet' ? 'hub' as const : 'viewer' as const };
  loaded.set(cacheKey, all);
  return { ...all, issues: [...res.notes, ...res.skipped.map(formatIssue)] };
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
async function runPipeline(config: BenchConfig, apiKey: string | null, ctl: AbortController, onProgress: (p: BenchProgress) => void): Promise<BenchResult> {
  const parsed = parseRagConfig(config.rag);
  if (!parsed.ok) throw new Error(`The Ask tab's pipeline settings are not valid: ${parsed.message}`);
  const rag = parsed.config;
  const provider = createProvider({ provider: rag.llm.provider, baseUrl: rag.llm.baseUrl ?? undefined, model: rag.llm.model, apiKey: apiKey ?? undefined });
  const { search, embedder } = await pipelineModels(rag);
  const settings = evaluatorSettings(config, rag);
  const deps = await evaluatorDeps(config, settings, apiKey);
  const { board, emit } = progressBoard(config, onProgress);
  const loadedSubsets = await loadSubsets(config, ctl.signal, board, emit);
  const subsets = [];
  for (const { subset, rows } of loadedSubsets.subsets) {
    const rkb = buildRagbenchKb(rows, subset);
    if (embedder) {
      const docsHash = (await sha256Hex(rkb.docs.map((d) => d.text).join('\u0000'))).slice(0, 16);
      await attachDense(rkb.kb, embedder, {
        kbKey: ragbenchVectorKey(subset, docsHash, rkb.kb.options.chunking), signal: ctl.signal,
        onProgress: (_stage, done, total) => emit({ phase: 'load', subset, loaded: done, total }),
      });
    }
    subsets.push({ subset, rows, kb: rkb });
  }
  let started = Date.now();
  const s = await runPipelineSession({
    evaluator: config.evaluator, settings, deps, subsets, rag, answerer: provider, models: search,
    ...(config.n !== null ? { n: config.n } : {}), seed: config.seed, signal: ctl.signal,
    redact: (m) => redactSecrets(m, [apiKey]),
    onProgress: (subset, done, total) => {
      if (done === 0) started = Date.now();
      board.set(subset, 'running');
      emit({ phase: 'score', subset, total, done, cached: 0, invalid: 0, failed: 0, pending: total - done, etaMs: remainingMs(Date.now() - started, done, total - done) });
    },
    onSubset: (r) => board.set(r.subset, 'done'),
    report: { config: reportConfig(config), environment: await runEnvironment(), source: loadedSubsets.source, loadIssues: loadedSubsets.issues, skipped: loadedSubsets.skipped },
  });
  const text = pipelineSettingsText(rag);
  const views: PipelineView[] = s.results.map((r) => ({
    subset: r.subset, settings: text, n: r.n, k: r.k, kb: { documents: r.kb.documents, chunks: r.kb.chunks }, statuses: r.statuses as Record<string, number>,
    predicted: r.predicted, recallAtK: num(r.recallAtK), relevantRecallAtK: num(r.relevantRecallAtK),
    gold: { n: r.gold.n, relevance: num(r.gold.relevance), utilization: num(r.gold.utilization), completeness: num(r.gold.completeness), adherence: num(r.gold.adherence) },
    rows: r.rows.map((x) => ({ question: x.question, status: x.status, answer: x.answer, recall: num(x.recall), retrieved: x.retrieved })),
  }));
  return { pipeline: views, judge: judgeView(s.judge, settings), configHash: s.hash, subsets: [], rows: [], failures: [], loadIssues: loadedSubsets.issues, skipped: loadedSubsets.skipped, cacheNotes: [], meanAuroc: null, report: s.report };
}

/** Validate mode: the dataset's own answers scored by the chosen evaluator, resumable through the IndexedDB cache. */
async function runValidate(config: BenchConfig, apiKey: string | null, ctl: AbortController, onProgress: (p: BenchProgress) => void): Promise<BenchResult> {
  const settings = evaluatorSettings(config, null);
  const deps = await evaluatorDeps(config, settings, apiKey);
  const { board, emit } = progressBoard(config, onProgress);
  const loadedSubsets = await loadSubsets(config, ctl.signal, board, emit);
  const s = await runValidateSession({
    evaluator: config.evaluator, settings, deps, subsets: loadedSubsets.subsets, store: indexedDbResultStore,
    ...(config.n !== null ? { n: config.n } : {}), seed: config.seed, signal: ctl.signal, concurrency: 2,
    redact: (m) => redactSecrets(m, [apiKey]),
    onProgress: (p) => { board.set(p.subset, 'running'); emit({ phase: 'score', ...p }); },
    onSubset: (run) => board.set(run.validation.subset, 'done'),
    report: { config: reportConfig(config), environment: await runEnvironment(), source: loadedSubsets.source, loadIssues: loadedSubsets.issues, skipped: loadedSubsets.skipped },
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

const api: BenchWorkerApi = {
  async runRetrieval(config, token, onProgress) {
    controller?.abort();
    const ctl = new AbortController();
    controller = ctl;
    try {
      return await retrieval.runRetrieval(config, token, models, ctl.signal, onProgress);
    } catch (e) {
      if (ctl.signal.aborted) throw new Error('The run was cancelled. Finished rows are kept and a new run resumes from them.');
      throw new Error(redactSecrets((e as Error).message || String(e), [token]));
    } finally {
      if (controller === ctl) controller = null;
    }
  },
  loadBeirFiles(files) {
    return retrieval.loadBeirFiles(files);
  },
  fusionCandidates(queryId) {
    return retrieval.fusionCandidates(queryId, models);
  },
  attachModels(port) {
    models = Comlink.wrap<ModelsWorkerApi>(port);
  },

  async run(config, apiKey, onProgress) {
    controller?.abort();
    const ctl = new AbortController();
    controller = ctl;
    try {
      return config.mode === 'pipeline' ? await runPipeline(config, apiKey, ctl, onProgress) : await runValidate(config, apiKey, ctl, onProgress);
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
      const all = await rowsOf(config, subset, new AbortController().signal, (p) => onProgress({ ...p, subsets: [] } as BenchProgress));
      inputs.push(...sampleRows(all.rows, config.n ?? undefined, config.seed).map(rowJudgeInput));
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
      const bytes = new Uint8Array(await f.arrayBuffer());
      const r = await parseLocal(f.name, bytes);
      if (r.subset !== null) {
        // Remembered for the next visit (bounded); a failed write costs only that.
        r.remembered = await fileStore.remember(r.subset, f.name, bytes).then((kept) => (kept ? 'yes' : 'too-large'), () => 'failed');
      }
      out.push(r);
    }
    return out;
  },

  async restoreFiles() {
    const files: LocalFileReport[] = [];
    const forgotten: Array<{ file: string; subset: string; size: number }> = [];
    let problems: string[] = [];
    try {
      const listed = await fileStore.list();
      problems = listed.problems;
      for (const x of listed.files) {
        if (x.bytes === null) { forgotten.push({ file: x.file, subset: x.subset, size: x.size }); continue; }
        const r = await parseLocal(x.file, x.bytes);
        if (r.subset === null) { await fileStore.forget(x.subset).catch(() => {}); problems.push(r.error ?? `${x.file}: could not be read again`); continue; }
        files.push({ ...r, remembered: 'restored' });
      }
    } catch (e) {
      problems.push(`The remembered RAGBench files could not be read (${(e as Error).message || String(e)}): pick them again.`);
    }
    return { files, forgotten, problems };
  },

  cancel() {
    controller?.abort();
  },

  async clearCache(config) {
    await indexedDbResultStore.clear(await validateConfigHash(config.evaluator, evaluatorSettings(config, null)));
  },
};

Comlink.expose(api);
