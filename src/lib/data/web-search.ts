/**
 * A query → page URLs, through a search endpoint the user runs: a SearXNG instance with its JSON format enabled
 * (`search.formats: [html, json]` in its settings.yml). Requested as `<endpoint>/search?q=…&format=json&pageno=N`,
 * result page after result page until enough URLs or a page with nothing new; the answer is validated (valibot:
 * `results[].url`, `results[].title`) and bounded in size. Requests are plain GETs with no credential, cookie,
 * referrer or token. A failure (no answer, an HTTP error, not SearXNG's JSON) is one {@link WebSourceError} naming
 * the endpoint's host; a later result page that fails keeps the URLs found before, with a note.
 */
import * as v from 'valibot';
import { readBoundedText } from '../hub/bounded-read.ts';
import { DownloadLimitError } from '../hub/download-limits.ts';
import { hostOf, isNetworkError } from '../hub/hub-reach.ts';
import { pageUrl, WebSourceError, type WebSearchRequest } from './web-urls.ts';

/** Result pages asked for at most (SearXNG gives about 10–30 results a page). */
export const MAX_SEARCH_PAGES = 20;
/** Bytes of one result page's JSON. */
const MAX_SEARCH_BYTES = 2_000_000;
/** Time for one result page, ms (SearXNG waits for its engines, a few seconds). */
const SEARCH_TIMEOUT_MS = 30_000;

export interface SearchHit {
  url: string;
  title: string | null;
}

export interface SearchOptions {
  fetch?: typeof fetch;
  signal?: AbortSignal;
  timeoutMs?: number;
  /** Called from a browser tab: a missing answer may be missing CORS headers (the message says so). */
  inBrowser?: boolean;
  /** Said between result pages ("search: page 2, 14 URLs so far"), for a log. */
  onNotice?: (message: string) => void;
}

const ResultSchema = v.object({
  url: v.string(),
  title: v.optional(v.nullable(v.string())),
});
const ResponseSchema = v.object({ results: v.array(v.unknown()) }, 'an object with a "results" list');

/** The URL of one result page: the endpoint (with `/search` added unless it ends with it) and the parameters. */
export function searxngUrl(endpoint: string, query: string, page: number): string {
  const u = new URL(endpoint);
  if (!/\/search\/?$/.test(u.pathname)) u.pathname = `${u.pathname.replace(/\/+$/, '')}/search`;
  u.searchParams.set('q', query);
  u.searchParams.set('format', 'json');
  u.searchParams.set('pageno', String(page));
  return u.toString();
}

/**
 * One result page's JSON → its hits, or a WebSourceError naming what is wrong. A result without a usable http(s)
 * URL is counted in `dropped` (SearXNG lists other kinds too), not an error.
 */
export function parseSearxngResponse(json: unknown, who = 'the search endpoint'): { hits: SearchHit[]; dropped: number } {
  const top = v.safeParse(ResponseSchema, json);
  if (!top.success) throw new WebSourceError(`${who} did not answer with SearXNG's JSON (expected ${top.issues[0]!.message}).`);
  const hits: SearchHit[] = [];
  let dropped = 0;
  for (const r of top.output.results) {
    const got = v.safeParse(ResultSchema, r);
    const url = got.success ? pageUrl(got.output.url) : null;
    if (!got.success || !url || 'problem' in url) { dropped++; continue; }
    const title = got.output.title?.replace(/\s+/g, ' ').trim();
    hits.push({ url: url.url, title: title || null });
  }
  return { hits, dropped };
}

const abortError = (signal: AbortSignal) => signal.reason ?? new DOMException('The search was cancelled.', 'AbortError');

