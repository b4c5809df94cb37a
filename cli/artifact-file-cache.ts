/**
 * The CLI's artifact file cache (`ArtifactFileCache`, src/lib/store/artifact-cache.ts) in a folder: by default
 * `~/.cache/rag-lab/artifacts` (`$XDG_CACHE_HOME` respected), or `--cache-dir DIR`. A key maps to
 * `files/<sha256 of the key>.bin` plus `.json` ({key, size, sha256}); refs to `refs/<sha256 of the key>.json`.
 * Every write goes to a temporary name first and is renamed into place (the bytes before their record), so a crash
 * never leaves a half-written entry that looks whole; a read checks length and SHA-256 and drops a bad entry.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { contentHashOf, type ArtifactFileCache } from '../src/lib/hub/file-cache.ts';

const hash = (b: string | Uint8Array) => createHash('sha256').update(b).digest('hex');

export function defaultArtifactCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  return join(env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'rag-lab', 'artifacts');
}

function atomicWrite(path: string, data: string | Uint8Array): void {
  const tmp = `${path}.${process.pid}.${Date.now()}.tmp`;
  writeFileSync(tmp, data);
  renameSync(tmp, path);
}

function readJson(path: string): unknown {
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as unknown;
  } catch {
    return null;
  }
}

export function folderArtifactCache(dir: string = defaultArtifactCacheDir()): ArtifactFileCache {
  const files = join(dir, 'files');
  const refs = join(dir, 'refs');
  const cache: ArtifactFileCache = {
    lastNote: null,
    checksContent: true,
    async getFile(key) {
      const base = join(files, hash(key));
      const rec = readJson(`${base}.json`) as { key?: unknown; size?: unknown; sha256?: unknown } | null;
      if (!rec) return null;
      let bytes: Uint8Array | null = null;
      try {
        bytes = new Uint8Array(readFileSync(`${base}.bin`));
      } catch { /* missing: dropped below */ }
      const ok = rec.key === key && bytes && bytes.byteLength === rec.size && (contentHashOf(key) ?? rec.sha256) === rec.sha256 && hash(bytes) === rec.sha256;
      if (ok) return bytes;
      cache.lastNote = `The cached copy of ${key} in ${dir} was damaged; it was dropped and will be downloaded again.`;
      rmSync(`${base}.json`, { force: true });
      rmSync(`${base}.bin`, { force: true });
      return null;
    },
    async putFile(key, bytes) {
      mkdirSync(files, { recursive: true });
      const base = join(files, hash(key));
      atomicWrite(`${base}.bin`, bytes);
      atomicWrite(`${base}.json`, JSON.stringify({ key, size: bytes.byteLength, sha256: hash(bytes) }));
    },
    async getRef(key) {
      const rec = readJson(join(refs, `${hash(key)}.json`)) as { key?: unknown; sha?: unknown } | null;
      return rec && rec.key === key && typeof rec.sha === 'string' && /^[0-9a-f]{40}$/.test(rec.sha) ? rec.sha : null;
    },
    async putRef(key, sha) {
      try {
        mkdirSync(refs, { recursive: true });
        atomicWrite(join(refs, `${hash(key)}.json`), JSON.stringify({ key, sha }));
      } catch (e) {
        cache.lastNote = `The revision could not be cached in ${dir} (${(e as Error).message}).`;
      }
    },
  };
  return cache;
}
