/**
 * What the Publish part of the Build tab shows, from plain data (unit-tested in tests/unit/publish-view.test.ts): the
 * repo as typed (owner/name or its Hub page URL) checked, the link that opens a published knowledge base for anyone
 * (`?kb=hub:owner/name/<name>@<commit>`, pinned at the commit) and the lines around it.
 */
import { checkPublishTarget } from '../../lib/kb-build/publish-target.ts';
import { hostOf } from '../../lib/hub/hub-reach.ts';
import { repoFromInput } from '../../lib/data/kb-registry.ts';

/** The repo from the field (owner/name, or the dataset's Hub page URL), or the message saying what to fix. */
export function publishRepo(raw: string, hubUrl: string): { ok: true; repo: string } | { ok: false; message: string } {
  const repo = repoFromInput(raw);
  if (repo === '') return { ok: false, message: 'Give the Hub dataset repo to publish to, as owner/name.' };
  const bad = checkPublishTarget(repo, hubUrl);
  return bad ? { ok: false, message: `${bad[0]!.toUpperCase()}${bad.slice(1)}.` } : { ok: true, repo };
}

/**
 * The app's address with `kb=<kbId>`: opening it opens that knowledge base in Search. `:`, `/` and `@` stay readable
 * (they are allowed in a query, and URLSearchParams reads them back as they are).
 */
export function kbLink(kbId: string, loc: Pick<Location, 'origin' | 'pathname'>): string {
  const value = encodeURIComponent(kbId).replace(/%3A/gi, ':').replace(/%2F/gi, '/').replace(/%40/gi, '@');
  return `${loc.origin}${loc.pathname}?kb=${value}`;
}

/** The line shown while publishing. */
export function publishingLine(repo: string, hubUrl: string, files: number | null): string {
  return `Publishing to ${repo} on ${hostOf(hubUrl)}${files ? `: ${files.toLocaleString('en-US')} files in one commit` : ''}…`;
}

/** A commit sha as people quote it (the first 7 characters). */
export const shortSha = (sha: string) => sha.slice(0, 7);

export const NO_TOKEN = 'Publishing needs your Hugging Face token with write access (hf_…): add it in Settings. It stays in this browser and is sent only to the Hub URL set there.';
export const PUBLIC_NOTE = 'The link opens this exact commit. Others can open it only if the dataset repo is public; the repo must exist already (on the Hub: New → Dataset).';
