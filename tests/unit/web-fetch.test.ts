/**
 * One web page fetched within the limits (`fetchPage`), against a loopback site: redirects (same host followed, at
 * most N; another host, https → http refused), a binary content type refused unread, a huge page (declared: refused
 * before reading; undeclared: cut at the byte cap), a page that never ends (timeout; an endless stream stops at the
 * cap), 404 / 500, no answer; and through a proxy: the final URL it names checked, a redirect it passes back refused.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { fetchPage } from '../../src/lib/data/web-fetch.ts';
import { startWebProxy, startWebSite, type WebProxy, type WebSite } from '../helpers/web-site-server.ts';

let site: WebSite;
let proxy: WebProxy;
const limits = { maxPageBytes: 100_000, pageTimeoutMs: 1500, maxRedirects: 2 };

beforeAll(async () => {
  site = await startWebSite({
    '/a': { kind: 'page', body: '<title>A</title><p>alpha</p>' },
    '/to-a': { kind: 'redirect', to: '/a' },
    '/chain1': { kind: 'redirect', to: '/chain2', status: 301 },
    '/chain2': { kind: 'redirect', to: '/chain3', status: 307 },
    '/chain3': { kind: 'redirect', to: '/a', status: 308 },
    '/away': { kind: 'redirect', to: 'http://localhost:1/elsewhere' },
    '/no-location': { kind: 'page', body: '', status: 302 },
    '/pdf': { kind: 'huge', size: 50_000_000, declare: false, type: 'application/pdf' },
    '/huge-declared': { kind: 'huge', size: 6_000_000, declare: true },
    '/huge': { kind: 'huge', size: 6_000_000, declare: false },
    '/hang': { kind: 'hang' },
    '/endless': { kind: 'endless' },
    '/missing-page': { kind: 'page', body: 'gone', status: 404 },
    '/broken': { kind: 'page', body: 'oops', status: 500 },
  });
  proxy = await startWebProxy();
});
afterAll(async () => { await proxy?.close(); await site?.close(); });

const reason = async (path: string, o: Parameters<typeof fetchPage>[1] = {}) => {
  const got = await fetchPage(`${site.origin}${path}`, { limits, ...o });
  if (got.ok) throw new Error(`${path} was read`);
  return got.reason;
};

describe('fetchPage, direct', () => {
  test('a page: its bytes, format, final URL; no credential, cookie or referrer sent', async () => {
    const got = await fetchPage(`${site.origin}/a`, { limits });
    expect(got).toMatchObject({ ok: true, url: `${site.origin}/a`, finalUrl: `${site.origin}/a`, format: 'html' });
    if (got.ok) expect(new TextDecoder().decode(got.bytes)).toBe('<title>A</title><p>alpha</p>');
    const req = site.requests.find((r) => r.url === '/a')!;
    expect(req.headers.authorization).toBeUndefined();
    expect(req.headers.cookie).toBeUndefined();
    expect(req.headers.referer).toBeUndefined();
  });

  test('same-host redirects followed up to the limit; more, another host or no Location refused', async () => {
    expect(await fetchPage(`${site.origin}/to-a`, { limits })).toMatchObject({ ok: true, url: `${site.origin}/to-a`, finalUrl: `${site.origin}/a` });
    expect(await reason('/chain1')).toBe('more than 2 redirects; not followed further');
    expect(await fetchPage(`${site.origin}/chain1`, { limits: { ...limits, maxRedirects: 3 } })).toMatchObject({ ok: true, finalUrl: `${site.origin}/a` });
    const before = site.requests.length;
    expect(await reason('/away')).toBe('redirected to another host (localhost:1); not followed: list that URL itself if you want it');
    expect(site.requests.length).toBe(before + 1); // nothing fetched past the refusal
    expect(await reason('/no-location')).toBe('HTTP 302: a redirect without a Location');
  });

  test('a binary content type is refused before its body is read', async () => {
    expect(await reason('/pdf')).toBe('not an HTML or plain-text page (content type application/pdf)');
  });

  test('a huge page: a declared size refused unread, an undeclared body cut at the byte cap', async () => {
    expect(await reason('/huge-declared')).toBe('too large: declared 6.0 MB, the limit for one page is 100 kB');
    expect(await reason('/huge')).toBe('too large: more than 100 kB, the limit for one page is 100 kB');
    expect(await reason('/endless')).toBe('too large: more than 100 kB, the limit for one page is 100 kB');
  });

  test('a page that never ends times out; the timeout covers the body', async () => {
    const t0 = Date.now();
    expect(await reason('/hang', { limits: { ...limits, pageTimeoutMs: 300 } })).toBe('no complete answer within 0.3 s (timed out)');
    expect(Date.now() - t0).toBeLessThan(5000);
  });

  test('HTTP errors in words; no answer names the host', async () => {
    expect(await reason('/missing-page')).toBe('HTTP 404 (not found)');
    expect(await reason('/broken')).toBe('HTTP 500 (server error)');
    expect(await reason('/nothing-here')).toBe('HTTP 404 (not found)');
    const closed = await fetchPage('http://127.0.0.1:1/x', { limits });
    expect(closed).toEqual({ ok: false, url: 'http://127.0.0.1:1/x', reason: 'could not reach 127.0.0.1:1 (no answer: offline, a wrong host name or a refused connection)' });
  });

  test('a cancel throws (it is not a page failure)', async () => {
    const ctrl = new AbortController();
    const got = fetchPage(`${site.origin}/hang`, { limits, signal: ctrl.signal });
    setTimeout(() => ctrl.abort(new DOMException('cancelled', 'AbortError')), 50);
    await expect(got).rejects.toThrow(/cancelled/);
  });
});

describe('fetchPage, through a proxy', () => {
  test('the page through <proxy>?url=; the redirect the proxy followed on the same host is fine', async () => {
    const got = await fetchPage(`${site.origin}/to-a`, { limits, proxyUrl: proxy.url });
    expect(got).toMatchObject({ ok: true, url: `${site.origin}/to-a`, finalUrl: `${site.origin}/a`, format: 'html' });
    expect(proxy.requests.at(-1)!.url).toBe(`/proxy?url=${encodeURIComponent(`${site.origin}/to-a`)}`);
  });

  test('a final URL on another host (X-Final-URL) is refused; HTTP errors say they came through the proxy', async () => {
    const host = site.origin.replace('127.0.0.1', 'localhost');
    site.routes.set('/away-proxied', { kind: 'redirect', to: `${host}/a` });
    expect(await reason('/away-proxied', { proxyUrl: proxy.url })).toBe(`redirected to another host (${new URL(host).host}); not followed: list that URL itself if you want it`);
    expect(await reason('/missing-page', { proxyUrl: proxy.url })).toBe(`HTTP 404 (not found) (through the proxy ${new URL(proxy.url).host})`);
  });

  test('a redirect the page cannot read (a proxy that passes redirects back) is refused with what the proxy must do', async () => {
    const opaque = Object.assign(new Response(null, { status: 200 }), {}) as Response;
    Object.defineProperty(opaque, 'type', { value: 'opaqueredirect' });
    const got = await fetchPage('https://example.org/x', { limits, proxyUrl: 'https://proxy.example/p', fetch: async () => opaque });
    expect(got).toEqual({ ok: false, url: 'https://example.org/x', reason: 'the proxy (proxy.example) answered with a redirect, which a page cannot read: the proxy must follow redirects itself (and name the final URL in X-Final-URL)' });
  });

  test('a proxy that does not answer (or without CORS headers, in a browser)', async () => {
    const got = await fetchPage('https://example.org/x', { limits, proxyUrl: 'http://127.0.0.1:1/p' });
    expect(got).toMatchObject({ ok: false, reason: 'no answer through the proxy 127.0.0.1:1 (is it running, and does it add Access-Control-Allow-Origin?)' });
  });
});
