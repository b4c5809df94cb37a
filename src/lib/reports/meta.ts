/**
 * What the Reports list shows of a report without its rows (`ReportMeta`): made from a report when it is saved, kept
 * beside it by the stores, and checked with `ReportMetaSchema` when read back (a stored record is input too).
 */
import * as v from 'valibot';
import { REPORT_ID, REPORT_KINDS, REPORT_LIMITS, type Report } from './format.ts';
import type { ReportMeta, ReportOrigin } from './store-types.ts';
import { generatedTitle, reportDetails, runFingerprint } from './title.ts';
import { reportFigures, type PipelineSource } from './pipelines.ts';

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
  headline: v.pipe(v.array(v.object({
    id: str(64), value: v.nullable(finite), ci: v.nullable(v.tuple([finite, finite])), pipeline: v.optional(str(100)),
  })), v.maxLength(REPORT_LIMITS.fields)),
  origin: v.picklist(REPORT_ORIGINS),
  generated: v.optional(str(REPORT_LIMITS.title * 2)),
  details: v.optional(str(2000)),
  fingerprint: v.optional(str(500)),
}) satisfies v.GenericSchema<ReportMeta>;

/** A report's headline figures, each naming its pipeline (a retrieval mode) where it has one (pipelines.ts `reportFigures`). */
export function headlineOf(report: PipelineSource, max: number = REPORT_LIMITS.fields): ReportMeta['headline'] {
  return reportFigures(report).flatMap((p) => p.figures.map((m) => ({ id: m.id, value: m.value, ci: m.ci, ...(p.pipeline !== null ? { pipeline: p.pipeline } : {}) }))).slice(0, max);
}

/**
 * A list entry's headline by pipeline, in order. An entry saved before figures named their pipeline (the store
 * upgrades those it can read) is taken as its report's one pipeline, except a multi-mode retrieval one (evaluator
 * `modes`): its figures pooled every mode, so none is shown.
 */
export function headlineByPipeline(m: Pick<ReportMeta, 'kind' | 'evaluator' | 'headline'>): Array<{ pipeline: string | null; figures: ReportMeta['headline'] }> {
  const out: Array<{ pipeline: string | null; figures: ReportMeta['headline'] }> = [];
  for (const h of m.headline) {
    const pipeline = h.pipeline ?? (m.kind === 'retrieval' ? m.evaluator : null);
    if (h.pipeline === undefined && m.kind === 'retrieval' && m.evaluator === 'modes') continue;
    const last = out.at(-1);
    if (last && last.pipeline === pipeline) last.figures.push(h);
    else out.push({ pipeline, figures: [h] });
  }
  return out;
}

/** An entry written before its headline figures named their pipelines (a retrieval report's): the store remakes it from the body. */
export const headlineOutdated = (m: Pick<ReportMeta, 'kind' | 'headline'>): boolean => m.kind === 'retrieval' && m.headline.some((h) => h.pipeline === undefined);

/** The list entry of `report`: its figures per pipeline (`headlineOf`) are the headline. */
export function reportMeta(report: Report, origin: ReportOrigin, savedAt: string = new Date().toISOString()): ReportMeta {
  return {
    id: report.id, kind: report.kind, title: report.title, notes: report.notes, createdAt: report.createdAt, savedAt,
    draft: report.draft, dataset: report.data.dataset, evaluator: report.evaluator, n: report.truncated?.rows ?? report.rows.length,
    headline: headlineOf(report),
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
