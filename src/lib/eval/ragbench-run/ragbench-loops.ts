/**
 * One benchmark session: the RAGBench validate loop and the pipeline loop, for the bench worker and the CLI alike
 * (the worker passes the IndexedDB result store, the CLI a `MemoryResultStore`), so the two cannot drift.
 *
 * Validate: per subset, a seeded sample scored by the chosen evaluator (EVALUATORS) through `runSubset` (cache,
 * concurrency for API judges, progress, cancel keeping finished rows, failed rows listed and left out), then the
 * subset's figures with bootstrap intervals and small-sample warnings. Pipeline: per subset, the RAG pipeline answers
 * N sampled questions over the subset's knowledge base and the evaluator scores the answers, compared with the gold
 * labels of the same questions (pipeline-gold.ts; intervals from the same resamples as the report's). Both meter API usage
 * (answers and judge apart), track judge repeats per subset (LLM judge), and return the per-subset results and a
 * report v1 (`buildReport`) of the run, whose notes include what the evaluator says of itself (`EvaluatorDef.notes`).
 */
import { kbConfigKey } from '../../data/kb-registry.ts';
import { ragbenchRowKey, type RagbenchRow } from '../../data/ragbench.ts';
import type { RagbenchKb } from '../../data/ragbench-kb.ts';
import type { ChatProvider } from '../../llm/types.ts';
import { DEFAULT_RAG_CONFIG, type RagConfig } from '../../rag/config.ts';
import type { SearchModels } from '../../retrieval/search.ts';
import { buildReport, SUMMARY_BOOTSTRAP } from '../../reports/build.ts';
import type { JsonValue, Report } from '../../reports/format.ts';
import { baselineEntries, pipelineReportRow, reportEnvironment, validateReportRow, type RunEnvironment } from '../ragbench/report-from-run.ts';
import { sha256Hex } from '../../checksum.ts';
import { configHash, invalidCacheNote, runSubset, type ResultStore, type RowFailure, type RunProgress, type SubsetRun } from './resumable-rows.ts';
import { BOOTSTRAP_ITERATIONS, metricIntervals, smallSampleWarnings } from '../ragbench/bootstrap.ts';
import { costOf, meteredProvider, priceFor, UsageMeter } from '../core/cost.ts';
import { EVALUATORS, type EvaluatorDeps, type EvaluatorId, type EvaluatorSettings } from '../score/evaluators.ts';
import { RepeatTracker, type RepeatedJudgeResult, type RepeatSummary } from '../ragbench/judge-runs.ts';
import { runRagbenchPipeline, type PipelineRowResult, type PipelineSubsetResult } from '../ragbench/pipeline-mode.ts';
import { baselineScores } from '../ragbench/validate-mode.ts';
import { DEFAULT_JUDGE_TEMPERATURE } from '../metrics/judge.ts';
import { skippedNote, type SkippedSubset } from './subset-loading.ts';

/** Bump when an evaluator's outputs change, so cached rows of the old code are not reused. */
export const SCORING_VERSION = 1;
export const RAGBENCH_DATASET = 'rungalileo/ragbench';

export interface SessionSubset { subset: string; rows: readonly RagbenchRow[] }

/** What the report of a session says about where it ran; never a key. */
export interface SessionReportContext {
  /** The BenchConfig, or the CLI flags under the same names. */
  config: Record<string, JsonValue>;
  environment: RunEnvironment;
  /** Where the rows came from: hub | viewer | local. */
  source: string;
  /** The dataset revision when known. */
  revision?: string | null;
  /** Rows dropped while loading and similar notes of the shell. */
  loadIssues?: readonly string[];
  /** Picked subsets that could not be loaded (subset-loading.ts): the report says which and why. */
  skipped?: readonly SkippedSubset[];
  title?: string;
}

