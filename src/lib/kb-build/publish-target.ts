/** Where a knowledge base is published: the form's repo and the Hub URL, checked before anything is sent (publish.ts publishes). */

const REPO = /^[A-Za-z0-9][A-Za-z0-9._-]{0,95}\/[A-Za-z0-9][A-Za-z0-9._-]{0,95}$/;

/** Checks what the form gives before anything is sent; the message says what to fix. */
export function checkPublishTarget(repo: string, hubUrl: string): string | null {
  if (!REPO.test(repo) || repo.includes('..')) return `"${repo}" is not a Hub dataset repo: give it as owner/name (letters, digits, ".", "_", "-")`;
  let u: URL;
  try { u = new URL(hubUrl); } catch { return 'the Hub URL in Settings is not a URL'; }
  if (u.protocol !== 'https:' && u.protocol !== 'http:') return 'the Hub URL in Settings must be http(s)';
  return null;
}
