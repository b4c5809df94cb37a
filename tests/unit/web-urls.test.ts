/**
 * The request side of the web-page source: the URL list (comments, blank lines, non-http(s) URLs, credentials,
 * fragments, duplicates), the request check, the SearXNG URL and its JSON answer validated, the redirect and
 * content-type rules, and the Build form's rules (what the list holds, the request, the suggested title, the origin).
 */
import { describe, expect, test } from 'vitest';
import { formatOfType, proxiedUrl, redirectProblem, statusReason } from '../../src/lib/data/web-fetch.ts';
import { parseSearxngResponse, searxngUrl } from '../../src/lib/data/web-search.ts';
import { pageUrl, parseUrlList, searchEndpointProblem, validateWebRequest, WEB_LIMITS } from '../../src/lib/data/web-urls.ts';
import { originText, stagesFor, titleForSource } from '../../src/ui/build/build-view.ts';
import { pasteProblem, urlListSummary, webRequestOf } from '../../src/ui/build/web-pages-form.ts';

describe('the URL list', () => {
  test('one URL a line: comments, blank lines and trailing comments skipped; fragments dropped; duplicates once', () => {
    const list = parseUrlList([
      '\uFEFF# my pages',
      'https://example.org/a',
      '',
      '   http://example.org/b?x=1#section   # the second page',
      'https://example.org/a#other',
      'HTTPS://EXAMPLE.ORG/c',
    ].join('\r\n'));
    expect(list.urls).toEqual(['https://example.org/a', 'http://example.org/b?x=1', 'https://example.org/c']);
    expect(list.duplicates).toBe(1);
    expect(list.problems).toEqual([]);
  });

  test('a line that is not a page URL is a problem naming its line; the others are kept', () => {
    const list = parseUrlList('ftp://files.example.org/x\njavascript:alert(1)\nexample.org/page\nhttps://user:pw@example.org/\nhttps://a.example/ two\nhttps://ok.example/');
    expect(list.urls).toEqual(['https://ok.example/']);
    expect(list.problems.map((p) => [p.line, p.reason])).toEqual([
      [1, 'not an http(s) URL (ftp:): only web pages are fetched'],
      [2, 'not an http(s) URL (javascript:): only web pages are fetched'],
      [3, 'not a URL (give it with http:// or https://)'],
      [4, 'has a user name or password in it: nothing secret is sent with a page request'],
      [5, 'not a URL (one URL a line; a URL holds no space)'],
    ]);
    expect(pageUrl(`https://example.org/${'a'.repeat(5000)}`)).toEqual({ problem: 'longer than 4096 characters' });
  });

  test('the request: a list or a search; the search fields checked', () => {
    expect(validateWebRequest({ urls: 'https://example.org/' })).toEqual({ urls: 'https://example.org/' });
    expect(() => validateWebRequest({ urls: '# nothing here\n\n' })).toThrow(/no URL given/);
    expect(() => validateWebRequest({ urls: 'x'.repeat(1_000_001) })).toThrow(/longer than 1,000,000 characters/);
    const search = { endpoint: ' http://127.0.0.1:8888 ', query: ' herons ', max: 20 };
    expect(validateWebRequest({ urls: '', search })).toEqual({ urls: '', search: { endpoint: 'http://127.0.0.1:8888', query: 'herons', max: 20 } });
    expect(() => validateWebRequest({ urls: '', search: { ...search, max: 201 } })).toThrow(/at most 200 pages/);
    expect(() => validateWebRequest({ urls: '', search: { ...search, query: ' ' } })).toThrow(/search query is empty/);
    expect(() => validateWebRequest({ urls: '', search: { ...search, endpoint: 'file:///etc' } })).toThrow(/search endpoint must be an http\(s\) URL/);
    expect(searchEndpointProblem('https://u:p@searx.example')).toMatch(/user name or password/);
    expect(searchEndpointProblem('https://searx.example/?token=x')).toMatch(/no query|must not have a query/);
    expect(searchEndpointProblem('http://localhost:8888')).toBeNull();
  });
});

