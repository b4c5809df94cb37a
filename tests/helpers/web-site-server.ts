/**
 * Loopback servers for the web-page source: a small web site (`startWebSite`: pages by path, and the faults a real
 * site has — redirects to the same or another host, binary bodies, a huge page with or without Content-Length, a page
 * that never ends, 404 / 500), which like most sites sends NO CORS headers; the CORS proxy the tab needs
 * (`startWebProxy`: `<proxy>?url=<page>`, redirects followed by the proxy, at most 5, the final URL in X-Final-URL,
 * as cors-anywhere does); and a SearXNG imitation (`startSearxng`: `/search?q=…&format=json&pageno=N`, with CORS,
 * and scripted faults). Each records every request (URL and headers), so tests can check nothing secret reached it.
 */
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import { listenLocal } from './listen.ts';

export type Route =
  | { kind: 'page'; body: string | Uint8Array; type?: string | null; status?: number }
  | { kind: 'redirect'; to: string; status?: number }
  /** `size` bytes of `x` in chunks; `declare`: with a Content-Length. */
  | { kind: 'huge'; size: number; declare: boolean; type?: string }
  /** Headers and a first chunk, then nothing more: the connection stays open. */
  | { kind: 'hang'; type?: string }
  /** Bytes as fast as the reader takes them, forever. */
  | { kind: 'endless'; type?: string };

export interface Recorded { url: string; headers: IncomingHttpHeaders }

export interface WebSite {
  origin: string;
  routes: Map<string, Route>;
  requests: Recorded[];
  close(): Promise<void>;
}

const CHUNK = Buffer.alloc(64 * 1024, 'x');

function serve(res: ServerResponse, route: Route | undefined, origin: string): void {
  if (!route) { res.writeHead(404, { 'Content-Type': 'text/html' }).end('<title>Not found</title><p>No such page.</p>'); return; }
  switch (route.kind) {
    case 'page': {
      const headers: Record<string, string> = {};
      if (route.type !== null) headers['Content-Type'] = route.type ?? 'text/html; charset=utf-8';
      res.writeHead(route.status ?? 200, headers).end(route.body);
      return;
    }
    case 'redirect':
      res.writeHead(route.status ?? 302, { Location: route.to.startsWith('/') ? `${origin}${route.to}` : route.to }).end();
      return;
    case 'huge': {
      res.writeHead(200, { 'Content-Type': route.type ?? 'text/html', ...(route.declare ? { 'Content-Length': String(route.size) } : {}) });
      let left = route.size;
      const push = () => {
        while (left > 0) {
          const n = Math.min(left, CHUNK.length);
          left -= n;
          if (!res.write(CHUNK.subarray(0, n))) { res.once('drain', push); return; }
        }
        res.end();
      };
      res.on('error', () => {});
      push();
      return;
    }
    case 'hang':
      res.writeHead(200, { 'Content-Type': route.type ?? 'text/html' });
      res.write('<html><title>Slow</title><p>and then nothing');
      return;
    case 'endless': {
      res.writeHead(200, { 'Content-Type': route.type ?? 'text/plain' });
      res.on('error', () => {});
      const push = () => { while (!res.destroyed && res.write(CHUNK)); if (!res.destroyed) res.once('drain', push); };
      push();
      return;
    }
  }
}

/** The site at `http://127.0.0.1:<port>`, its pages at `routes` (paths with their query strings). */
export async function startWebSite(routes: Record<string, Route>): Promise<WebSite> {
  const requests: Recorded[] = [];
  const map = new Map(Object.entries(routes));
  let origin = '';
  const server = createServer((req, res) => {
    requests.push({ url: req.url ?? '', headers: req.headers });
    serve(res, map.get(req.url ?? '/'), origin);
  });
  const l = await listenLocal(server);
  origin = l.origin;
  return { origin, routes: map, requests, close: l.close };
}

const CORS = { 'Access-Control-Allow-Origin': '*', 'Access-Control-Expose-Headers': 'X-Final-URL' };

export interface WebProxy {
  /** `http://127.0.0.1:<port>/proxy`: the URL to set in Settings. */
  url: string;
  requests: Recorded[];
  close(): Promise<void>;
}

