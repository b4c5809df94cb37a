/**
 * Where reports are kept (the contract between the IndexedDB store, the memory store of tests, Hub sync and the
 * Reports tab): saved reports by id, and a deleted-reports archive they can be restored from or emptied.
 */
import type { Report, ReportKind } from './format.ts';

/** How a stored report arrived. */
export type ReportOrigin = 'run' | 'import' | 'shared' | 'hub' | 'cli';

/** What the Reports list shows without loading a report's rows. */
export interface ReportMeta {
  id: string;
  kind: ReportKind;
  title: string;
  notes: string;
  createdAt: string;
  /** When it was saved (or deleted, in the archive). */
  savedAt: string;
  draft: boolean;
  dataset: string;
  evaluator: string;
  /** Rows in the report. */
  n: number;
  /**
   * The summary figures per pipeline (pipelines.ts `reportFigures`): id, value, interval, and the retrieval mode
   * they describe (absent: the report's one pipeline; entries saved before pipelines were named lack it).
   */
  headline: Array<{ id: string; value: number | null; ci: [number, number] | null; pipeline?: string }>;
  origin: ReportOrigin;
  /** The title generated from the report (title.ts `generatedTitle`); absent in entries saved before it existed. */
  generated?: string;
  /** The details line (title.ts `reportDetails`: subsets, evaluator, mode, seed, N); absent in older entries. */
  details?: string;
  /** title.ts `runFingerprint` (kind, dataset, config hash, rows): an identical re-run has the same; absent in older entries. */
  fingerprint?: string;
}

export interface ReportStore {
  /** Saved reports, newest first. */
  list(): Promise<ReportMeta[]>;
  get(id: string): Promise<Report | null>;
  /** Inserts, or replaces the report with the same id. */
  put(report: Report, origin: ReportOrigin): Promise<void>;
  /** Moves a report into the deleted archive (nothing is lost until the archive is emptied). */
  remove(id: string): Promise<void>;
  listDeleted(): Promise<ReportMeta[]>;
  /** From the archive back to the saved reports. */
  restore(id: string): Promise<void>;
  /** Deletes archived reports for good: one, or all when no id is given. */
  purge(id?: string): Promise<void>;
  /** An archived report (to show it or restore it elsewhere). */
  getDeleted(id: string): Promise<Report | null>;
}
