/**
 * Web pages as a knowledge-base source, the request side: the list of page URLs as the user gives it (a text file for
 * `rag-lab build-index --urls`, the Build tab's textarea: one URL a line, `#` comments), each URL checked (http(s)
 * only, no user name or password, the fragment dropped) and duplicates dropped; the optional search that adds URLs;
 * the limits of a web build; and the request checked. No fetching here, so the page's bundle can use it (the fetching
 * is `web-fetch.ts` and `web-search.ts`, in the build worker and the CLI).
 */
import * as v from 'valibot';
import { plainEndpointProblem } from './endpoint-url.ts';
import { redactUrlForDisplay } from '../util/redact.ts';

/** How much a web build reads (docs/build.md "From web pages"); the CLI and the tab use the same ones. */
export interface WebLimits {
  /** Pages fetched per build; URLs past it, in list order, are not fetched (a note counts them). */
  maxPages: number;
  /** Bytes of one page's body: a declared larger one is refused unread, an undeclared one cut there. */
  maxPageBytes: number;
  /** Redirects followed for one page, each to the same host only. */
  maxRedirects: number;
  /** Time for one page, from the request to its last byte, ms. */
  pageTimeoutMs: number;
  /** Pages fetched at the same time. */
  concurrency: number;
}

/** 200 pages, 5 MB a page (decimal, as file sizes are shown), 5 redirects, 20 s a page, 4 at a time. */
export const WEB_LIMITS: Readonly<WebLimits> = Object.freeze({
  maxPages: 200,
  maxPageBytes: 5_000_000,
  maxRedirects: 5,
  pageTimeoutMs: 20_000,
  concurrency: 4,
});

/** Characters of a URL list (the textarea, the `--urls` file): 1 MB holds far more URLs than a build reads. */
export const MAX_URL_LIST_CHARS = 1_000_000;
/** Lines of a URL list: 50 times the pages a build reads, few enough that checking each line is instant. */
export const MAX_URL_LIST_LINES = 10_000;
/** Characters of one URL. */
const MAX_URL_CHARS = 4096;

/** A search that turns a query into page URLs: a SearXNG instance's JSON API (`web-search.ts`). */
export interface WebSearchRequest {
  /** The instance's address (`https://searx.example`); `/search` is added unless it ends with it. */
  endpoint: string;
  query: string;
  /** Result URLs wanted (1–{@link WEB_LIMITS}.maxPages). */
  max: number;
}

/** What a web build reads: the URL list (its text, one URL a line) and, optionally, a search's result URLs after it. */
export interface WebRequest {
  urls: string;
  search?: WebSearchRequest;
}

/** A failure with a message for the user (a bad request, a search endpoint that failed, no usable page). */
export class WebSourceError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WebSourceError';
  }
}

/** A line of the list that is not a page URL, and why (listed with the skipped pages). */
export interface UrlProblem {
  line: number;
  text: string;
  reason: string;
}

export interface UrlList {
  /** The page URLs, normalised (`URL.href` without the fragment), in list order, each once. */
  urls: string[];
  problems: UrlProblem[];
  /** URLs given again (after normalising), dropped. */
  duplicates: number;
}

/**
 * Why `raw` cannot be fetched as a page, or its normalised form (`URL.href`, the fragment dropped: the server never
 * sees it, and two fragments of one page are one page).
 */
export function pageUrl(raw: string): { url: string } | { problem: string } {
  if (raw.length > MAX_URL_CHARS) return { problem: `longer than ${MAX_URL_CHARS} characters` };
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    return { problem: 'not a URL (give it with http:// or https://)' };
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return { problem: `not an http(s) URL (${u.protocol}): only web pages are fetched` };
  if (u.username || u.password) return { problem: 'has a user name or password in it: nothing secret is sent with a page request' };
  u.hash = '';
  return { url: u.href };
}

/**
 * The URL list's text → page URLs (see the module comment): blank lines and lines starting with `#` are skipped, and
 * ` # …` after a URL is a comment (a URL holds no space). A line that is not a page URL is a problem naming its line.
 */
