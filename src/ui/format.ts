export { formatBytes } from '../lib/format-bytes.ts';

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
