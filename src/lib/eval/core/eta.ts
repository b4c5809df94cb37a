/**
 * The time a run has left, one rule for every progress display (the RAGBench run, the retrieval benchmark): the mean
 * time of the items computed so far in this run times the items left. Items served from a cache are not counted as
 * computed (they take no time), so an ETA appears once one item has been computed.
 */

/** ms left: `elapsedMs / computed × left`; null until an item is computed; 0 when nothing is left. */
export function remainingMs(elapsedMs: number, computed: number, left: number): number | null {
  if (left <= 0) return 0;
  if (computed <= 0 || !Number.isFinite(elapsedMs) || elapsedMs < 0) return null;
  return (elapsedMs / computed) * left;
}

/** "ETA …" (not known yet), "ETA <1 s", "ETA 42 s", "ETA 3 min 05 s", "ETA 1 h 02 min". */
export function etaText(ms: number | null): string {
  if (ms === null || !Number.isFinite(ms)) return 'ETA …';
  if (ms < 1000) return 'ETA <1 s';
  const s = Math.round(ms / 1000);
  if (s < 60) return `ETA ${s} s`;
  if (s < 3600) return `ETA ${Math.floor(s / 60)} min ${String(s % 60).padStart(2, '0')} s`;
  const m = Math.round(s / 60);
  return `ETA ${Math.floor(m / 60)} h ${String(m % 60).padStart(2, '0')} min`;
}
