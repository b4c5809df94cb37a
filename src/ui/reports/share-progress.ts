/** The loading banner's progress of a `#ref=` download: bytes so far, of at most the report limit. */
import { formatLimit, formatSeen } from '../../lib/hub/download-limits.ts';

export function downloadProgressText(p: { done: number; limit: number }): string {
  return `${formatSeen(p.done)} so far (at most ${formatLimit(p.limit)}, the report limit).`;
}
