/** The typed surface of workers/bench.worker.ts (its run types are src/lib/eval/ragbench-run/ragbench-tab-config.ts and retrieval-tab-config.ts). */
import type { BenchConfig, BenchProgress, BenchResult, JudgeEstimate, LocalFileReport, RestoredFiles } from '../src/lib/eval/ragbench-run/ragbench-tab-config.ts';
import type { BeirFilesReport, RetrievalBenchConfig, RetrievalBenchProgress, RetrievalBenchResult } from '../src/lib/eval/retrieval/retrieval-tab-config.ts';
import type { FusionCandidates } from '../src/lib/retrieval/alpha-sim.ts';

export type {
  BenchConfig, BenchProgress, BenchResult, BenchRowView, BenchSubsetSummary, JudgeEstimate, JudgeReport, LocalFileReport, PipelineView, RestoredFiles,
} from '../src/lib/eval/ragbench-run/ragbench-tab-config.ts';
export type { BeirFilesReport, RetrievalBenchConfig, RetrievalBenchProgress, RetrievalBenchResult, RetrievalSource } from '../src/lib/eval/retrieval/retrieval-tab-config.ts';

export interface BenchWorkerApi {
  /** Runs the retrieval benchmark; `token` (an hf_ token, or null) goes only to `source.hubUrl`. */
  runRetrieval(config: RetrievalBenchConfig, token: string | null, onProgress: (p: RetrievalBenchProgress) => void): Promise<RetrievalBenchResult>;
  /** The texts a corpus embedder of the benchmark's dataset trains on (retrieval-tab-session.ts trainingTexts). */
  retrievalTrainingTexts(config: RetrievalBenchConfig, token: string | null, onProgress: (p: RetrievalBenchProgress) => void): Promise<{ texts: string[]; dataset: string; kbId: string; unit: 'documents' | 'chunks' }>;
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
