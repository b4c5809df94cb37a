/**
 * The retrieval benchmark (Benchmark tab through the bench worker, and `rag-lab eval-beir`): every judged query of a
 * BEIR-style dataset through each mode, per-query NDCG@10, MRR@10, P@3, P@5, R@5, R@100 and latency (non-model
 * stages), the per-query predictors of qpp.ts, rows cached per (config hash, row key) so a run resumes, progress and
 * cancel; then one multi-mode retrieval report (format v1):
 *   row key `${mode}:${queryId}`, group = mode, question = the query, retrieved = the top 10 document ids,
 *   scores = the IR metrics + `query_ms` + the `qpp.*` fields, gold = {};
 *   summary.extra = { queries, unjudged, modes: [{ mode, queries, mean_ms, p95_ms }], skipped_modes: { mode: reason } }.
 * Queries without judgements are skipped and counted; a mode that cannot run is listed with its reason, never
 * zero-filled.
 *
 * CONTRACT STUB (issue 13): signatures fixed; the session helper implements the bodies.
 */
import type { BeirQuery, Qrels } from '../data/beir.ts';
import type { JsonValue, Report, ReportRow } from '../reports/format.ts';
import type { KnowledgeBase } from '../retrieval/knowledge-base.ts';
import type { RetrievalMode } from '../retrieval/modes.ts';
import type { SearchModels, SearchOptions } from '../retrieval/search.ts';
import type { IrScores } from './ir-metrics.ts';
import type { QppOptions } from './qpp.ts';

export const retrievalRowKey = (mode: RetrievalMode, queryId: string): string => `${mode}:${queryId}`;

/** Rows already computed, by config hash and row key (IndexedDB in the tab, memory or files in Node). */
export interface RetrievalRowCache {
  get(configHash: string, key: string): Promise<ReportRow | undefined>;
  put(configHash: string, key: string, row: ReportRow): Promise<void>;
}

export interface RetrievalProgress { mode: RetrievalMode; done: number; total: number; cached: number }

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
  mean_ms: number | null;
  p95_ms: number | null;
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

export async function runRetrievalBenchmark(input: RetrievalBenchInput): Promise<RetrievalRun> {
  void input;
  throw new Error('not implemented');
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
}

/** The run as one retrieval report (see the module comment); evaluator = the mode when one ran, else 'modes'. */
export function retrievalReport(run: RetrievalRun, ctx: RetrievalReportContext): Report {
  void run; void ctx;
  throw new Error('not implemented');
}