/** A CORS proxy for pages: `?url=<page>` fetched (redirects followed here, at most 5), streamed back with CORS. */
export async function startWebProxy(): Promise<WebProxy> {
  const requests: Recorded[] = [];
  const server = createServer((req, res) => {
    requests.push({ url: req.url ?? '', headers: req.headers });
    if (req.method === 'OPTIONS') { res.writeHead(204, CORS).end(); return; }
    const target = new URL(req.url ?? '/', 'http://x').searchParams.get('url');
    if (!target) { res.writeHead(400, { ...CORS, 'Content-Type': 'text/plain' }).end('no url'); return; }
    const ctrl = new AbortController();
    res.on('close', () => ctrl.abort());
    void (async () => {
      let url = target;
      for (let hop = 0; hop <= 5; hop++) {
        const r = await fetch(url, { redirect: 'manual', signal: ctrl.signal });
        const location = r.headers.get('location');
        if (r.status >= 300 && r.status < 400 && location && hop < 5) { url = new URL(location, url).href; continue; }
        const headers: Record<string, string> = { ...CORS, 'X-Final-URL': url };
        for (const h of ['content-type', 'content-length', 'location']) { const v = r.headers.get(h); if (v) headers[h] = v; }
        res.writeHead(r.status, headers);
        if (r.body) Readable.fromWeb(r.body as import('node:stream/web').ReadableStream).on('error', () => res.destroy()).pipe(res);
        else res.end();
        return;
      }
    })().catch(() => { if (!res.headersSent) res.writeHead(502, { ...CORS, 'Content-Type': 'text/plain' }).end('upstream unreachable'); else res.destroy(); });
  });
  const l = await listenLocal(server);
  return { url: `${l.origin}/proxy`, requests, close: l.close };
}

export type SearchFault = { kind: 'malformed' } | { kind: 'html' } | { kind: 'status'; status: number } | { kind: 'wrong-shape' };

export interface Searxng {
  /** `http://127.0.0.1:<port>`: the endpoint to give (`/search` is added by the client). */
  endpoint: string;
  /** Result URLs and titles by query; each result page holds `perPage` of them. */
  results: Map<string, { url: string; title?: string }[]>;
  perPage: number;
  faults: SearchFault[];
  requests: Recorded[];
  close(): Promise<void>;
}

/** A SearXNG imitation with its JSON format on (and CORS, as `server.default_http_headers` can add). */
export async function startSearxng(results: Record<string, { url: string; title?: string }[]> = {}, perPage = 10): Promise<Searxng> {
  const requests: Recorded[] = [];
  const state: Searxng = { endpoint: '', results: new Map(Object.entries(results)), perPage, faults: [], requests, close: async () => {} };
  const server = createServer((req, res) => {
    requests.push({ url: req.url ?? '', headers: req.headers });
    const u = new URL(req.url ?? '/', 'http://x');
    const fault = state.faults.shift();
    if (u.pathname !== '/search') { res.writeHead(404, CORS).end(); return; }
    if (fault?.kind === 'status') { res.writeHead(fault.status, { ...CORS, 'Content-Type': 'text/html' }).end('<title>403 Forbidden</title>'); return; }
    if (fault?.kind === 'html') { res.writeHead(200, { ...CORS, 'Content-Type': 'text/html' }).end('<html><title>SearXNG</title></html>'); return; }
    if (fault?.kind === 'malformed') { res.writeHead(200, { ...CORS, 'Content-Type': 'application/json' }).end('{"results": [ {"url": '); return; }
    if (fault?.kind === 'wrong-shape') { res.writeHead(200, { ...CORS, 'Content-Type': 'application/json' }).end('{"results": "none"}'); return; }
    const all = state.results.get(u.searchParams.get('q') ?? '') ?? [];
    const page = Number(u.searchParams.get('pageno') ?? '1');
    const slice = all.slice((page - 1) * state.perPage, page * state.perPage);
    const body = { query: u.searchParams.get('q'), number_of_results: all.length, results: slice.map((r) => ({ ...r, engine: 'test', content: '…' })) };
    res.writeHead(200, { ...CORS, 'Content-Type': 'application/json' }).end(JSON.stringify(body));
  });
  const l = await listenLocal(server);
  state.endpoint = l.origin;
  state.close = l.close;
  return state;
}
