/**
 * Pushing artifact files to an existing Hub dataset repo in one commit, safe against concurrent writers: read the head
 * sha, read `index_config.json` AT that sha (immutable), let the caller merge its entry, then
 * `commit({ parentCommit: sha })` with @huggingface/hub. The Hub answers 412 when another commit landed in between;
 * then everything is re-read and re-merged, with jittered backoff, up to `retries` times
 * (../shared/notes/hub-and-formats.md §1.3). It creates nothing: a missing repo gets "create it first".
 * The token goes only to `hubUrl`'s origin, in the Authorization header (the caller decides which hubUrl may get it).
 * `commitAtHead` is that loop on its own (report sync uses it with its own operations and messages).
 */
import { commit, HubApiError, type CommitOperation } from '@huggingface/hub';
import { ArtifactError } from '../file-source.ts';
import { hostOf } from './hub-reach.ts';
import { authorizedFetch, backoffMs, checkHubToken, downloadVerified, sleep, type Fetch } from './download.ts';
import { DEFAULT_HUB_URL, hubCallError } from './hub-source.ts';
import { revisionSha } from './revision.ts';
import { jsonApiFetch } from './server-answer.ts';

export interface PushOptions {
  /** `owner/name` of an existing dataset repo. */
  repo: string;
  /** Repo-relative path → bytes. */
  files: Map<string, Uint8Array>;
  hubUrl?: string;
  token: string;
  title: string;
  fetch?: Fetch;
  /** Tries after a 412 (default 4). */
  retries?: number;
  /** First backoff after a 412, ms (default 500). */
  retryDelayMs?: number;
  /** Merges this push's entry into the current index_config.json (null when the repo has none). */
  updateIndexConfig?: (current: Uint8Array | null) => Uint8Array;
  signal?: AbortSignal;
  /** The message (after `repo: `) for a 401/403 on the head read or the commit; default: the generic ones below. */
  denied?: (status: number) => string;
}

const INDEX_CONFIG = 'index_config.json';

/** The commit sha `main` of dataset repo `repo` points at; throws the Hub's error as it came, or one for a non-sha. */
export async function headSha(repo: string, hubUrl: string, f: Fetch): Promise<string> {
  const sha = await revisionSha({ repo, revision: 'main', hubUrl, fetch: f });
  if (sha === null) throw new ArtifactError(repo, `${hostOf(hubUrl)} gave no commit sha for main: is it a Hub?`);
  return sha;
}

export interface CommitAtHeadOptions {
  repo: string;
  hubUrl: string;
  /** Already authorized (authorizedFetch). */
  fetch: Fetch;
  /** Tries after a 412. */
  retries: number;
  /** First backoff after a 412, ms. */
  retryDelayMs: number;
  signal?: AbortSignal | undefined;
  /** Reads what it needs AT `sha` and gives the commit to make on it; null: nothing to commit. */
  prepare: (sha: string, attempt: number) => Promise<{ title: string; operations: CommitOperation[] } | null>;
  /** The error to throw for a failed head read (`e` as it came). */
  headError: (e: unknown) => Error;
  /** The error to throw for a failed commit (`e` as it came; a 412 here means the tries ran out). */
  commitError: (e: unknown, attempts: number) => Error;
}

/**
 * Head sha → `prepare(sha)` → `commit({ parentCommit: sha })`, again from the head after a 412 (jittered backoff).
 * Resolves the new commit (null when `prepare` had nothing to commit), the sha it was based on and the tries made.
 */
