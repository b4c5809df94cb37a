/**
 * Web pages → documents, for the Build tab (through the proxy of Settings) and `rag-lab build-index --urls` (directly)
 * alike: the URL list parsed (`web-urls.ts`), a search's result URLs after it (`web-search.ts`), the first
 * `maxPages` fetched a few at a time within the limits (`web-fetch.ts`), each body decoded as a text file is
 * (`decode.ts`: binary data refused) and HTML read as its visible text with its `<title>` (`html-text.ts`, the file
 * ingester's extractor). Each page is a document: id its URL, title its `<title>` (else its first `<h1>`, the
 * search's title, or the URL), meta `url` (where it was read, after same-host redirects), `site` and `format`. A page
 * that fails is skipped with its reason and the others are used; only no usable page at all fails the build.
 */
import type { MetaField } from '../data/kb-source.ts';
import type { OnBuildProgress, SkippedItem, SourceDocuments } from '../data/source-documents.ts';
import type { SourceDocument } from '../retrieval/document.ts';
import { firstMarkdownHeading } from '../data/text-folder.ts';
import { fetchPage, type FetchedPage, type PageFetchOptions } from '../data/web-fetch.ts';
import { searchWeb } from '../data/web-search.ts';
import { parseUrlList, validateWebRequest, WEB_LIMITS, WebSourceError, type WebLimits, type WebRequest } from '../data/web-urls.ts';
import { redactSecrets, redactUrlForDisplay } from '../util/redact.ts';
import { BINARY_REASON, decodeText } from './decode.ts';
import { htmlToText } from './html-text.ts';

export interface WebOptions {
  fetch?: typeof fetch;
  /** The proxy of Settings (tab); absent: pages fetched directly (CLI). The search endpoint is always called directly. */
  proxyUrl?: string | null;
  signal?: AbortSignal;
  /** Progress of stage `download`, per page (`item` = its URL). */
  onProgress?: OnBuildProgress;
  limits?: Partial<WebLimits>;
  onNotice?: (message: string) => void;
}

/** The metadata fields of web-page documents: the URL shown on every hit, the site a filter. */
export const WEB_FIELDS: readonly MetaField[] = [
  { name: 'url', label: 'URL', type: 'string', facet: false },
  { name: 'site', label: 'Site', type: 'string' },
  { name: 'format', label: 'Format', type: 'string' },
];

const EMPTY_PAGE = 'no text (the page has no visible text)';

/** A title from a URL when the page names none: host and path ("example.org/docs/intro"). */
export function urlTitle(url: string): string {
  const u = new URL(url);
  let path = u.pathname;
  try { path = decodeURIComponent(path); } catch { /* kept as it is */ }
  path = path.replace(/\/+$/, '');
  return `${u.host}${path}`.slice(0, 200);
}

/** A fetched page's document (`guessed`: not UTF-8, read as Windows-1252), or the reason it cannot be one. */
export function pageDocument(page: Extract<FetchedPage, { ok: true }>, searchTitle: string | null): { doc: SourceDocument; guessed: boolean } | { reason: string } {
  const decoded = decodeText(page.bytes);
  if (decoded.kind === 'binary') return { reason: BINARY_REASON };
  const raw = decoded.text;
  // No content type: markup at the start says HTML.
  const format = page.format ?? (/^\s*(<!doctype html|<html[\s>]|<head[\s>]|<body[\s>])/i.test(raw) ? 'html' : 'text');
  let text = raw, title: string | null = null;
  if (format === 'html') ({ text, title } = htmlToText(raw));
  else if (/markdown/i.test(page.contentType ?? '')) title = firstMarkdownHeading(raw);
  if (!text.trim()) return { reason: format === 'html' ? EMPTY_PAGE : 'empty page' };
  return {
    doc: {
      id: page.url,
      title: title ?? searchTitle ?? urlTitle(page.finalUrl),
      text,
      meta: { url: page.finalUrl, site: new URL(page.finalUrl).host, format },
    },
    guessed: decoded.guessed,
  };
}

/** Runs `work` over `items` with at most `n` at a time; results in the items' order. */
async function pool<T, R>(items: readonly T[], n: number, work: (item: T, i: number) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const lane = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await work(items[i]!, i);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(n, items.length)) }, lane));
  return out;
}

const plural = (n: number, one: string, many = `${one}s`) => `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`;

