/** Keeps the best-ranked item of each source document (input must be in ranking order). */
export function dedupByDocument<T>(ranked: readonly T[], docOf: (hit: T) => string | number): T[] {
  const seen = new Set<string | number>();
  const out: T[] = [];
  for (const hit of ranked) {
    const d = docOf(hit);
    if (seen.has(d)) continue;
    seen.add(d);
    out.push(hit);
  }
  return out;
}
