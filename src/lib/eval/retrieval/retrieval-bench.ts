/**
 * The retrieval benchmark (Benchmark tab through the bench worker, and `rag-lab eval-beir`): every judged query of a
 * BEIR-style dataset through each mode, per-query NDCG@10, MRR@10, P@3, P@5, R@5, R@100 and latency (non-model
 * stages), the per-query predictors of qpp.ts, rows cached per (config hash, row key) so a run resumes, progress and
 * cancel; then one multi-mode retrieval report (format v1):
 *   row key `${mode}:${queryId}`, group = mode, question = the query, retrieved = the top 10 document ids,
 *   scores = the IR metrics + `total_ms` (end to end: query embedding, both searches, fusion, rerank, dedup) with
 *   its stages `ms.embed`, `ms.sparse`, `ms.dense`, `ms.fuse`, `ms.rerank`, `ms.other` + `query_ms` (the non-model
 *   stages) + the `qpp.*` fields, gold = {};
 *   summary.extra = { queries, unjudged, modes: [{ mode, queries, mean_ms, p95_ms, latency: 'end-to-end', stages }],
 *   skipped_modes: { mode: reason } } — mean_ms / p95_ms are of total_ms, stages the mean ms of each stage.
 * The query vector is computed once per query and shared, but every mode that uses it is charged the time that one
 * embedding took: the latency a user waits for in that mode.
 * Queries without judgements are skipped and counted; a mode that cannot run is listed with its reason, never
 * zero-filled.
 *
 * Order: modes in MODE_IDS order, each over every judged query. The predictors are per query (they read the query's
 * BM25 list and dense list, not a mode's fusion), computed once and put on every mode's row of the query; the query
 * vector is embedded once per query for the predictors and all dense modes. A row found in the cache is used as is
 * (and counted); a cache that cannot read or write a row costs a recomputation or a note, never the run.
 */
import type { BeirQuery, Qrels } from '../../data/beir.ts';
import { buildReport } from '../../reports/build.ts';
import type { JsonValue, Report, ReportRow } from '../../reports/format.ts';
import { finiteOrNull, retrievalReportRow, retrievalRowKey } from '../ragbench/report-from-run.ts';
import type { KnowledgeBase } from '../../retrieval/knowledge-base.ts';
import { MODE_IDS, modeAvailability, type RetrievalMode } from '../../retrieval/modes.ts';
import { remainingMs } from '../core/eta.ts';
import { capabilitiesOf, search, type QueryEncoder, type SearchModels, type SearchOptions, type StageTiming } from '../../retrieval/search.ts';
import { IR_METRIC_IDS, irScores, meanScores, type IrScores } from '../../stats/ir-metrics.ts';
import { QPP_DEFAULTS, queryPredictors, type QppOptions } from '../analysis/qpp.ts';
import { sampleRows } from '../ragbench/validate-mode.ts';
import { mean, percentile } from '../../stats/summary.ts';
import { trecRunLines } from './trec-run.ts';

export { retrievalRowKey };

/**
 * Rows already computed, by config hash and row key (IndexedDB in the tab, memory or files in Node). `get` may throw
 * `InvalidCachedRow` (a record that failed its checks) or any error (storage unreadable): the run computes the row
 * again and notes it; a `put` that throws is a note too.
 */
export interface RetrievalRowCache {
  get(configHash: string, key: string): Promise<ReportRow | undefined>;
  put(configHash: string, key: string, row: ReportRow): Promise<void>;
}

/**
 * `done` / `total` queries of `mode`; `etaMs`: the whole run's time left (eval/core/eta.ts: the mean time of the queries
 * computed so far × the queries left in this mode and the modes after it; null until one is computed).
 */
export interface RetrievalProgress { mode: RetrievalMode; done: number; total: number; cached: number; etaMs: number | null }

export interface RetrievalBenchInput {
  kb: KnowledgeBase;
  queries: readonly BeirQuery[];
  qrels: Qrels;
  dataset: string;
  modes: readonly RetrievalMode[];
  models: SearchModels;
  /** Documents ranked per query. Default 100. */
  depth?: number;
  search?: Partial<SearchOptions>;
  /** Compute the qpp.ts predictors per query (default true). */
  predictors?: boolean;
  qpp?: Partial<QppOptions>;
  /** At most this many judged queries, a seeded sample (null: all). */
  maxQueries?: number | null;
  seed?: number;
  /** What decides the rows' scores (data, knowledge base, models, settings); the cache's key. */
  configHash: string;
  cache?: RetrievalRowCache | null;
  /** Collects TREC run lines when given. */
  runLines?: string[];
  onProgress?: (p: RetrievalProgress) => void;
  signal?: AbortSignal;
}

