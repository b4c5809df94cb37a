/**
 * One download function for every remote artifact source (Hub dataset repos, plain-HTTP Hub-layout folders): streams
 * a file with per-file progress, resumes a dropped connection with `Range: bytes=<received>-` (up to `retries` times,
 * with jittered exponential backoff), checks the size and SHA-256 meta.json gives, and only then lets the caller cache
 * the bytes. Every body is bounded by its kind's limit (`download-limits.ts`, through `bounded-read.ts`): a size
 * meta.json or the server declares over it is refused before the first byte, a body without one is cut there.
 * A token goes only in the Authorization header and only to the one origin the caller named
 * (`authorizedFetch`); it never appears in a URL, a log or a message (messages name the host, never a URL).
 */
import { ArtifactError } from '../file-source.ts';
import { hostOf, isNetworkError, onOrigin } from './hub-reach.ts';
import { cacheWriteNote, contentHashOf, type ArtifactFileCache } from './file-cache.ts';
import { sha256Hex, vouchSha256 } from '../checksum.ts';
import { ByteSink, limitFor, pumpBounded } from './bounded-read.ts';
import { checkDeclaredSize, DownloadLimitError, kindOf, NotThatFileError, type DownloadKind } from './download-limits.ts';

export type Fetch = typeof fetch;

/** No HTTP answer from the host (offline, DNS, refused, blocked, CORS): the message names the host only. */
export class ArtifactUnreachableError extends ArtifactError {
  constructor(file: string, readonly host: string) {
    super(file, `could not reach ${host} (no answer: you seem to be offline, or the host is blocked or refuses cross-origin requests). Check the connection and the host in Settings; a knowledge base opened before stays usable.`);
    this.name = 'ArtifactUnreachableError';
  }
}

/**
 * A fetch that adds `Authorization: Bearer <token>` to requests on exactly `origin` and to nothing else (a redirect
 * or a link to another host gets no token). Which origin a token may go to is the caller's decision.
 */
export function authorizedFetch(base: Fetch, token: string | null | undefined, origin: string): Fetch {
  if (!token) return base;
  return (input, init) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    if (!onOrigin(url, origin)) return base(input, init);
    const headers = new Headers(init?.headers ?? (input instanceof Request ? input.headers : undefined));
    headers.set('Authorization', `Bearer ${token}`);
    return base(input, { ...init, headers });
  };
}

/** A Hugging Face token is `hf_` and letters/digits; anything else is refused before it is sent anywhere. */
export function checkHubToken(token: string | null | undefined): void {
  if (token && !/^hf_[A-Za-z0-9_-]+$/.test(token)) throw new Error('The Hugging Face token must look like hf_… (letters and digits): check it in Settings.');
}

/** Jittered exponential backoff: base · 2^attempt · (0.5 … 1.5). */
export function backoffMs(attempt: number, baseMs: number): number {
  return baseMs * 2 ** attempt * (0.5 + Math.random());
}

