/**
 * A local stand-in for the Hub's dataset file protocol on 127.0.0.1: `GET|HEAD /datasets/<owner>/<name>/resolve/
 * <revision>/<path>` serves `<root>/<revision, decoded>/<path>`, with Range (206 + Content-Range), HEAD with
 * Content-Length and ETag, and the Hub's 404 (`X-Error-Code: EntryNotFound`). CORS as on the Hub (Range allowed,
 * Content-Range exposed). Every request is recorded with its method, path, Range header and status.
 */
import { readFileSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { join, normalize, resolve } from 'node:path';
import { listenLocal } from './listen.ts';

export interface HubRequest { method: string; path: string; range: string | null; status: number; bytes: number }
export interface DatasetHubServer { url: string; server: Server; requests: HubRequest[]; close(): Promise<void> }

const RESOLVE = /^\/datasets\/([^/]+)\/([^/]+)\/resolve\/([^/]+)\/(.+)$/;

export async function serveDatasetHub(root: string, dataset = 'rungalileo/ragbench'): Promise<DatasetHubServer> {
  const base = resolve(root);
  const requests: HubRequest[] = [];
  const server = createServer((req, res) => {
    const raw = new URL(req.url ?? '/', 'http://x').pathname;
    res.setHeader('Access-Control-Allow-Origin', '*');
    res.setHeader('Access-Control-Allow-Headers', 'authorization, content-type, range, accept');
    res.setHeader('Access-Control-Allow-Methods', 'GET, HEAD, OPTIONS');
    res.setHeader('Access-Control-Expose-Headers', 'ETag, Content-Range, Content-Length, X-Error-Code');
    if (req.method === 'OPTIONS') { res.writeHead(204).end(); return; }
    const m = RESOLVE.exec(raw);
    const record = (status: number, bytes: number) => requests.push({ method: req.method ?? 'GET', path: decodeURIComponent(raw), range: req.headers.range ?? null, status, bytes });
    const file = m && `${m[1]}/${m[2]}` === dataset ? normalize(join(base, decodeURIComponent(m[3]!), ...m[4]!.split('/').map(decodeURIComponent))) : null;
    let size = -1;
    try { if (file && file.startsWith(base) && statSync(file).isFile()) size = statSync(file).size; } catch { /* missing */ }
    if (size < 0) {
      record(404, 0);
      res.writeHead(404, { 'X-Error-Code': 'EntryNotFound', 'Content-Type': 'application/json' }).end(JSON.stringify({ error: 'Entry not found' }));
      return;
    }
    const headers = { 'Content-Type': 'application/octet-stream', ETag: `"${size}"`, 'Accept-Ranges': 'bytes' };
    const range = /^bytes=(\d+)-(\d*)$/.exec(req.headers.range ?? '');
    if (range) {
      const start = Number(range[1]);
      const end = range[2] ? Math.min(Number(range[2]), size - 1) : size - 1;
      record(206, end - start + 1);
      res.writeHead(206, { ...headers, 'Content-Range': `bytes ${start}-${end}/${size}`, 'Content-Length': end - start + 1 });
      res.end(req.method === 'HEAD' ? undefined : readFileSync(file!).subarray(start, end + 1));
      return;
    }
    record(200, req.method === 'HEAD' ? 0 : size);
    res.writeHead(200, { ...headers, 'Content-Length': size });
    res.end(req.method === 'HEAD' ? undefined : readFileSync(file!));
  });
  const { origin, close } = await listenLocal(server);
  return { url: `${origin}/`, server, requests, close };
}
