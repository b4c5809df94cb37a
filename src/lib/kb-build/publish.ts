/**
 * Publishing a knowledge base built in this browser to a Hub dataset repo: its artifact folder under `<name>/` and
 * `index_config.json` in one commit on `parentCommit` (pushFiles), other writers' entries kept: the index list is
 * re-read at the head sha and merged with `addToIndexConfig` at every try (a concurrent commit's 412 included).
 * The result names the commit, and the `kb=` id pinned AT that commit (`hub:owner/name/<name>@<sha>`), so a link
 * made from it opens the same bytes for anyone, whatever is pushed later. The repo must exist (nothing is created)
 * and the token goes only to `hubUrl` (authorizedFetch), never into a URL or a message.
 */
import { FILES, parseIndexConfig, parseJsonBytes, safeRepoPath, type IndexEntry } from '../artifact/format.ts';
import { ArtifactError } from '../artifact/types.ts';
import { addToIndexConfig, indexConfigBytes } from '../artifact/write.ts';
import { hostOf } from '../hub/hub-reach.ts';
import { kbIdOf } from '../data/kb-registry.ts';
import { checkHubToken } from '../hub/download.ts';
import { pushFiles } from '../hub/push.ts';
import { type OnBuildProgress } from '../data/source-documents.ts';
import { LOCAL_KB_NAME } from '../data/local-kb-meta.ts';
import { checkPublishTarget } from './publish-target.ts';

export { checkPublishTarget };

export interface PublishOptions {
  repo: string;
  hubUrl: string;
  token: string;
  name: string;
  /** Index-folder-relative artifact files (as stored). */
  files: Map<string, Uint8Array>;
  entry: IndexEntry;
  fetch?: typeof fetch;
  signal?: AbortSignal;
  onProgress?: OnBuildProgress;
  /** Tries after a 412 (default 4) and the first backoff, ms (default 500): tests make them short. */
  retries?: number;
  retryDelayMs?: number;
}

export interface PublishedKb {
  repo: string;
  commit: string;
  /** The index folder in the repo (the knowledge base's name). */
  path: string;
  /** `hub:owner/name/<name>@<commit>`: the `kb=` link value that opens exactly this commit. */
  kbId: string;
  /** Tries the commit took (1, or more after concurrent commits). */
  attempts: number;
}

/** A Hub dataset repo id as a person types it: `owner/name`. */
export async function publishLocalKb(opts: PublishOptions): Promise<PublishedKb> {
  const { repo, name } = opts;
  const bad = checkPublishTarget(repo, opts.hubUrl);
  if (bad) throw new ArtifactError(repo, bad);
  if (!LOCAL_KB_NAME.test(name)) throw new ArtifactError(name, 'is not a knowledge-base name (lower-case letters, digits, ".", "_", "-")');
  if (!opts.token) throw new ArtifactError(repo, 'publishing needs a Hugging Face token with write access (hf_…): add it in Settings');
  checkHubToken(opts.token);
  if (!opts.files.has(FILES.meta)) throw new ArtifactError(`${name}/${FILES.meta}`, 'is missing: this knowledge base is incomplete; build it again');
  const hubUrl = opts.hubUrl.replace(/\/+$/, '');
  const host = hostOf(hubUrl);
  const files = new Map<string, Uint8Array>();
  for (const [path, bytes] of opts.files) files.set(`${name}/${safeRepoPath(path)}`, bytes);
  // The entry lists the folder it is published in; an entry of the same id (an earlier publish of it) is replaced.
  const entry: IndexEntry = { ...opts.entry, id: name, path: name };
  const total = files.size + 1;
  opts.onProgress?.({ stage: 'save', done: 0, total, item: `${repo} on ${host}` });
  const pushed = await pushFiles({
    repo, files, hubUrl, token: opts.token, title: `RAG Lab: publish ${name}`,
    ...(opts.fetch ? { fetch: opts.fetch } : {}),
    ...(opts.signal ? { signal: opts.signal } : {}),
    ...(opts.retries !== undefined ? { retries: opts.retries } : {}),
    ...(opts.retryDelayMs !== undefined ? { retryDelayMs: opts.retryDelayMs } : {}),
    // Re-read at every try: entries other writers added in between are kept, ours is added or replaced.
    updateIndexConfig: (current) => indexConfigBytes(addToIndexConfig(current ? parseIndexConfig(parseJsonBytes(current, FILES.indexConfig)) : null, entry)),
    denied: (status) => `the token cannot write to ${repo} (${host} answered HTTP ${status}): in Settings, give an hf_ token with write access to this repo (a fine-grained token needs "write" on it)`,
  });
  opts.onProgress?.({ stage: 'save', done: total, total, item: `${repo} on ${host}` });
  const kbId = kbIdOf({ kind: 'hub', repo, path: name, revision: pushed.commit });
  return { repo, commit: pushed.commit, path: name, kbId, attempts: pushed.attempts };
}
