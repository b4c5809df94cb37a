/**
 * Telling "the host could not be reached" apart from "the host answered with an error", and saying what to do about
 * the former. `fetch` rejects (a TypeError: "Failed to fetch" in browsers, "fetch failed" in Node) only when no HTTP
 * answer came at all: offline, DNS failure, refused connection, a blocked host or CORS. Messages name the host,
 * never a URL (a URL may carry a path the user did not type, and is no help to them).
 */
/** True for a fetch rejection that is not an abort: no HTTP answer arrived. */
export function isNetworkError(e: unknown, signal?: AbortSignal): boolean {
  if (signal?.aborted) return false;
  return e instanceof TypeError || (e instanceof Error && e.name === 'TypeError');
}

/** "huggingface.co" from any URL of it (the host and port only). */
export function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return 'the configured host';
  }
}

/** What to tell a user whose Hub could not be reached. */
export function unreachableMessage(hosts: readonly string[]): string {
  const names = [...new Set(hosts)].join(', ');
  return `Could not reach the Hugging Face Hub (${names}). You seem to be offline or the host is blocked: load the subset from a local file (jsonl or parquet) instead.`;
}

/** No HTTP answer from the Hub (or its dataset viewer). */
export class HubUnreachableError extends Error {
  constructor(readonly hosts: readonly string[]) {
    super(unreachableMessage(hosts));
    this.name = 'HubUnreachableError';
  }
}

/** Whether `url` is on exactly `origin` (scheme, host, port): where a token may go. False for an unreadable URL. */
export function onOrigin(url: string, origin: string): boolean {
  try {
    return new URL(url).origin === new URL(origin).origin;
  } catch {
    return false;
  }
}