export interface RetrievalModeSummary {
  mode: RetrievalMode;
  queries: number;
  means: IrScores;
  /** Mean and 95th percentile of the end-to-end latency (total_ms). */
  mean_ms: number | null;
  p95_ms: number | null;
  /** Mean ms of each stage of it. */
  stages: Record<LatencyStage, number | null>;
  /** Rows taken from the cache. */
  cached: number;
}

export interface RetrievalRun {
  dataset: string;
  /** Judged queries evaluated. */
  judged: number;
  /** Queries without judgements, skipped. */
  unjudged: number;
  rows: ReportRow[];
  modes: RetrievalModeSummary[];
  skipped: Array<{ mode: RetrievalMode; reason: string }>;
  notes: string[];
}

/** A cached row that failed its checks (checksum, shape, key): the run computes the row again and says why. */
export class InvalidCachedRow extends Error {
  constructor(readonly reason: string) { super(reason); this.name = 'InvalidCachedRow'; }
}

/** The score field of a row's latency of the non-model stages (ms). */
export const QUERY_MS = 'query_ms';
/** The score field of a row's end-to-end latency (ms): what a user waits for in that mode. */
export const TOTAL_MS = 'total_ms';
/** The stages of the end-to-end latency, each a score field `ms.<stage>` (other = analyze + dedup + reject). */
export const LATENCY_STAGES = ['embed', 'sparse', 'dense', 'fuse', 'rerank', 'other'] as const;
export type LatencyStage = (typeof LATENCY_STAGES)[number];
export const stageField = (s: LatencyStage) => `ms.${s}`;

/** Counts and the first message of one kind of cache trouble, for one note. */
class Trouble {
  count = 0;
  first = '';
  add(msg: string) { if (this.count++ === 0) this.first = msg; }
  note(what: string): string[] { return this.count ? [`${this.count} ${what} (first: ${this.first})`] : []; }
}

const message = (e: unknown) => (e instanceof Error ? e.message : String(e));

/** The encoder with each query text embedded once (the predictors and every dense mode share the vector), and how long that one embedding took. */
export interface SharedEncoder extends QueryEncoder { msOf(text: string): number | undefined }
export function sharedEncoder(encoder: QueryEncoder | null | undefined): SharedEncoder | null {
  if (!encoder) return null;
  const vectors = new Map<string, Promise<Float32Array>>();
  const ms = new Map<string, number>();
  return {
    embedQuery(text) {
      let p = vectors.get(text);
      if (!p) {
        const t0 = performance.now();
        p = encoder.embedQuery(text).then((v) => { ms.set(text, performance.now() - t0); return v; });
        vectors.set(text, p);
        p.catch(() => vectors.delete(text));
      }
      return p;
    },
    msOf: (text) => ms.get(text),
  };
}

/**
 * A search's latency as the user waits for it: its stages, with the embed stage charged the time the query's one
 * embedding took (the shared vector makes a later mode's own embed stage ~0 ms).
 *   total = embed + sparse + dense + fuse + rerank + other (analyze, dedup, reject)
 */
export function endToEnd(stages: readonly StageTiming[], embedMs: number | undefined): { total: number; stages: Record<LatencyStage, number> } {
  const by: Record<LatencyStage, number> = { embed: 0, sparse: 0, dense: 0, fuse: 0, rerank: 0, other: 0 };
  for (const s of stages) {
    const k: LatencyStage = s.stage === 'analyze' || s.stage === 'dedup' || s.stage === 'reject' ? 'other' : s.stage;
    by[k] += s.ms;
  }
  if (embedMs !== undefined && stages.some((s) => s.stage === 'embed')) by.embed = embedMs;
  const total = LATENCY_STAGES.reduce((a, k) => a + by[k], 0);
  return { total, stages: by };
}

/** The IR scores a row carries (a cached row's null → NaN, as ir-metrics would give). */
const rowIrScores = (row: ReportRow): IrScores =>
  Object.fromEntries(IR_METRIC_IDS.map((k) => [k, row.scores[k] ?? NaN])) as unknown as IrScores;

const hasPredictors = (row: ReportRow) => Object.keys(row.scores).some((k) => k.startsWith('qpp.'));

