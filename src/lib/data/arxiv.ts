/**
 * arXiv as a knowledge-base source: a query (title / abstract / category terms) → titles and abstracts, with arXiv ids
 * and links as metadata, through the arXiv API's Atom feed (paged, its error feeds and empty pages handled). arXiv
 * sends no CORS headers, so the tab calls it through a proxy URL the user set (Settings) and the CLI calls it
 * directly; both honour one request every 3 seconds, one at a time (../shared/notes/hub-and-formats.md §4).
 *
 * The proxy convention: the proxy URL replaces `https://export.arxiv.org/api/query`, so a page is requested as
 * `<proxy>?search_query=…&start=…&max_results=…&sortBy=…&sortOrder=…`; the proxy forwards that query string to arXiv
 * and returns arXiv's answer with `Access-Control-Allow-Origin`. Requests carry no credential, cookie or token.
 */
import { parseRetryAfter, sleep } from '../wait.ts';
import { redactUrlForDisplay } from '../util/redact.ts';
import type { BuildProgress, OnBuildProgress, SkippedItem, SourceDocuments } from './source-documents.ts';
import type { SourceDocument } from '../retrieval/document.ts';
import type { MetaField } from './kb-source.ts';
import { readBoundedText } from '../hub/bounded-read.ts';
import { hostOf, isNetworkError } from '../hub/hub-reach.ts';
import { NotAFeedError, parseArxivFeed, type ArxivEntry, type ArxivFeed } from './arxiv-atom.ts';
import { ARXIV_HOSTS, ARXIV_MAX_RESULTS, ARXIV_PAGE_SIZE, ArxivError, arxivPageUrl, arxivSearchQuery, validateArxivRequest, type ArxivRequest } from './arxiv-query.ts';

export { ARXIV_API, ARXIV_MAX_RESULTS, ARXIV_PAGE_SIZE, ArxivError, arxivPageUrl, arxivProxyProblem, arxivSearchQuery, validateArxivRequest } from './arxiv-query.ts';
export type { ArxivRequest } from './arxiv-query.ts';

/** arXiv's rule: no more than one request every 3 seconds (https://info.arxiv.org/help/api/tou.html). */
export const ARXIV_MIN_INTERVAL_MS = 3000;
/** Authors kept in a document's `authors` field before "et al.". */
const AUTHORS_SHOWN = 3;
/** Tries of one page when arXiv (or the proxy) answers 429 or 5xx. */
const TRIES = 4;
/** The longest wait for one retry, whatever Retry-After says. */
const MAX_RETRY_WAIT_MS = 60_000;

/** Time for the rate rule; tests pass a fake one (no 3-second waits, the scheduled delays recorded). */
export interface ArxivClock {
  now(): number;
  /** Resolves after `ms`, rejects with the signal's reason when it aborts. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

export interface ArxivOptions {
  /** The API endpoint, or the proxy URL that forwards to it. */
  endpoint: string;
  fetch?: typeof fetch;
  /** Least time between two requests, ms (arXiv's rule: 3,000). */
  minIntervalMs?: number;
  signal?: AbortSignal;
  onProgress?: OnBuildProgress;
  /** Results per request (default 100, at most 2,000). */
  pageSize?: number;
  clock?: ArxivClock;
  /** Waits and retries as they happen ("arXiv answered 503; trying again in 3 s"), for a log. */
  onNotice?: (message: string) => void;
}

/** The metadata fields of an arXiv knowledge base (ids and links are shown, not filtered on). */
export const ARXIV_FIELDS: readonly MetaField[] = [
  { name: 'year', label: 'Year', type: 'number' },
  { name: 'category', label: 'Category', type: 'string' },
  { name: 'authors', label: 'Authors', type: 'string', facet: false },
  { name: 'arxiv_id', label: 'arXiv id', type: 'string', facet: false },
  { name: 'version', label: 'Version', type: 'number', facet: false },
  { name: 'published', label: 'Published', type: 'string', facet: false },
  { name: 'url', label: 'Abstract page', type: 'string', facet: false },
  { name: 'pdf', label: 'PDF', type: 'string', facet: false },
];

/** The real clock: `setTimeout`, cancelled by the signal (the project's one `sleep`). */
export const realClock: ArxivClock = { now: () => Date.now(), sleep };

/** "2021-01-04T18:59:59Z" → 2021; null when unreadable. */
const yearOf = (iso: string | null) => (iso && /^\d{4}-/.test(iso) ? Number(iso.slice(0, 4)) : null);

/** The first authors, then "et al." (`AUTHORS_SHOWN`). */
function authorsLine(authors: readonly string[]): string {
  const shown = authors.slice(0, AUTHORS_SHOWN).join(', ');
  return authors.length > AUTHORS_SHOWN ? `${shown} et al.` : shown;
}

