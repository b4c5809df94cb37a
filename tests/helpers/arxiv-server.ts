/**
 * A loopback imitation of the arXiv API (`GET /api/query`, Atom 1.0 with opensearch totals, paged by `start` and
 * `max_results`) over a list of synthetic papers, with scripted faults for the next requests: an error feed (HTTP
 * 400, as arXiv sends for a bad query), an empty page, 503 / 429 with Retry-After, an HTML page (a proxy's error
 * page) and slow answers. Like arXiv it sends NO CORS headers; `startArxivProxy` is the tiny CORS proxy the tab needs
 * (convention: the proxy URL replaces https://export.arxiv.org/api/query, the query string is forwarded as is).
 * Both record every request (URL and headers), so tests can check that nothing secret reached them.
 */
import { createServer, type IncomingHttpHeaders } from 'node:http';
import { listenLocal } from './listen.ts';

export interface Paper {
  /** New-style id with version, e.g. `2301.00007v2`. */
  id: string;
  title: string;
  summary: string;
  authors: string[];
  published: string;
  category: string;
}

export type Fault =
  | { kind: 'error'; message?: string }
  | { kind: 'empty' }
  | { kind: 'status'; status: 503 | 429 | 500; retryAfter?: string }
  /** A proxy's HTML page (default status 200, as a login or error page a proxy serves). */
  | { kind: 'html'; status?: number }
  | { kind: 'slow'; ms: number };

export interface Recorded {
  url: string;
  path: string;
  params: URLSearchParams;
  headers: IncomingHttpHeaders;
  /** ms since the server started (for logs; tests do not assert on time). */
  at: number;
}

export interface ArxivServer {
  /** `http://127.0.0.1:<port>/api/query`: the endpoint to give the adapter or the CLI. */
  endpoint: string;
  origin: string;
  papers: Paper[];
  requests: Recorded[];
  /** Faults for the next requests, in order (one per request). */
  faults: Fault[];
  close(): Promise<void>;
}

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const OS = 'http://a9.com/-/spec/opensearch/1.1/';

/** Synthetic papers with known words: paper i is about topic `topics[i % topics.length]`. */
export function makePapers(n: number, topics = ['retrieval', 'transformers', 'graphs']): Paper[] {
  return Array.from({ length: n }, (_, i) => {
    const topic = topics[i % topics.length]!;
    const num = String(i + 1).padStart(5, '0');
    return {
      id: `2301.${num}v${1 + (i % 3)}`,
      title: `Study ${i + 1} of ${topic}:\n   a  long title`,
      summary: `  We study ${topic} in paper number ${i + 1}.\n  Keyword zq${i + 1}x marks this abstract & nothing else.\n`,
      authors: Array.from({ length: 1 + (i % 5) }, (_, k) => `Author ${String.fromCharCode(65 + k)}${i + 1}`),
      published: `${2019 + (i % 5)}-0${1 + (i % 9)}-15T12:00:00Z`,
      category: ['cs.IR', 'cs.CL', 'cs.LG'][i % 3]!,
    };
  });
}

export function entryXml(p: Paper): string {
  return `  <entry>
    <id>http://arxiv.org/abs/${p.id}</id>
    <updated>${p.published}</updated>
    <published>${p.published}</published>
    <title>${esc(p.title)}</title>
    <summary>${esc(p.summary)}</summary>
${p.authors.map((a) => `    <author><name>${esc(a)}</name></author>`).join('\n')}
    <link href="http://arxiv.org/abs/${p.id}" rel="alternate" type="text/html"/>
    <link title="pdf" href="http://arxiv.org/pdf/${p.id}" rel="related" type="application/pdf"/>
    <arxiv:primary_category xmlns:arxiv="http://arxiv.org/schemas/atom" term="${p.category}" scheme="http://arxiv.org/schemas/atom"/>
    <category term="${p.category}" scheme="http://arxiv.org/schemas/atom"/>
  </entry>`;
}

/** A feed page as arXiv writes it. */
export function feedXml(entries: string[], total: number, start: number, perPage: number): string {
  return `<?xml version="1.0" encoding="UTF-8"?>
<feed xmlns="http://www.w3.org/2005/Atom">
  <link href="http://arxiv.org/api/query" rel="self" type="application/atom+xml"/>
  <title type="html">ArXiv Query</title>
  <id>http://arxiv.org/api/abc</id>
  <updated>2026-01-01T00:00:00-05:00</updated>
  <opensearch:totalResults xmlns:opensearch="${OS}">${total}</opensearch:totalResults>
  <opensearch:startIndex xmlns:opensearch="${OS}">${start}</opensearch:startIndex>
  <opensearch:itemsPerPage xmlns:opensearch="${OS}">${perPage}</opensearch:itemsPerPage>
${entries.join('\n')}
</feed>
`;
}

