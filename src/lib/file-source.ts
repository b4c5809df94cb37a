/**
 * A place that holds files, addressed by repo-relative POSIX paths, and the fault of one of its files: what the
 * artifact readers read from and the Hub and HTTP sources, a Node folder and memory implement.
 */

/** Progress of one file: bytes so far and the total (from meta.json or the server). */
export type FileProgress = (file: string, done: number, total: number) => void;

export interface ReadOptions {
  /** Byte size from meta.json, when known (a source may use it to skip a size probe and to check truncation). */
  size?: number;
  /** Lower-case hex SHA-256 from meta.json: a source that caches must check it before caching. */
  sha256?: string;
  onProgress?: (done: number, total: number) => void;
  signal?: AbortSignal;
  /** No size or hash to check the file by (seed A): a download stops at its first bytes when they are not its kind's (PAR1, \x93NUMPY). */
  sniff?: boolean;
}

/**
 * A place that holds an artifact repo's files, addressed by repo-relative POSIX paths (`sotu/meta.json`).
 * `read` resolves null for a missing file and rejects with an {@link ArtifactError} (naming the file) for anything
 * else. Implementations: a Node folder (the CLI's), a Hub dataset repo (`hub/hub-source.ts`,
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
