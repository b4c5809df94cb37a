/**
 * A {@link FileSource} over a Hub-layout artifact folder on plain HTTP (the knowledge base shipped next to index.html
 * as `corpora/…`, or any static host): `read(path)` fetches `baseUrl + path` with the same streaming progress, Range
 * resume, size/SHA-256 checks and verified-only caching as the Hub source (`download.ts`). No token is ever sent.
 * A file with a known SHA-256 comes from the cache with no request; a file without one (meta.json, index_config.json)
 * is fetched, and the cached copy is used only when the host does not answer (a second open offline).
 */
import { ArtifactError, type FileSource, type ReadOptions } from '../file-source.ts';
import type { ArtifactFileCache } from './file-cache.ts';
import { ArtifactUnreachableError, cachedCopy, checkRepoPath, downloadVerified, encodePath, keep, type Fetch } from './download.ts';
import { contentKey } from './hub-source.ts';

export interface HttpFolderOptions {
  /** The folder's URL, ending with '/'. */
  baseUrl: string;
  fetch?: Fetch;
  cache?: ArtifactFileCache | null;
  retries?: number;
  retryDelayMs?: number;
  /** Never a token: a static host gets none. */
  token?: null;
}

export interface HttpFolderSource extends FileSource {
  readonly notes: string[];
}

export function httpFolderSource(opts: HttpFolderOptions): HttpFolderSource {
  if (!opts.baseUrl.endsWith('/')) throw new ArtifactError(opts.baseUrl, 'an artifact folder URL must end with "/"');
  let base: URL;
  try {
    base = new URL(opts.baseUrl);
  } catch {
    throw new ArtifactError(opts.baseUrl, 'not a URL: give the artifact folder as https://host/path/');
  }
  const f = opts.fetch ?? ((i, init) => fetch(i, init));
  const cache = opts.cache ?? null;
  const notes: string[] = [];
  return {
    label: base.href,
    notes,
    async read(path: string, ro: ReadOptions = {}) {
      checkRepoPath(path);
      const url = new URL(encodePath(path), base).href;
      if (!url.startsWith(base.href)) throw new ArtifactError(path, 'the path is not inside the artifact folder');
      const key = ro.sha256 ? contentKey(ro.sha256) : `url:${url}`;
      if (ro.sha256) {
        const hit = await cachedCopy(cache, key, ro.size, ro.sha256);
        if (hit) { ro.onProgress?.(hit.byteLength, hit.byteLength); return hit; }
      }
      let bytes: Uint8Array | null;
      try {
        bytes = await downloadVerified({
          url, file: path, fetch: f, size: ro.size, sha256: ro.sha256, onProgress: ro.onProgress, signal: ro.signal, sniff: ro.sniff,
          retries: opts.retries, retryDelayMs: opts.retryDelayMs,
        });
      } catch (e) {
        if (!(e instanceof ArtifactUnreachableError) || ro.sha256) throw e;
        const stale = await cachedCopy(cache, key, ro.size);
        if (!stale) throw e;
        notes.push(`${path}: ${e.host} did not answer, so the copy cached last time is used.`);
        return stale;
      }
      if (bytes) {
        const note = await keep(cache, key, bytes, path);
        if (note) notes.push(note);
      }
      return bytes;
    },
  };
}
