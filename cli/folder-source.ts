/** A {@link FileSource} over a folder on disk: `folderFileSource` (src/lib/data/folder-file-source.ts) over node:fs. */
import { readdir, readFile, realpath, stat } from 'node:fs/promises';
import type { Stats } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';
import type { FileSource } from '../src/lib/artifact/types.ts';
import { folderFileSource } from '../src/lib/artifact/folder-file-source.ts';
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
  return folderFileSource(resolve(dir), {
    join, realpath, sep, readFile, faultLine: fsErrorLine,
    relative: (root, full) => relative(root, full).split(sep).join('/'),
    notAFile: async (path) => { const s = await stat(path); return s.isFile() ? null : nonFileKind(s); },
    readdir: async (path) => (await readdir(path, { withFileTypes: true })).map((e) => ({ name: e.name, dir: e.isDirectory(), file: e.isFile() })),
  });
}
