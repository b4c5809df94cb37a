/**
 * The page URL is shared by the tabs: each writer replaces only the parameters it owns and keeps the others, so a
 * link can carry the Search state, the Ask state and the open tab together.
 */
export function writeOwnedParams(owned: (key: string) => boolean, params: URLSearchParams): void {
  const next = new URLSearchParams();
  for (const [k, v] of new URLSearchParams(location.search)) if (!owned(k)) next.append(k, v);
  for (const [k, v] of params) next.append(k, v);
  const qs = next.toString();
  const url = `${location.pathname}${qs ? `?${qs}` : ''}${location.hash}`;
  if (url !== `${location.pathname}${location.search}${location.hash}`) history.replaceState(null, '', url);
}
