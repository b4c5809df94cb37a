/** What enabling the models costs, in words: download sizes from the host's file list and the embedding time. */
import type { EmbedRate } from '../../lib/models/embed-rate.ts';
import type { ModelDownload } from '../../lib/models/download-size.ts';
import { formatBytes } from '../shared/format.ts';
import { isTrainedModelId } from '../../lib/models/trained-ids.ts';

/** "40 s", "9 min", "1 h 20 min" (rounded; at least 1 s). */
export function formatDuration(seconds: number): string {
  if (!Number.isFinite(seconds) || seconds < 0) return '—';
  if (seconds < 59.5) return `${Math.max(1, Math.round(seconds))} s`;
  const minutes = Math.round(seconds / 60);
  if (minutes < 60) return `${minutes} min`;
  return `${Math.floor(minutes / 60)} h${minutes % 60 ? ` ${minutes % 60} min` : ''}`;
}

/** "Downloads ~23 MB (embedder 22.9 MB, cross-encoder 23 MB)", naming parts already in the browser cache. */
export function downloadSummary(parts: readonly { label: string; plan: ModelDownload }[]): string {
  const total = parts.reduce((a, p) => a + p.plan.bytes, 0);
  const each = parts.map(({ label, plan }) => plan.bytes > 0 || plan.cachedBytes === 0
    ? `${label} ${formatBytes(plan.bytes)}${plan.cachedBytes > 0 ? ` + ${formatBytes(plan.cachedBytes)} cached` : ''}`
    : `${label} cached`);
  if (total === 0) return `Nothing to download: the model files are in this browser’s cache (${each.join(', ')})`;
  return `Downloads ~${formatBytes(total)} (${each.join(', ')})`;
}

/** Files the host does not have, one phrase per model ('' when none is missing). */
export function missingFiles(parts: readonly { label: string; plan: ModelDownload }[]): string {
  return parts.filter((p) => p.plan.missing.length > 0)
    .map((p) => `the ${p.label} (${p.plan.id}) has no ${p.plan.missing.join(', ')} ${isTrainedModelId(p.plan.id) ? 'in this browser (a corpus-trained model: train it again)' : 'on the model host'}`).join('; ');
}

const rate = (r: EmbedRate) => (r.perSecond >= 10 ? Math.round(r.perSecond) : Math.round(r.perSecond * 10) / 10).toLocaleString();

/** The embedding estimate: before the first batch it says when it will be known, then the measured rate and time. */
export function embedSummary(chunks: number, r: EmbedRate | null): string {
  if (!r) return `embedding ${chunks.toLocaleString()} chunks; the time is measured on the first batch`;
  return `embedding ${r.total.toLocaleString()} chunks takes about ${formatDuration(r.totalS)} here at ~${rate(r)} passages/s `
    + `(measured on the first ${r.measuredOn.toLocaleString()}); about ${formatDuration(r.leftS)} left`;
}
