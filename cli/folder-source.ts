/**
 * A {@link FileSource} over a folder on disk (an artifact repo or one index folder): paths are repo-relative and
 * checked with safeRepoPath (nothing outside the folder is read, symbolic links pointing out included); only regular
 * files are read (a FIFO, socket or device is refused by name); a missing file reads as null; other faults are
 * ArtifactErrors naming the file.
 */
import { readdir, readFile, realpath, stat } from 'node:fs/promises';
import type { Stats } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';
import { safeRepoPath } from '../src/lib/artifact/format.ts';
import { ArtifactError, type FileSource, type ReadOptions } from '../src/lib/artifact/types.ts';
import { fsErrorLine } from './fs-errors.ts';

/** What a path that is not a regular file is, in words. */
export function nonFileKind(s: Stats): string {
  if (s.isDirectory()) return 'a folder';
  if (s.isFIFO()) return 'a FIFO (named pipe)';
  if (s.isSocket()) return 'a socket';
  if (s.isCharacterDevice() || s.isBlockDevice()) return 'a device';
  return 'not a regular file';
}

export function folderSource(dir: string): FileSource {
  const root = resolve(dir);
  const inside = async (path: string): Promise<string> => {
    try {
      safeRepoPath(path);
    } catch (e) {
      throw new ArtifactError(path, (e as Error).message);
    }
    return join(root, ...path.split('/'));
  };
  return {
    label: root,
    async read(path: string, opts: ReadOptions = {}): Promise<Uint8Array | null> {
      const full = await inside(path);
      opts.signal?.throwIfAborted();
      try {
        const real = await realpath(full);
        const realRoot = await realpath(root);
        if (real !== realRoot && !real.startsWith(realRoot + sep)) throw new ArtifactError(path, 'is a link that climbs out of the folder');
        // Only regular files: reading a FIFO, a socket or a device would wait forever or never end.
        const kind = await stat(real);
        if (!kind.isFile()) throw new ArtifactError(path, `is ${nonFileKind(kind)}, not a regular file: refused`);
        const bytes = new Uint8Array(await readFile(real));
        opts.onProgress?.(bytes.byteLength, bytes.byteLength);
        return bytes;
      } catch (e) {
        if (e instanceof ArtifactError) throw e;
        const code = (e as NodeJS.ErrnoException).code;
        if (code === 'ENOENT' || code === 'ENOTDIR') return null;
        const line = fsErrorLine(e, full);
        throw new ArtifactError(path, line ? line.slice(full.length + 2) : (e as Error).message);
      }
    },
    async list(sub: string): Promise<string[]> {
      const start = sub === '' ? root : await inside(sub.replace(/\/+$/, ''));
      const out: string[] = [];
      const walk = async (d: string): Promise<void> => {
        let entries;
        try {
          entries = await readdir(d, { withFileTypes: true });
        } catch (e) {
          if ((e as NodeJS.ErrnoException).code === 'ENOENT') return;
          throw e;
        }
        for (const e of entries) {
          const full = join(d, e.name);
          if (e.isDirectory()) await walk(full);
          else if (e.isFile()) out.push(relative(root, full).split(sep).join('/'));
        }
      };
      await walk(start);
      return out.sort();
    },
  };
}
