/** A {@link FileSource} over files held in memory (tests, the Build tab before an upload). */
import { safeRepoPath } from './format.ts';
import { ArtifactError, type FileSource, type ReadOptions } from './types.ts';

export function memorySource(files: Map<string, Uint8Array> | Record<string, Uint8Array>, label = 'memory'): FileSource {
  const map = files instanceof Map ? files : new Map(Object.entries(files));
  return {
    label,
    async read(path: string, opts: ReadOptions = {}): Promise<Uint8Array | null> {
      try {
        safeRepoPath(path);
      } catch (e) {
        throw new ArtifactError(path, (e as Error).message);
      }
      opts.signal?.throwIfAborted();
      const bytes = map.get(path);
      if (!bytes) return null;
      opts.onProgress?.(bytes.byteLength, bytes.byteLength);
      return bytes;
    },
    async list(dir: string): Promise<string[]> {
      const prefix = dir === '' ? '' : `${dir.replace(/\/+$/, '')}/`;
      return [...map.keys()].filter((p) => p.startsWith(prefix)).sort();
    },
  };
}