export async function runRetrievalBenchmark(input: RetrievalBenchInput): Promise<RetrievalRun> {
  const { kb, qrels, cache, signal } = input;
  const depth = input.depth ?? 100;
  const judgedAll = input.queries.filter((q) => qrels.has(q.id));
  const judged = input.maxQueries == null ? judgedAll : sampleRows(judgedAll, Math.max(0, input.maxQueries), input.seed ?? 0);
  const unjudged = input.queries.length - judgedAll.length;
  const modes = MODE_IDS.filter((m) => input.modes.includes(m));
  // Chunked: over-fetch chunks so `depth` distinct documents survive dedup.
  const candidateK = input.search?.candidateK ?? (kb.options.chunking !== false ? depth * 10 : depth);
  const encoder = sharedEncoder(input.models.encoder);
  const models: SearchModels = { ...input.models, encoder };
  const caps = capabilitiesOf(kb, models);
  const qpp: QppOptions = { ...QPP_DEFAULTS, ...input.qpp, entropyK: input.qpp?.entropyK ?? candidateK };
  let predictorsOn = input.predictors ?? true;
  const predictorCache = new Map<string, Record<string, number | null>>();
  const notes: string[] = [];
  const readFailed = new Trouble(), invalid = new Trouble(), putFailed = new Trouble();
  let stale = 0;
  // A TREC run needs every ranking to depth, which a cached row (top 10 ids) does not keep.
  const readCache = cache && !input.runLines ? cache : null;
  if (cache && input.runLines) notes.push('cached rows were not read: the TREC run file needs every ranking to its full depth');

  /** The query's predictors: from a row of it already made (this run or the cache), else computed once. */
  const predictorsOf = async (q: BeirQuery): Promise<Record<string, number | null>> => {
    const known = predictorCache.get(q.id);
    if (known) return known;
    let out: Record<string, number | null> = {};
    try {
      const terms = kb.bm25.queryTerms(q.text);
      const sparse = terms.length > 0 ? kb.bm25.search(terms, qpp.listDepth, kb.itemId) : [];
      const dense = kb.dense && encoder ? kb.dense.search(await encoder.embedQuery(q.text), qpp.listDepth, kb.itemId) : null;
      out = queryPredictors(kb, terms, { sparse, dense }, qpp);
    } catch (e) {
      if (signal?.aborted) throw e;
      predictorsOn = false;
      notes.push(`the query performance predictors could not be computed (${message(e)}); the rows have none`);
    }
    predictorCache.set(q.id, out);
    return out;
  };

  const rows: ReportRow[] = [];
  const summaries: RetrievalModeSummary[] = [];
  // For the ETA: queries computed (not from the cache) and the time they took since the loop began.
  const started = Date.now();
  let computedQueries = 0;
  const laterModes = modes.map((_, i) => modes.slice(i + 1).filter((m) => modeAvailability(m, caps).available).length);
  const skipped: RetrievalRun['skipped'] = [];
  for (const [modeIndex, mode] of modes.entries()) {
    const avail = modeAvailability(mode, caps);
    if (!avail.available) { skipped.push({ mode, reason: avail.reason }); continue; }
    const modeRows: ReportRow[] = [];
    const perQuery: IrScores[] = [];
    const latencies: number[] = [];
    const stageMs: Record<LatencyStage, number[]> = { embed: [], sparse: [], dense: [], fuse: [], rerank: [], other: [] };
    let cached = 0;
    let unavailable: string | null = null;
    for (let i = 0; i < judged.length; i++) {
      signal?.throwIfAborted();
      const q = judged[i]!;
      const key = retrievalRowKey(mode, q.id);
      let row: ReportRow | undefined;
      if (readCache) {
        try {
          row = await readCache.get(input.configHash, key);
          // A row made without predictors does not serve a run that wants them.
          if (row && predictorsOn && !hasPredictors(row)) { row = undefined; stale++; }
        } catch (e) {
          row = undefined;
          if (e instanceof InvalidCachedRow) invalid.add(`${key}: ${e.reason}`);
          else readFailed.add(message(e));
        }
      }
      if (row) {
        cached++;
        if (predictorsOn && !predictorCache.has(q.id)) {
          predictorCache.set(q.id, Object.fromEntries(Object.entries(row.scores).filter(([k]) => k.startsWith('qpp.'))));
        }
      } else {
        computedQueries++;
        const out = await search(kb, q.text, { candidateK, ...input.search, mode, topK: depth, dedup: true, rejectThreshold: 0 }, models);
        if (out.status === 'unavailable') { unavailable = out.reason; break; }
        const hits = out.hits.map((h) => ({ id: h.docId, score: h.score }));
        const ranked = hits.map((h) => h.id);
        input.runLines?.push(...trecRunLines(q.id, hits, `rag-lab-${mode}`));
        const predictors = predictorsOn ? await predictorsOf(q) : {};
        const latency = out.telemetry ? endToEnd(out.telemetry.stages, encoder?.msOf(q.text)) : null;
        row = retrievalReportRow(mode, q, irScores(ranked, qrels.get(q.id)!), ranked, { queryMs: out.telemetry?.queryMs ?? null, predictors, latency });
        if (cache) {
          try { await cache.put(input.configHash, key, row); } catch (e) { putFailed.add(message(e)); }
        }
      }
      modeRows.push(row);
      perQuery.push(rowIrScores(row));
      const ms = row.scores[TOTAL_MS];
      if (typeof ms === 'number') latencies.push(ms);
      for (const k of LATENCY_STAGES) { const v = row.scores[stageField(k)]; if (typeof v === 'number') stageMs[k].push(v); }
      const left = judged.length - (i + 1) + judged.length * laterModes[modeIndex]!;
      input.onProgress?.({ mode, done: i + 1, total: judged.length, cached, etaMs: remainingMs(Date.now() - started, computedQueries, left) });
    }
    if (unavailable !== null) { skipped.push({ mode, reason: unavailable }); continue; }
    rows.push(...modeRows);
    summaries.push({
      mode, queries: modeRows.length, means: meanScores(perQuery),
      mean_ms: finiteOrNull(mean(latencies)), p95_ms: finiteOrNull(percentile(latencies, 95)), cached,
      stages: Object.fromEntries(LATENCY_STAGES.map((k) => [k, finiteOrNull(mean(stageMs[k]))])) as Record<LatencyStage, number | null>,
    });
  }
  notes.push(
    ...invalid.note('cached rows failed their checks and were computed again'),
    ...readFailed.note('cached rows could not be read and were computed again'),
    ...(stale ? [`${stale} cached rows had no predictors and were computed again`] : []),
    ...putFailed.note('rows could not be cached (the run is complete; a rerun computes them again)'),
  );
  return { dataset: input.dataset, judged: judged.length, unjudged, rows, modes: summaries, skipped, notes };
}

