/**
 * The rules of the Build tab's "From web pages" form (its state is `state/web-pages-form.svelte.ts`): what the URL
 * list holds as the user types (URLs, lines that are not page URLs, URLs past the page limit), and the form's fields
 * → the build's web request, checked (`validateWebRequest`), or the message that says what to fix.
 */
import { MAX_URL_LIST_CHARS, parseUrlList, urlListSizeProblem, validateWebRequest, WEB_LIMITS, type WebRequest } from '../../lib/data/web-urls.ts';

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
  if (refused) return { count: 0, line: 'List refused', problems: [], refused: refusal(refused) };
  const list = parseUrlList(text);
  const n = list.urls.length;
  const parts = [`${n.toLocaleString('en-US')} URL${n === 1 ? '' : 's'}`];
  if (list.duplicates > 0) parts.push(`${list.duplicates} given twice (read once)`);
  if (n > WEB_LIMITS.maxPages) parts.push(`only the first ${WEB_LIMITS.maxPages} are read (the limit of a build)`);
  if (list.problems.length > 0) parts.push(`${list.problems.length} line${list.problems.length === 1 ? '' : 's'} skipped`);
  return { count: n, line: parts.join(' · '), problems: list.problems.slice(0, 5).map((p) => `line ${p.line}: ${p.text} — ${p.reason}`), refused: null };
}

const refusal = (problem: string) => `${problem[0]!.toUpperCase()}${problem.slice(1)}. Shorten it: only the first ${WEB_LIMITS.maxPages} URLs would be read.`;

/**
 * Why a paste of `pasted` over the selection `start`–`end` of `current` must be refused (the list would be over the
 * size limit), or null. Checked before the browser inserts the text: a 100,000-line paste never reaches the textarea.
 */
export function pasteProblem(current: string, pasted: string, start: number, end: number): string | null {
  if (pasted.length > MAX_URL_LIST_CHARS) return `The paste was refused: ${urlListSizeProblem(pasted)!.replace(/^the URL list is/, 'it is')}. Shorten it: only the first ${WEB_LIMITS.maxPages} URLs would be read.`;
  const problem = urlListSizeProblem(current.slice(0, start) + pasted + current.slice(end));
  return problem ? `The paste was refused: ${problem.replace(/^the URL list has/, 'the list would have').replace(/^the URL list is/, 'the list would be')}. Shorten it: only the first ${WEB_LIMITS.maxPages} URLs would be read.` : null;
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
