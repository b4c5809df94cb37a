/**
 * Why a user-set endpoint (the arXiv proxy, a search instance) cannot be used, or null: an http(s) URL with no user
 * name or password (nothing secret travels to it) and no query or fragment (the caller appends its parameters).
 */
export function plainEndpointProblem(url: string, say: { example: string; to: string; params: string }): string | null {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return `must be an http(s) URL, e.g. ${say.example}`;
  }
  if (u.protocol !== 'https:' && u.protocol !== 'http:') return 'must be an http(s) URL';
  if (u.username || u.password) return `must not carry a user name or password (nothing secret is sent to ${say.to})`;
  if (u.search || u.hash) return `must not have a query or fragment: ${say.params}`;
  return null;
}
