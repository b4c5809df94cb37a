/**
 * The contract of knowledge-base artifacts (format v1, docs/index-format.md): what a reader gets from a place that
 * holds files (a folder, a Hub dataset repo, memory), and what opening an artifact yields. Every reader and writer
 * (CLI, workers, tests) goes through these types; the valibot schemas of the JSON files live in `format.ts`.
 */
import type { BeirQuery, Qrels } from '../data/beir.ts';
import type { KbDescriptor } from '../data/kb-source.ts';
import type { CdfTable } from '../retrieval/calibrate.ts';
import type { HnswIndexData } from '../retrieval/hnsw.ts';
import type { KnowledgeBase } from '../retrieval/knowledge-base.ts';
import type { Int8IndexData } from '../retrieval/quantized.ts';

/** Progress of one file: bytes so far and the total (from meta.json or the server). */
export type FileProgress = (file: string, done: number, total: number) => void;

export interface ReadOptions {
  /** Byte size from meta.json, when known (a source may use it to skip a size probe and to check truncation). */
  size?: number;
  /** Lower-case hex SHA-256 from meta.json: a source that caches must check it before caching. */
  sha256?: string;
  onProgress?: (done: number, total: number) => void;
  signal?: AbortSignal;
}

/**
 * A place that holds an artifact repo's files, addressed by repo-relative POSIX paths (`sotu/meta.json`).
 * `read` resolves null for a missing file and rejects with an {@link ArtifactError} (naming the file) for anything
 * else. Implementations: a Node folder (`node-folder-source.ts`, CLI), a Hub dataset repo (`../hub/hub-source.ts`,
 * worker and CLI), memory (tests, the Build tab).
 */
export interface FileSource {
  /** Where the files come from, for messages: "/data/kb", "hub:owner/repo@1a2b3c4". */
  readonly label: string;
  read(path: string, opts?: ReadOptions): Promise<Uint8Array | null>;
  /** Repo-relative paths of every file under `dir` ('' = the root), when the source can list them. */
  list?(dir: string): Promise<string[]>;
}

/** A fault of an artifact file; `file` is repo-relative, the message says what to do. */
export class ArtifactError extends Error {
  constructor(readonly file: string, message: string) {
    super(`${file}: ${message}`);
    this.name = 'ArtifactError';
  }
}

/** The dense side of an opened artifact, ready for `attachArtifactDense`. */
export interface ArtifactDense {
  embedder: { id: string; dtype: string; dim: number; pooling: 'mean' | 'cls'; normalized: true; prefixes: { query: string; passage: string } };
  /** Row-major items × dim, L2-normalised (null when only the int8 file was read). */
  vectors: Float32Array | null;
  int8: Int8IndexData | null;
  hnsw: HnswIndexData | null;
  cdf: CdfTable | null;
  /** Rows left out of dense search (1 = NaN/infinite/zero in the shipped vectors; zeroed), or null/absent. */
  skip?: Uint8Array | null;
}

export interface OpenedArtifact {
  /** The index's id (its entry in index_config.json, or the folder name). */
  id: string;
  descriptor: KbDescriptor;
  kb: KnowledgeBase;
  dense: ArtifactDense | null;
  /** Carried by artifacts built from a BEIR folder. */
  queries: BeirQuery[] | null;
  qrels: Qrels | null;
  /** Things the user should know (seed-A files ignored, BM25 rebuilt…). */
  notes: string[];
  /** Bytes read per file (for the bench and the UI). */
  bytes: Record<string, number>;
}