interface SessionCommon {
  evaluator: EvaluatorId;
  settings: EvaluatorSettings;
  /** The models / judge provider the evaluator needs (the judge provider is metered here). */
  deps: Omit<EvaluatorDeps, 'onJudge'>;
  n?: number;
  seed: number;
  /** Rows / questions at once; validate uses it only for API evaluators. Default 1. */
  concurrency?: number;
  signal?: AbortSignal;
  onJudge?: (row: RagbenchRow, r: RepeatedJudgeResult) => void;
  /** Applied to every error message kept (failure reasons, pipeline errors): the shell's key redaction. */
  redact?: (message: string) => string;
  report: SessionReportContext;
  /**
   * Build the report (default true). Its summary bootstraps every figure per subset and pooled (about 10 s of CPU
   * for all 4,110 RAGBench test rows), so the CLI asks for it only with --report-out.
   */
  withReport?: boolean;
}

export interface JudgeStats {
  repeats: number;
  /** Per subset, in run order. */
  trackers: Map<string, RepeatTracker>;
  overall: RepeatSummary;
  usage: UsageMeter;
}

const scoringConfigOf = (evaluator: EvaluatorId, settings: EvaluatorSettings) =>
  ({ evaluator, mode: 'validate' as const, version: SCORING_VERSION, settings: EVALUATORS[evaluator].hashSettings(settings) });

/**
 * What decides a run's scores as its report records them (`config.scoring`): the evaluator and the settings its
 * hash is made of, with defaults filled (the judge's temperature), so a run from the tab and one from the CLI show
 * the same keys in Compare's config diff. Rate limits and concurrency change speed, not scores: not here.
 */
export function scoringRecord(evaluator: EvaluatorId, settings: EvaluatorSettings): Record<string, JsonValue> {
  const out: Record<string, unknown> = { evaluator, ...EVALUATORS[evaluator].hashSettings(settings) };
  if (EVALUATORS[evaluator].api && settings.judge) out['temperature'] = settings.judge.temperature ?? DEFAULT_JUDGE_TEMPERATURE;
  return JSON.parse(JSON.stringify(out)) as Record<string, JsonValue>;
}

/** The shell's config plus what the session itself decides: the scoring settings and the summary's bootstrap resamples. */
export function sessionReportConfig(o: Pick<SessionCommon, 'evaluator' | 'settings' | 'report'>, bootstrap: number): Record<string, JsonValue> {
  return { ...o.report.config, bootstrap, scoring: scoringRecord(o.evaluator, o.settings) };
}

/** The result cache's config hash of a validate run (what decides a row's scores). */
export function validateConfigHash(evaluator: EvaluatorId, settings: EvaluatorSettings): Promise<string> {
  return configHash(scoringConfigOf(evaluator, settings));
}

const sortKeys = (o: Record<string, unknown>) => Object.fromEntries(Object.entries(o).sort(([a], [b]) => (a < b ? -1 : 1)));

/** Retrieval settings added after pipeline runs were first hashed: in the hash only when not at their default, so earlier runs keep their hashes. */
const LATER_RETRIEVAL = ['entropyBasis', 'k1', 'b'] as const;
const hashedRag = (rag: RagConfig): RagConfig => {
  const retrieval: Record<string, unknown> = { ...rag.retrieval };
  for (const k of LATER_RETRIEVAL) if (retrieval[k] === DEFAULT_RAG_CONFIG.retrieval[k]) delete retrieval[k];
  return { ...rag, retrieval } as RagConfig;
};

/** The hash of a pipeline run: code version, knowledge bases, pipeline settings, evaluator and its settings. */
export async function pipelineConfigHash(subsets: readonly string[], rag: RagConfig, evaluator: EvaluatorId, settings: EvaluatorSettings): Promise<string> {
  const kbs = subsets.map((subset) => kbConfigKey({ kind: 'ragbench', subset }));
  return (await sha256Hex(JSON.stringify(['pipeline', SCORING_VERSION, kbs, hashedRag(rag), evaluator, sortKeys(EVALUATORS[evaluator].hashSettings(settings))]))).slice(0, 24);
}

