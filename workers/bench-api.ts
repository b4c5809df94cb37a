/** The typed surface of workers/bench.worker.ts. */
import type { RunProgress, RowFailure } from '../src/lib/eval/bench-run.ts';
import type { SkippedSubset, SubsetStatus } from '../src/lib/eval/subset-loading.ts';
import type { MetricIntervals } from '../src/lib/eval/bootstrap.ts';
import type { BaselineScores } from '../src/lib/eval/ragbench-validate.ts';
import type { TraceScores } from '../src/lib/eval/trace.ts';
import type { RagConfig } from '../src/lib/rag/config.ts';
import type { RetrievalModeSummary, RetrievalProgress } from '../src/lib/eval/retrieval-bench.ts';
import type { FusionCandidates } from '../src/lib/eval/alpha-sim.ts';
import type { RetrievalProtocol, RunOverrides } from '../src/lib/eval/retrieval-session.ts';
import type { KbSourceRef } from '../src/lib/data/kb-source.ts';
import type { Report } from '../src/lib/reports/format.ts';
import type { RetrievalMode } from '../src/lib/retrieval/modes.ts';

export interface BenchConfig {
  /** validate: score the dataset's own answers; pipeline: answer the questions with the RAG pipeline and score those. */
  mode: 'validate' | 'pipeline';
  subsets: string[];
  /** Rows per subset (seeded sample); null = all. */
  n: number | null;
  seed: number;
  evaluator: 'lexical' | 'llm' | 'nli';
  /** For the LLM judge: provider, base URL and model (never the key), repeats per row and rate limits. */
  judge: {
    provider: 'groq' | 'openai' | 'anthropic' | 'hf'; baseUrl: string | null; model: string;
    /** Judge calls per row; > 1 reports spread and verdict flips. Default 1. */
    repeats: number;
    /** Requests / tokens per minute (null = unlimited). */
    rpm: number | null;
    tpm: number | null;
  } | null;
  /** Pipeline mode: the pipeline settings to run (the Ask tab's; never a key), validated again in the worker. */
  rag: RagConfig | null;
  /** NLI evaluator: the models it uses (`id@dtype`), part of what identifies cached rows. */
  nliModels: { nli: string; reranker: string | null } | null;
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
  /** The pipeline settings that ran, in words (ragbench-pipeline.ts `pipelineSettingsText`). */
  settings: string;
  n: number;
  k: number;
  kb: { documents: number; chunks: number };
  statuses: Record<string, number>;
  predicted: TraceScores;
  recallAtK: number | null;
  relevantRecallAtK: number | null;
  gold: { n: number; relevance: number | null; utilization: number | null; completeness: number | null; adherence: number | null };
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

/** Where a retrieval benchmark's BEIR dataset (documents, queries, qrels) comes from. */
export type RetrievalSource =
  /** A BEIR dataset on the Hub read as parquet (corpus + queries configs, qrels from `<id>-qrels` or a qrels config). */
  | { kind: 'hub-dataset'; dataset: string; revision: string | null; hubUrl: string }
  /** A knowledge base artifact that carries queries and qrels: a Hub artifact or one built in this browser. */
  | { kind: 'kb'; ref: Extract<KbSourceRef, { kind: 'hub' } | { kind: 'local' }>; hubUrl: string }
  /** The BEIR folder last given to `loadBeirFiles`. */
  | { kind: 'files' };

export interface RetrievalBenchConfig {
  source: RetrievalSource;
  modes: RetrievalMode[];
  /** qrels split (files and Hub datasets). Default 'test'. */
  split: string;
  /** At most this many judged queries (seeded sample); null: all. */
  maxQueries: number | null;
  seed: number;
  /** Compute the per-query predictors (qpp.ts) for the analysis; default true. */
  predictors?: boolean;
  /** The run's protocol (retrieval-session.ts: 'seed-b' is seed B's preset); default 'default'. */
  protocol?: RetrievalProtocol;
  /** Settings over the protocol's preset (a field left out keeps the preset's value). */
  overrides?: RunOverrides;
}

export type RetrievalBenchProgress =
  | { phase: 'load'; stage: string; done: number; total: number }
  | { phase: 'embed'; done: number; total: number }
  | ({ phase: 'run' } & RetrievalProgress);

export interface RetrievalBenchResult {
  /** The run as a multi-mode retrieval report (src/lib/eval/retrieval-bench.ts). */
  report: Report;
  modes: RetrievalModeSummary[];
  skipped: Array<{ mode: RetrievalMode; reason: string }>;
  judged: number;
  unjudged: number;
  notes: string[];
  /** Whether `fusionCandidates` can answer (the dense side is there). */
  simulator: boolean;
}

/** What `loadBeirFiles` found in a picked BEIR folder. */
export interface BeirFilesReport {
  documents: number;
  queries: number;
  judged: number;
  splits: string[];
  issues: string[];
  error: string | null;
}

export interface BenchWorkerApi {
  /** Runs the retrieval benchmark; `token` (an hf_ token, or null) goes only to `source.hubUrl`. */
  runRetrieval(config: RetrievalBenchConfig, token: string | null, onProgress: (p: RetrievalBenchProgress) => void): Promise<RetrievalBenchResult>;
  /** Parses a picked BEIR folder (corpus.jsonl, queries.jsonl, qrels/<split>.tsv; paths relative to the folder). */
  loadBeirFiles(files: Array<{ path: string; file: File }>): Promise<BeirFilesReport>;
  /** The fusion candidates of one query of the last retrieval run (the α simulator); an error when it cannot. */
  fusionCandidates(queryId: string): Promise<FusionCandidates>;
  /** A direct line to the models worker (the NLI evaluator runs its NLI model and cross-encoder there). */
  attachModels(port: MessagePort): void;
  run(config: BenchConfig, apiKey: string | null, onProgress: (p: BenchProgress) => void): Promise<BenchResult>;
  /** Parses local RAGBench files (JSONL or parquet) here in the worker; a later file of the same subset replaces it. */
  loadFiles(files: File[]): Promise<LocalFileReport[]>;
  /** Reads back the files remembered by earlier `loadFiles` calls (IndexedDB) into the worker, as at a reload. */
  restoreFiles(): Promise<RestoredFiles>;
  /** Calls, tokens, cost and the shortest duration of an LLM-judge run, before it starts (loads the rows). */
  estimate(config: BenchConfig, onProgress: (p: BenchProgress) => void): Promise<JudgeEstimate>;
  cancel(): void;
  /** Forgets the cached rows of this configuration (for a fresh run). */
  clearCache(config: BenchConfig): Promise<void>;
}
