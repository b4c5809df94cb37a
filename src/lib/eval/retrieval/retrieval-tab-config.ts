/**
 * The types of the Benchmark tab's retrieval benchmark (retrieval-tab-session.ts), shared by the bench worker's API
 * (workers/bench-api.ts) and the tab.
 */
import type { KbSourceRef } from '../../data/kb-source.ts';
import type { Report } from '../../reports/format.ts';
import type { RetrievalMode } from '../../retrieval/modes.ts';
import type { RetrievalModeSummary, RetrievalProgress } from './retrieval-bench.ts';
import type { RetrievalProtocol, RunOverrides } from './retrieval-session.ts';
import type { EmbedderCorpus, EmbedderPick } from './run-embedder.ts';

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
  /** The embedder: 'auto' (default: never one trained on another corpus) or one picked by id (run-embedder.ts). */
  embedder?: EmbedderPick;
}

export type RetrievalBenchProgress =
  | { phase: 'load'; stage: string; done: number; total: number }
  | EmbedProgress
  | ({ phase: 'run' } & RetrievalProgress);

/** The knowledge base's items embedded: whole documents, or chunks (seed B's protocol); `etaMs` as eval/core/eta.ts computes it. */
export interface EmbedProgress { phase: 'embed'; done: number; total: number; unit?: 'documents' | 'chunks'; etaMs?: number | null }

export interface RetrievalBenchResult {
  /** The run as a multi-mode retrieval report (src/lib/eval/retrieval/retrieval-bench.ts). */
  report: Report;
  modes: RetrievalModeSummary[];
  skipped: Array<{ mode: RetrievalMode; reason: string }>;
  judged: number;
  unjudged: number;
  notes: string[];
  /** Whether `fusionCandidates` can answer (the dense side is there). */
  simulator: boolean;
  /** The embedder the dense modes ran with (`id@dtype`) and what it was trained on; null: no dense mode ran with one. */
  embedder: { id: string; corpus: EmbedderCorpus | null } | null;
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
