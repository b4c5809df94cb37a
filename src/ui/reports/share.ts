/**
 * What "Copy share link" gives and where links point. A link is this page (no query: the app's state is not part
 * of a shared report) with the fragment: the report's summary inline when it fits the budget (share-summary.ts),
 * else the full report at its Hub commit when Hub sync has it (`locate`), else why there is no link. Inside a
 * Space (an iframe on *.hf.space) the parent page's URL is what people copy, and only the parent can change it:
 * it is told the fragment by postMessage, to huggingface.co only.
 */
import { HUB_ORIGIN } from '../../lib/hub/endpoint.ts';
import type { Report } from '../../lib/reports/format.ts';
import { formatReportRef, type ReportRef } from '../../lib/reports/share-link.ts';
import { shareSummary } from '../../lib/reports/share-summary.ts';

export const SPACE_PARENT_ORIGIN = HUB_ORIGIN;

/** Where Hub sync has a report, or null (not pushed yet). */
export type LocateReport = (id: string) => ReportRef | null;

export type ShareChoice =
  | { kind: 'inline'; fragment: string; url: string; chars: number; rows: number; of: number; hubUrl: string | null }
  | { kind: 'hub'; fragment: string; url: string; ref: ReportRef; summaryChars: number }
  | { kind: 'none'; message: string };

export function shareUrl(fragment: string, loc: Pick<Location, 'origin' | 'pathname'>): string {
  return `${loc.origin}${loc.pathname}#${fragment}`;
}

const kb = (chars: number) => `${(chars / 1024).toFixed(1)} KB`;

/**
 * The link for `report`: inline when its summary fits `budget`, with the Hub link beside it when synced; the Hub
 * link alone when the summary does not fit; otherwise a message that says what to do (`locate` absent: Hub sync
 * is off).
 */
export async function chooseShareLink(report: Report, loc: Pick<Location, 'origin' | 'pathname'>, locate?: LocateReport, budget?: number): Promise<ShareChoice> {
  const s = await shareSummary(report, budget === undefined ? {} : { budget });
  const ref = locate?.(report.id) ?? null;
  const refFragment = ref ? formatReportRef(ref) : null;
  if (s.ok) {
    return {
      kind: 'inline', fragment: s.fragment, url: shareUrl(s.fragment, loc), chars: s.chars, rows: s.report.rows.length,
      of: s.report.truncated?.rows ?? s.report.rows.length, hubUrl: refFragment ? shareUrl(refFragment, loc) : null,
    };
  }
  if (ref && refFragment) return { kind: 'hub', fragment: refFragment, url: shareUrl(refFragment, loc), ref, summaryChars: s.chars };
  return {
    kind: 'none',
    message: locate
      ? `The report is too large for a link (${kb(s.chars)}) and is not on the Hub yet: wait for Hub sync to push it (or press Refresh in the Reports tab), then copy the link again.`
      : `The report is too large for a link (${kb(s.chars)}): turn on Hub sync in the Reports tab to share a link to the full report.`,
  };
}

/** A line about a link made, for the user. */
export function shareNote(c: Exclude<ShareChoice, { kind: 'none' }>): string {
  if (c.kind === 'hub') return `Too large for a summary link (${kb(c.summaryChars)}): a link to the full report in ${c.ref.repo} at commit ${c.ref.commit.slice(0, 7)} (the reader needs access to the repo).`;
  const rows = c.rows < c.of ? `${c.rows} of ${c.of} rows` : `${c.rows} rows`;
  return `A summary of the report in the link: ${c.chars.toLocaleString('en')} characters (${kb(c.chars)}), the summary figures, config and ${rows}.`;
}

/** Whether this page runs as a Space's app (an iframe on *.hf.space). */
export function inSpace(win: Pick<Window, 'parent' | 'location'>): boolean {
  return win.parent !== win && /\.hf\.space$/i.test(win.location.hostname);
}

/** On HF Spaces, asks the Space page to carry `hash` in its URL (https://huggingface.co/docs/hub/spaces-handle-url-parameters). */
export function tellSpaceParent(hash: string, win: Pick<Window, 'parent' | 'location'>): boolean {
  if (!inSpace(win)) return false;
  win.parent.postMessage({ hash }, SPACE_PARENT_ORIGIN);
  return true;
}