/** A feed entry as a document: id the versionless arXiv id, text the abstract (titles are indexed with the text). */
export function arxivDocument(e: ArxivEntry): SourceDocument {
  const meta: Record<string, string | number> = { arxiv_id: e.id, url: e.absUrl };
  const year = yearOf(e.published);
  if (year !== null) meta.year = year;
  if (e.primaryCategory ?? e.categories[0]) meta.category = (e.primaryCategory ?? e.categories[0])!;
  if (e.authors.length) meta.authors = authorsLine(e.authors);
  if (e.version !== null) meta.version = e.version;
  if (e.published) meta.published = e.published.slice(0, 10);
  if (e.pdfUrl) meta.pdf = e.pdfUrl;
  return { id: e.id, title: e.title, text: e.summary, meta };
}

const abortError = (signal: AbortSignal) => signal.reason ?? new DOMException('The arXiv download was cancelled.', 'AbortError');

/** The page reader: one request at a time, at least `interval` ms after the previous answer, retried on 429/5xx. */
class PageReader {
  private lastAt: number | null = null;
  readonly who: string;
  constructor(private readonly req: ArxivRequest, private readonly opts: ArxivOptions, private readonly clock: ArxivClock,
    private readonly interval: number) {
    this.who = onArxiv(opts.endpoint) ? 'arXiv' : `the arXiv proxy (${hostOf(opts.endpoint)})`;
  }

  /** Waits until the interval since the previous request has passed (or `atLeast` ms, for a retry). */
  private async pace(atLeast = 0): Promise<void> {
    const since = this.lastAt === null ? Infinity : this.clock.now() - this.lastAt;
    const wait = Math.max(atLeast, this.lastAt === null ? 0 : this.interval - since);
    if (wait > 0) await this.clock.sleep(wait, this.opts.signal);
    if (this.opts.signal?.aborted) throw abortError(this.opts.signal);
  }

  /** One page, parsed; throws ArxivError for an error feed, a non-feed answer or a failure after the retries. */
  async page(start: number, size: number): Promise<ArxivFeed> {
    const url = arxivPageUrl(this.opts.endpoint, this.req, start, size);
    const fetcher = this.opts.fetch ?? globalThis.fetch.bind(globalThis);
    let retryWait = 0;
    for (let attempt = 1; ; attempt++) {
      await this.pace(retryWait);
      let res: Response;
      try {
        // A plain GET: no credentials, no cookies, no referrer, no custom header (no CORS preflight either).
        res = await fetcher(url, { signal: this.opts.signal, credentials: 'omit', referrerPolicy: 'no-referrer', headers: { Accept: 'application/atom+xml' } });
      } catch (e) {
        this.lastAt = this.clock.now();
        if (this.opts.signal?.aborted) throw abortError(this.opts.signal);
        if (isNetworkError(e)) {
          throw new ArxivError(`Could not reach ${this.who}: no answer${onArxiv(this.opts.endpoint) ? '' : ', or one without CORS headers (is the proxy running, and does it add Access-Control-Allow-Origin?)'}.`);
        }
        throw e;
      }
      const body = await readBoundedText(res, { file: `${this.who}'s answer`, kind: 'viewer-page' });
      this.lastAt = this.clock.now();
      if ((res.status === 429 || res.status >= 500) && attempt < TRIES) {
        const after = parseRetryAfter(res.headers, this.clock.now());
        retryWait = Math.min(MAX_RETRY_WAIT_MS, Math.max(this.interval, after ?? this.interval * 2 ** (attempt - 1)));
        this.opts.onNotice?.(`${this.who} answered HTTP ${res.status} at start=${start}; trying again in ${Math.round(retryWait / 1000)} s (try ${attempt + 1} of ${TRIES})`);
        continue;
      }
      return this.read(res, body, start);
    }
  }

  private read(res: Response, body: string, start: number): ArxivFeed {
    const type = (res.headers.get('content-type') ?? 'no content type').split(';')[0]!.trim();
    let feed: ArxivFeed | null = null;
    try {
      if (!/html/i.test(type)) feed = parseArxivFeed(body);
    } catch (e) {
      if (!(e instanceof NotAFeedError)) throw e;
    }
    if (feed?.error != null) throw new ArxivError(`arXiv refused the query: ${feed.error} (HTTP ${res.status}; search_query=${arxivSearchQuery(this.req.query)}).`, res.status);
    const title = /<title[^>]*>([^<]{1,120})/i.exec(body)?.[1]?.trim();
    const what = `${type}, HTTP ${res.status}${title ? `: "${title}"` : ''}`;
    if (!res.ok) {
      const retried = res.status === 429 || res.status >= 500 ? ` after ${TRIES} tries` : '';
      throw new ArxivError(`${this.who} answered HTTP ${res.status}${retried} at start=${start}${feed ? '' : ` (${what})`}.`, res.status);
    }
    if (!feed) throw new ArxivError(`${this.who} did not return an arXiv feed (got ${what}) at start=${start}.`, res.status);
    return feed;
  }
}

