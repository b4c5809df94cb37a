/** The typed surface of workers/bench.worker.ts (the RAGBench run's types are src/lib/eval/bench-config.ts). */
import type { BenchConfig, BenchProgress, BenchResult, JudgeEstimate, LocalFileReport, RestoredFiles } from '../src/lib/eval/bench-config.ts';
import type { RetrievalModeSummary, RetrievalProgress } from '../src/lib/eval/retrieval-bench.ts';
import type { FusionCandidates } from '../src/lib/retrieval/alpha-sim.ts';
import type { RetrievalProtocol, RunOverrides } from '../src/lib/eval/retrieval-session.ts';
import type { KbSourceRef } from '../src/lib/data/kb-source.ts';
import type { Report } from '../src/lib/reports/format.ts';
import type { RetrievalMode } from '../src/lib/retrieval/modes.ts';

export type {
  BenchConfig, BenchProgress, BenchResult, BenchRowView, BenchSubsetSummary, JudgeEstimate, JudgeReport, LocalFileReport, PipelineView, RestoredFiles,
} from '../src/lib/eval/bench-config.ts';

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
