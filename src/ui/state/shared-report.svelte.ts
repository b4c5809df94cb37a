/**
 * A shared report opened from the page's fragment (one owner): `#r=v1.…` carries the report (a summary of it),
 * `#ref=owner/repo@sha/reports/report_<id>.json` names the full report on the Hub, downloaded from the Hub set in
 * Settings with the user's token when set (a link names a repo, never a host). Read at startup and on hashchange.
 *
 * Opening a link only shows a report: nothing runs, nothing is committed, no setting changes (Hub URL, LLM base
 * URLs, keys, models). The report's config is data to look at; nothing copies it into app state. Saving is the
 * user's click, and never overwrites a saved report with the same id (they choose a copy or cancel).
 */
import type { HubAccess } from '../../lib/hub/access.ts';
import { newReportId, type Report } from '../../lib/reports/format.ts';
import { reportTitle } from '../../lib/reports/title.ts';
import { isShareFragment, readShareFragment, type ReportRef } from '../../lib/reports/share-link.ts';
import { DOWNLOAD_LIMITS } from '../../lib/hub/download-limits.ts';
import type { ReportsState } from './reports.svelte.ts';

export type SharedView =
  | { status: 'none' }
  /** `progress`: bytes of a `#ref=` download so far, of at most `limit` (the report limit); such a download can be cancelled. */
  | { status: 'loading'; what: string; progress?: { done: number; limit: number } }
  /** `note`: what the link's file says that the report does not (e.g. another id in its name), or null. */
  | { status: 'shown'; report: Report; from: 'link' | 'hub'; ref: ReportRef | null; note: string | null }
  | { status: 'error'; message: string };

export type SharedSave =
  | { status: 'idle' }
  | { status: 'saving' }
  /** A report with the same id is saved already: the user picks "save as a copy" or cancel. */
  | { status: 'conflict'; existingTitle: string }
  | { status: 'saved'; id: string; title: string; copy: boolean }
  | { status: 'error'; message: string };

/** The same report under a new id (and "(copy)" in its title), for saving next to one with the same id. */
export function copyOfReport(report: Report): Report {
  const title = `${reportTitle(report)} (copy)`;
  return { ...report, id: newReportId(), title: title.length > 200 ? `${title.slice(0, 192)}… (copy)` : title };
}

export class SharedReportState {
  view = $state.raw<SharedView>({ status: 'none' });
  saving = $state.raw<SharedSave>({ status: 'idle' });
  /** Which fragment is being read: a newer hashchange wins over a download still running. */
  private seq = 0;
  /** Aborts the `#ref=` download in flight (Cancel, Close, a newer link). */
  private abort: AbortController | null = null;

  constructor(
    private readonly reports: () => ReportsState | null,
    /** The Hub and token from Settings (the only place they come from), once the saved token is read. */
    private readonly hubAccess: () => Promise<HubAccess>,
  ) {}

  get active(): boolean {
    return this.view.status !== 'none';
  }

  /** Reads `location.hash` now and whenever it changes; returns the listener's remover. */
  start(win: Window = window): () => void {
    const onHash = () => { void this.open(win.location.hash); };
    win.addEventListener('hashchange', onHash);
    onHash();
    return () => win.removeEventListener('hashchange', onHash);
  }

  /** Shows the report a fragment carries or names; a fragment that is not a share link leaves everything as is. */
  async open(hash: string): Promise<void> {
    if (!isShareFragment(hash)) return;
    const seq = ++this.seq;
    this.abort?.abort();
    this.abort = null;
    this.saving = { status: 'idle' };
    this.view = { status: 'loading', what: 'Reading the shared report…' };
    let view: SharedView;
    try {
      view = await this.read(hash, () => seq !== this.seq);
    } catch (e) {
      view = { status: 'error', message: `The shared report could not be opened: ${(e as Error).message || String(e)}` };
    }
    if (seq === this.seq) this.view = view;
  }

  private async read(hash: string, stale: () => boolean): Promise<SharedView> {
    const link = await readShareFragment(hash);
    if (link.kind === 'none') return { status: 'none' };
    if (link.kind === 'error') return { status: 'error', message: link.message };
    if (link.kind === 'inline') return { status: 'shown', report: link.report, from: 'link', ref: null, note: null };
    const what = `Downloading the shared report from ${link.ref.repo} at ${link.ref.commit.slice(0, 7)}…`;
    const { fetchReportAtRef } = await import('../../lib/reports/share-ref.ts');
    const limit = DOWNLOAD_LIMITS.report;
    if (stale()) return { status: 'none' };
    const abort = new AbortController();
    this.abort = abort;
    this.view = { status: 'loading', what, progress: { done: 0, limit } };
    const { hubUrl, token } = await this.hubAccess();
    // One update per 256 KiB step: enough for a moving figure, not one per network chunk.
    let shown = 0;
    const onProgress = (done: number) => {
      if (stale() || done - shown < 256 * 1024) return;
      shown = done;
      this.view = { status: 'loading', what, progress: { done, limit } };
    };
    const r = await fetchReportAtRef(link.ref, { hubUrl, token, onProgress, signal: abort.signal });
    if (this.abort === abort) this.abort = null;
    return r.ok ? { status: 'shown', report: r.report, from: 'hub', ref: link.ref, note: r.note } : { status: 'error', message: r.message };
  }

  /** Saves the shown report to the user's reports; one with the same id already saved is never overwritten. */
  async save(asCopy = false): Promise<void> {
    const view = this.view;
    const reports = this.reports();
    if (view.status !== 'shown' || !reports) return;
    this.saving = { status: 'saving' };
    try {
      let report: Report = { ...view.report, draft: false };
      if (asCopy) report = copyOfReport(report);
      else {
        const existing = await reports.get(report.id);
        if (existing) { this.saving = { status: 'conflict', existingTitle: reportTitle(existing) }; return; }
      }
      await reports.save(report, 'shared');
      this.saving = { status: 'saved', id: report.id, title: reportTitle(report), copy: asCopy };
    } catch (e) {
      this.saving = { status: 'error', message: `The report was not saved: ${(e as Error).message || String(e)}` };
    }
  }

  cancelSave(): void {
    this.saving = { status: 'idle' };
  }

  /**
   * Hides the shared report and takes the link out of the address bar (the query, the app's state, stays); a
   * download in flight is aborted (this is the loading banner's Cancel too).
   */
  close(): void {
    this.seq++;
    this.abort?.abort();
    this.abort = null;
    this.view = { status: 'none' };
    this.saving = { status: 'idle' };
    if (isShareFragment(location.hash)) history.replaceState(null, '', `${location.pathname}${location.search}`);
  }
}