export async function commitAtHead(o: CommitAtHeadOptions): Promise<{ commit: string | null; parent: string; attempts: number }> {
  const repo = { type: 'dataset' as const, name: o.repo };
  for (let attempt = 0; ; attempt++) {
    let sha: string;
    try {
      sha = await headSha(o.repo, o.hubUrl, o.fetch);
    } catch (e) {
      throw e instanceof ArtifactError ? e : o.headError(e);
    }
    const next = await o.prepare(sha, attempt);
    if (!next) return { commit: null, parent: sha, attempts: attempt + 1 };
    try {
      const out = await commit({ repo, title: next.title, operations: next.operations, parentCommit: sha, hubUrl: o.hubUrl, fetch: o.fetch, useXet: false, ...(o.signal ? { abortSignal: o.signal } : {}) });
      if (!out?.commit.oid) throw new ArtifactError(o.repo, `${hostOf(o.hubUrl)} did not return the new commit: check the repo on the Hub`);
      return { commit: out.commit.oid, parent: sha, attempts: attempt + 1 };
    } catch (e) {
      if (e instanceof ArtifactError) throw e;
      if (e instanceof HubApiError && e.statusCode === 412 && attempt < o.retries) {
        await sleep(backoffMs(attempt, o.retryDelayMs), o.signal);
        continue;
      }
      throw o.commitError(e, attempt + 1);
    }
  }
}

/** The caller's message for a refused token, when it gave one. */
function deniedError(e: unknown, opts: PushOptions): ArtifactError | null {
  if (!opts.denied || !(e instanceof HubApiError) || (e.statusCode !== 401 && e.statusCode !== 403)) return null;
  return new ArtifactError(opts.repo, opts.denied(e.statusCode));
}

export async function pushFiles(opts: PushOptions): Promise<{ commit: string; attempts: number }> {
  checkHubToken(opts.token);
  if (!opts.token) throw new Error('Pushing to the Hub needs a Hugging Face token with write access (hf_…).');
  const hubUrl = (opts.hubUrl ?? DEFAULT_HUB_URL).replace(/\/+$/, '');
  const f = jsonApiFetch(authorizedFetch(opts.fetch ?? ((i, init) => fetch(i, init)), opts.token, hubUrl), hubUrl);
  const host = hostOf(hubUrl);
  const out = await commitAtHead({
    repo: opts.repo, hubUrl, fetch: f, retries: opts.retries ?? 4, retryDelayMs: opts.retryDelayMs ?? 500, signal: opts.signal,
    prepare: async (sha) => {
      const operations: CommitOperation[] = [...opts.files].map(([path, bytes]) => ({ operation: 'addOrUpdate', path, content: new Blob([bytes as Uint8Array<ArrayBuffer>]) }));
      if (opts.updateIndexConfig) {
        const current = await downloadVerified({ url: `${hubUrl}/datasets/${opts.repo}/resolve/${sha}/${INDEX_CONFIG}`, file: INDEX_CONFIG, fetch: f, signal: opts.signal });
        const merged = opts.updateIndexConfig(current);
        operations.push({ operation: 'addOrUpdate', path: INDEX_CONFIG, content: new Blob([merged as Uint8Array<ArrayBuffer>]) });
      }
      return { title: opts.title, operations };
    },
    headError: (e) => deniedError(e, opts) ?? hubCallError(e, opts.repo, opts.repo, hubUrl, `no dataset repo ${opts.repo} on ${host}: create the dataset repo first (on the Hub: New → Dataset), then try again`),
    commitError: (e, attempts) => {
      if (e instanceof HubApiError && e.statusCode === 412) {
        return new ArtifactError(opts.repo, `other commits kept landing on ${opts.repo} while pushing (${attempts} tries): try again later`);
      }
      const denied = deniedError(e, opts);
      if (denied) return denied;
      if (e instanceof HubApiError && (e.statusCode === 401 || e.statusCode === 403)) {
        return new ArtifactError(opts.repo, `${host} refused the commit (HTTP ${e.statusCode}): the token needs write access to ${opts.repo}`);
      }
      return hubCallError(e, opts.repo, opts.repo, hubUrl, `no dataset repo ${opts.repo} (or no branch main) on ${host}: create the dataset repo first, then try again`);
    },
  });
  return { commit: out.commit!, attempts: out.attempts };
}
