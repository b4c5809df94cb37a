/**
 * Long lists (a repo's index_config.json entries, report rows…) are never rendered whole: a case-insensitive
 * substring filter over each entry's text, then the first {@link LIST_CAP} matches, with a line that says how many
 * there are. Pure, so the rule is unit-tested and every list shows the same wording.
 */

/** Entries rendered at most. */
export const LIST_CAP = 200;
/** From this many entries a list gets its filter box. */
export const FILTER_FROM = 10;

export interface ListWindow<T> {
  shown: T[];
  /** Entries matching the filter (all of them for an empty filter). */
  matched: number;
  total: number;
}

/** The first `cap` entries whose `text` contains every word of `query` (case-insensitive; empty = all). */
export function listWindow<T>(items: readonly T[], query: string, text: (x: T) => string, cap = LIST_CAP): ListWindow<T> {
  const words = query.toLowerCase().split(/\s+/).filter(Boolean);
  if (words.length === 0) return { shown: items.slice(0, cap), matched: items.length, total: items.length };
  const shown: T[] = [];
  let matched = 0;
  for (const x of items) {
    const t = text(x).toLowerCase();
    if (!words.every((w) => t.includes(w))) continue;
    matched++;
    if (shown.length < cap) shown.push(x);
  }
  return { shown, matched, total: items.length };
}

/** A list another search already filtered (`items` of `total`, e.g. the Reports tab's Find): its first `cap`. */
export function cappedWindow<T>(items: readonly T[], total: number, cap = LIST_CAP): ListWindow<T> {
  return { shown: items.slice(0, cap), matched: items.length, total };
}

const n = (x: number) => x.toLocaleString('en-US');

/** "Showing 200 of 100,000 — type to filter", "3 of 100,000 match", or null when everything is shown. */
export function listWindowNote(w: ListWindow<unknown>, filtered: boolean): string | null {
  if (!filtered) return w.shown.length < w.total ? `Showing ${n(w.shown.length)} of ${n(w.total)} — type to filter.` : null;
  if (w.matched === 0) return `None of ${n(w.total)} match.`;
  return w.shown.length < w.matched
    ? `Showing ${n(w.shown.length)} of ${n(w.matched)} matches (of ${n(w.total)}) — type more to narrow.`
    : `${n(w.matched)} of ${n(w.total)} match.`;
}
