/** Byte counts for people, one formatter for the core's messages and the UI. */

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
