/**
 * One web page fetched within the limits of a web build (`WEB_LIMITS`, web-urls.ts): the body read bounded (a declared
 * Content-Length over the limit refused unread, an undeclared body cut there), the whole fetch under a timeout (a page
 * that never ends stops at the byte cap or the timeout, whichever comes first), redirects followed to the same host
 * only and at most `maxRedirects` of them, a content type that is not HTML or plain text refused before its body is
 * read. Every failure is a reason in words for that page; only a cancel throws.
 *
 * In the CLI the page is fetched directly. In the tab most sites send no CORS headers, so it goes through the proxy
 * the user set in Settings (the one arXiv uses): requested as `<proxy>?url=<the page URL, encoded>`, the proxy follows
 * redirects itself and names where it ended in `X-Final-URL` (exposed to the page), as cors-anywhere does; a final
 * URL on another host is refused like a redirect. Requests carry no credential, cookie, referrer or token.
 */
import { readBounded } from '../hub/bounded-read.ts';
import { DownloadLimitError } from '../hub/download-limits.ts';
import { hostOf, isNetworkError } from '../hub/hub-reach.ts';
import { formatBytes } from '../util/format-bytes.ts';
import { WEB_LIMITS, type WebLimits } from './web-urls.ts';

/** What a page's body is read as: HTML (→ its visible text) or plain text (Markdown included). */
export type PageFormat = 'html' | 'text';

export type FetchedPage =
  | { ok: true; url: string; finalUrl: string; format: PageFormat | null; contentType: string | null; bytes: Uint8Array }
  | { ok: false; url: string; reason: string };

export interface PageFetchOptions {
  fetch?: typeof fetch;
  /** The proxy of Settings (tab); absent or null: fetched directly (CLI). */
  proxyUrl?: string | null;
  signal?: AbortSignal;
  limits?: Partial<WebLimits>;
}

const HTML_TYPES = new Set(['text/html', 'application/xhtml+xml']);
const TEXT_TYPES = new Set(['text/plain', 'text/markdown', 'text/x-markdown']);
const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const ACCEPT = 'text/html, application/xhtml+xml, text/plain;q=0.9, text/markdown;q=0.9';

/** The page's request URL through the proxy: `<proxy>?url=<encoded URL>`. */
export function proxiedUrl(proxy: string, url: string): string {
  const u = new URL(proxy);
  u.searchParams.set('url', url);
  return u.toString();
}

/**
 * A content type's format, or why it is refused: HTML types → html, plain text and Markdown → text, none → null
 * (the bytes decide), anything else (PDF, images, archives, JSON, …) refused.
 */
export function formatOfType(contentType: string | null): { format: PageFormat | null } | { problem: string } {
  const type = contentType?.split(';')[0]!.trim().toLowerCase() ?? '';
  if (type === '') return { format: null };
  if (HTML_TYPES.has(type)) return { format: 'html' };
  if (TEXT_TYPES.has(type)) return { format: 'text' };
  return { problem: `not an HTML or plain-text page (content type ${type})` };
}

/** "HTTP 404 (not found)" for the usual failures; the status alone for others. */
export function statusReason(status: number): string {
  const words: Record<number, string> = {
    400: 'bad request', 401: 'needs a login', 403: 'forbidden', 404: 'not found', 410: 'gone', 429: 'too many requests',
    500: 'server error', 502: 'bad gateway', 503: 'unavailable', 504: 'gateway timeout',
  };
  return `HTTP ${status}${words[status] ? ` (${words[status]})` : ''}`;
}

/**
 * Why the redirect from `from` to `to` is not followed, or null when it is: only to an http(s) URL on the same host
 * name (another port or an http → https upgrade is fine; https → http is not).
 */
export function redirectProblem(from: URL, to: URL): string | null {
  if (to.protocol !== 'http:' && to.protocol !== 'https:') return `redirected to a URL that is not http(s) (${to.protocol}); not followed`;
  if (to.hostname !== from.hostname) return `redirected to another host (${to.host}); not followed: list that URL itself if you want it`;
  if (from.protocol === 'https:' && to.protocol === 'http:') return 'redirected from https to http; not followed';
  return null;
}

class PageFailure extends Error {}

/** The URL a redirect's Location points to (resolved against the page; a proxied Location unwrapped). */
function locationOf(location: string, current: string, proxy: string | null): URL {
  const to = new URL(location, current);
  if (proxy && to.href.startsWith(new URL(proxy).href) && to.searchParams.has('url')) return new URL(to.searchParams.get('url')!);
  return to;
}

