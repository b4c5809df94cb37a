/**
 * A {@link FileSource} over a Hugging Face Hub dataset repo (or a Hub imitation at another `hubUrl`). The revision is
 * resolved once to a commit sha (`datasetInfo` of @huggingface/hub; a 40-hex revision is used as is) and every file
 * is read at that sha, so reads are immutable and cacheable: a file whose SHA-256 meta.json gives is cached by that
 * hash, any other file (meta.json, index_config.json) by (hubUrl, repo, sha, path). A cached file is used with no
 * network request. When the revision cannot be resolved (no answer, 5xx) the sha last resolved for this
 * (hubUrl, repo, revision) comes from the cache, so a second open works offline.
 *
 * Downloads go through `download.ts`: streamed with progress, resumed with Range after a cut, size and SHA-256
 * checked before anything is cached.
 *
 * Tokens: the token is sent only as `Authorization: Bearer`, only to `hubUrl`'s origin, never in a URL, log or
 * message. THE CALLER decides which hubUrl a token may go to: the app passes a token only for https://huggingface.co
 * or an origin the user typed in Settings, never for one that came from a link or URL state.
 */
import { HUB_ORIGIN } from './endpoint.ts';
import { HubApiError, listFiles } from '@huggingface/hub';
import { ArtifactError, type FileSource, type ReadOptions } from '../file-source.ts';
import { hostOf, isNetworkError } from './hub-reach.ts';
import type { ArtifactFileCache } from './file-cache.ts';
import { ArtifactUnreachableError, authorizedFetch, cachedCopy, checkHubToken, checkRepoPath, downloadVerified, encodePath, keep, type Fetch } from './download.ts';
import { COMMIT_SHA, revisionSha } from './revision.ts';
import { jsonApiFetch, unexpectedAnswerLine } from './server-answer.ts';

export const DEFAULT_HUB_URL = HUB_ORIGIN;
const REPO = /^[A-Za-z0-9][\w.-]*\/[\w.-]+$/;

export interface HubSourceOptions {
  /** `owner/name` of a dataset repo. */
  repo: string;
  /** A branch, tag or commit sha (default main). */
  revision?: string;
  hubUrl?: string;
  token?: string | null;
  fetch?: Fetch;
  cache?: ArtifactFileCache | null;
  /** Extra tries per file after a dropped connection or a 5xx (default 3). */
  retries?: number;
  /** First retry delay in ms (default 400; tests make it small). */
  retryDelayMs?: number;
}

export interface HubFileSource extends FileSource {
  /** The commit every file is read at. */
  readonly sha: string;
  /** Where the sha came from: the Hub answered, the cache (offline), or the revision was a sha already. */
  readonly resolved: 'network' | 'cache' | 'pinned';
  readonly repo: string;
  readonly hubUrl: string;
  /** Things for the UI: cache writes that failed (quota), the revision taken from the cache. */
  readonly notes: string[];
  readonly lastNote: string | null;
  /** Files under `dir` at the pinned sha (the tree API, recursive). */
  list(dir: string): Promise<string[]>;
}

/** The repo-level message for a 401/403 (the Hub answers 401 for private and for missing repos without a token). */
export const privateRepoMessage = (repo: string) => `the repo ${repo} is private or gated: add a Hugging Face token (hf_…) in Settings`;

const trimSlash = (u: string) => u.replace(/\/+$/, '');
export const refKey = (hubUrl: string, repo: string, revision: string) => `ref:${trimSlash(hubUrl)}|${repo}|${revision}`;
export const pinnedKey = (hubUrl: string, repo: string, sha: string, path: string) => `hub:${trimSlash(hubUrl)}|${repo}|${sha}|${path}`;
export const contentKey = (sha256: string) => `sha256:${sha256.toLowerCase()}`;

