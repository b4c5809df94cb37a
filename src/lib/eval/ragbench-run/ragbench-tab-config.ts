/**
 * What the Benchmark tab's RAGBench runs take and give back (the bench worker's `run`, `estimate`, `loadFiles`,
 * `restoreFiles`): the run's settings, local files read, and the per-subset figures, rows and judge figures.
 */
import type { RunProgress, RowFailure } from './resumable-rows.ts';
import type { SkippedSubset, SubsetStatus } from './subset-loading.ts';
import type { MetricIntervals } from '../ragbench/bootstrap.ts';
import type { BaselineScores } from '../ragbench/validate-mode.ts';
import type { TraceScores } from '../metrics/trace.ts';
import type { EvaluatorId } from '../score/evaluators.ts';
import type { RagConfig } from '../../rag/config.ts';
import type { RemoteProviderId } from '../../llm/types.ts';
import type { Report } from '../../reports/format.ts';

export interface BenchConfig {
  /** validate: score the dataset's own answers; pipeline: answer the questions with the RAG pipeline and score those. */
  mode: 'validate' | 'pipeline';
  subsets: string[];
  /** Rows per subset (seeded sample); null = all. */
  n: number | null;
  seed: number;
  evaluator: EvaluatorId;
  /**
   * Validate mode's LLM judge and RAGAS: provider, base URL and model (never the key), repeats per row and rate
   * limits. Null in pipeline mode, whose judge is the answering model of `rag`.
   */
  judge: {
    provider: RemoteProviderId; baseUrl: string | null; model: string;
    /** Judge calls per row; > 1 reports spread and verdict flips. Default 1. */
    repeats: number;
    /** Requests / tokens per minute (null = unlimited). */
    rpm: number | null;
    tpm: number | null;
  } | null;
  /** Pipeline mode: the pipeline settings to run (the Ask tab's; never a key), validated again in the worker. */
  rag: RagConfig | null;
  /** NLI evaluator (either mode): the models it uses (`id@dtype`), part of what identifies cached rows and a pipeline run. */
  nliModels: { nli: string; reranker: string | null } | null;
  /** RAGAS: the loaded embedder answer relevancy uses (`id@dtype`); null or absent: none, answer relevancy is absent. */
  ragasEmbedder?: string | null;
  /** Dataset viewer endpoint (rows API): the fallback when the parquet files cannot be read. */
  datasetsHost: string;
  /** The Hub (file protocol) whose `datasets/rungalileo/ragbench` parquet files are read with range requests. */
  hubUrl: string;
  /** Subsets taken from local files loaded with `loadFiles` (not from the Hub). */
  localSubsets: string[];
}

/** One local file given to `loadFiles`: the subset it holds and its rows, or why it was refused. */
export interface LocalFileReport {
  file: string;
  subset: string | null;
  rows: number;
  /** Rows skipped (malformed), with file and line/row in `issues` (at most 20 listed). */
  skipped: number;
  issues: string[];
  error: string | null;
  /**
   * Whether it is remembered for the next visit: 'yes', 'too-large' (over the limit: only its name is kept),
   * 'failed' (the browser storage refused it), 'restored' (read back from the last visit); null: refused file.
   */
  remembered: 'yes' | 'too-large' | 'failed' | 'restored' | null;
}

/** What `restoreFiles` read back: the files parsed again, those too large to have been kept, damaged records. */
export interface RestoredFiles {
  files: LocalFileReport[];
  forgotten: Array<{ file: string; subset: string; size: number }>;
  problems: string[];
}

export interface BenchRowView {
  subset: string;
  key: string;
  question: string;
  response: string;
  documents: string[];
  predicted: TraceScores;
  gold: { relevance: number | null; utilization: number | null; completeness: number | null; adherence: boolean | null };
}

export interface BenchSubsetSummary {
  subset: string;
  n: number;
  hallucinations: number;
  auroc: number | null;
  rmse_relevance: number | null;
  rmse_utilization: number | null;
  rmse_completeness: number | null;
  /** 95% percentile-bootstrap intervals of our AUROC and RMSEs (1000 resamples, seeded by the run's seed). */
  intervals: MetricIntervals;
  /** Figures resting on too few rows (e.g. "AUROC from 1 hallucinated row: not meaningful …"). */
  warnings: string[];
  baselines: BaselineScores;
  /** Baseline adherence-like scores row by row (for ROC curves): ragas, trulens, gpt3. */
  baselineAdherence: Record<'ragas' | 'trulens' | 'gpt3', Array<number | null>>;
  computed: number;
}

export interface JudgeEstimate {
  rows: number;
  calls: number;
  inputTokens: number;
  outputTokens: number;
  usd: number;
  /** False when the price of this provider/model is unknown (then usd is 0). */
  priceKnown: boolean;
  /** Shortest possible duration under the rate limits (ms). */
  minDurationMs: number;
}

export interface JudgeReport {
  usage: { calls: number; inputTokens: number; outputTokens: number; usd: number; failedCalls: number };
  repeats: number;
  parseFailedCalls: number;
  callParseFailureRate: number | null;
  flippedRows: number;
  comparableRows: number;
  /** Keys of rows whose adherence verdict flipped between repeats. */
  flipped: string[];
  meanStdAdherence: number | null;
}

/** Pipeline mode, per subset: how the RAG pipeline did on the sampled questions. */
export interface PipelineView {
  subset: string;
  /** The pipeline settings that ran, in words (pipeline-mode.ts `pipelineSettingsText`). */
  settings: string;
  n: number;
  k: number;
  kb: { documents: number; chunks: number };
  statuses: Record<string, number>;
  predicted: TraceScores;
  recallAtK: number | null;
  relevantRecallAtK: number | null;
  gold: { n: number; relevance: number | null; utilization: number | null; completeness: number | null; adherence: number | null };
  /** The predicted scores against the gold labels of the same questions (eval/ragbench/pipeline-gold.ts), NaN → null. */
  vsGold: {
    n: number; hallucinations: number; auroc: number | null; rmse_relevance: number | null; rmse_utilization: number | null; rmse_completeness: number | null;
    intervals: MetricIntervals | null; warnings: string[];
  };
  rows: Array<{ question: string; status: string; answer: string; recall: number | null; retrieved: string[] }>;
}

export interface BenchResult {
  /** Pipeline-mode results (validate mode: null). */
  pipeline: PipelineView[] | null;
  /** LLM judge runs: usage, cost and consistency of the calls made in this run. */
  judge: JudgeReport | null;
  configHash: string;
  subsets: BenchSubsetSummary[];
  rows: BenchRowView[];
  failures: RowFailure[];
  /** Rows dropped while loading (malformed) and rows scored but not cached, with reasons. */
  loadIssues: string[];
  /** Cached rows that were invalid (edited or corrupted) and were recomputed, one note per subset. */
  cacheNotes: string[];
  /** Picked subsets that could not be loaded and were skipped, with why (the others were scored). */
  skipped: SkippedSubset[];
  meanAuroc: number | null;
  /** The run as a report v1 (src/lib/reports/format.ts): what the Benchmark tab shows and the Reports tab saves. */
  report: Report | null;
}

/** Progress of a run; `subsets`: every picked subset's state (queued, loading, ready, running, done, skipped). */
export type BenchProgress =
  | { phase: 'load'; subset: string; loaded: number; total: number; subsets: SubsetStatus[] }
  | ({ phase: 'score'; subsets: SubsetStatus[] } & RunProgress);
