export { formatBytes } from '../../lib/util/format-bytes.ts';

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

/**
 * hybrid_calibrated's entropy basis in words: "H of the cdf-calibrated scores of each retriever's top 20 (seed B)", or
 * "H of the raw scores …" for the raw basis; the calibrations per side when they differ (cdf → minmax without a table).
 */
export function entropyLine(e: { basis: 'calibrated' | 'raw'; sparse: string; dense: string; k: number; kDense?: number }): string {
  const cal = e.sparse === e.dense ? e.sparse : `${e.sparse} (sparse) / ${e.dense} (dense)`;
  const top = e.kDense === undefined || e.kDense === e.k ? `each retriever's top ${e.k}` : `BM25's top ${e.k} and the dense index's top ${e.kDense}`;
  return e.basis === 'raw'
    ? `H of the raw scores of ${top} (entropy basis raw, not seed B's)`
    : `H of the ${cal}-calibrated scores of ${top} (seed B)`;
}

/**
 * A model's start-up as the telemetry shows it: "load 1800.0 ms · warm-up 310.0 ms · first query 42.0 ms"; an
 * unknown load is left out, no warm-up reads "no warm-up", a first query not run yet "first query pending…".
 */
export function modelStartLine(m: { loadMs?: number | null; warmupMs?: number | null; firstQueryMs?: number | null }): string {
  const parts = m.loadMs === undefined || m.loadMs === null ? [] : [`load ${formatMs(m.loadMs)}`];
  parts.push(m.warmupMs === undefined || m.warmupMs === null ? 'no warm-up' : `warm-up ${formatMs(m.warmupMs)}`);
  parts.push(`first query ${formatMs(m.firstQueryMs ?? null)}`);
  return parts.join(' · ');
}
