/**
 * What the Reports list shows of a report without its rows (`ReportMeta`): made from a report when it is saved, kept
 * beside it by the stores, and checked with `ReportMetaSchema` when read back (a stored record is input too).
 */
import * as v from 'valibot';
import { REPORT_ID, REPORT_KINDS, REPORT_LIMITS, type Report } from './format.ts';
import type { ReportMeta, ReportOrigin } from './store-types.ts';
import { generatedTitle, reportDetails, runFingerprint } from './title.ts';

export const REPORT_ORIGINS = ['run', 'import', 'shared', 'hub', 'cli'] as const satisfies readonly ReportOrigin[];

const finite = v.pipe(v.number(), v.finite());
const str = (max: number) => v.pipe(v.string(), v.maxLength(max));

export const ReportMetaSchema = v.object({
  id: v.pipe(v.string(), v.regex(REPORT_ID)),
  kind: v.picklist(REPORT_KINDS),
  title: str(REPORT_LIMITS.title),
  notes: str(REPORT_LIMITS.notes),
  createdAt: str(64),
  savedAt: str(64),
  draft: v.boolean(),
  dataset: str(200),
  evaluator: str(50),
  n: v.pipe(v.number(), v.integer(), v.minValue(0)),
  headline: v.pipe(v.array(v.object({ id: str(64), value: v.nullable(finite), ci: v.nullable(v.tuple([finite, finite])) })), v.maxLength(REPORT_LIMITS.fields)),
  origin: v.picklist(REPORT_ORIGINS),
  generated: v.optional(str(REPORT_LIMITS.title * 2)),
  details: v.optional(str(2000)),
  fingerprint: v.optional(str(500)),
}) satisfies v.GenericSchema<ReportMeta>;

/** The list entry of `report`: its pooled (group null) summary figures are the headline. */
export function reportMeta(report: Report, origin: ReportOrigin, savedAt: string = new Date().toISOString()): ReportMeta {
  return {
    id: report.id, kind: report.kind, title: report.title, notes: report.notes, createdAt: report.createdAt, savedAt,
    draft: report.draft, dataset: report.data.dataset, evaluator: report.evaluator, n: report.truncated?.rows ?? report.rows.length,
    headline: report.summary.metrics.filter((m) => m.group === null).map((m) => ({ id: m.id, value: m.value, ci: m.ci })),
    origin, generated: generatedTitle(report), details: reportDetails(report), fingerprint: runFingerprint(report),
  };
}

/** Saved reports: newest run first (a rename does not reorder); the archive: latest deleted first. */
export const byCreated = (a: ReportMeta, b: ReportMeta): number => b.createdAt.localeCompare(a.createdAt) || b.savedAt.localeCompare(a.savedAt);
export const bySaved = (a: ReportMeta, b: ReportMeta): number => b.savedAt.localeCompare(a.savedAt);

/** The drafts beyond the `max` most recently saved (what a new draft prunes); kept reports are never among them. */
export function draftsToPrune(list: readonly ReportMeta[], max: number): ReportMeta[] {
  return list.filter((m) => m.draft).sort((a, b) => b.savedAt.localeCompare(a.savedAt) || b.createdAt.localeCompare(a.createdAt)).slice(max);
}

/** A store that keeps each saved report's questions and answers apart (the find box reads them without the rows). */
export interface ReportTextSource {
  findTexts(id: string): Promise<Array<[string, string]> | null>;
}

export const hasFindTexts = (store: object): store is ReportTextSource => typeof (store as Partial<ReportTextSource>).findTexts === 'function';