/** The pages of the request as documents (see the module comment); no usable page is a WebSourceError. */
export async function webDocuments(request: WebRequest, opts: WebOptions = {}): Promise<SourceDocuments> {
  const req = validateWebRequest(request);
  const limits: WebLimits = { ...WEB_LIMITS, ...opts.limits };
  const notes: string[] = [];
  const skipped: SkippedItem[] = [];
  const list = parseUrlList(req.urls);
  for (const p of list.problems) skipped.push({ path: `line ${p.line}: ${p.text}`, reason: p.reason });
  const titles = new Map<string, string | null>();
  const urls = [...list.urls];
  let duplicates = list.duplicates;
  if (req.search) {
    opts.onProgress?.({ stage: 'download', done: 0, total: 1, item: `search "${req.search.query}"` });
    const found = await searchWeb(req.search, {
      ...(opts.fetch ? { fetch: opts.fetch } : {}), ...(opts.signal ? { signal: opts.signal } : {}),
      ...(opts.onNotice ? { onNotice: opts.onNotice } : {}),
      inBrowser: !!opts.proxyUrl,
    });
    notes.push(...found.notes);
    const listed = new Set(urls);
    for (const h of found.hits) {
      if (listed.has(h.url)) { duplicates++; continue; }
      listed.add(h.url);
      urls.push(h.url);
      titles.set(h.url, h.title);
    }
  }
  if (duplicates > 0) notes.push(`${plural(duplicates, 'URL')} given more than once; each page was read once`);
  if (urls.length === 0) {
    throw new WebSourceError(`No page to read: ${skipped.length > 0 ? `none of the ${plural(skipped.length, 'line')} is an http(s) URL (${skipped[0]!.path}: ${skipped[0]!.reason})` : 'the list has no URL'}.`);
  }
  const taken = urls.slice(0, limits.maxPages);
  if (urls.length > taken.length) {
    notes.push(`the list has ${plural(urls.length, 'URL')}; a build reads at most ${limits.maxPages} pages, so the first ${limits.maxPages} were read and the other ${urls.length - taken.length} not fetched`);
  }

  let done = 0;
  const progress = (item?: string) => opts.onProgress?.({ stage: 'download', done, total: taken.length, ...(item ? { item } : {}) });
  progress(taken[0]);
  const fetchOpts: PageFetchOptions = {
    limits, ...(opts.fetch ? { fetch: opts.fetch } : {}), ...(opts.signal ? { signal: opts.signal } : {}),
    ...(opts.proxyUrl ? { proxyUrl: opts.proxyUrl } : {}),
  };
  const pages = await pool(taken, limits.concurrency, async (url) => {
    const page = await fetchPage(url, fetchOpts);
    done++;
    progress(url);
    return page;
  });
  opts.signal?.throwIfAborted();

  const docs: SourceDocument[] = [];
  const guessed: string[] = [];
  for (const [i, page] of pages.entries()) {
    opts.onProgress?.({ stage: 'extract', done: i, total: pages.length, item: page.url });
    if (!page.ok) { skipped.push({ path: redactUrlForDisplay(page.url, [], 300), reason: redactSecrets(page.reason) }); continue; }
    const got = pageDocument(page, titles.get(page.url) ?? null);
    if ('reason' in got) { skipped.push({ path: redactUrlForDisplay(page.url, [], 300), reason: got.reason }); continue; }
    if (got.guessed) guessed.push(redactUrlForDisplay(page.url, [], 300));
    docs.push(got.doc);
  }
  opts.onProgress?.({ stage: 'extract', done: pages.length, total: pages.length });
  if (guessed.length > 0) notes.push(`not UTF-8, read as Windows-1252: ${guessed.slice(0, 5).join(', ')}${guessed.length > 5 ? `, … and ${guessed.length - 5} more` : ''}`);
  if (docs.length === 0) {
    const first = skipped.slice(0, 3).map((s) => `${s.path}: ${s.reason}`).join('; ');
    throw new WebSourceError(`None of the ${plural(taken.length, 'page')} could be used (${first}${skipped.length > 3 ? '; …' : ''}).`);
  }
  return {
    docs, fields: [...WEB_FIELDS], pages: 0, skipped, notes,
    ...(req.search ? { examples: [{ query: req.search.query }] } : {}),
    origin: { kind: 'web', urls: taken.length, query: req.search?.query ?? null },
  };
}
