/**
 * Reads the files of one index folder from a {@link FileSource}, checking each against its meta.json entry (byte size,
 * then SHA-256) before anyone uses it, whatever the source checked itself; records the bytes read per file.
 */
import { checkDeclaredSize } from '../hub/download-limits.ts';
import { sha256Of } from '../checksum.ts';
import { FILES, joinPath, type FileEntry } from './format.ts';
import { parseNpy, type Npy, type NpyDtype } from './npy.ts';
import { ArtifactError, type FileProgress, type FileSource } from './types.ts';

export interface OpenArtifactOptions {
  onProgress?: FileProgress;
  signal?: AbortSignal;
  /** Which vectors to read: 'auto' = int8 when shipped (smaller), else float32; 'none' when no embedder. */
  dense?: 'auto' | 'none' | 'float32' | 'int8';
  /** Also read hnsw.bin when shipped (it holds float32 vectors too, so it is not read by default). */
  hnsw?: boolean;
}

/** Reads files of one index folder, verifying each against its meta.json entry before anyone uses it. */
export class VerifiedReader {
  readonly bytes: Record<string, number> = {};
  constructor(
    readonly source: FileSource,
    readonly dir: string,
    private readonly table: Record<string, FileEntry> | null,
    private readonly opts: { onProgress?: FileProgress; signal?: AbortSignal },
  ) {
    // Sizes meta.json declares are checked against the download limits now, before any file is requested.
    for (const [name, entry] of Object.entries(table ?? {})) checkDeclaredSize(this.path(name), entry.bytes, 'meta.json');
  }

  path(name: string): string {
    return joinPath(this.dir, name);
  }

  has(name: string): boolean {
    return this.table ? name in this.table : true;
  }

  /**
   * The file's bytes, checked against meta.json's size and SHA-256 (a source without a table, seed A, is read as
   * it is). Missing: null when `optional`, else an error.
   */
  async read(name: string, optional = false): Promise<Uint8Array | null> {
    const path = this.path(name);
    const entry = this.table?.[name];
    if (this.table && !entry) {
      if (optional) return null;
      throw new ArtifactError(joinPath(this.dir, FILES.meta), `lists no ${name}: the index is incomplete; rebuild it`);
    }
    const bytes = await this.source.read(path, {
      ...(entry ? { size: entry.bytes, sha256: entry.sha256 } : { sniff: true }),
      ...(this.opts.onProgress ? { onProgress: (d: number, t: number) => this.opts.onProgress!(path, d, t) } : {}),
      ...(this.opts.signal ? { signal: this.opts.signal } : {}),
    });
    if (!bytes) {
      if (optional && !entry) return null;
      throw new ArtifactError(path, `is missing from ${this.source.label}${entry ? ' although meta.json lists it: the upload is incomplete; upload the index folder again' : ''}`);
    }
    if (entry) {
      if (bytes.byteLength !== entry.bytes) {
        throw new ArtifactError(path, `has ${bytes.byteLength} bytes, meta.json says ${entry.bytes}: the download is incomplete or the file was changed; re-download it`);
      }
      // A verifying source (download.ts) vouches for the hash it just checked: taken, not computed twice.
      const sha = await sha256Of(bytes);
      if (sha !== entry.sha256) {
        throw new ArtifactError(path, `SHA-256 ${sha.slice(0, 12)}… differs from meta.json's ${entry.sha256.slice(0, 12)}…: the file is corrupt or was changed after the index was built; re-download it or rebuild the index`);
      }
    }
    this.bytes[path] = bytes.byteLength;
    return bytes;
  }

  async npy(name: string, dtypes: readonly NpyDtype[], shape: readonly (number | null)[]): Promise<Npy> {
    const path = this.path(name);
    const a = parseNpy((await this.read(name))!, path);
    checkNpy(a, path, dtypes, shape);
    return a;
  }
}

/** Checks an array's dtype and shape (null = any size in that dimension). */
export function checkNpy(a: Npy, path: string, dtypes: readonly NpyDtype[], shape: readonly (number | null)[]): void {
  if (!dtypes.includes(a.dtype)) throw new ArtifactError(path, `has dtype ${a.dtype}, expected ${dtypes.join(' or ')}`);
  const show = (s: readonly (number | null)[]) => `(${s.map((d) => d ?? 'any').join(', ')}${s.length === 1 ? ',' : ''})`;
  if (a.shape.length !== shape.length || shape.some((d, i) => d !== null && a.shape[i] !== d)) {
    throw new ArtifactError(path, `has shape ${show(a.shape)}, expected ${show(shape)} from meta.json's counts`);
  }
}