/** One result page, parsed; throws a WebSourceError for anything but SearXNG's JSON. */
async function resultPage(req: WebSearchRequest, page: number, opts: SearchOptions, who: string): Promise<{ hits: SearchHit[]; dropped: number }> {
  const fetcher = opts.fetch ?? globalThis.fetch.bind(globalThis);
  const timeoutMs = opts.timeoutMs ?? SEARCH_TIMEOUT_MS;
  const ctrl = new AbortController();
  const onAbort = () => ctrl.abort(opts.signal?.reason);
  opts.signal?.addEventListener('abort', onAbort, { once: true });
  let timedOut = false;
  const timer = setTimeout(() => { timedOut = true; ctrl.abort(new DOMException('timed out', 'TimeoutError')); }, timeoutMs);
  try {
    // A plain GET: no credentials, no cookies, no referrer, no custom header (no CORS preflight either).
    const res = await fetcher(searxngUrl(req.endpoint, req.query, page), { signal: ctrl.signal, credentials: 'omit', referrerPolicy: 'no-referrer', headers: { Accept: 'application/json' } });
    const body = await readBoundedText(res, { file: `${who}'s answer`, limit: MAX_SEARCH_BYTES, signal: ctrl.signal });
    const type = (res.headers.get('content-type') ?? 'no content type').split(';')[0]!.trim();
    if (!res.ok) {
      const hint = res.status === 403 ? ': is the json format enabled (search.formats: [html, json] in its settings.yml)?' : '';
      throw new WebSourceError(`${who} answered HTTP ${res.status} (${type})${hint}`);
    }
    let json: unknown;
    try {
      json = JSON.parse(body);
    } catch {
      throw new WebSourceError(`${who} did not answer with JSON (got ${type}, HTTP ${res.status}): is it a SearXNG instance with the json format enabled?`);
    }
    return parseSearxngResponse(json, who);
  } catch (e) {
    if (opts.signal?.aborted) throw abortError(opts.signal);
    if (timedOut) throw new WebSourceError(`${who} gave no answer within ${timeoutMs / 1000} s.`);
    if (e instanceof DownloadLimitError) throw new WebSourceError(`${who} answered with more than ${MAX_SEARCH_BYTES / 1e6} MB of JSON.`);
    if (isNetworkError(e)) {
      const cors = opts.inBrowser ? ', or one without CORS headers (SearXNG: add Access-Control-Allow-Origin under server.default_http_headers)' : ' (is SearXNG running there?)';
      throw new WebSourceError(`Could not reach ${who}: no answer${cors}.`);
    }
    throw e;
  } finally {
    clearTimeout(timer);
    opts.signal?.removeEventListener('abort', onAbort);
  }
}

/**
 * Up to `req.max` result URLs for the query, in the endpoint's order, each once (see the module comment). No result
 * at all is an error; a failure after some results keeps them, with a note.
 */
export async function searchWeb(req: WebSearchRequest, opts: SearchOptions = {}): Promise<{ hits: SearchHit[]; notes: string[] }> {
  const who = `the search endpoint (${hostOf(req.endpoint)})`;
  const hits: SearchHit[] = [];
  const seen = new Set<string>();
  const notes: string[] = [];
  let dropped = 0;
  for (let page = 1; page <= MAX_SEARCH_PAGES && hits.length < req.max; page++) {
    let got;
    try {
      got = await resultPage(req, page, opts, who);
    } catch (e) {
      if (!(e instanceof WebSourceError) || hits.length === 0) throw e;
      notes.push(`the search stopped at result page ${page} (${e.message.replace(/\.$/, '')}); kept the ${hits.length} URLs found before`);
      break;
    }
    dropped += got.dropped;
    let fresh = 0;
    for (const h of got.hits) {
      if (seen.has(h.url) || hits.length >= req.max) continue;
      seen.add(h.url);
      hits.push(h);
      fresh++;
    }
    if (fresh === 0) break;
    if (hits.length < req.max) opts.onNotice?.(`search: result page ${page}, ${hits.length} URLs so far`);
  }
  if (dropped > 0) notes.push(`the search gave ${dropped} results without an http(s) URL; left out`);
  if (hits.length === 0) throw new WebSourceError(`${who} found no pages for "${req.query}".`);
  if (hits.length < req.max) notes.push(`the search found ${hits.length} of the ${req.max} URLs asked for`);
  return { hits, notes };
}