/** One request of the page, redirects followed by hand (see the module comment); the response to read. */
async function follow(url: string, opts: PageFetchOptions, limits: WebLimits, signal: AbortSignal): Promise<{ res: Response; finalUrl: string }> {
  const fetcher = opts.fetch ?? globalThis.fetch.bind(globalThis);
  const proxy = opts.proxyUrl ?? null;
  let current = url;
  for (let hop = 0; ; hop++) {
    const target = proxy ? proxiedUrl(proxy, current) : current;
    // A plain GET: no credentials, no cookies, no referrer; Accept is a CORS-safelisted header (no preflight).
    const res = await fetcher(target, { signal, redirect: 'manual', credentials: 'omit', referrerPolicy: 'no-referrer', headers: { Accept: ACCEPT } });
    if (res.type === 'opaqueredirect') {
      throw new PageFailure(`the proxy (${hostOf(proxy ?? target)}) answered with a redirect, which a page cannot read: the proxy must follow redirects itself (and name the final URL in X-Final-URL)`);
    }
    if (REDIRECTS.has(res.status)) {
      await res.body?.cancel().catch(() => {});
      const location = res.headers.get('location');
      if (!location) throw new PageFailure(`${statusReason(res.status)}: a redirect without a Location`);
      let to: URL;
      try {
        to = locationOf(location, current, proxy);
      } catch {
        throw new PageFailure(`redirected to something that is not a URL (${location.slice(0, 100)})`);
      }
      const problem = redirectProblem(new URL(current), to);
      if (problem) throw new PageFailure(problem);
      if (hop >= limits.maxRedirects) throw new PageFailure(`more than ${limits.maxRedirects} redirects; not followed further`);
      current = to.href;
      continue;
    }
    let finalUrl = current;
    const named = proxy ? res.headers.get('x-final-url') : null;
    if (named) {
      let to: URL;
      try {
        to = new URL(named);
      } catch {
        throw new PageFailure(`the proxy named a final URL that is not a URL (${named.slice(0, 100)})`);
      }
      const problem = redirectProblem(new URL(url), to);
      if (problem) { await res.body?.cancel().catch(() => {}); throw new PageFailure(problem); }
      to.hash = '';
      finalUrl = to.href;
    }
    return { res, finalUrl };
  }
}

/** Fetches `url` (already checked by `pageUrl`) within the limits; a failure is `{ ok: false, reason }`. */
export async function fetchPage(url: string, opts: PageFetchOptions = {}): Promise<FetchedPage> {
  const limits: WebLimits = { ...WEB_LIMITS, ...opts.limits };
  const ctrl = new AbortController();
  const onAbort = () => ctrl.abort(opts.signal?.reason);
  if (opts.signal?.aborted) throw opts.signal.reason;
  opts.signal?.addEventListener('abort', onAbort, { once: true });
  let timedOut = false;
  const timer = setTimeout(() => { timedOut = true; ctrl.abort(new DOMException('timed out', 'TimeoutError')); }, limits.pageTimeoutMs);
  try {
    const { res, finalUrl } = await follow(url, opts, limits, ctrl.signal);
    if (!res.ok) {
      await res.body?.cancel().catch(() => {});
      return { ok: false, url, reason: `${statusReason(res.status)}${opts.proxyUrl ? ` (through the proxy ${hostOf(opts.proxyUrl)})` : ''}` };
    }
    const contentType = res.headers.get('content-type');
    const kind = formatOfType(contentType);
    if ('problem' in kind) {
      await res.body?.cancel().catch(() => {});
      return { ok: false, url, reason: kind.problem };
    }
    const bytes = await readBounded(res, { file: url, limit: limits.maxPageBytes, signal: ctrl.signal });
    return { ok: true, url, finalUrl, format: kind.format, contentType, bytes };
  } catch (e) {
    if (opts.signal?.aborted) throw opts.signal.reason;
    if (timedOut) return { ok: false, url, reason: `no complete answer within ${limits.pageTimeoutMs / 1000} s (timed out)` };
    if (e instanceof PageFailure) return { ok: false, url, reason: e.message };
    if (e instanceof DownloadLimitError) {
      const seen = 'declared' in e.seen ? `declared ${formatBytes(e.seen.declared)}` : `more than ${formatBytes(limits.maxPageBytes)}`;
      return { ok: false, url, reason: `too large: ${seen}, the limit for one page is ${formatBytes(limits.maxPageBytes)}` };
    }
    if (isNetworkError(e)) {
      return {
        ok: false, url, reason: opts.proxyUrl
          ? `no answer through the proxy ${hostOf(opts.proxyUrl)} (is it running, and does it add Access-Control-Allow-Origin?)`
          : `could not reach ${hostOf(url)} (no answer: offline, a wrong host name or a refused connection)`,
      };
    }
    return { ok: false, url, reason: `could not be read (${e instanceof Error ? e.message : String(e)})` };
  } finally {
    clearTimeout(timer);
    opts.signal?.removeEventListener('abort', onAbort);
  }
}
