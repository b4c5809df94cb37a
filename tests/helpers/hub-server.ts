/**
 * A local stand-in for the Hugging Face Hub's file endpoints on 127.0.0.1: serves a folder of models in Hub layout
 * (`<root>/<owner>/<name>/<file>`) at `/<owner>/<name>/resolve/<revision>/<file>`, with HEAD, Range (206 +
 * Content-Range) and the Hub's 404 (`X-Error-Code: EntryNotFound`), and the tree API (`/api/models/<owner>/<name>/
 * tree/<revision>?recursive=true`: `{type, path, size, oid}` entries, paged with `Link: <…>; rel="next"` when a page
 * size is set). CORS is open, as on the Hub. A `gate` can hold file downloads (to test cancelling one).
 * Optionally it can also serve a static site under another mount, so a page and its "Hub" share an origin.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
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
const TREE = /^\/api\/models\/([^/]+)\/([^/]+)\/tree\/([^/]+)\/?$/;

export interface HubOptions {
  /** Entries per tree page (default: all on one page). */
  treePageSize?: number;
  /** Awaited before a file download is answered (`file` is the path inside the repo). */
  gate?: (repo: string, file: string) => Promise<void>;
}

type TreeEntry = { type: 'file' | 'directory'; path: string; size: number; oid: string; lfs?: { oid: string; size: number } };

/**
 * Every file and folder under `dir`, as the Hub's recursive tree lists them (folders before their files): a file's
 * `oid` is its git blob id (sha1 of "blob <size>\0<bytes>"), and an .onnx file is listed as LFS (`lfs.oid`: SHA-256).
 */
function treeEntries(dir: string, prefix = ''): TreeEntry[] {
  const out: TreeEntry[] = [];
  for (const d of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
    const path = prefix + d.name;
    // A linked folder or file is listed as what it links to (the benchmark models link their onnx/ folders).
    const isDir = d.isDirectory() || (d.isSymbolicLink() && statSync(join(dir, d.name)).isDirectory());
    const isFile = d.isFile() || (d.isSymbolicLink() && statSync(join(dir, d.name)).isFile());
    if (isDir) {
      out.push({ type: 'directory', path, size: 0, oid: `dir-${path}` });
      out.push(...treeEntries(join(dir, d.name), `${path}/`));
    } else if (isFile) {
      const bytes = readFileSync(join(dir, d.name));
      const size = bytes.byteLength;
      const oid = createHash('sha1').update(`blob ${size}\0`).update(bytes).digest('hex');
      out.push({ type: 'file', path, size, oid, ...(d.name.endsWith('.onnx') ? { lfs: { oid: createHash('sha256').update(bytes).digest('hex'), size } } : {}) });
    }
  }
  return out;
}

export function hubHandler(root: string, mount: string, requests: string[], opts: HubOptions = {}) {
  const base = resolve(root);
  return (req: IncomingMessage, res: ServerResponse): boolean => {
    const url = new URL(req.url ?? '/', 'http://x');
    const path = decodeURIComponent(url.pathname);
    if (!path.startsWith(mount)) return false;
    requests.push(path);
    res.setHeader('Access-Control-Allow-Origin', '*');
    res.setHeader('Access-Control-Allow-Headers', '*');
    res.setHeader('Access-Control-Expose-Headers', 'Content-Length, Content-Range, ETag, X-Error-Code, Link');
    if (req.method === 'OPTIONS') { res.writeHead(204).end(); return true; }
    const tree = TREE.exec('/' + path.slice(mount.length));
    if (tree) {
      const dir = normalize(join(base, tree[1]!, tree[2]!));
      let entries: ReturnType<typeof treeEntries> | null = null;
      try { if (dir.startsWith(base) && statSync(dir).isDirectory()) entries = treeEntries(dir); } catch { /* missing */ }
      if (!entries) {
        res.writeHead(404, { 'Content-Type': 'application/json', 'X-Error-Code': 'RepoNotFound' }).end(JSON.stringify({ error: 'Repository not found' }));
        return true;
      }
      if (url.searchParams.get('recursive') !== 'true') entries = entries.filter((e) => !e.path.includes('/'));
      const size = opts.treePageSize ?? entries.length;
      const from = Number(url.searchParams.get('cursor') ?? 0);
      const headers: Record<string, string> = { 'Content-Type': 'application/json' };
      if (from + size < entries.length) {
        const next = new URL(url.href);
        next.searchParams.set('cursor', String(from + size));
        headers.Link = `<${next.pathname}${next.search}>; rel="next"`;
      }
      res.writeHead(200, headers).end(JSON.stringify(entries.slice(from, from + size)));
      return true;
    }
    const m = RESOLVE.exec('/' + path.slice(mount.length));
    if (m && opts.gate) {
      void opts.gate(`${m[1]}/${m[2]}`, m[4]!).then(() => serveFile(req, res, base, m));
      return true;
    }
    serveFile(req, res, base, m);
    return true;
  };
}

function serveFile(req: IncomingMessage, res: ServerResponse, base: string, m: RegExpExecArray | null): void {
  const file = m ? normalize(join(base, m[1]!, m[2]!, m[4]!)) : null;
  let size = -1;
  try { if (file && file.startsWith(base)) size = statSync(file).isFile() ? statSync(file).size : -1; } catch { /* missing */ }
  if (size < 0) {
    res.writeHead(404, { 'X-Error-Code': 'EntryNotFound', 'Content-Type': 'text/plain' }).end('Entry not found');
    return;
  }
  const headers: Record<string, string | number> = { 'Content-Type': 'application/octet-stream', ETag: `"${size}"`, 'Accept-Ranges': 'bytes' };
  const range = /^bytes=(\d+)-(\d*)$/.exec(req.headers.range ?? '');
  if (range) {
    const start = Number(range[1]);
    const end = range[2] ? Math.min(Number(range[2]), size - 1) : size - 1;
    res.writeHead(206, { ...headers, 'Content-Range': `bytes ${start}-${end}/${size}`, 'Content-Length': end - start + 1 });
    res.end(req.method === 'HEAD' ? undefined : readFileSync(file!).subarray(start, end + 1));
    return;
  }
  res.writeHead(200, { ...headers, 'Content-Length': size });
  res.end(req.method === 'HEAD' ? undefined : readFileSync(file!));
}

export async function serveHub(root: string, mount = '/hub/', opts: HubOptions = {}): Promise<HubServer> {
  const requests: string[] = [];
  const handle = hubHandler(root, mount, requests, opts);
  const server = createServer((req, res) => { if (!handle(req, res)) res.writeHead(404).end(); });
  const { origin, close } = await listenLocal(server);
  return { url: `${origin}${mount}`, server, requests, close };
}
