/**
 * A loopback Hugging Face Hub for dataset repos, at the real paths `@huggingface/hub` uses with `hubUrl = server.url`
 * (docs: ../shared/notes/hub-and-formats.md §1.2):
 * - `GET /api/datasets/{o}/{n}/tree/{rev}[/{path}]?recursive=…` (`Link: <…>; rel="next"` paging when `pageSize` is set)
 * - `GET /api/datasets/{o}/{n}/revision/{rev}` (JSON with `sha`), `GET /api/datasets/{o}/{n}/commits/{rev}?limit=N`
 * - `GET|HEAD /datasets/{o}/{n}/resolve/{rev}/{path}` with Range (206 + Content-Range), ETag, and
 *   404 + `X-Error-Code: EntryNotFound`
 * - `POST /api/datasets/{o}/{n}/preupload/{branch}` (answers uploadMode "regular" for every file, so the client
 *   inlines content and never calls the LFS/Xet endpoints) and `POST /api/datasets/{o}/{n}/commit/{branch}` (ndjson:
 *   a stale `parentCommit` gets 412 with the Hub's message; `file` / `deletedFile` ops make a new commit)
 * - `GET /api/whoami-v2`
 * - other refs than `main` (`setRef`: e.g. `refs/convert/parquet`, the Hub's parquet conversion) by name and by sha
 * - `GET /api/datasets/{o}/{n}/parquet` (the conversion's files as `{config: {split: [url]}}`, 404 without one) and
 *   `GET|HEAD /api/datasets/{o}/{n}/parquet/{config}/{split}/{i}.parquet` (302 to the file at the ref's sha)
 * A revision is a branch (`main`) or a commit sha; every commit keeps its snapshot, so a resolve at an old sha serves
 * the old bytes. CORS as on huggingface.co (preflight answered; Range/Authorization allowed; ETag, Content-Range,
 * Link, X-Error-Code, X-Linked-* exposed). A private repo answers 401 without `Authorization: Bearer <token>`;
 * with `strictTokens` an unknown token gets 401 everywhere, a write needs the token, and a `readTokens` one gets 403.
 * Faults for tests: cut a file's connection after N bytes (a number of times), delay, a status (500), an HTML page
 * (200 text/html). Every request is recorded (method, path, range, status, bytes, whether Authorization was present, never the token itself).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { blobOid, body, readFolder, sha1, sha256 } from './hub-repo-bytes.ts';
import { listenLocal } from './listen.ts';
import { streamBody, type StreamFault } from './stream-body.ts';

export interface RepoRequest {
  method: string;
  /** Decoded path (no query). */
  path: string;
  query: string;
  range: string | null;
  status: number;
  /** Body bytes sent (planned: a cut connection sends fewer). */
  bytes: number;
  /** Whether an Authorization header came with the request (its value is never recorded). */
  auth: boolean;
  /** The request's Origin header (set by browsers). */
  origin: string | null;
  /** For commit calls: the request's Content-Type and the header line's parentCommit. */
  contentType?: string;
  parentCommit?: string | null;
}

export type RepoFault =
  /** Sends the headers and the first `afterBytes` body bytes of `path`'s GET, then destroys the socket. */
  | { kind: 'cut'; path: string; afterBytes: number; times?: number }
  /** Answers `status` (JSON error body) to requests whose path contains `path`. */
  | { kind: 'status'; path: string; status: number; times?: number }
  /** Waits `ms` before answering requests whose path contains `path`. */
  | { kind: 'delay'; path: string; ms: number; times?: number }
  /** Answers 200 with an HTML page (a captive portal, a proxy's login page) to requests whose path contains `path`. */
  | { kind: 'html'; path: string; times?: number }
  /** Answers a resolve of `path` with 302 to `to` (as the Hub sends LFS files to its CDN). */
  | { kind: 'redirect'; path: string; to: string; times?: number }
  /** Answers a resolve of `path` (need not exist) with a huge lazy body: see stream-body.ts. */
  | StreamFault;

interface Commit { sha: string; parent: string | null; title: string; date: string; files: Map<string, Uint8Array> }
interface Repo { isPrivate: boolean; branches: Map<string, string>; commits: Map<string, Commit> }