/** arXiv's error feed: one entry titled "Error" with the message in its summary. */
export function errorFeedXml(message: string): string {
  return feedXml([`  <entry>
    <id>http://arxiv.org/api/errors#${encodeURIComponent(message)}</id>
    <title>Error</title>
    <summary>${esc(message)}</summary>
    <updated>2026-01-01T00:00:00-05:00</updated>
    <link href="http://arxiv.org/api/errors" rel="alternate" type="text/html"/>
    <author><name>arXiv api core</name></author>
  </entry>`], 1, 0, 1);
}

const ATOM = { 'Content-Type': 'application/atom+xml; charset=utf-8' };

export async function startArxivServer(papers: Paper[] = makePapers(250)): Promise<ArxivServer> {
  const t0 = Date.now();
  const requests: Recorded[] = [];
  const faults: Fault[] = [];
  const server = createServer((req, res) => {
    const u = new URL(req.url ?? '/', 'http://x');
    requests.push({ url: req.url ?? '', path: u.pathname, params: u.searchParams, headers: req.headers, at: Date.now() - t0 });
    if (u.pathname !== '/api/query') { res.writeHead(404, { 'Content-Type': 'text/plain' }).end('not found'); return; }
    const answer = () => {
      const fault = faults.shift();
      if (fault?.kind === 'slow') { setTimeout(answer0, fault.ms); return; }
      answer0(fault);
    };
    const answer0 = (fault?: Fault) => {
      if (fault?.kind === 'status') {
        res.writeHead(fault.status, { 'Content-Type': 'text/plain', ...(fault.retryAfter ? { 'Retry-After': fault.retryAfter } : {}) }).end('Service Unavailable');
        return;
      }
      if (fault?.kind === 'html') {
        res.writeHead(fault.status ?? 200, { 'Content-Type': 'text/html; charset=utf-8' }).end('<!DOCTYPE html><html><head><title>Proxy error</title></head><body>upstream failed</body></html>');
        return;
      }
      if (fault?.kind === 'error') { res.writeHead(400, ATOM).end(errorFeedXml(fault.message ?? 'malformed query')); return; }
      const start = Number(u.searchParams.get('start') ?? '0');
      const max = Number(u.searchParams.get('max_results') ?? '10');
      if (!u.searchParams.get('search_query')) { res.writeHead(400, ATOM).end(errorFeedXml('search_query is empty')); return; }
      if (!Number.isInteger(start) || start < 0) { res.writeHead(400, ATOM).end(errorFeedXml('start must be an integer')); return; }
      if (!Number.isInteger(max) || max < 0 || max > 2000) { res.writeHead(400, ATOM).end(errorFeedXml('max_results must be between 0 and 2000')); return; }
      if (fault?.kind === 'empty') { res.writeHead(200, ATOM).end(feedXml([], 0, start, 0)); return; }
      const page = papers.slice(start, start + max);
      res.writeHead(200, ATOM).end(feedXml(page.map(entryXml), papers.length, start, page.length));
    };
    answer();
  });
  const l = await listenLocal(server);
  return { endpoint: `${l.origin}/api/query`, origin: l.origin, papers, requests, faults, close: l.close };
}

export interface ArxivProxy {
  /** The proxy URL to put in Settings (it replaces https://export.arxiv.org/api/query). */
  url: string;
  requests: Recorded[];
  close(): Promise<void>;
}

const CORS = { 'Access-Control-Allow-Origin': '*', 'Access-Control-Allow-Methods': 'GET, OPTIONS', 'Access-Control-Allow-Headers': '*', 'Access-Control-Expose-Headers': 'Retry-After' };

/**
 * A CORS proxy for the arXiv imitation: `GET <url>?<query>` is forwarded as `GET <endpoint>?<query>`, the answer's
 * status, Content-Type and Retry-After returned with Access-Control-Allow-Origin: *.
 */
export async function startArxivProxy(endpoint: string): Promise<ArxivProxy> {
  const t0 = Date.now();
  const requests: Recorded[] = [];
  const server = createServer((req, res) => {
    const u = new URL(req.url ?? '/', 'http://x');
    requests.push({ url: req.url ?? '', path: u.pathname, params: u.searchParams, headers: req.headers, at: Date.now() - t0 });
    if (req.method === 'OPTIONS') { res.writeHead(204, CORS).end(); return; }
    fetch(`${endpoint}${u.search}`).then(async (r) => {
      const headers: Record<string, string> = { ...CORS, 'Content-Type': r.headers.get('content-type') ?? 'application/octet-stream' };
      const ra = r.headers.get('retry-after');
      if (ra) headers['Retry-After'] = ra;
      res.writeHead(r.status, headers).end(Buffer.from(await r.arrayBuffer()));
    }, () => { res.writeHead(502, { ...CORS, 'Content-Type': 'text/plain' }).end('upstream unreachable'); });
  });
  const l = await listenLocal(server);
  return { url: `${l.origin}/arxiv`, requests, close: l.close };
}