/** The evaluator of a session, with its judge metered and each judged row tracked under the current subset. */
function sessionEvaluator(o: SessionCommon) {
  const def = EVALUATORS[o.evaluator];
  const usage = new UsageMeter();
  const repeats = Math.max(1, o.settings.judge?.repeats ?? 1);
  const trackers = new Map<string, RepeatTracker>();
  let current: RepeatTracker | null = null;
  const built = def.build(o.settings, {
    ...o.deps,
    judge: o.deps.judge ? meteredProvider(o.deps.judge, usage) : null,
    onJudge: (row, r) => { current?.add(ragbenchRowKey(row), r); o.onJudge?.(row, r); },
  });
  const judged = def.api && !!o.deps.judge;
  const j = o.settings.judge;
  return {
    def, built,
    /** The evaluator's own notes, and for a judge other than the LLM judge's repeats (RAGAS) its usage. */
    evaluatorNotes: def.notes?.(o.settings) ?? [],
    notes: () => [...(def.notes?.(o.settings) ?? []), ...(judged && !def.repeatable ? [usageNote(usage)] : [])],
    /** The judge's usage of a judge other than the LLM judge (RAGAS), for `summary.extra.judge`. */
    extra: (): Record<string, JsonValue> => (judged && !def.repeatable ? { judge: usageFields(usage, o.settings) } : {}),
    /** The metered judge's usage (null without a judge). */
    judgeUsage: judged ? usage : null,
    /** The report environment's judge. */
    judgeEnv: def.api && j ? { provider: j.provider, model: j.model } : null,
    startSubset(subset: string) { if (def.api) trackers.set(subset, (current = new RepeatTracker(repeats))); },
    judgeStats(): JudgeStats | null {
      if (!def.repeatable) return null;
      const all = new RepeatTracker(repeats);
      for (const t of trackers.values()) for (const [k, v] of t.byKey) all.add(k, v);
      return { repeats, trackers, overall: all.summary(), usage };
    },
  };
}

const plural = (n: number, w: string) => `${n} ${w}${n === 1 ? '' : 's'}`;

/** The judge's calls, tokens and cost as `summary.extra.judge` starts. */
function usageFields(usage: UsageMeter, settings: EvaluatorSettings): Record<string, JsonValue> {
  const price = settings.judge ? priceFor(settings.judge.provider, settings.judge.model) : null;
  return {
    calls: usage.summary.calls, inputTokens: usage.summary.inputTokens, outputTokens: usage.summary.outputTokens,
    failedCalls: usage.failedCalls, usd: price ? costOf(usage.summary, price).totalUsd : null, priceKnown: price?.known ?? false,
  };
}

function judgeExtra(j: JudgeStats, settings: EvaluatorSettings): Record<string, JsonValue> {
  const s = j.overall;
  const num = (x: number) => (Number.isFinite(x) ? x : null);
  return {
    judge: {
      ...usageFields(j.usage, settings),
      repeats: s.repeats, parseFailedCalls: s.parseFailedCalls, callParseFailureRate: num(s.callParseFailureRate),
      flippedRows: s.flippedRows, comparableRows: s.comparableRows, meanStdAdherence: num(s.meanStd.adherence),
    },
  };
}

const usageNote = (u: UsageMeter) =>
  `judge: ${plural(u.summary.calls, 'call')} (${u.failedCalls} failed), ${u.summary.inputTokens} input + ${u.summary.outputTokens} output tokens`;

const judgeNote = (j: JudgeStats) =>
  `${usageNote(j.usage)}; ${j.overall.parseFailedCalls} replies not parsed; adherence flipped in ${j.overall.flippedRows}/${j.overall.comparableRows} rows over ${j.repeats} repeats`;