/** Turns a failure of an @huggingface/hub call into an ArtifactError naming `what` and the host (never the URL). */
export function hubCallError(e: unknown, what: string, repo: string, hubUrl: string, notFound: string): Error {
  const unreadable = unexpectedAnswerLine(e, hubUrl);
  if (unreadable) return new ArtifactError(what, unreadable);
  if (isNetworkError(e)) return new ArtifactUnreachableError(what, hostOf(hubUrl));
  if (e instanceof HubApiError) {
    if (e.statusCode === 401 || e.statusCode === 403) return new ArtifactError(what, privateRepoMessage(repo));
    if (e.statusCode === 404) return new ArtifactError(what, notFound);
    return new ArtifactError(what, `${hostOf(hubUrl)} answered HTTP ${e.statusCode}: try again later`);
  }
  return e as Error;
}

export async function hubSource(opts: HubSourceOptions): Promise<HubFileSource> {
  const { repo } = opts;
  if (!REPO.test(repo) || repo.includes('..')) throw new ArtifactError(repo, 'a Hub dataset repo is named owner/name (letters, digits, "-", "_", ".")');
  checkHubToken(opts.token);
  const hubUrl = trimSlash(opts.hubUrl ?? DEFAULT_HUB_URL);
  const revision = opts.revision ?? 'main';
  const cache = opts.cache ?? null;
  const f = jsonApiFetch(authorizedFetch(opts.fetch ?? ((i, init) => fetch(i, init)), opts.token, hubUrl), hubUrl);
  const notes: string[] = [];
  const what = `${repo}@${revision}`;

  let sha: string;
  let resolved: HubFileSource['resolved'];
  if (COMMIT_SHA.test(revision)) {
    sha = revision;
    resolved = 'pinned';
  } else {
    try {
      const s = await revisionSha({ repo, revision, hubUrl, fetch: f });
      if (s === null) throw new ArtifactError(what, `${hostOf(hubUrl)} gave no commit sha for the revision: is it a Hub?`);
      sha = s;
      resolved = 'network';
      await cache?.putRef(refKey(hubUrl, repo, revision), sha).catch(() => {});
    } catch (e) {
      const err = hubCallError(e, what, repo, hubUrl, `no dataset repo ${repo} with a revision "${revision}" on ${hostOf(hubUrl)}: check the repo name and revision`);
      const transient = err instanceof ArtifactUnreachableError || (e instanceof HubApiError && e.statusCode >= 500);
      const cached = transient && cache ? await cache.getRef(refKey(hubUrl, repo, revision)).catch(() => null) : null;
      if (!cached) throw err;
      sha = cached;
      resolved = 'cache';
      notes.push(`${hostOf(hubUrl)} did not answer: ${repo}@${revision} is opened at ${sha.slice(0, 7)}, the commit cached last time.`);
    }
  }

  const source: HubFileSource = {
    label: `hub:${repo}@${sha.slice(0, 7)}`,
    sha, resolved, repo, hubUrl, notes,
    get lastNote() { return notes.at(-1) ?? null; },
    async read(path: string, ro: ReadOptions = {}) {
      checkRepoPath(path);
      const key = ro.sha256 ? contentKey(ro.sha256) : pinnedKey(hubUrl, repo, sha, path);
      const hit = await cachedCopy(cache, key, ro.size, ro.sha256);
      if (hit) { ro.onProgress?.(hit.byteLength, hit.byteLength); return hit; }
      const bytes = await downloadVerified({
        url: `${hubUrl}/datasets/${repo}/resolve/${sha}/${encodePath(path)}`,
        file: path, fetch: f, size: ro.size, sha256: ro.sha256, onProgress: ro.onProgress, signal: ro.signal,
        retries: opts.retries, retryDelayMs: opts.retryDelayMs, forbidden: privateRepoMessage(repo), sniff: ro.sniff,
      });
      if (bytes) {
        const note = await keep(cache, key, bytes, path);
        if (note) notes.push(note);
      }
      return bytes;
    },
    async list(dir: string) {
      if (dir !== '') checkRepoPath(dir);
      const out: string[] = [];
      try {
        for await (const e of listFiles({ repo: { type: 'dataset', name: repo }, revision: sha, recursive: true, hubUrl, fetch: f, ...(dir ? { path: dir } : {}) })) {
          if (e.type === 'file') out.push(e.path);
        }
      } catch (e) {
        throw hubCallError(e, dir || repo, repo, hubUrl, `no folder ${dir || '(root)'} in ${repo}@${sha.slice(0, 7)}`);
      }
      return out;
    },
  };
  return source;
}
