/** A minimal static file server on 127.0.0.1 for the built site, mounted under a sub-path (as on a static host). */
import { createReadStream, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { extname, join, normalize, resolve } from 'node:path';
import { listenLocal } from './listen.ts';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.mjs': 'text/javascript', '.css': 'text/css',
  '.json': 'application/json', '.wasm': 'application/wasm', '.svg': 'image/svg+xml', '.png': 'image/png',
  '.onnx': 'application/octet-stream', '.txt': 'text/plain',
};

export interface StaticServer {
  url: string;
  server: Server;
  /** Requests served, by path (for asserting what the page fetched). */
  requests: string[];
  close(): Promise<void>;
}

/** `headers` are added to every response (e.g. COOP/COEP for a cross-origin-isolated site). */
export async function serveStatic(root: string, mount = '/', headers: Record<string, string> = {}): Promise<StaticServer> {
  const base = resolve(root);
  const requests: string[] = [];
  const server = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
    requests.push(path);
    for (const [k, v] of Object.entries(headers)) res.setHeader(k, v);
    if (!path.startsWith(mount)) { res.writeHead(404).end('not found'); return; }
    let file = normalize(join(base, path.slice(mount.length)));
    if (!file.startsWith(base)) { res.writeHead(403).end(); return; }
    try {
      if (statSync(file).isDirectory()) file = join(file, 'index.html');
      const size = statSync(file).size;
      res.writeHead(200, { 'Content-Type': TYPES[extname(file)] ?? 'application/octet-stream', 'Content-Length': size, 'Cache-Control': 'no-cache' });
      createReadStream(file).pipe(res);
    } catch {
      res.writeHead(404).end('not found');
    }
  });
  const { origin, close } = await listenLocal(server);
  return { url: `${origin}${mount}`, server, requests, close };
}