export interface RetrievalReportContext {
  config: Record<string, JsonValue>;
  configHash: string;
  data: Report['data'];
  environment: Report['environment'];
  seed?: number;
  title?: string;
  createdAt?: string;
  runNotes?: string[];
  /** The sample size asked for (maxQueries), null for all. Default null. */
  n?: number | null;
}

/** The run as one retrieval report (see the module comment); evaluator = the mode when one ran, else 'modes'. */
export function retrievalReport(run: RetrievalRun, ctx: RetrievalReportContext): Report {
  const notes = [
    ...(ctx.runNotes ?? []),
    ...(run.unjudged > 0 ? [`${run.unjudged} queries without judgements were skipped`] : []),
    ...run.skipped.map((s) => `${s.mode}: skipped: ${s.reason}`),
    ...run.notes,
  ];
  return buildReport({
    kind: 'retrieval', evaluator: run.modes.length === 1 ? run.modes[0]!.mode : 'modes',
    config: ctx.config, configHash: ctx.configHash, data: ctx.data, environment: ctx.environment,
    seed: ctx.seed ?? 0, n: ctx.n ?? null, rows: run.rows,
    ...(ctx.title !== undefined ? { title: ctx.title } : {}),
    ...(ctx.createdAt !== undefined ? { createdAt: ctx.createdAt } : {}),
    runNotes: notes,
    extra: {
      queries: run.judged, unjudged: run.unjudged,
      modes: run.modes.map((m) => ({
        mode: m.mode, queries: m.queries, mean_ms: finiteOrNull(m.mean_ms), p95_ms: finiteOrNull(m.p95_ms), latency: 'end-to-end',
        stages: Object.fromEntries(LATENCY_STAGES.map((k) => [k, finiteOrNull(m.stages[k])])),
      })),
      skipped_modes: Object.fromEntries(run.skipped.map((s) => [s.mode, s.reason])),
    },
  });
}