export interface HubRepoServer {
  /** The origin, no trailing slash: pass it as `hubUrl`. */
  url: string;
  server: Server;
  requests: RepoRequest[];
  faults: RepoFault[];
  /** Adds a repo from a folder or a map of files (one initial commit); returns its sha. */
  addRepo(repo: string, files: string | Map<string, Uint8Array>, opts?: { private?: boolean }): string;
  /** The sha `branch` (default main) points at. */
  head(repo: string, branch?: string): string;
  /** A file at a revision (null if missing). */
  fileAt(repo: string, rev: string, path: string): Uint8Array | null;
  /**
   * Points another ref (e.g. `refs/convert/parquet`, where the Hub keeps its parquet conversion) at a new commit of
   * `files` (no parent; `main` does not move); returns its sha. The revision and tree APIs and resolve serve it by
   * name (URL-encoded, `refs%2Fconvert%2Fparquet`) and by sha.
   */
  setRef(repo: string, ref: string, files: Map<string, Uint8Array>): string;
  /** A commit made "by someone else" (server side): sets (bytes) or deletes (null) files on `main`; returns the sha. */
  commitFiles(repo: string, changes: Map<string, Uint8Array | null>, title?: string): string;
  /** Runs `fn` once, just before the next commit request is checked (to simulate a concurrent writer). */
  beforeNextCommit(fn: () => void): void;
  close(): Promise<void>;
}

const API = /^\/api\/datasets\/([^/]+)\/([^/]+)\/(tree|revision|commits|preupload|commit)\/([^/]+)(?:\/(.*))?$/;
const RESOLVE = /^\/datasets\/([^/]+)\/([^/]+)\/resolve\/([^/]+)\/(.+)$/;
const PARQUET_API = /^\/api\/datasets\/([^/]+)\/([^/]+)\/parquet(?:\/([^/]+)\/([^/]+)\/(\d+)\.parquet)?$/;
const CONVERT_REF = 'refs/convert/parquet';
const SHA = /^[0-9a-f]{40}$/;
const CORS = {
  'Access-Control-Allow-Headers': 'authorization, content-type, range, accept, x-requested-with',
  'Access-Control-Allow-Methods': 'GET, POST, PUT, HEAD, OPTIONS',
  'Access-Control-Expose-Headers': 'ETag, Content-Range, Content-Length, Accept-Ranges, Link, X-Error-Code, X-Linked-Size, X-Linked-ETag, X-Request-Id',
  'Access-Control-Max-Age': '600',
};

export interface HubRepoServerOptions {
  /** The token that reads private repos (and, with `strictTokens`, the one that writes). */
  token?: string;
  pageSize?: number;
  /**
   * As huggingface.co: an Authorization header with an unknown token gets 401 on every request, a preupload or commit
   * needs a token (401 without one), and a `readTokens` token may read but gets 403 on writes.
   */
  strictTokens?: boolean;
  readTokens?: string[];
}

