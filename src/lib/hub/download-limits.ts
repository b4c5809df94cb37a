/**
 * The byte limit of every kind of file this app downloads (docs/index-format.md, "Download limits"; docs/hub.md):
 * one table, used by the one bounded reader (`bounded-read.ts`) and by meta.json's declared sizes. A file over its
 * kind's limit is a hostile or broken file, not data a browser tab can hold: it is refused before its first byte
 * when its size is declared (Content-Length, meta.json), and cut at the limit when it is not.
 *
 * The limits sit far above real data (the SOTU artifact is ~1 MB in all; SciFact's 5,183 documents make a
 * ~8 MB docs.parquet and a ~8 MB float32 embeddings.npy at dim 384) and below what a tab survives: a float32
 * matrix of 1M chunks × 384 is 1.5 GB, so vectors and graphs get 2 GiB; text tables 1 GiB; JSON that only
 * describes (meta.json, index_config.json) a few MB in practice, so tens of MB.
 */
import { ArtifactError } from '../file-source.ts';

export type DownloadKind = 'report' | 'meta' | 'index-config' | 'parquet' | 'npy' | 'hnsw' | 'zip' | 'json' | 'viewer-page' | 'other';

const MiB = 1024 * 1024;
const GiB = 1024 * MiB;

export const DOWNLOAD_LIMITS: Readonly<Record<DownloadKind, number>> = Object.freeze({
  /** The report file limit, = REPORT_LIMITS.maxBytes (a unit test holds them equal; not imported, so the
   *  artifact reader does not load the report schemas). */
  report: 200 * MiB,
  meta: 32 * MiB,
  'index-config': 64 * MiB,
  parquet: GiB,
  npy: 2 * GiB,
  hnsw: 2 * GiB,
  zip: 2 * GiB,
  /** Other JSON of an artifact (bm25/terms.json: the vocabulary). */
  json: 256 * MiB,
  /** One page of the dataset viewer's /rows or /splits API. */
  'viewer-page': 64 * MiB,
  other: 256 * MiB,
});

/** What a kind is called in messages ("over the 1 GiB limit for parquet files"). */
const KIND_NAME: Record<DownloadKind, string> = {
  report: 'reports', meta: 'meta.json', 'index-config': 'index_config.json', parquet: 'parquet files', npy: '.npy arrays',
  hnsw: 'HNSW graphs', zip: 'zip files', json: 'JSON files', 'viewer-page': 'dataset-viewer pages', other: 'downloads',
};

/** The kind of a repo-relative file name. */
export function kindOf(file: string): DownloadKind {
  const name = file.split('/').at(-1) ?? file;
  if (/^reports\/.*\.json$/.test(file) || /^report_.*\.json$/.test(name)) return 'report';
  if (name === 'meta.json') return 'meta';
  if (name === 'index_config.json') return 'index-config';
  if (name.endsWith('.parquet')) return 'parquet';
  if (name.endsWith('.npy')) return 'npy';
  if (name.endsWith('.bin')) return 'hnsw';
  if (name.endsWith('.zip')) return 'zip';
  if (name.endsWith('.json')) return 'json';
  return 'other';
}

/**
 * Sizes in these messages are binary, as the limits are (and as the report format's "200 MB" is 200 MiB): a limit
 * as written in the docs ("200 MB", "2 GB"), a size seen with one decimal ("200.1 MB", "10.0 GB").
 */
export function formatLimit(n: number): string {
  return n >= GiB ? `${+(n / GiB).toFixed(1)} GB` : n >= MiB ? `${+(n / MiB).toFixed(1)} MB` : `${n} B`;
}
export function formatSeen(n: number): string {
  return n >= GiB ? `${(n / GiB).toFixed(1)} GB` : n >= MiB ? `${(n / MiB).toFixed(1)} MB` : n >= 1024 ? `${(n / 1024).toFixed(1)} KB` : `${n} B`;
}

/** A download over its kind's limit: names the file, the limit and what was seen (declared size or bytes read). */
export class DownloadLimitError extends ArtifactError {
  constructor(file: string, readonly limit: number, readonly kind: DownloadKind, readonly seen: { declared: number } | { read: number }, declaredBy = 'the server') {
    super(file, 'declared' in seen
      ? `declared ${formatSeen(seen.declared)} (by ${declaredBy}), over the ${formatLimit(limit)} limit for ${KIND_NAME[kind]}: refused before downloading it`
      : `over the ${formatLimit(limit)} limit for ${KIND_NAME[kind]} (stopped reading at ${formatSeen(seen.read)})`);
    this.name = 'DownloadLimitError';
  }
}

/**
 * The bytes a file of a kind starts with (parquet `PAR1`, NumPy `\x93NUMPY`, zip `PK`): a body from its first byte
 * that starts otherwise is not that file, and is refused after its first chunk instead of being read whole.
 */
export const MAGIC: Readonly<Partial<Record<DownloadKind, { bytes: readonly number[]; name: string }>>> = Object.freeze({
  parquet: { bytes: [0x50, 0x41, 0x52, 0x31], name: 'a parquet file (PAR1)' },
  npy: { bytes: [0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59], name: 'a .npy array (\\x93NUMPY)' },
  zip: { bytes: [0x50, 0x4b], name: 'a zip file (PK)' },
});

/** A body that does not start as its kind's files do (see {@link MAGIC}): refused at its first bytes. */
export class NotThatFileError extends ArtifactError {
  constructor(file: string, what: string, read: number) {
    super(file, `is not ${what}: its first bytes say otherwise, so it was not downloaded (stopped reading at ${formatSeen(read)})`);
    this.name = 'NotThatFileError';
  }
}

/** The limit of `file` (an explicit one wins). */
export const limitOf = (file: string, kind: DownloadKind = kindOf(file)) => DOWNLOAD_LIMITS[kind];

/** Throws when a declared size is over `file`'s limit; `declaredBy` says who declared it ("meta.json"). */
export function checkDeclaredSize(file: string, declared: number, declaredBy: string, kind: DownloadKind = kindOf(file), limit = DOWNLOAD_LIMITS[kind]): void {
  if (declared > limit) throw new DownloadLimitError(file, limit, kind, { declared }, declaredBy);
}
