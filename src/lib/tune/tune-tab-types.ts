/** The types and limits of the Tune panel's session and its test set files (tune-tab-session.ts), shared by the search worker's API and the tab. */
import type { RemoteProviderId } from '../llm/types.ts';
import type { Report } from '../reports/format.ts';
import type { SearchSettings } from '../settings/search.ts';
import type { TestSetKind } from '../store/test-set-store.ts';
import type { RetrievalMode } from '../retrieval/modes.ts';
import type { IrMetricId, TuneProgress, TuneResult } from './tune-session.ts';
import type { LlmTestSetProgress } from './llm-test-set.ts';

/** A test set file (test-set-file.ts) is at most this much text and these many rows; here so the page can check a file's size without loading the parser. */
export const TEST_SET_LIMITS = Object.freeze({ bytes: 2 * 1024 * 1024, rows: 10_000 });

/** Most trials a tune in the tab may sample (and minutes it may take), most questions an LLM may be asked for one test set, most pseudo-queries. */
export const TAB_LIMITS = Object.freeze({ budget: 500, minutes: 120, llmQuestions: 2000, pseudo: 5000 });

export interface TestSetSummary {
  id: string;
  label: string;
  kind: TestSetKind;
  queries: number;
  provenance: Record<string, string | number>;
  notes: string[];
  savedAt: number;
  /** The knowledge base changed since the test set was made (its content hash differs). */
  stale: boolean;
}

export interface WriteTestSetRequest {
  /** Questions asked for (one per sampled chunk). */
  n: number;
  seed: number;
  /** The user's provider: its id, model and endpoint (the key travels apart). */
  llm: { provider: RemoteProviderId; model: string; baseUrl: string | null };
}

export interface TuneTabRequest {
  testSetId: string;
  /** The Search tab's settings now: the current mode and the base of every candidate. */
  search: SearchSettings;
  modes: RetrievalMode[];
  /** Trials sampled; with `minutes`, the most. */
  budget: number;
  /** A budget in time (minutes): as many trials as fit (tune-session.ts). */
  minutes?: number;
  objective?: IrMetricId;
  /** Chunking and the analyzer join the space: each value the knowledge base built again from its documents. */
  rebuild?: boolean;
  /** Other embedders ("owner/name" or "owner/name@dtype") in the modes with a dense side, loaded for this tune (tune-tab-embedders.ts). */
  embedders?: string[];
  /** Dimensions narrowed, by flag, to the values a text lists (`0.3, 0.7`; `auto` for an unset k), as `rag-lab tune --space flag=…`. */
  space?: Partial<Record<string, string>>;
  /** A second test set of the knowledge base: every trial scored on both, their rankings compared (agreement.ts). */
  agreeWithId?: string;
}

export type TuneTabProgress =
  | ({ phase: 'write'; etaMs: number | null } & LlmTestSetProgress)
  | ({ phase: 'tune'; etaMs: number | null } & TuneProgress)
  /** An other embedder embedding a knowledge base's items (the open one, or a chunking built again). */
  | { phase: 'embed'; embedder: string; done: number; total: number; etaMs: number | null };

/** One Search setting an Adopt changes. */
export interface AdoptChange { setting: keyof SearchSettings; label: string; from: string | number | null; to: string | number | null }

export interface TuneTabResult {
  result: TuneResult;
  /** The tune as a draft report (kind 'tune'): Reports, Compare, export, share links. */
  report: Report;
  /** The winner as Search settings, and what each changes from the settings the tune started from. */
  adopt: {
    settings: Partial<Omit<SearchSettings, 'topK' | 'rejectThreshold'>>; changes: AdoptChange[];
    /** The winner's settings a search cannot take (its chunking or analyzer, not the knowledge base's: a build). */
    notApplied: string[];
  };
  testSet: { id: string; label: string; kind: TestSetKind; stale: boolean };
  kbTitle: string;
  ms: number;
}
