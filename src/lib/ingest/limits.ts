/**
 * How much the file ingester takes at once. The defaults are sized for a browser tab (a file's bytes, its pdf.js
 * document and its text are all in memory at the same time); the CLI uses the same ones so both give the same
 * documents. A file over a limit is skipped with a reason that names the limit; the others are used.
 */
import { formatBytes } from '../util/format-bytes.ts';
import type { FileFormat } from './formats.ts';

export interface IngestLimits {
  /** Largest PDF file, in bytes. */
  maxPdfBytes: number;
  /** Largest TXT, MD or HTML file, in bytes. */
  maxTextBytes: number;
  /** All files together, in bytes (files past it, in path order, are skipped). */
  maxTotalBytes: number;
  /** Number of files taken (files past it, in path order, are skipped). */
  maxFiles: number;
}

/** Decimal units, as `formatBytes` shows them (and browsers show file sizes). */
const MB = 1_000_000;

/** 100 MB a PDF, 20 MB a text file, 1 GB and 20,000 files in all. */
export const DEFAULT_INGEST_LIMITS: Readonly<IngestLimits> = Object.freeze({
  maxPdfBytes: 100 * MB,
  maxTextBytes: 20 * MB,
  maxTotalBytes: 1000 * MB,
  maxFiles: 20_000,
});

/** Why a file of this format and size is not taken on its own, or null when it fits. */
export function sizeLimitReason(format: FileFormat, size: number, limits: IngestLimits = DEFAULT_INGEST_LIMITS): string | null {
  const max = format === 'pdf' ? limits.maxPdfBytes : limits.maxTextBytes;
  if (size <= max) return null;
  const what = format === 'pdf' ? 'a PDF' : 'a text or HTML file';
  return `too large: ${formatBytes(size)}, the limit for ${what} is ${formatBytes(max)} (split the file)`;
}

export const totalLimitReason = (limits: IngestLimits) =>
  `over the total size limit: the files before it in path order already add up to the ${formatBytes(limits.maxTotalBytes)} a build takes (build from fewer files)`;

export const fileCountLimitReason = (limits: IngestLimits) =>
  `over the file count limit: a build takes ${limits.maxFiles.toLocaleString('en-US')} files (build from fewer files)`;