const canParse = (url: string) => { try { new URL(url); return true; } catch { return false; } };
const isEmpty = (f: ArxivFeed) => f.entries.length === 0 && f.bad.length === 0;
const onArxiv = (endpoint: string) => ARXIV_HOSTS.test(new URL(endpoint).hostname);

/**
 * Reads up to `req.max` papers for the query, page after page (`pageSize`), one request at a time and at least
 * `minIntervalMs` apart. `opensearch:totalResults` says when to stop. An empty page before the total is read is
 * asked again once, then the results read so far are kept with a note; duplicate ids across pages are dropped;
 * 429 / 5xx answers are retried (Retry-After respected); an error feed fails with arXiv's message.
 */
export async function arxivDocuments(req: ArxivRequest, opts: ArxivOptions): Promise<SourceDocuments> {
  const request = validateArxivRequest(req);
  if (!/^https?:\/\//i.test(opts.endpoint) || !canParse(opts.endpoint)) throw new ArxivError(`The arXiv endpoint "${redactUrlForDisplay(opts.endpoint)}" is not an http(s) URL.`);
  const clock = opts.clock ?? realClock;
  const interval = Math.max(0, opts.minIntervalMs ?? ARXIV_MIN_INTERVAL_MS);
  const pageSize = Math.max(1, Math.min(ARXIV_MAX_RESULTS, Math.floor(opts.pageSize ?? ARXIV_PAGE_SIZE)));
  const reader = new PageReader(request, opts, clock, interval);
  const docs: SourceDocument[] = [];
  const seen = new Set<string>();
  const skipped: SkippedItem[] = [];
  const notes: string[] = [];
  let duplicates = 0;
  let total = null as number | null;
  let read = 0;
  const target = () => Math.min(request.max, total ?? request.max);
  const progress = (item: string) => opts.onProgress?.({ stage: 'download', done: Math.min(read, target()), total: target(), item } satisfies BuildProgress);

  let start = 0;
  while (start < target()) {
    const size = Math.min(pageSize, target() - start);
    progress(`start=${start}`);
    // An empty page's total is not trusted over a known one (arXiv's flaky empty pages say totalResults 0).
    const count = (f: ArxivFeed) => { if (f.total !== null && (total === null || !isEmpty(f))) total = f.total; };
    let feed = await reader.page(start, size);
    count(feed);
    if (isEmpty(feed) && (start === 0 || start < target())) {
      // arXiv sometimes answers an empty page for a query that has results: ask once more.
      opts.onNotice?.(`arXiv returned an empty page at start=${start}; asking again`);
      feed = await reader.page(start, size);
      count(feed);
    }
    if (isEmpty(feed)) {
      if (read === 0) {
        throw new ArxivError(total === 0
          ? `arXiv found no papers for "${request.query}" (search_query=${arxivSearchQuery(request.query)}): try other words or fields (ti:, abs:, cat:).`
          : `arXiv returned an empty page at start=${start} twice and no results: try again in a while.`);
      }
      if (start < target()) notes.push(`arXiv returned an empty page at start=${start}; kept the ${docs.length} results read`);
      break;
    }
    read += feed.entries.length + feed.bad.length;
    for (const b of feed.bad) skipped.push({ path: `arXiv ${b.id}`, reason: b.reason });
    for (const e of feed.entries) {
      if (seen.has(e.id)) { duplicates++; continue; }
      if (docs.length >= request.max) break;
      seen.add(e.id);
      docs.push(arxivDocument(e));
    }
    start += feed.entries.length + feed.bad.length;
    progress(`start=${start}`);
  }
  if (duplicates > 0) notes.push(`dropped ${duplicates} duplicate ${duplicates === 1 ? 'entry' : 'entries'} (the same arXiv id on more than one page)`);
  if (total !== null && total > request.max) notes.push(`arXiv has ${total.toLocaleString('en-US')} results for the query; read the first ${request.max.toLocaleString('en-US')}`);
  if (docs.length === 0) throw new ArxivError(`arXiv gave no usable papers for "${request.query}"${skipped.length ? ` (${skipped.length} entries could not be read: ${skipped[0]!.reason})` : ''}.`);
  return {
    docs,
    fields: [...ARXIV_FIELDS],
    pages: 0,
    skipped,
    notes,
    // Plain words make a good first query of the knowledge base; arXiv syntax does not.
    ...(arxivSearchQuery(request.query) !== request.query ? { examples: [{ query: request.query }] } : {}),
    origin: { kind: 'arxiv', query: request.query, max: request.max },
  };
}