export function parseUrlList(text: string): UrlList {
  const urls: string[] = [];
  const problems: UrlProblem[] = [];
  const seen = new Set<string>();
  let duplicates = 0;
  const lines = text.split(/\r\n|\r|\n/);
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.replace(/^\uFEFF/, '').replace(/\s+#.*$/, '').trim();
    if (line === '' || line.startsWith('#')) continue;
    const got = /\s/.test(line) ? { problem: 'not a URL (one URL a line; a URL holds no space)' } : pageUrl(line);
    if ('problem' in got) { problems.push({ line: i + 1, text: redactUrlForDisplay(line, [], 200), reason: got.problem }); continue; }
    if (seen.has(got.url)) { duplicates++; continue; }
    seen.add(got.url);
    urls.push(got.url);
  }
  return { urls, problems, duplicates };
}

/**
 * Why `text` is too large to be a URL list, or null: its length first, then its lines counted up to
 * {@link MAX_URL_LIST_LINES} (never split), so a pasted list of 100,000 URLs is refused before any line is checked.
 * The tab's form and every build (the CLI's `--urls` too, through `validateWebRequest`) use it.
 */
export function urlListSizeProblem(text: string): string | null {
  const why = `a build reads at most ${WEB_LIMITS.maxPages} pages`;
  if (text.length > MAX_URL_LIST_CHARS) return `the URL list is longer than ${MAX_URL_LIST_CHARS.toLocaleString('en-US')} characters (${text.length.toLocaleString('en-US')}): ${why}`;
  let lines = 1;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) {
    if (++lines > MAX_URL_LIST_LINES) return `the URL list has more than ${MAX_URL_LIST_LINES.toLocaleString('en-US')} lines: ${why}`;
  }
  return null;
}

/**
 * Why `url` cannot be the search endpoint, or null: an http(s) URL with no user name or password (no secret goes to
 * it) and no query or fragment (the search's parameters are added).
 */
export function searchEndpointProblem(url: string): string | null {
  return plainEndpointProblem(url, { example: 'http://localhost:8888', to: 'it', params: 'the search parameters (?q=…&format=json) are added to it' });
}

const SearchSchema = v.object({
  endpoint: v.pipe(v.string('the search endpoint must be a URL'), v.trim(), v.minLength(1, 'the search endpoint is empty: give the address of a SearXNG instance'),
    v.check((s) => searchEndpointProblem(s) === null, (i) => `the search endpoint ${searchEndpointProblem(String(i.input))}`)),
  query: v.pipe(v.string('the search query must be text'), v.trim(), v.minLength(1, 'the search query is empty'), v.maxLength(500, 'the search query is longer than 500 characters')),
  max: v.pipe(v.number('the number of search results must be a number'), v.integer('the number of search results must be a whole number'),
    v.minValue(1, 'ask the search for at least 1 result'), v.maxValue(WEB_LIMITS.maxPages, `a build reads at most ${WEB_LIMITS.maxPages} pages: ask the search for ${WEB_LIMITS.maxPages} results or fewer`)),
});

const RequestSchema = v.object({
  urls: v.pipe(v.string('the URL list must be text'), v.check((s) => urlListSizeProblem(s) === null, (i) => urlListSizeProblem(String(i.input))!)),
  search: v.optional(SearchSchema),
});

/** The request checked (the search's fields trimmed), or a WebSourceError naming what to fix. */
export function validateWebRequest(req: unknown): WebRequest {
  const r = v.safeParse(RequestSchema, req);
  if (!r.success) throw new WebSourceError(`Web pages: ${r.issues[0]!.message}.`);
  const out = r.output as WebRequest;
  if (!out.search && !/^[ \t]*[^\s#]/m.test(out.urls)) {
    throw new WebSourceError('Web pages: no URL given: list the pages, one URL a line, or give a search.');
  }
  return out;
}
