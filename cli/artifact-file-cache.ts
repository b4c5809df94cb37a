/**
 * The CLI's artifact file cache: `folderFileCache` (src/lib/data/artifact-cache-folder.ts: the layout, the checks)
 * over node:fs in `~/.cache/rag-lab/artifacts` (`$XDG_CACHE_HOME` respected), or `--cache-dir DIR`.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { folderFileCache } from '../src/lib/data/artifact-cache-folder.ts';
import type { ArtifactFileCache } from '../src/lib/hub/file-cache.ts';

export function defaultArtifactCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  return join(env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'rag-lab', 'artifacts');
}

export function folderArtifactCache(dir: string = defaultArtifactCacheDir()): ArtifactFileCache {
  return folderFileCache(dir, {
    join, read: (path) => readFileSync(path), mkdir: (path) => { mkdirSync(path, { recursive: true }); },
    remove: (path) => rmSync(path, { force: true }),
    sha256: (b) => createHash('sha256').update(b).digest('hex'),
    writeAtomic(path, data) {
      const tmp = `${path}.${process.pid}.${Date.now()}.tmp`;
      writeFileSync(tmp, data);
      renameSync(tmp, path);
    },
  });
}