function failureNotes(failures: readonly RowFailure[]): string[] {
  if (failures.length === 0) return [];
  return [`${plural(failures.length, 'row')} failed and left out of the figures (a new run retries them): ` +
    failures.slice(0, 5).map((f) => `${f.subset} ${f.key.replace('\u241f', ' / ')}: ${f.reason.slice(0, 300)}`).join('; ') + (failures.length > 5 ? '; …' : '')];
}

const skippedNotes = (c: SessionReportContext) => (c.skipped ?? []).map(skippedNote);

/** Notes as a report holds them: at most 1,000, each at most 5,000 characters (the rest is summed up in one note). */
function capNotes(notes: string[]): string[] {
  const out = notes.slice(0, 1000).map((n) => (n.length > 5000 ? `${n.slice(0, 4990)} …` : n));
  if (notes.length > 1000) out.push(`… and ${notes.length - 1000} more notes`);
  return out;
}

// ------------------------------------------------------------------------------------------------ validate

/**
 * `store` seen by one subset: its rows are filed under `${subset}:${row key}` (the report's row key), because row
 * keys (id, generator) repeat across subsets (covidqa and msmarco share 12) and one subset's cached scores must never
 * stand for another's row.
 */
export function subsetStore(store: ResultStore, subset: string): ResultStore {
  const prefix = `${subset}:`;
  const strip = <T>(it: Iterable<[string, T]>) => new Map([...it].filter(([k]) => k.startsWith(prefix)).map(([k, x]) => [k.slice(prefix.length), x]));
  return {
    async getAll(h) {
      const all = await store.getAll(h);
      return { scores: strip(all.scores), invalid: new Set(strip([...all.invalid].map((k) => [k, k] as [string, string])).keys()) };
    },
    put: (h, k, x) => store.put(h, prefix + k, x),
    clear: (h) => store.clear(h),
  };
}

export interface ValidateSessionOptions extends SessionCommon {
  subsets: readonly SessionSubset[];
  store: ResultStore;
  /** Bootstrap resamples of the intervals (per subset and in the report). Default 1000; 0: none. */
  bootstrap?: number;
  onProgress?: (p: RunProgress) => void;
  /** After each subset (may throw to stop the run, e.g. when every row failed). */
  onSubset?: (run: SubsetRun, ms: number) => void;
}

export interface ValidateSessionResult {
  hash: string;
  /** Per subset: the figures (`validation`, with `intervals` and `warnings`), failures and cache counts. */
  runs: SubsetRun[];
  failures: RowFailure[];
  /** Invalid cached rows recomputed, and rows scored but not cached, one note each per subset. */
  cacheNotes: string[];
  uncachedNotes: string[];
  judge: JudgeStats | null;
  /** The metered judge's usage, for every evaluator that calls one (LLM judge, RAGAS); null otherwise. */
  judgeUsage: UsageMeter | null;
  /** What the evaluator says of itself (`EvaluatorDef.notes`; also in the report's notes). */
  evaluatorNotes: string[];
  /** Null when `withReport` was false. */
  report: Report | null;
}

