/**
 * File-system access for the CLI with faults as one line naming the file (exit code 2): reading inputs (a UTF-8
 * BOM removed), writing outputs, and checking output paths before long work starts.
 */
import { accessSync, constants, existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { CliError } from './args.ts';

/** What each errno means to someone who gave the path. */
const PROBLEMS: Record<string, string> = {
  ENOENT: 'not found',
  EISDIR: 'is a folder, not a file',
  ENOTDIR: 'a part of the path is a file, not a folder',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EROFS: 'read-only file system',
  ENOSPC: 'no space left on the device',
  EDQUOT: 'disk quota exceeded',
  EFBIG: 'file too large',
  EMFILE: 'too many open files (raise the limit with ulimit -n)',
  ENFILE: 'too many open files in the system',
  ENAMETOOLONG: 'file name too long',
  ELOOP: 'too many symbolic links',
  EIO: 'input/output error',
  EEXIST: 'already exists',
  ENXIO: 'no such device',
  EPIPE: 'the reader closed the pipe',
  EAGAIN: 'resource temporarily unavailable',
};

export function isErrno(e: unknown): e is NodeJS.ErrnoException {
  return e instanceof Error && typeof (e as NodeJS.ErrnoException).code === 'string' && (e as NodeJS.ErrnoException).code! in PROBLEMS;
}

/** "<path>: <problem>" for a file-system error, or null when `e` is none. */
export function fsErrorLine(e: unknown, path?: string): string | null {
  if (!isErrno(e)) return null;
  const where = path ?? e.path ?? (e.syscall ? `(${e.syscall})` : 'file');
  return `${where}: ${PROBLEMS[e.code!]}`;
}

/** Runs `fn`; a file-system error becomes a CliError naming `path`. */
export function withFile<T>(path: string, fn: () => T): T {
  try {
    return fn();
  } catch (e) {
    const line = fsErrorLine(e, path);
    if (line) throw new CliError(line);
    throw e;
  }
}

/** The text without a leading UTF-8 byte-order mark (editors on Windows add one). */
export const stripBom = (text: string): string => (text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);

/** A UTF-8 text file, BOM removed. */
export function readText(path: string): string {
  return withFile(path, () => stripBom(readFileSync(path, 'utf8')));
}

/** A UTF-8 text file of at most `maxBytes` (larger: a CliError naming `what`), BOM removed. */
export function readSmallText(path: string, maxBytes: number, what: string): string {
  return withFile(path, () => { if (statSync(path).size > maxBytes) throw new CliError(`${path}: over ${Math.round(maxBytes / 1024)} kB, too large for ${what}`); return stripBom(readFileSync(path, 'utf8')); });
}

export function writeText(path: string, text: string): void {
  withFile(path, () => writeFileSync(path, text));
}

/** The nearest folder that exists on the way up from `path` (itself included), or what blocks the way. */
function nearestExisting(path: string): string {
  let p = resolve(path);
  while (!existsSync(p) && dirname(p) !== p) p = dirname(p);
  return p;
}

/**
 * Checks that `path` can be written as a file: not a folder, its folder exists, and both are writable. Call before
 * long work, so a typo does not cost the run. `flag` names the option in the message.
 */
export function checkOutputFile(path: string, flag: string): void {
  const file = resolve(path);
  const dir = dirname(file);
  if (!existsSync(dir)) {
    const base = nearestExisting(dir);
    throw new CliError(statSync(base).isDirectory() ? `${flag} ${path}: folder ${dir} not found` : `${flag} ${path}: ${base} is a file, not a folder`);
  }
  withFile(dir, () => {
    if (!statSync(dir).isDirectory()) throw new CliError(`${flag} ${path}: ${dir} is a file, not a folder`);
  });
  if (existsSync(file)) {
    if (statSync(file).isDirectory()) throw new CliError(`${flag} ${path}: is a folder, not a file`);
    withFile(file, () => accessSync(file, constants.W_OK));
  } else {
    withFile(dir, () => accessSync(dir, constants.W_OK));
  }
}

/**
 * Checks that `path` is, or can be made, a writable folder: if it exists it is a folder, else the nearest folder
 * above it that exists is writable (it is created when first written).
 */
export function checkOutputDir(path: string, flag: string): void {
  const dir = resolve(path);
  const base = nearestExisting(dir);
  withFile(base, () => {
    if (!statSync(base).isDirectory()) throw new CliError(`${flag} ${path}: ${base} is a file, not a folder`);
    accessSync(base, constants.W_OK | constants.X_OK);
  });
}

/** Checks that `path` is an existing folder to read from. */
export function checkInputDir(path: string, flag: string, what: string): void {
  const dir = resolve(path);
  if (!existsSync(dir)) throw new CliError(`${flag} ${dir}: folder not found (expected ${what})`);
  withFile(dir, () => {
    if (!statSync(dir).isDirectory()) throw new CliError(`${flag} ${dir}: is a file, not a folder (expected ${what})`);
    accessSync(dir, constants.R_OK | constants.X_OK);
  });
}
