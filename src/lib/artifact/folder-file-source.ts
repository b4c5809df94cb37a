/**
 * A {@link FileSource} over a folder (an artifact repo or one index folder), the CLI's over node:fs: paths are
 * repo-relative and checked with safeRepoPath (nothing outside the folder is read, symbolic links pointing out
 * included); only regular files are read (a FIFO, socket or device is refused by name); a missing file reads as
 * null; other faults are ArtifactErrors naming the file. The file operations are the folder's.
 */
import { safeRepoPath } from './format.ts';
import { ArtifactError, type FileSource, type ReadOptions } from './types.ts';

export interface FolderFiles {
  /** Joins a root and a relative path's parts; `relative` is its inverse with '/' separators. */
  join(...parts: string[]): string;
  relative(root: string, full: string): string;
  /** The real path; the separator paths under it start with. */
  realpath(path: string): Promise<string>;
  sep: string;
  /** What the path is, in words, when it is not a regular file ("a FIFO (named pipe)"); null for a regular file. */
  notAFile(path: string): Promise<string | null>;
  readFile(path: string): Promise<Uint8Array>;
  /** A folder's entries (ENOENT: thrown, with `code`). */
  readdir(path: string): Promise<Array<{ name: string; dir: boolean; file: boolean }>>;
  /** An fs fault as "<path>: <reason>", or null when it is not one. */
  faultLine(e: unknown, path: string): string | null;
}

const codeOf = (e: unknown) => (e as { code?: unknown } | null)?.code;

export function folderFileSource(root: string, fs: FolderFiles): FileSource {
  const inside = async (path: string): Promise<string> => {
    try {
      safeRepoPath(path);
    } catch (e) {
      throw new ArtifactError(path, (e as Error).message);
    }
    return fs.join(root, ...path.split('/'));
  };
  return {
    label: root,
    async read(path: string, opts: ReadOptions = {}): Promise<Uint8Array | null> {
      const full = await inside(path);
      opts.signal?.throwIfAborted();
      try {
        const real = await fs.realpath(full);
        const realRoot = await fs.realpath(root);
        if (real !== realRoot && !real.startsWith(realRoot + fs.sep)) throw new ArtifactError(path, 'is a link that climbs out of the folder');
        // Only regular files: reading a FIFO, a socket or a device would wait forever or never end.
        const kind = await fs.notAFile(real);
        if (kind) throw new ArtifactError(path, `is ${kind}, not a regular file: refused`);
        const bytes = new Uint8Array(await fs.readFile(real));
        opts.onProgress?.(bytes.byteLength, bytes.byteLength);
        return bytes;
      } catch (e) {
        if (e instanceof ArtifactError) throw e;
        const code = codeOf(e);
        if (code === 'ENOENT' || code === 'ENOTDIR') return null;
        const line = fs.faultLine(e, full);
        throw new ArtifactError(path, line ? line.slice(full.length + 2) : (e as Error).message);
      }
    },
    async list(sub: string): Promise<string[]> {
      const start = sub === '' ? root : await inside(sub.replace(/\/+$/, ''));
      const out: string[] = [];
      const walk = async (d: string): Promise<void> => {
        let entries;
        try {
          entries = await fs.readdir(d);
        } catch (e) {
          if (codeOf(e) === 'ENOENT') return;
          throw e;
        }
        for (const e of entries) {
          const full = fs.join(d, e.name);
          if (e.dir) await walk(full);
          else if (e.file) out.push(fs.relative(root, full));
        }
      };
      await walk(start);
      return out.sort();
    },
  };
}
