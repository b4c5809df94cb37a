/** Human-readable byte counts: 512 B, 14.2 kB, 23.1 MB, 1.2 GB (decimal units, as browsers show downloads). */
export function formatBytes(n: number): string {
  if (!Number.isFinite(n) || n < 0) return '—';
  if (n < 1000) return `${n} B`;
  const units = ['kB', 'MB', 'GB', 'TB'];
  let v = n / 1000;
  let u = 0;
  while (v >= 1000 && u < units.length - 1) { v /= 1000; u++; }
  return `${v.toFixed(v < 10 ? 1 : 0)} ${units[u]}`;
}

/** Milliseconds as the telemetry shows them: "12.3 ms"; null (not measured yet) as "pending…". */
export function formatMs(ms: number | null): string {
  if (ms === null) return 'pending…';
  return Number.isFinite(ms) && ms >= 0 ? `${ms.toFixed(1)} ms` : '—';
}

/** The cross-encoder pairs of one search: "20 pairs: 12 scored, 8 from the cache"; null (not reranked yet) as "pending…". */
export function formatRerankPairs(p: { scored: number; cached: number } | null): string {
  if (p === null) return 'pending…';
  const n = p.scored + p.cached;
  return `${n} pair${n === 1 ? '' : 's'}: ${p.scored} scored, ${p.cached} from the cache`;
}
