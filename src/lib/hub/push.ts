/**
 * Pushing artifact files to an existing Hub dataset repo in one commit, safe against concurrent writers: read the head
 * sha, read `index_config.json` AT that sha (immutable), let the caller merge its entry, then
 * `commit({ parentCommit: sha })` with @huggingface/hub. The Hub answers 412 when another commit landed in between;
 * then everything is re-read and re-merged, with jittered backoff, up to `retries` times
 * (../shared/notes/hub-and-formats.md §1.3). It creates nothing: a missing repo gets "create it first".
 * The token goes only to `hubUrl`'s origin, in the Authorization header (the caller decides which hubUrl may get it).
 */
import { commit, datasetInfo, HubApiError, type CommitOperation } from '@huggingface/hub';
import { ArtifactError } from '../artifact/types.ts';
import { hostOf } from '../data/hub-reach.ts';
import { authorizedFetch, backoffMs, checkHubToken, downloadVerified, sleep, type Fetch } from './download.ts';
import { DEFAULT_HUB_URL, hubCallError } from './hub-source.ts';

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
}

const INDEX_CONFIG = 'index_config.json';

export async function pushFiles(opts: PushOptions): Promise<{ commit: string; attempts: number }> {
  checkHubToken(opts.token);
  if (!opts.token) throw new Error('Pushing to the Hub needs a Hugging Face token with write access (hf_…).');
  const hubUrl = (opts.hubUrl ?? DEFAULT_HUB_URL).replace(/\/+$/, '');
  const f = authorizedFetch(opts.fetch ?? ((i, init) => fetch(i, init)), opts.token, hubUrl);
  const retries = opts.retries ?? 4;
  const host = hostOf(hubUrl);
  const repo = { type: 'dataset' as const, name: opts.repo };
  for (let attempt = 0; ; attempt++) {
    let sha: string;
    try {
      const info = await datasetInfo({ name: opts.repo, revision: 'main', hubUrl, fetch: f, additionalFields: ['sha'] });
      sha = String((info as { sha?: unknown }).sha ?? '');
    } catch (e) {
      throw hubCallError(e, opts.repo, opts.repo, hubUrl, `no dataset repo ${opts.repo} on ${host}: create the dataset repo first (on the Hub: New → Dataset), then push again`);
    }
    if (!/^[0-9a-f]{40}$/.test(sha)) throw new ArtifactError(opts.repo, `${host} gave no commit sha for main: is it a Hub?`);
    const operations: CommitOperation[] = [...opts.files].map(([path, bytes]) => ({ operation: 'addOrUpdate', path, content: new Blob([bytes as Uint8Array<ArrayBuffer>]) }));
    if (opts.updateIndexConfig) {
      const current = await downloadVerified({ url: `${hubUrl}/datasets/${opts.repo}/resolve/${sha}/${INDEX_CONFIG}`, file: INDEX_CONFIG, fetch: f, signal: opts.signal });
      const merged = opts.updateIndexConfig(current);
      operations.push({ operation: 'addOrUpdate', path: INDEX_CONFIG, content: new Blob([merged as Uint8Array<ArrayBuffer>]) });
    }
    try {
      const out = await commit({ repo, title: opts.title, operations, parentCommit: sha, hubUrl, fetch: f, useXet: false, ...(opts.signal ? { abortSignal: opts.signal } : {}) });
      if (!out?.commit.oid) throw new ArtifactError(opts.repo, `${host} did not return the new commit: check the repo on the Hub`);
      return { commit: out.commit.oid, attempts: attempt + 1 };
    } catch (e) {
      if (e instanceof HubApiError && e.statusCode === 412 && attempt < retries) {
        await sleep(backoffMs(attempt, opts.retryDelayMs ?? 500), opts.signal);
        continue;
      }
      if (e instanceof HubApiError && e.statusCode === 412) {
        throw new ArtifactError(opts.repo, `other commits kept landing on ${opts.repo} while pushing (${attempt + 1} tries): push again later`);
      }
      if (e instanceof HubApiError && (e.statusCode === 401 || e.statusCode === 403)) {
        throw new ArtifactError(opts.repo, `${host} refused the commit (HTTP ${e.statusCode}): the token needs write access to ${opts.repo}`);
      }
      throw hubCallError(e, opts.repo, opts.repo, hubUrl, `no dataset repo ${opts.repo} (or no branch main) on ${host}: create the dataset repo first, then push again`);
    }
  }
}
