/**
 * A local stand-in for the Hugging Face Hub's file endpoints on 127.0.0.1: serves a folder of models in Hub layout
 * (`<root>/<owner>/<name>/<file>`) at `/<owner>/<name>/resolve/<revision>/<file>`, with HEAD, Range (206 +
 * Content-Range) and the Hub's 404 (`X-Error-Code: EntryNotFound`). CORS is open, as on the Hub.
 * Optionally it can also serve a static site under another mount, so a page and its "Hub" share an origin.
 */
import { readFileSync, statSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { join, normalize, resolve } from 'node:path';
import { listenLocal } from './listen.ts';

export interface HubServer {
  /** Base URL to use as transformers.js `env.remoteHost` (ends with '/'). */
  url: string;
  server: Server;
  /** Paths requested (for asserting what was downloaded). */
  requests: string[];
  close(): Promise<void>;
}

const RESOLVE = /^\/([^/]+)\/([^/]+)\/resolve\/([^/]+)\/(.+)$/;

export function hubHandler(root: string, mount: string, requests: string[]) {
  const base = resolve(root);
  return (req: IncomingMessage, res: ServerResponse): boolean => {
    const path = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
    if (!path.startsWith(mount)) return false;
    requests.push(path);
    res.setHeader('Access-Control-Allow-Origin', '*');
    res.setHeader('Access-Control-Allow-Headers', '*');
    res.setHeader('Access-Control-Expose-Headers', 'Content-Length, Content-Range, ETag, X-Error-Code');
    if (req.method === 'OPTIONS') { res.writeHead(204).end(); return true; }
    const m = RESOLVE.exec('/' + path.slice(mount.length));
    const file = m ? normalize(join(base, m[1]!, m[2]!, m[4]!)) : null;
    let size = -1;
    try { if (file && file.startsWith(base)) size = statSync(file).isFile() ? statSync(file).size : -1; } catch { /* missing */ }
    if (size < 0) {
      res.writeHead(404, { 'X-Error-Code': 'EntryNotFound', 'Content-Type': 'text/plain' }).end('Entry not found');
      return true;
    }
    const headers: Record<string, string | number> = { 'Content-Type': 'application/octet-stream', ETag: `"${size}"`, 'Accept-Ranges': 'bytes' };
    const range = /^bytes=(\d+)-(\d*)$/.exec(req.headers.range ?? '');
    if (range) {
      const start = Number(range[1]);
      const end = range[2] ? Math.min(Number(range[2]), size - 1) : size - 1;
      res.writeHead(206, { ...headers, 'Content-Range': `bytes ${start}-${end}/${size}`, 'Content-Length': end - start + 1 });
      res.end(req.method === 'HEAD' ? undefined : readFileSync(file!).subarray(start, end + 1));
      return true;
    }
    res.writeHead(200, { ...headers, 'Content-Length': size });
    res.end(req.method === 'HEAD' ? undefined : readFileSync(file!));
    return true;
  };
}

export async function serveHub(root: string, mount = '/hub/'): Promise<HubServer> {
  const requests: string[] = [];
  const handle = hubHandler(root, mount, requests);
  const server = createServer((req, res) => { if (!handle(req, res)) res.writeHead(404).end(); });
  const { origin, close } = await listenLocal(server);
  return { url: `${origin}${mount}`, server, requests, close };
}
