/**
 * Opening a `#ref=` share link: the report file at that commit of a Hub dataset repo, downloaded from the Hub the
 * USER set in Settings (`hubUrl`; the link names a repo, a commit and a path, never a host) with the user's token
 * when one is set, then validated as any report file (`parseReportText`). The download is bounded by the report
 * limit (`hub/download-limits.ts`: a larger declared size is refused before the first byte, a body without one is cut
 * there), reports its progress and can be cancelled. Kept apart from share-link.ts so the Hub
 * client loads only when such a link is opened.
 */
import { ArtifactError } from '../artifact/types.ts';
import { hubSource } from '../hub/hub-source.ts';
import type { Fetch } from '../hub/download.ts';
import { parseReportText, type Report, type ReportParse } from './format.ts';
import { idOfPath } from './hub-layout.ts';
import type { ReportRef } from './share-link.ts';

export interface RefAccess {
  hubUrl: string;
  token: string | null;
  fetch?: Fetch;
  /** Extra tries after a dropped connection or a 5xx (default 2). */
  retries?: number;
  retryDelayMs?: number;
  /** Bytes so far and the total the server declared (or the bytes so far): a download is capped at the report limit. */
  onProgress?: (done: number, total: number) => void;
  /** Cancels the download (the result is then a message saying so). */
  signal?: AbortSignal;
}

/** A report a `#ref=` names, with a note when the file and the report inside disagree on its id. */
export type RefParse = (ReportParse & { ok: false }) | { ok: true; report: Report; note: string | null };

/**
 * The note for a report file whose name (`reports/report_<id>.json`, the sync layout) names another id than the
 * report it holds: a renamed or copied file, shown as it is but said (saving it keeps the id inside).
 */
export function refIdNote(path: string, reportId: string): string | null {
  const named = idOfPath(path);
  if (!named || named === reportId) return null;
  return `The file is named for report "${named}" but holds report "${reportId}": it may have been renamed or copied. It is shown as the file holds it.`;
}

/** The report `ref` points at, or why it could not be downloaded or is not a valid report. */
export async function fetchReportAtRef(ref: ReportRef, access: RefAccess): Promise<RefParse> {
  const where = `${ref.path} in ${ref.repo}@${ref.commit.slice(0, 7)}`;
  let bytes: Uint8Array | null;
  try {
    const src = await hubSource({
      repo: ref.repo, revision: ref.commit, hubUrl: access.hubUrl, token: access.token, cache: null,
      retries: access.retries ?? 2, ...(access.retryDelayMs !== undefined ? { retryDelayMs: access.retryDelayMs } : {}),
      ...(access.fetch ? { fetch: access.fetch } : {}),
    });
    bytes = await src.read(ref.path, { ...(access.onProgress ? { onProgress: access.onProgress } : {}), ...(access.signal ? { signal: access.signal } : {}) });
  } catch (e) {
    if (access.signal?.aborted) return { ok: false, message: `The download of the shared report (${where}) was cancelled.` };
    const why = e instanceof ArtifactError ? e.message : (e as Error).message || String(e);
    return { ok: false, message: `The shared report could not be downloaded (${where}): ${why}` };
  }
  if (!bytes) return { ok: false, message: `The shared report is not on the Hub: no ${where} (the repo, commit or file may have been removed, or the Hub in Settings is another one).` };
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return { ok: false, message: `The shared report ${where} is not UTF-8 text.` };
  }
  const r = parseReportText(text, `The shared report ${where}`);
  return r.ok ? { ok: true, report: r.report, note: refIdNote(ref.path, r.report.id) } : { ok: false, message: r.message.startsWith('The shared report') ? r.message : `The shared report ${where} cannot be opened. ${r.message}` };
}