export async function runValidateSession(o: ValidateSessionOptions): Promise<ValidateSessionResult> {
  const ev = sessionEvaluator(o);
  const hash = await validateConfigHash(o.evaluator, o.settings);
  const bootstrap = o.bootstrap ?? BOOTSTRAP_ITERATIONS;
  const redact = o.redact ?? ((s: string) => s);
  const runs: SubsetRun[] = [];
  const cacheNotes: string[] = [];
  const uncachedNotes: string[] = [];
  for (const { subset, rows } of o.subsets) {
    ev.startSubset(subset);
    const t0 = Date.now();
    const run = await runSubset(rows, subset, ev.built.row, subsetStore(o.store, subset), hash, {
      ...(o.n !== undefined ? { n: o.n } : {}), seed: o.seed, concurrency: ev.def.api ? o.concurrency ?? 1 : 1,
      ...(o.signal ? { signal: o.signal } : {}), ...(o.onProgress ? { onProgress: o.onProgress } : {}),
    });
    const ms = Date.now() - t0;
    for (const f of run.failures) f.reason = redact(f.reason);
    const v = run.validation;
    v.warnings = smallSampleWarnings(v.rows, v.predictions);
    if (bootstrap > 0) {
      v.intervals = metricIntervals(v.rows, v.predictions, { iterations: bootstrap, seed: o.seed });
      if (v.intervals.auroc) v.auroc_ci = v.intervals.auroc;
    }
    if (run.invalidCached > 0) cacheNotes.push(invalidCacheNote(subset, run.invalidCached));
    if (run.uncached) uncachedNotes.push(`${subset}: ${run.uncached.rows} rows were scored but not saved (${run.uncached.reason}); a reload would score them again.`);
    runs.push(run);
    o.onSubset?.(run, ms);
  }
  const failures = runs.flatMap((r) => r.failures);
  const judge = ev.judgeStats();
  const allRows = runs.flatMap((r) => r.validation.rows);
  const report = o.withReport === false ? null : buildReport({
    kind: 'ragbench-validate', evaluator: o.evaluator, config: sessionReportConfig(o, bootstrap), configHash: hash,
    data: { dataset: RAGBENCH_DATASET, revision: o.report.revision ?? null, subsets: runs.map((r) => r.validation.subset), source: o.report.source, kb: null },
    seed: o.seed, n: o.n ?? null,
    rows: runs.flatMap((r) => r.validation.rows.map((row, i) => validateReportRow(r.validation.subset, row, r.validation.predictions[i]!))),
    environment: reportEnvironment(o.report.environment, null, ev.judgeEnv),
    baselines: [...runs.flatMap((r) => baselineEntries(r.validation.subset, r.validation.baselines)), ...(runs.length > 1 ? baselineEntries(null, baselineScores(allRows)) : [])],
    runNotes: capNotes([...skippedNotes(o.report), ...failureNotes(failures), ...(o.report.loadIssues ?? []), ...cacheNotes, ...uncachedNotes, ...(judge ? [judgeNote(judge)] : []), ...ev.notes()]),
    extra: {
      ...(judge ? judgeExtra(judge, o.settings) : ev.extra()),
      subsets: Object.fromEntries(runs.map((r) => [r.validation.subset, { scored: r.validation.n, computed: r.computed, failed: r.failures.length, invalidCached: r.invalidCached }])),
    },
    iterations: bootstrap,
    ...(o.report.title !== undefined ? { title: o.report.title } : {}),
  });
  return { hash, runs, failures, cacheNotes, uncachedNotes, judge, judgeUsage: ev.judgeUsage, evaluatorNotes: ev.evaluatorNotes, report };
}

// ------------------------------------------------------------------------------------------------ pipeline

export interface PipelineSessionSubset extends SessionSubset { kb: RagbenchKb }

export interface PipelineSessionOptions extends SessionCommon {
  subsets: readonly PipelineSessionSubset[];
  rag: RagConfig;
  /** The answering model's provider (metered here). */
  answerer: ChatProvider;
  models: SearchModels;
  /** Bootstrap resamples of the report's intervals. Default 1000. */
  bootstrap?: number;
  onProgress?: (subset: string, done: number, total: number) => void;
  onRow?: (r: PipelineRowResult) => void;
  /** After each subset (may throw to stop the run, e.g. when every answer call failed). */
  onSubset?: (r: PipelineSubsetResult, ms: number) => void;
}

export interface PipelineSessionResult {
  hash: string;
  results: PipelineSubsetResult[];
  judge: JudgeStats | null;
  /** The metered judge's usage, for every evaluator that calls one (LLM judge, RAGAS); null otherwise. */
  judgeUsage: UsageMeter | null;
  /** What the evaluator says of itself (`EvaluatorDef.notes`; also in the report's notes). */
  evaluatorNotes: string[];
  /** Usage of the answering model. */
  answers: UsageMeter;
  /** Null when `withReport` was false. */
  report: Report | null;
}