export async function serveHubRepos(opts: HubRepoServerOptions = {}): Promise<HubRepoServer> {
  const repos = new Map<string, Repo>();
  const requests: RepoRequest[] = [];
  const faults: RepoFault[] = [];
  const pendingHooks: Array<() => void> = [];
  let counter = 0;
  let origin = '';

  const makeCommit = (repo: Repo, parent: string | null, files: Map<string, Uint8Array>, title: string, branch = 'main'): string => {
    const sha = sha1(`${parent ?? ''}\n${title}\n${++counter}\n${[...files.keys()].sort().join('\n')}`);
    repo.commits.set(sha, { sha, parent, title, date: new Date(Date.UTC(2026, 0, 1, 0, 0, counter)).toISOString(), files });
    repo.branches.set(branch, sha);
    return sha;
  };
  const resolveRev = (repo: Repo, rev: string): Commit | null => {
    const sha = repo.branches.get(rev === 'HEAD' ? 'main' : rev) ?? (SHA.test(rev) ? rev : null);
    return sha ? repo.commits.get(sha) ?? null : null;
  };
  /** Takes a matching fault, counting its use down. */
  const takeFault = <K extends RepoFault['kind']>(kind: K, path: string, exact: boolean): Extract<RepoFault, { kind: K }> | null => {
    const i = faults.findIndex((f) => f.kind === kind && (exact ? f.path === path : path.includes(f.path)));
    if (i < 0) return null;
    const f = faults[i]!;
    const left = (f.times ?? 1) - 1;
    if (left <= 0) faults.splice(i, 1);
    else f.times = left;
    return f as Extract<RepoFault, { kind: K }>;
  };

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const u = new URL(req.url ?? '/', 'http://x');
    const path = decodeURIComponent(u.pathname);
    const rec: RepoRequest = {
      method: req.method ?? 'GET', path, query: u.search, range: req.headers.range ?? null, status: 0, bytes: 0,
      auth: req.headers.authorization !== undefined, origin: req.headers.origin ?? null,
    };
    requests.push(rec);
    res.setHeader('Access-Control-Allow-Origin', req.headers.origin ?? '*');
    res.setHeader('Vary', 'Origin');
    for (const [k, v] of Object.entries(CORS)) res.setHeader(k, v);
    const send = (status: number, payload: unknown, headers: Record<string, string> = {}) => {
      const text = JSON.stringify(payload);
      rec.status = status;
      rec.bytes = Buffer.byteLength(text);
      res.writeHead(status, { 'Content-Type': 'application/json', ...headers }).end(text);
    };
    if (req.method === 'OPTIONS') { rec.status = 204; res.writeHead(204).end(); return; }

    const delay = takeFault('delay', path, false);
    if (delay) await new Promise((ok) => setTimeout(ok, delay.ms));
    const status = takeFault('status', path, false);
    if (status) { send(status.status, { error: `Injected HTTP ${status.status}` }); return; }
    if (takeFault('html', path, false)) {
      const page = '<!DOCTYPE html>\n<html><head><title>Sign in to the network</title></head><body>Accept the terms</body></html>';
      rec.status = 200;
      rec.bytes = page.length;
      res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' }).end(page);
      return;
    }

    const authorized = opts.token !== undefined && req.headers.authorization === `Bearer ${opts.token}`;
    const reader = (opts.readTokens ?? []).some((t) => req.headers.authorization === `Bearer ${t}`);
    if (opts.strictTokens && req.headers.authorization !== undefined && !authorized && !reader) {
      send(401, { error: 'Invalid credentials in Authorization header' });
      return;
    }
    if (path === '/api/whoami-v2') {
      if (!authorized) { send(401, { error: 'Invalid credentials in Authorization header' }); return; }
      send(200, { type: 'user', name: 'tester', fullname: 'Test User', orgs: [], auth: { type: 'access_token', accessToken: { displayName: 'test', role: 'write' } } });
      return;
    }
    const pq = PARQUET_API.exec(u.pathname);
    if (pq) {
      const name = `${decodeURIComponent(pq[1]!)}/${decodeURIComponent(pq[2]!)}`;
      const repo = repos.get(name);
      if (repo?.isPrivate && !authorized && !reader) { send(401, { error: 'Invalid username or password.' }); return; }
      const conv = repo ? resolveRev(repo, CONVERT_REF) : null;
      if (!conv) { send(404, { error: repo ? 'No parquet conversion' : 'Repository not found' }); return; }
      const byDir = new Map<string, string[]>();
      for (const p of [...conv.files.keys()].sort()) {
        const f = /^([^/]+)\/([^/]+)\/(\d+)\.parquet$/.exec(p);
        if (f) byDir.set(`${f[1]}/${f[2]}`, [...byDir.get(`${f[1]}/${f[2]}`) ?? [], p]);
      }
      if (pq[3]) {
        const files = byDir.get(`${decodeURIComponent(pq[3])}/${decodeURIComponent(pq[4]!)}`) ?? [];
        const file = files[Number(pq[5])];
        if (!file) { send(404, { error: 'Entry not found' }, { 'X-Error-Code': 'EntryNotFound' }); return; }
        rec.status = 302;
        res.writeHead(302, { Location: `${origin}/datasets/${name}/resolve/${conv.sha}/${file.split('/').map(encodeURIComponent).join('/')}` }).end();
        return;
      }
      const out: Record<string, Record<string, string[]>> = {};
      for (const [dir, files] of byDir) {
        const [config, split] = dir.split('/') as [string, string];
        (out[config] ??= {})[split] = files.map((_, i) => `${origin}/api/datasets/${name}/parquet/${encodeURIComponent(config)}/${encodeURIComponent(split)}/${i}.parquet`);
      }
      send(200, out);
      return;
    }
    const api = API.exec(u.pathname);
    const resolve = api ? null : RESOLVE.exec(u.pathname);
    const m = api ?? resolve;
    if (!m) { send(404, { error: 'Not found' }); return; }
    const name = `${decodeURIComponent(m[1]!)}/${decodeURIComponent(m[2]!)}`;
    const repo = repos.get(name);
    if (repo?.isPrivate && !authorized && !reader) {
      send(401, { error: 'Invalid username or password.' }, { 'X-Error-Code': 'RepoNotFound' });
      return;
    }
    if (!repo) { send(404, { error: 'Repository not found' }, { 'X-Error-Code': 'RepoNotFound' }); return; }

    if (resolve) {
      const commit = resolveRev(repo, decodeURIComponent(m[3]!));
      const file = decodeURIComponent(m[4]!);
      const bytes = commit?.files.get(file);
      if (!commit) { send(404, { error: 'Invalid rev id' }, { 'X-Error-Code': 'RevisionNotFound' }); return; }
      const stream = takeFault('stream', file, true);
      if (stream) { await streamBody(req, res, rec, stream); return; }
      if (!bytes) { send(404, { error: 'Entry not found' }, { 'X-Error-Code': 'EntryNotFound' }); return; }
      const redirect = takeFault('redirect', file, true);
      if (redirect) { rec.status = 302; res.writeHead(302, { Location: redirect.to }).end(); return; }
      const size = bytes.byteLength;
      const headers: Record<string, string> = {
        'Content-Type': 'application/octet-stream', ETag: `"${sha256(bytes)}"`, 'Accept-Ranges': 'bytes',
        'X-Repo-Commit': commit.sha,
        // As the Hub does for LFS files: the linked object's size and hash.
        ...(size > 10_000 ? { 'X-Linked-Size': String(size), 'X-Linked-ETag': `"${sha256(bytes)}"` } : {}),
      };
      let start = 0;
      let end = size - 1;
      const range = /^bytes=(\d+)-(\d*)$/.exec(req.headers.range ?? '');
      if (range) {
        start = Number(range[1]);
        end = range[2] ? Math.min(Number(range[2]), size - 1) : size - 1;
        if (start >= size) {
          rec.status = 416;
          res.writeHead(416, { 'Content-Range': `bytes */${size}` }).end();
          return;
        }
        headers['Content-Range'] = `bytes ${start}-${end}/${size}`;
      }
      rec.status = range ? 206 : 200;
      const part = bytes.subarray(start, end + 1);
      res.writeHead(rec.status, { ...headers, 'Content-Length': String(part.byteLength) });
      if (req.method === 'HEAD') { res.end(); return; }
      const cut = part.byteLength > 1 ? takeFault('cut', file, true) : null;
      if (cut) {
        const n = Math.min(cut.afterBytes, part.byteLength - 1);
        rec.bytes = n;
        res.write(part.subarray(0, n), () => setTimeout(() => res.socket?.destroy(), 5));
        return;
      }
      rec.bytes = part.byteLength;
      res.end(part);
      return;
    }

    const [, , , op, revRaw, rest] = m;
    const rev = decodeURIComponent(revRaw!);
    if (opts.strictTokens && (op === 'preupload' || op === 'commit') && !authorized) {
      if (reader) send(403, { error: `You don't have the rights to create a commit in dataset ${name}` });
      else send(401, { error: 'Invalid username or password.' });
      return;
    }
    if (op === 'preupload') {
      const payload = JSON.parse((await body(req)).toString('utf8')) as { files: Array<{ path: string }> };
      send(200, { files: payload.files.map((f) => ({ path: f.path, uploadMode: 'regular', shouldIgnore: false })) });
      return;
    }
    if (op === 'commit') {
      rec.contentType = req.headers['content-type'] ?? '';
      const lines = (await body(req)).toString('utf8').split('\n').filter((l) => l.trim() !== '').map((l) => JSON.parse(l) as { key: string; value: Record<string, unknown> });
      const header = lines.find((l) => l.key === 'header')?.value ?? {};
      const parent = typeof header.parentCommit === 'string' ? header.parentCommit : null;
      rec.parentCommit = parent;
      for (const hook of pendingHooks.splice(0)) hook();
      if (!rec.contentType.startsWith('application/x-ndjson')) { send(400, { error: 'Expected application/x-ndjson' }); return; }
      const headSha = repo.branches.get(rev);
      if (!headSha) { send(404, { error: `Branch ${rev} not found` }, { 'X-Error-Code': 'RevisionNotFound' }); return; }
      if (parent !== null && parent !== headSha) { send(412, { error: 'A commit has happened since. Please refresh and try again.' }); return; }
      const files = new Map(repo.commits.get(headSha)!.files);
      for (const l of lines) {
        const p = String(l.value.path ?? '');
        if (l.key === 'file') files.set(p, new Uint8Array(Buffer.from(String(l.value.content), 'base64')));
        else if (l.key === 'deletedFile') files.delete(p);
        else if (l.key === 'lfsFile') { send(400, { error: `LFS file ${p} was never asked for (preupload said regular)` }); return; }
      }
      const sha = makeCommit(repo, headSha, files, String(header.summary ?? 'commit'));
      send(200, { success: true, commitOid: sha, commitUrl: `${origin}/datasets/${name}/commit/${sha}`, hookOutput: '' });
      return;
    }
    const commit = resolveRev(repo, rev);
    if (!commit) { send(404, { error: `Invalid rev id: ${rev}` }, { 'X-Error-Code': 'RevisionNotFound' }); return; }
    if (op === 'revision') {
      send(200, {
        _id: sha1(name).slice(0, 24), id: name, author: name.split('/')[0], sha: commit.sha, private: repo.isPrivate,
        gated: false, disabled: false, downloads: 0, likes: 0, lastModified: commit.date, tags: [],
        siblings: [...commit.files.keys()].sort().map((rfilename) => ({ rfilename })),
      });
      return;
    }
    if (op === 'commits') {
      const limit = Number(u.searchParams.get('limit') ?? 100);
      const out: unknown[] = [];
      for (let c: Commit | undefined = commit; c && out.length < limit; c = c.parent ? repo.commits.get(c.parent) : undefined) {
        out.push({ id: c.sha, title: c.title, message: '', authors: [{ user: 'tester', avatar: '' }], date: c.date });
      }
      send(200, out);
      return;
    }
    // tree
    const dir = rest ? rest.replace(/\/+$/, '') : '';
    const recursive = u.searchParams.get('recursive') === 'true';
    const under = dir ? `${dir}/` : '';
    const entries = new Map<string, { type: 'file' | 'directory'; path: string; size: number; oid: string; lfs?: { oid: string; size: number; pointerSize: number } }>();
    for (const [p, b] of [...commit.files].sort(([a], [c]) => a.localeCompare(c))) {
      if (!p.startsWith(under)) continue;
      const parts = p.slice(under.length).split('/');
      for (let i = 1; i < parts.length; i++) {
        if (!recursive && i > 1) break;
        const d = under + parts.slice(0, i).join('/');
        if (!entries.has(d)) entries.set(d, { type: 'directory', path: d, size: 0, oid: sha1(`tree ${d}`) });
      }
      if (recursive || parts.length === 1) {
        entries.set(p, { type: 'file', path: p, size: b.byteLength, oid: blobOid(b), ...(b.byteLength > 10_000 ? { lfs: { oid: sha256(b), size: b.byteLength, pointerSize: 134 } } : {}) });
      }
    }
    if (dir && entries.size === 0) { send(404, { error: `${dir} does not exist on "${rev}"` }, { 'X-Error-Code': 'EntryNotFound' }); return; }
    const all = [...entries.values()];
    const cursor = Number(u.searchParams.get('cursor') ?? 0);
    const size = opts.pageSize ?? all.length;
    const page = all.slice(cursor, cursor + size);
    const headers: Record<string, string> = {};
    if (cursor + size < all.length) {
      const next = new URL(u.pathname + u.search, origin);
      next.searchParams.set('cursor', String(cursor + size));
      headers.Link = `<${next.toString()}>; rel="next"`;
    }
    send(200, page, headers);
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((e: unknown) => {
      if (!res.headersSent) res.writeHead(500, { 'Content-Type': 'application/json' }).end(JSON.stringify({ error: String((e as Error).message) }));
    });
  });
  const listening = await listenLocal(server);
  origin = listening.origin;
  const repoOf = (name: string): Repo => {
    const r = repos.get(name);
    if (!r) throw new Error(`no repo ${name}`);
    return r;
  };
  return {
    url: origin, server, requests, faults,
    addRepo(name, files, o = {}) {
      const repo: Repo = { isPrivate: o.private ?? false, branches: new Map(), commits: new Map() };
      repos.set(name, repo);
      return makeCommit(repo, null, typeof files === 'string' ? readFolder(files) : new Map(files), 'initial commit');
    },
    head: (name, branch = 'main') => repoOf(name).branches.get(branch)!,
    fileAt: (name, rev, path) => resolveRev(repoOf(name), rev)?.files.get(path) ?? null,
    setRef: (name, ref, files) => makeCommit(repoOf(name), null, new Map(files), `update ${ref}`, ref),
    commitFiles(name, changes, title = 'concurrent commit') {
      const repo = repoOf(name);
      const head = repo.branches.get('main')!;
      const files = new Map(repo.commits.get(head)!.files);
      for (const [p, b] of changes) { if (b) files.set(p, b); else files.delete(p); }
      return makeCommit(repo, head, files, title);
    },
    beforeNextCommit: (fn) => { pendingHooks.push(fn); },
    close: listening.close,
  };
}
