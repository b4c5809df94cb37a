/**
 * The browser's model cache (Cache Storage `transformers-cache`, filled by transformers.js): what it holds per model,
 * what loading a model would still download, and deleting a model's files.
 */
import { planModelDownload, type DownloadDtype, type ModelDownload } from './download-size.ts';
import type { CachedFile } from './model-contract.ts';
import type { ModelSpec } from './types.ts';

const CACHE_NAME = 'transformers-cache';

/** What a cached file belongs to: a model in Hub layout, or the app's ONNX Runtime files (cached by transformers.js). */
const RUNTIME_FILES = 'ONNX Runtime Web (app files)';
function cacheEntry(url: string): { model: string; file: string } {
  const path = new URL(url).pathname;
  const m = /\/([^/]+\/[^/]+)\/resolve\/[^/]+\/(.+)$/.exec(path);
  if (m) return { model: m[1]!, file: m[2]! };
  return { model: RUNTIME_FILES, file: path.slice(path.lastIndexOf('/') + 1) };
}

const openCache = () => (typeof caches === 'undefined' ? Promise.resolve(null) : caches.open(CACHE_NAME));

export async function cachedFiles(): Promise<CachedFile[]> {
  const cache = await openCache();
  if (!cache) return [];
  const out: CachedFile[] = [];
  for (const req of await cache.keys()) {
    const res = await cache.match(req);
    const bytes = Number(res?.headers.get('content-length') ?? 0) || (res ? (await res.clone().blob()).size : 0);
    out.push({ ...cacheEntry(req.url), bytes });
  }
  return out;
}

/** What loading `spec` downloads from `remoteHost` (its tree API), minus files in the browser cache. */
export async function cachedDownloadPlan(remoteHost: string, spec: Pick<ModelSpec, 'id' | 'device'> & { dtype: DownloadDtype }): Promise<ModelDownload> {
  const cache = await openCache();
  return planModelDownload(remoteHost, spec, {
    isCached: async (url) => (cache ? (await cache.match(url)) !== undefined : false),
  });
}

/** Deletes the cached files of `modelId`; answers how many. */
export async function deleteCachedModel(modelId: string): Promise<number> {
  const cache = await openCache();
  if (!cache) return 0;
  let n = 0;
  for (const req of await cache.keys()) {
    if (cacheEntry(req.url).model === modelId) n += (await cache.delete(req)) ? 1 : 0;
  }
  return n;
}
