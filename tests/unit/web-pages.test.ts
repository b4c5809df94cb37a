/**
 * Web pages → documents (`webDocuments`) and a query → URLs (`searchWeb`), against a loopback site and a loopback
 * SearXNG: each page a document with its URL and <title>, plain text accepted, every failing page skipped with its
 * reason while the rest are used, more URLs than the limit, no usable page as one error; the search paged, merged
 * with the list and deduplicated, and a search endpoint that is down, answers HTML, malformed JSON, the wrong shape or
 * 403 as one message; no token in any request.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { searchWeb } from '../../src/lib/data/web-search.ts';
import { WebSourceError } from '../../src/lib/data/web-urls.ts';
import { webDocuments } from '../../src/lib/ingest/web-pages.ts';
import type { BuildProgress } from '../../src/lib/data/source-documents.ts';
import { startSearxng, startWebSite, type Searxng, type WebSite } from '../helpers/web-site-server.ts';

let site: WebSite;
let searx: Searxng;
const limits = { maxPageBytes: 100_000, pageTimeoutMs: 1500 };

beforeAll(async () => {
  site = await startWebSite({
    '/herons': { kind: 'page', body: '<!doctype html><html><head><title>Herons &amp; egrets</title><script>var x = "no";</script></head><body><h1>Herons</h1><p>Grey herons nest in colonies called heronries.</p></body></html>' },
    '/notes.txt': { kind: 'page', body: 'Plain notes about kingfishers.\n', type: 'text/plain; charset=utf-8' },
    '/readme': { kind: 'page', body: '# Owl guide\n\nBarn owls hunt at night.', type: 'text/markdown' },
    '/untyped': { kind: 'page', body: '<html><body><p>Untitled page about swifts.</p></body></html>', type: null },
    '/nul': { kind: 'page', body: new Uint8Array([60, 112, 62, 0, 1, 2, 3, 104, 105]) },
    '/image': { kind: 'page', body: 'GIF89a', type: 'image/gif' },
    '/empty': { kind: 'page', body: '<html><head><title>Nothing</title></head><body><script>1</script></body></html>' },
    '/latin1': { kind: 'page', body: new Uint8Array(Buffer.from('<title>Caf\u00e9</title><p>cr\u00e8me</p>', 'latin1')), type: 'text/html' },
  });
  searx = await startSearxng({
    birds: Array.from({ length: 25 }, (_, i) => ({ url: `${site.origin}/r${i}`, title: `Result ${i}` })),
    herons: [{ url: `${site.origin}/herons`, title: 'Search title' }, { url: `${site.origin}/untitled-by-page`, title: 'Titled by the search' }],
  });
  site.routes.set('/untitled-by-page', { kind: 'page', body: '<p>Egrets are herons too.</p>' });
});
afterAll(async () => { await searx?.close(); await site?.close(); });

describe('webDocuments', () => {
  test('each page a document: id and meta url its URL, title its <title> (else the first heading or the URL)', async () => {
    const urls = ['/herons', '/notes.txt', '/readme', '/untyped', '/missing'].map((p) => `${site.origin}${p}`).join('\n');
    const stages: string[] = [];
    const got = await webDocuments({ urls }, { limits, onProgress: (p: BuildProgress) => stages.push(p.stage) });
    const host = new URL(site.origin).host;
    expect(got.docs.map((d) => [d.id, d.title, d.meta])).toEqual([
      [`${site.origin}/herons`, 'Herons & egrets', { url: `${site.origin}/herons`, site: host, format: 'html' }],
      [`${site.origin}/notes.txt`, `${host}/notes.txt`, { url: `${site.origin}/notes.txt`, site: host, format: 'text' }],
      [`${site.origin}/readme`, 'Owl guide', { url: `${site.origin}/readme`, site: host, format: 'text' }],
      [`${site.origin}/untyped`, `${host}/untyped`, { url: `${site.origin}/untyped`, site: host, format: 'html' }],
    ]);
    expect(got.docs[0]!.text).toBe('Herons\n\nGrey herons nest in colonies called heronries.');
    expect(got.docs[1]!.text).toBe('Plain notes about kingfishers.\n');
    expect(got.skipped).toEqual([{ path: `${site.origin}/missing`, reason: 'HTTP 404 (not found)' }]);
    expect(got.fields.map((f) => f.name)).toEqual(['url', 'site', 'format']);
    expect(got.origin).toEqual({ kind: 'web', urls: 5, query: null });
    expect(new Set(stages)).toEqual(new Set(['download', 'extract']));
  });

  test('binary, image and empty pages skipped with their reasons; a Windows-1252 page read with a note', async () => {
    const urls = ['/nul', '/image', '/empty', '/latin1', 'ftp://x.example/'].map((p) => (p.startsWith('/') ? `${site.origin}${p}` : p)).join('\n');
    const got = await webDocuments({ urls }, { limits });
    expect(got.docs.map((d) => [d.title, d.text])).toEqual([['Café', 'crème']]);
    expect(got.skipped).toEqual([
      { path: 'line 5: ftp://x.example/', reason: 'not an http(s) URL (ftp:): only web pages are fetched' },
      { path: `${site.origin}/nul`, reason: 'binary data, not text' },
      { path: `${site.origin}/image`, reason: 'not an HTML or plain-text page (content type image/gif)' },
      { path: `${site.origin}/empty`, reason: 'no text (the page has no visible text)' },
    ]);
    expect(got.notes).toEqual([`not UTF-8, read as Windows-1252: ${site.origin}/latin1`]);
  });

  test('more URLs than the page limit: the first ones read, the rest counted in a note', async () => {
    const urls = [`${site.origin}/herons`, `${site.origin}/readme`, `${site.origin}/notes.txt`, `${site.origin}/untyped`].join('\n');
    const before = site.requests.length;
    const got = await webDocuments({ urls }, { limits: { ...limits, maxPages: 2 } });
    expect(site.requests.slice(before).map((r) => r.url).sort()).toEqual(['/herons', '/readme']);
    expect(got.docs.map((d) => d.id)).toEqual([`${site.origin}/herons`, `${site.origin}/readme`]);
    expect(got.notes).toContain('the list has 4 URLs; a build reads at most 2 pages, so the first 2 were read and the other 2 not fetched');
  });

  test('no usable page: one error naming the pages and why', async () => {
    const urls = `${site.origin}/missing\n${site.origin}/image`;
    await expect(webDocuments({ urls }, { limits })).rejects.toThrow(new WebSourceError(`None of the 2 pages could be used (${site.origin}/missing: HTTP 404 (not found); ${site.origin}/image: not an HTML or plain-text page (content type image/gif)).`));
    await expect(webDocuments({ urls: 'ftp://a/\nmailto:x@y' }, { limits })).rejects.toThrow(/^No page to read: none of the 2 lines is an http\(s\) URL \(line 1: ftp:\/\/a\/: not an http\(s\) URL/);
  });

  test('a search adds its URLs after the list (each once), titles the pages that have none, suggests its query', async () => {
    const got = await webDocuments({ urls: `${site.origin}/herons\n${site.origin}/readme`, search: { endpoint: searx.endpoint, query: 'herons', max: 10 } }, { limits });
    expect(got.docs.map((d) => [d.id, d.title])).toEqual([
      [`${site.origin}/herons`, 'Herons & egrets'],
      [`${site.origin}/readme`, 'Owl guide'],
      [`${site.origin}/untitled-by-page`, 'Titled by the search'],
    ]);
    expect(got.notes).toEqual(['the search found 2 of the 10 URLs asked for', '1 URL given more than once; each page was read once']);
    expect(got.examples).toEqual([{ query: 'herons' }]);
    expect(got.origin).toEqual({ kind: 'web', urls: 3, query: 'herons' });
  });

  test('no token, cookie or referrer reaches the site or the search endpoint', async () => {
    for (const r of [...site.requests, ...searx.requests]) {
      expect(r.headers.authorization).toBeUndefined();
      expect(r.headers.cookie).toBeUndefined();
      expect(r.headers.referer).toBeUndefined();
    }
  });
});

describe('searchWeb', () => {
  test('result pages read until enough URLs', async () => {
    searx.requests.length = 0;
    const got = await searchWeb({ endpoint: searx.endpoint, query: 'birds', max: 22 });
    expect(got.hits.map((h) => h.url)).toEqual(Array.from({ length: 22 }, (_, i) => `${site.origin}/r${i}`));
    expect(searx.requests.map((r) => new URL(r.url, 'http://x').searchParams.get('pageno'))).toEqual(['1', '2', '3']);
    expect(searx.requests[0]!.url).toBe('/search?q=birds&format=json&pageno=1');
    expect(got.notes).toEqual([]);
  });

  test('a faulty endpoint: one message naming it; a later page failing keeps what was found', async () => {
    const who = `the search endpoint (${new URL(searx.endpoint).host})`;
    const req = { endpoint: searx.endpoint, query: 'birds', max: 5 };
    searx.faults.push({ kind: 'status', status: 403 });
    await expect(searchWeb(req)).rejects.toThrow(`${who} answered HTTP 403 (text/html): is the json format enabled (search.formats: [html, json] in its settings.yml)?`);
    searx.faults.push({ kind: 'html' });
    await expect(searchWeb(req)).rejects.toThrow(`${who} did not answer with JSON (got text/html, HTTP 200): is it a SearXNG instance with the json format enabled?`);
    searx.faults.push({ kind: 'malformed' });
    await expect(searchWeb(req)).rejects.toThrow(`${who} did not answer with JSON (got application/json, HTTP 200)`);
    searx.faults.push({ kind: 'wrong-shape' });
    await expect(searchWeb(req)).rejects.toThrow(`${who} did not answer with SearXNG's JSON (expected`);
    await expect(searchWeb({ ...req, query: 'nothing at all' })).rejects.toThrow(`${who} found no pages for "nothing at all".`);
    await expect(searchWeb({ ...req, endpoint: 'http://127.0.0.1:1' })).rejects.toThrow(/^Could not reach the search endpoint \(127\.0\.0\.1:1\): no answer/);
  });

  test('an endpoint that never answers times out; from the tab, no answer mentions CORS', async () => {
    const never: typeof fetch = (_u, init) => new Promise((_ok, fail) => init!.signal!.addEventListener('abort', () => fail(init!.signal!.reason)));
    await expect(searchWeb({ endpoint: 'http://searx.test', query: 'q', max: 5 }, { fetch: never, timeoutMs: 100 })).rejects.toThrow('the search endpoint (searx.test) gave no answer within 0.1 s.');
    await expect(searchWeb({ endpoint: 'http://127.0.0.1:1', query: 'q', max: 5 }, { inBrowser: true })).rejects.toThrow('Could not reach the search endpoint (127.0.0.1:1): no answer, or one without CORS headers (SearXNG: add Access-Control-Allow-Origin under server.default_http_headers).');
  });

  test('a failure after the first result page keeps the URLs found, with a note', async () => {
    const req = { endpoint: searx.endpoint, query: 'birds', max: 15 };
    const real = globalThis.fetch;
    let calls = 0;
    const flaky: typeof fetch = async (input, init) => (++calls === 2 ? new Response('<html></html>', { headers: { 'Content-Type': 'text/html' } }) : real(input, init));
    const got = await searchWeb(req, { fetch: flaky });
    expect(got.hits).toHaveLength(10);
    expect(got.notes[0]).toMatch(/^the search stopped at result page 2 \(the search endpoint \(127\.0\.0\.1:\d+\) did not answer with JSON .*\); kept the 10 URLs found before$/);
  });
});