export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((ok, fail) => {
    if (signal?.aborted) { fail(signal.reason); return; }
    const t = setTimeout(() => { signal?.removeEventListener('abort', onAbort); ok(); }, ms);
    const onAbort = () => { clearTimeout(t); fail(signal?.reason); };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** Repo-relative POSIX path that stays inside the repo (no `..`, no absolute path, no backslash, no empty part). */
export function checkRepoPath(path: string): void {
  const parts = path.split('/');
  if (path === '' || path.includes('\\') || parts.some((p) => p === '' || p === '.' || p === '..')) {
    throw new ArtifactError(path, 'the path is not inside the repo (no "..", no leading "/", no backslash): fix the entry that names it');
  }
}

export const encodePath = (path: string) => path.split('/').map(encodeURIComponent).join('/');

export interface DownloadOptions {
  url: string;
  /** Repo-relative name for messages. */
  file: string;
  fetch: Fetch;
  size?: number | undefined;
  sha256?: string | undefined;
  onProgress?: ((done: number, total: number) => void) | undefined;
  signal?: AbortSignal | undefined;
  /** Extra tries after a dropped connection, no answer or a 5xx/429 (default 3). */
  retries?: number | undefined;
  /** First backoff in ms (default 400). */
  retryDelayMs?: number | undefined;
  /** The file's kind for its byte limit (default: from `file`'s name) and an explicit limit overriding it. */
  kind?: DownloadKind | undefined;
  limit?: number | undefined;
  /** The body must start as its kind's files do (bounded-read.ts `sniff`): a file with no size or hash from meta.json. */
  sniff?: boolean | undefined;
  /** The message for 401/403 (default: names the status). */
  forbidden?: string | undefined;
}

const retryable = (status: number) => status >= 500 || status === 429 || status === 408;

/** Total size from `Content-Range: bytes a-b/total`, or null. */
function rangeTotal(h: string | null): { start: number; total: number } | null {
  const m = /^bytes (\d+)-\d+\/(\d+)$/.exec(h ?? '');
  return m ? { start: Number(m[1]), total: Number(m[2]) } : null;
}

/**
 * Downloads `url`, resuming after a cut; resolves null for a 404 and rejects with an {@link ArtifactError} naming
 * `file` otherwise. The bytes returned have the expected size and SHA-256 (when given).
 */
export async function downloadVerified(o: DownloadOptions): Promise<Uint8Array | null> {
  const retries = o.retries ?? 3;
  const host = hostOf(o.url);
  const kind = o.kind ?? kindOf(o.file);
  const limit = limitFor({ file: o.file, kind, limit: o.limit });
  if (o.size !== undefined) checkDeclaredSize(o.file, o.size, 'meta.json', kind, limit);
  const sink = new ByteSink(limit, o.size);
  let got = 0;
  let total = o.size ?? -1;
  let lastFault = '';
  for (let attempt = 0; ; attempt++) {
    if (attempt > 0) {
      if (attempt > retries) {
        if (lastFault === 'unreachable') throw new ArtifactUnreachableError(o.file, host);
        throw new ArtifactError(o.file, `the download from ${host} failed ${attempt} times (${lastFault}): try again later; nothing was cached`);
      }
      await sleep(backoffMs(attempt - 1, o.retryDelayMs ?? 400), o.signal);
    }
    const headers: Record<string, string> = got > 0 ? { Range: `bytes=${got}-` } : {};
    let res: Response;
    try {
      res = await o.fetch(o.url, { headers, ...(o.signal ? { signal: o.signal } : {}) });
    } catch (e) {
      if (!isNetworkError(e, o.signal)) throw e;
      lastFault = 'unreachable';
      continue;
    }
    if (res.status === 404 && got === 0) { await res.body?.cancel(); return null; }
    if (res.status === 401 || res.status === 403) {
      await res.body?.cancel();
      throw new ArtifactError(o.file, o.forbidden ?? `${host} refused the download (HTTP ${res.status}): check the token in Settings`);
    }
    if (res.status === 416 && got > 0 && got === total) break;
    if (!res.ok) {
      await res.body?.cancel();
      if (retryable(res.status)) { lastFault = `HTTP ${res.status}`; continue; }
      throw new ArtifactError(o.file, `${host} answered HTTP ${res.status}${res.statusText ? ` ${res.statusText}` : ''}: check the repo and the file name`);
    }
    const cr = rangeTotal(res.headers.get('Content-Range'));
    if (got > 0 && (res.status !== 206 || cr?.start !== got)) {
      // The server ignored the range (200) or answered another one: start over from this body.
      sink.reset();
      got = 0;
      if (res.status === 206) { await res.body?.cancel(); lastFault = 'the server answered another byte range'; continue; }
    }
    const length = Number(res.headers.get('Content-Length') ?? NaN);
    const serverTotal = cr ? cr.total : Number.isFinite(length) ? got + length : -1;
    if (serverTotal >= 0) {
      if (o.size !== undefined && serverTotal !== o.size) {
        await res.body?.cancel();
        throw new ArtifactError(o.file, `the file on ${host} has ${serverTotal} bytes, meta.json says ${o.size}: the artifact was changed after meta.json was written; rebuild or re-push it`);
      }
      if (serverTotal > limit) { await res.body?.cancel().catch(() => {}); checkDeclaredSize(o.file, serverTotal, host, kind, limit); }
      total = serverTotal;
    }
    if (!res.body) {
      const b = new Uint8Array(await res.arrayBuffer());
      if (got + b.byteLength > limit) throw new DownloadLimitError(o.file, limit, kind, { read: got + b.byteLength });
      sink.push(b);
      got += b.byteLength;
      break;
    }
    const before = got;
    try {
      await pumpBounded(res.body, sink, {
        file: o.file, kind, limit, already: before, total: total >= 0 ? total : undefined,
        onBytes: (n) => { got = before + n; }, onProgress: o.onProgress, ...(o.sniff ? { sniff: true } : {}),
      });
    } catch (e) {
      if (e instanceof DownloadLimitError || e instanceof NotThatFileError) throw e;
      if (o.signal?.aborted) throw o.signal.reason ?? e;
      lastFault = 'the connection dropped';
      continue;
    }
    if (total >= 0 && got < total) { lastFault = 'the connection dropped'; continue; }
    break;
  }
  const bytes = sink.bytes();
  if (o.size !== undefined && bytes.byteLength !== o.size) {
    throw new ArtifactError(o.file, `got ${bytes.byteLength} bytes, meta.json says ${o.size}: the download was cut or the file changed; open the knowledge base again (nothing was cached)`);
  }
  if (o.sha256 !== undefined && (await sha256Hex(bytes)) !== o.sha256.toLowerCase()) {
    throw new ArtifactError(o.file, `the SHA-256 of the downloaded file differs from meta.json: the file on ${host} is corrupt or was replaced after meta.json was written; rebuild or re-push the artifact (nothing was cached)`);
  }
  o.onProgress?.(bytes.byteLength, bytes.byteLength);
  // Checked just now: the cache's put and the artifact reader take this hash instead of hashing again.
  return o.sha256 !== undefined ? vouchSha256(bytes, o.sha256) : bytes;
}

/** A cached copy, checked against the expected size and SHA-256 when given (a mismatch counts as a miss). */
export async function cachedCopy(cache: ArtifactFileCache | null, key: string, size?: number, sha256?: string): Promise<Uint8Array | null> {
  if (!cache) return null;
  let b: Uint8Array | null;
  try {
    b = await cache.getFile(key);
  } catch {
    return null;
  }
  if (!b) return null;
  if (size !== undefined && b.byteLength !== size) return null;
  // A cache that checks content already matched a `sha256:<hex>` key's bytes to that hex: no second hash.
  const trusted = cache.checksContent === true && sha256 !== undefined && contentHashOf(key) === sha256.toLowerCase();
  if (sha256 !== undefined && !trusted && (await sha256Hex(b)) !== sha256.toLowerCase()) return null;
  return sha256 !== undefined ? vouchSha256(b, sha256) : b;
}

/** Puts verified bytes; a failed write (quota) returns the note for the user instead of failing the read. */
export async function keep(cache: ArtifactFileCache | null, key: string, bytes: Uint8Array, file: string): Promise<string | null> {
  if (!cache) return null;
  try {
    await cache.putFile(key, bytes);
    return null;
  } catch (e) {
    return cacheWriteNote(e, file);
  }
}
