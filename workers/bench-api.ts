/** The typed surface of workers/bench.worker.ts. */
import type { RunProgress, RowFailure } from '../src/lib/eval/bench-run.ts';
import type { BaselineScores } from '../src/lib/eval/ragbench-validate.ts';
import type { TraceScores } from '../src/lib/eval/trace.ts';

export interface BenchConfig {
  subsets: string[];
  /** Rows per subset (seeded sample); null = all. */
  n: number | null;
  seed: number;
  evaluator: 'lexical' | 'llm';
  /** For the LLM judge: provider, base URL and model (never the key). */
  judge: { provider: 'groq' | 'openai' | 'anthropic' | 'hf'; baseUrl: string | null; model: string } | null;
  /** Dataset viewer endpoint (Hub layout). */
  datasetsHost: string;
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
  baselines: BaselineScores;
  /** Baseline adherence-like scores row by row (for ROC curves): ragas, trulens, gpt3. */
  baselineAdherence: Record<'ragas' | 'trulens' | 'gpt3', Array<number | null>>;
  computed: number;
}

export interface BenchResult {
  configHash: string;
  subsets: BenchSubsetSummary[];
  rows: BenchRowView[];
  failures: RowFailure[];
  /** Rows dropped while loading (malformed), with reasons. */
  loadIssues: string[];
  meanAuroc: number | null;
}

export type BenchProgress =
  | { phase: 'load'; subset: string; loaded: number; total: number }
  | ({ phase: 'score' } & RunProgress);

export interface BenchWorkerApi {
  run(config: BenchConfig, apiKey: string | null, onProgress: (p: BenchProgress) => void): Promise<BenchResult>;
  cancel(): void;
  /** Forgets the cached rows of this configuration (for a fresh run). */
  clearCache(config: BenchConfig): Promise<void>;
}
