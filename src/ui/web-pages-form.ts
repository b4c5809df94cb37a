/**
 * The rules of the Build tab's "From web pages" form (its state is `state/web-pages-form.svelte.ts`): what the URL
 * list holds as the user types (URLs, lines that are not page URLs, URLs past the page limit), and the form's fields
 * → the build's web request, checked (`validateWebRequest`), or the message that says what to fix.
 */
import { parseUrlList, urlListSizeProblem, validateWebRequest, WEB_LIMITS, type WebRequest } from '../lib/data/web-urls.ts';

/** The form's fields as the inputs hold them (a number input gives null when empty). */
export interface WebFormFields {
  urls: string;
  /** Search with the endpoint below too. */
  search: boolean;
  endpoint: string;
  query: string;
  max: number | null;
}

export const DEFAULT_SEARCH_RESULTS = 20;

/**
 * What the list holds, for the line under the textarea: "3 URLs", the first lines that are not URLs, the limit. A
 * list over the size limit (`urlListSizeProblem`, the CLI's) is refused before any line is read: `refused` says why.
 */
export function urlListSummary(text: string): { count: number; line: string; problems: string[]; refused: string | null } {
  const refused = urlListSizeProblem(text);
  if (refused) return { count: 0, line: 'List refused', problems: [], refused: `${refused[0]!.toUpperCase()}${refused.slice(1)}. Shorten it: only the first ${WEB_LIMITS.maxPages} URLs would be read.` };
  const list = parseUrlList(text);
  const n = list.urls.length;
  const parts = [`${n.toLocaleString('en-US')} URL${n === 1 ? '' : 's'}`];
  if (list.duplicates > 0) parts.push(`${list.duplicates} given twice (read once)`);
  if (n > WEB_LIMITS.maxPages) parts.push(`only the first ${WEB_LIMITS.maxPages} are read (the limit of a build)`);
  if (list.problems.length > 0) parts.push(`${list.problems.length} line${list.problems.length === 1 ? '' : 's'} skipped`);
  return { count: n, line: parts.join(' · '), problems: list.problems.slice(0, 5).map((p) => `line ${p.line}: ${p.text} — ${p.reason}`), refused: null };
}

/** The request the fields give, or the message that says what to fix. */
export function webRequestOf(f: WebFormFields): { request: WebRequest } | { error: string } {
  const search = f.search ? { endpoint: f.endpoint.trim(), query: f.query.trim(), max: f.max ?? Number.NaN } : undefined;
  try {
    return { request: validateWebRequest({ urls: f.urls, ...(search ? { search } : {}) }) };
  } catch (e) {
    return { error: (e as Error).message };
  }
}
