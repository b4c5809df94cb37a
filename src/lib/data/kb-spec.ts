/**
 * What a knowledge-base spec names, parsed without reading anything (the CLI's `--kb` values): `sotu`,
 * `hub:owner/repo[@revision][#index-id]`, or a path with an optional `#index-id` (told apart by a probe of the
 * caller's file system); and the index a `#index-id` picks from an artifact's index list. Errors are KbSpecError,
 * one line each.
 */
import { summariseList } from '../util/summarise-list.ts';

export class KbSpecError extends Error {}

export type KbSpec =
  | { kind: 'sotu' }
  | { kind: 'hub'; repo: string; revision: string | null; index: string | null }
  | { kind: 'path'; path: string; index: string | null };

const REPO = /^[A-Za-z0-9][\w.-]*\/[A-Za-z0-9][\w.-]*$/;

/** Splits `value#index` (an index id has no '#', '/' or white space). */
export function splitIndex(value: string, flag: string): [string, string | null] {
  const at = value.lastIndexOf('#');
  if (at < 0) return [value, null];
  const index = value.slice(at + 1);
  if (!/^[^#/\s]+$/.test(index)) throw new KbSpecError(`${flag} ${value}: "#${index}" is not an index id (give ${flag} <source>#<index-id>)`);
  return [value.slice(0, at), index];
}

/** Parses `value`; `exists` says whether a path is there as given (then a '#' in it is part of the name). */
export function parseKbSpec(value: string, flag: string, exists: (path: string) => boolean): KbSpec {
  if (value === 'sotu') return { kind: 'sotu' };
  if (value.startsWith('hub:')) {
    const [spec, index] = splitIndex(value.slice(4), flag);
    const at = spec.indexOf('@');
    const repo = at < 0 ? spec : spec.slice(0, at);
    const revision = at < 0 ? null : spec.slice(at + 1);
    if (!REPO.test(repo)) throw new KbSpecError(`${flag} ${value}: "${repo}" is not a Hub repo id (hub:owner/name[@revision][#index-id])`);
    if (revision !== null && !/^[\w./-]+$/.test(revision)) throw new KbSpecError(`${flag} ${value}: "${revision}" is not a revision (a branch, tag or commit sha)`);
    return { kind: 'hub', repo, revision, index };
  }
  const [path, index] = exists(value) ? [value, null] : splitIndex(value, flag);
  return { kind: 'path', path, index };
}

/** What a spec names once its path is probed. */
export type KbTarget =
  | { kind: 'sotu' }
  | { kind: 'folder'; dir: string; index: string | null }
  | { kind: 'zip'; file: string; index: string | null }
  | { kind: 'hub'; repo: string; revision: string | null; index: string | null }
  | { kind: 'beir'; dir: string };

/** The caller's file system, as far as telling the path forms apart needs it (the CLI: node:fs). */
export interface PathProbe {
  resolve(path: string): string;
  exists(path: string): boolean;
  isDirectory(path: string): boolean;
  /** Whether folder `dir` holds `file`. */
  has(dir: string, file: string): boolean;
}

/**
 * What `value` names, checked without reading anything but the folder's first files. `allowBeir`: a folder with
 * corpus.jsonl (and no meta.json / index_config.json) is a BEIR folder indexed on the fly.
 */
export function resolveKbSpec(value: string, opts: { allowBeir: boolean; flag: string }, fs: PathProbe): KbTarget {
  const { flag, allowBeir } = opts;
  const spec = parseKbSpec(value, flag, fs.exists);
  if (spec.kind !== 'path') return spec;
  const { path, index } = spec;
  const dir = fs.resolve(path);
  if (!fs.exists(dir)) {
    throw new KbSpecError(`${flag} ${path}: not found (give sotu, an artifact folder, hub:owner/repo${allowBeir ? ' or a BEIR folder with corpus.jsonl' : ''})`);
  }
  if (!fs.isDirectory(dir)) {
    if (/\.zip$/i.test(dir)) return { kind: 'zip', file: dir, index };
    throw new KbSpecError(`${flag} ${path}: is a file, not a folder or a .zip (an artifact folder holds index_config.json or meta.json)`);
  }
  const artifact = fs.has(dir, 'index_config.json') || fs.has(dir, 'meta.json');
  if (!artifact && fs.has(dir, 'corpus.jsonl')) {
    if (allowBeir && index === null) return { kind: 'beir', dir };
    throw new KbSpecError(`${flag} ${path}: a BEIR folder, not an artifact (build one with rag-lab build-index --data ${path} --out <dir>${allowBeir ? '' : ', or give it to --data'})`);
  }
  if (!artifact) throw new KbSpecError(`${flag} ${path}: no index_config.json or meta.json in this folder (build an artifact with rag-lab build-index)`);
  return { kind: 'folder', dir, index };
}

/** The index `wanted` names among an artifact's `entries` (the only one when `wanted` is null). */
export function pickIndex<E extends { id: string }>(entries: readonly E[], wanted: string | null, label: string): E {
  if (entries.length === 0) throw new KbSpecError(`${label}: index_config.json lists no index`);
  if (wanted !== null) {
    const e = entries.find((x) => x.id === wanted);
    if (!e) throw new KbSpecError(`${label}: no index "${wanted}" (it has ${summariseList(entries.map((x) => x.id))})`);
    return e;
  }
  if (entries.length > 1) throw new KbSpecError(`${label}: ${entries.length} indexes (${summariseList(entries.map((x) => x.id))}); pick one with #<index-id>`);
  return entries[0]!;
}
