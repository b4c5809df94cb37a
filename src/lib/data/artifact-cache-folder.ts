/**
 * The artifact file cache (`ArtifactFileCache`, src/lib/store/artifact-cache.ts) in a folder, as the CLI keeps it
 * for knowledge bases read from the Hub: a key maps to `files/<sha256 of the key>.bin` plus `.json` ({key, size,
 * sha256}); refs to `refs/<sha256 of the key>.json`. Every write goes through the folder's `writeAtomic` (a temporary
 * name renamed into place, the bytes before their record), so a crash never leaves a half-written entry that looks
 * whole; a read checks length and SHA-256 and drops a bad entry. The file operations are the folder's.
 */
import { contentHashOf, type ArtifactFileCache } from '../hub/file-cache.ts';

export interface CacheFiles {
  join(...parts: string[]): string;
  /** The file's bytes; throws when it cannot be read. */
  read(path: string): Uint8Array;
  writeAtomic(path: string, data: string | Uint8Array): void;
  mkdir(path: string): void;
  remove(path: string): void;
  /** SHA-256, hex. */
  sha256(data: string | Uint8Array): string;
}

export function folderFileCache(dir: string, fs: CacheFiles): ArtifactFileCache {
  const files = fs.join(dir, 'files');
  const refs = fs.join(dir, 'refs');
  const readJson = (path: string): unknown => {
    try {
      return JSON.parse(new TextDecoder('utf-8', { ignoreBOM: true }).decode(fs.read(path))) as unknown;
    } catch {
      return null;
    }
  };
  const cache: ArtifactFileCache = {
    lastNote: null,
    checksContent: true,
    async getFile(key) {
      const base = fs.join(files, fs.sha256(key));
      const rec = readJson(`${base}.json`) as { key?: unknown; size?: unknown; sha256?: unknown } | null;
      if (!rec) return null;
      let bytes: Uint8Array | null = null;
      try {
        bytes = new Uint8Array(fs.read(`${base}.bin`));
      } catch { /* missing: dropped below */ }
      const ok = rec.key === key && bytes && bytes.byteLength === rec.size && (contentHashOf(key) ?? rec.sha256) === rec.sha256 && fs.sha256(bytes) === rec.sha256;
      if (ok) return bytes;
      cache.lastNote = `The cached copy of ${key} in ${dir} was damaged; it was dropped and will be downloaded again.`;
      fs.remove(`${base}.json`);
      fs.remove(`${base}.bin`);
      return null;
    },
    async putFile(key, bytes) {
      fs.mkdir(files);
      const base = fs.join(files, fs.sha256(key));
      fs.writeAtomic(`${base}.bin`, bytes);
      fs.writeAtomic(`${base}.json`, JSON.stringify({ key, size: bytes.byteLength, sha256: fs.sha256(bytes) }));
    },
    async getRef(key) {
      const rec = readJson(fs.join(refs, `${fs.sha256(key)}.json`)) as { key?: unknown; sha?: unknown } | null;
      return rec && rec.key === key && typeof rec.sha === 'string' && /^[0-9a-f]{40}$/.test(rec.sha) ? rec.sha : null;
    },
    async putRef(key, sha) {
      try {
        fs.mkdir(refs);
        fs.writeAtomic(fs.join(refs, `${fs.sha256(key)}.json`), JSON.stringify({ key, sha }));
      } catch (e) {
        cache.lastNote = `The revision could not be cached in ${dir} (${(e as Error).message}).`;
      }
    },
  };
  return cache;
}