export async function runPipelineSession(o: PipelineSessionOptions): Promise<PipelineSessionResult> {
  const ev = sessionEvaluator(o);
  const answers = new UsageMeter();
  const answerer = meteredProvider(o.answerer, answers);
  const subsets = o.subsets.map((s) => s.subset);
  const hash = await pipelineConfigHash(subsets, o.rag, o.evaluator, o.settings);
  const redact = o.redact ?? ((s: string) => s);
  const bootstrap = o.bootstrap ?? SUMMARY_BOOTSTRAP.iterations;
  const results: PipelineSubsetResult[] = [];
  for (const { subset, rows, kb } of o.subsets) {
    ev.startSubset(subset);
    const t0 = Date.now();
    const r = await runRagbenchPipeline(kb, rows, { provider: answerer, models: o.models }, ev.built.pipeline, {
      ...(o.n !== undefined ? { n: o.n } : {}), seed: o.seed, config: o.rag, concurrency: o.concurrency ?? 1, bootstrap,
      ...(o.signal ? { signal: o.signal } : {}),
      ...(o.onProgress ? { onProgress: (done: number, total: number) => o.onProgress!(subset, done, total) } : {}),
      onRow: (row) => {
        if (row.reason !== undefined) row.reason = redact(row.reason);
        if (row.evalError !== undefined) row.evalError = redact(row.evalError);
        o.onRow?.(row);
      },
    });
    results.push(r);
    o.onSubset?.(r, Date.now() - t0);
  }
  const judge = ev.judgeStats();
  const statusNotes = results.flatMap((r) => {
    const other = Object.entries(r.statuses).filter(([s]) => s !== 'answered');
    return other.length ? [`${r.subset}: ${other.map(([s, c]) => `${c} ${s}`).join(', ')} of ${r.n} questions (no TRACe scores; recall still counted)`] : [];
  });
  const evalErrors = results.flatMap((r) => r.rows.filter((x) => x.evalError).map((x) => `${r.subset} ${x.id}: evaluator failed: ${x.evalError!.slice(0, 300)}`));
  const report = o.withReport === false ? null : buildReport({
    kind: 'ragbench-pipeline', evaluator: o.evaluator, config: sessionReportConfig(o, bootstrap), configHash: hash,
    data: {
      dataset: RAGBENCH_DATASET, revision: o.report.revision ?? null, subsets, source: o.report.source,
      kb: subsets.map((subset) => kbConfigKey({ kind: 'ragbench', subset })).join(','),
    },
    seed: o.seed, n: o.n ?? null,
    rows: results.flatMap((r) => r.rows.map((x) => pipelineReportRow(r.subset, x))),
    environment: reportEnvironment(o.report.environment, { provider: o.rag.llm.provider, model: o.rag.llm.model }, ev.judgeEnv),
    runNotes: capNotes([...skippedNotes(o.report), ...statusNotes, ...evalErrors.slice(0, 20), ...(o.report.loadIssues ?? []), ...(judge ? [judgeNote(judge)] : []), ...ev.notes()]),
    extra: {
      ...(judge ? judgeExtra(judge, o.settings) : ev.extra()),
      answers: { calls: answers.summary.calls, inputTokens: answers.summary.inputTokens, outputTokens: answers.summary.outputTokens, failedCalls: answers.failedCalls },
      subsets: Object.fromEntries(results.map((r) => [r.subset, {
        k: r.k, statuses: r.statuses as Record<string, number>, kb: { documents: r.kb.documents, pooledFrom: r.kb.pooledFrom, chunks: r.kb.chunks },
      }])),
    },
    iterations: bootstrap,
    ...(o.report.title !== undefined ? { title: o.report.title } : {}),
  });
  return { hash, results, judge, judgeUsage: ev.judgeUsage, evaluatorNotes: ev.evaluatorNotes, answers, report };
}