describe('the SearXNG answer', () => {
  test('the URL: /search added once, q, format=json and the page', () => {
    expect(searxngUrl('http://127.0.0.1:8888', 'heron nests', 2)).toBe('http://127.0.0.1:8888/search?q=heron+nests&format=json&pageno=2');
    expect(searxngUrl('https://searx.example/base/', 'x', 1)).toBe('https://searx.example/base/search?q=x&format=json&pageno=1');
    expect(searxngUrl('https://searx.example/search', 'x', 1)).toBe('https://searx.example/search?q=x&format=json&pageno=1');
  });

  test('results[].url and title validated; a result without an http(s) URL dropped, not an error', () => {
    const got = parseSearxngResponse({
      query: 'q', results: [
        { url: 'https://a.example/x#frag', title: '  A   page ', engine: 'e' },
        { url: 'https://b.example/', title: null },
        { url: 'magnet:?xt=urn:btih:abc', title: 'torrent' },
        { title: 'no url' },
        'junk',
      ],
    });
    expect(got).toEqual({ hits: [{ url: 'https://a.example/x', title: 'A page' }, { url: 'https://b.example/', title: null }], dropped: 3 });
    expect(() => parseSearxngResponse({ results: 'none' })).toThrow(/did not answer with SearXNG's JSON \(expected/);
    expect(() => parseSearxngResponse([1, 2])).toThrow(/SearXNG's JSON/);
  });
});

describe('the fetch rules', () => {
  const u = (s: string) => new URL(s);
  test('redirects: same host name only (another port, http → https fine), never https → http or off http(s)', () => {
    expect(redirectProblem(u('http://example.org/a'), u('https://example.org/b'))).toBeNull();
    expect(redirectProblem(u('http://example.org:8080/a'), u('http://example.org/b'))).toBeNull();
    expect(redirectProblem(u('https://example.org/a'), u('https://www.example.org/a'))).toBe('redirected to another host (www.example.org); not followed: list that URL itself if you want it');
    expect(redirectProblem(u('https://example.org/a'), u('http://example.org/a'))).toBe('redirected from https to http; not followed');
    expect(redirectProblem(u('https://example.org/a'), u('ftp://example.org/a'))).toMatch(/not http\(s\) \(ftp:\)/);
  });

  test('content types: HTML and plain text read, none sniffed, the rest refused', () => {
    expect(formatOfType('text/html; charset=utf-8')).toEqual({ format: 'html' });
    expect(formatOfType('application/xhtml+xml')).toEqual({ format: 'html' });
    expect(formatOfType('text/plain')).toEqual({ format: 'text' });
    expect(formatOfType('text/markdown')).toEqual({ format: 'text' });
    expect(formatOfType(null)).toEqual({ format: null });
    expect(formatOfType('application/pdf')).toEqual({ problem: 'not an HTML or plain-text page (content type application/pdf)' });
    expect(formatOfType('IMAGE/PNG')).toEqual({ problem: 'not an HTML or plain-text page (content type image/png)' });
  });

  test('statuses in words; the proxied URL', () => {
    expect(statusReason(404)).toBe('HTTP 404 (not found)');
    expect(statusReason(500)).toBe('HTTP 500 (server error)');
    expect(statusReason(418)).toBe('HTTP 418');
    expect(proxiedUrl('https://proxy.example/p', 'https://example.org/a?b=1&c=2')).toBe('https://proxy.example/p?url=https%3A%2F%2Fexample.org%2Fa%3Fb%3D1%26c%3D2');
  });
});

describe('the Build tab form', () => {
  test('what the list holds while typing', () => {
    expect(urlListSummary('https://a.example/\nhttps://a.example/\nftp://x/').line).toBe('1 URL · 1 given twice (read once) · 1 line skipped');
    expect(urlListSummary('ftp://x/').problems).toEqual(['line 1: ftp://x/ — not an http(s) URL (ftp:): only web pages are fetched']);
    const many = Array.from({ length: WEB_LIMITS.maxPages + 5 }, (_, i) => `https://a.example/${i}`).join('\n');
    expect(urlListSummary(many).line).toBe('205 URLs · only the first 200 are read (the limit of a build)');
  });

  test('a paste of 100,000 URLs is refused at once, with the limit the CLI uses, before any line is checked', () => {
    const pasted = Array.from({ length: 100_000 }, (_, i) => `https://example.org/page/${i}`).join('\n');
    const s = urlListSummary(pasted);
    expect(s).toEqual({ count: 0, line: 'List refused', problems: [], refused: expect.stringMatching(/^The URL list is longer than 1,000,000 characters \(3,\d{3},\d{3}\): a build reads at most 200 pages\. Shorten it/) });
    expect(webRequestOf({ urls: pasted, search: false, endpoint: '', query: '', max: 20 })).toEqual({ error: expect.stringMatching(/^Web pages: the URL list is longer than 1,000,000 characters/) });
    // Short lines under the character limit: refused by their number (the tab and every build, the CLI's --urls too),
    // none of them read (100,000 lines that are not URLs list no problem).
    const short = Array.from({ length: 100_000 }, () => 'x').join('\n');
    expect(urlListSummary(short)).toEqual({ count: 0, line: 'List refused', problems: [], refused: 'The URL list has more than 10,000 lines: a build reads at most 200 pages. Shorten it: only the first 200 URLs would be read.' });
    expect(() => validateWebRequest({ urls: short })).toThrow('Web pages: the URL list has more than 10,000 lines: a build reads at most 200 pages.');
    expect(urlListSummary(Array.from({ length: 10_000 }, (_, i) => `https://a.example/${i}`).join('\n')).refused).toBeNull();
    // A paste is checked before the browser inserts it: alone, or with what the list already holds.
    expect(pasteProblem('', pasted, 0, 0)).toMatch(/^The paste was refused: it is longer than 1,000,000 characters \(3,\d{3},\d{3}\): a build reads at most 200 pages\. Shorten it/);
    const half = Array.from({ length: 6_000 }, (_, i) => `https://a.example/${i}`).join('\n');
    expect(pasteProblem(half, `\n${half}`, half.length, half.length)).toBe('The paste was refused: the list would have more than 10,000 lines: a build reads at most 200 pages. Shorten it: only the first 200 URLs would be read.');
    expect(pasteProblem(half, half, 0, half.length)).toBeNull();
    expect(pasteProblem('', 'https://a.example/', 0, 0)).toBeNull();
  });

  test('a password in a listed URL is masked in the problem line, as ask --base-url masks it', () => {
    const s = urlListSummary('http://u:hunter2pw@127.0.0.1/docs\nhttps://a.example/?token=hunter2tok x');
    expect(s.problems).toEqual([
      'line 1: http://[redacted]@127.0.0.1/docs — has a user name or password in it: nothing secret is sent with a page request',
      'line 2: https://a.example/?token=[redacted] x — not a URL (one URL a line; a URL holds no space)',
    ]);
  });

  test('the fields → the request, or what to fix', () => {
    const fields = { urls: 'https://a.example/', search: false, endpoint: '', query: '', max: 20 };
    expect(webRequestOf(fields)).toEqual({ request: { urls: 'https://a.example/' } });
    expect(webRequestOf({ ...fields, search: true, endpoint: 'http://localhost:8888', query: 'q', max: null })).toEqual({ error: 'Web pages: the number of search results must be a number.' });
    expect(webRequestOf({ ...fields, urls: '' })).toEqual({ error: 'Web pages: no URL given: list the pages, one URL a line, or give a search.' });
  });

  test('title, stages and origin of a web build', () => {
    expect(titleForSource({ kind: 'web', request: { urls: '# list\n  https://docs.example.org/a\nhttps://b.example/' } })).toBe('Web pages: docs.example.org');
    expect(titleForSource({ kind: 'web', request: { urls: 'https://a.example/', search: { query: ' heron   nests ' } } })).toBe('Web: heron nests');
    expect(titleForSource({ kind: 'web', request: { urls: '' } })).toBe('');
    expect(stagesFor('web', false)).toEqual(['download', 'extract', 'chunk', 'index', 'calibrate', 'save']);
    expect(originText({ kind: 'web', urls: 3, query: null })).toBe('web pages: 3 URLs fetched');
    expect(originText({ kind: 'web', urls: 1, query: 'herons' })).toBe('web pages: 1 URL fetched (with the search “herons”)');
  });
});
