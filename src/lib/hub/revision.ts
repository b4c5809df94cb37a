/**
 * A revision (branch, tag or sha) of a Hub dataset repo resolved to the commit sha it points at, in one place: the
 * artifact reader pins its reads to it, a push commits on it (`main`), report sync reads the listing at it.
 */
import { datasetInfo } from '@huggingface/hub';
import type { Fetch } from './download.ts';

/** A full commit sha as the Hub writes it: 40 lower-case hex digits. */
export const COMMIT_SHA = /^[0-9a-f]{40}$/;

export interface RevisionQuery {
  repo: string;
  revision: string;
  hubUrl: string;
  /** Already authorized (authorizedFetch) where the repo may be private. */
  fetch: Fetch;
}

/**
 * The commit sha `revision` of dataset repo `repo` points at (the Hub's dataset info, `sha` field); null when the
 * answer has no full sha (not a Hub). The Hub's own errors (404, 401, network) are thrown as they came.
 */
export async function revisionSha(q: RevisionQuery): Promise<string | null> {
  const info = await datasetInfo({ name: q.repo, revision: q.revision, hubUrl: q.hubUrl, fetch: q.fetch, additionalFields: ['sha'] });
  const sha = (info as { sha?: unknown }).sha;
  return typeof sha === 'string' && COMMIT_SHA.test(sha) ? sha : null;
}
