/**
 * The search worker's one seam to the artifact reader (src/lib/artifact/) and the Hub/HTTP file sources
 * (src/lib/hub/): the calls it makes, in the shape it makes them. The file sources read through the IndexedDB
 * artifact cache, so a second open of the same files makes no request.
 */
import { attachArtifactDense } from '../src/lib/artifact/attach.ts';
import { listIndexes, openArtifact, type OpenArtifactOptions } from '../src/lib/artifact/read.ts';
import type { FileSource } from '../src/lib/artifact/types.ts';
import { hubSource } from '../src/lib/hub/hub-source.ts';
import { httpFolderSource } from '../src/lib/hub/http-source.ts';
import type { ArtifactFileCache } from '../src/lib/hub/file-cache.ts';
import { indexedDbArtifactCache } from '../src/lib/store/artifact-cache.ts';

let shared: ArtifactFileCache | null = null;
const cache = () => (shared ??= indexedDbArtifactCache());

export const artifacts = {
  listIndexes,
  /** Opens an index; its vectors are read as the format prefers (int8 when shipped: the smaller download). */
  openArtifact: (source: FileSource, path: string, opts: OpenArtifactOptions = {}) => openArtifact(source, path, { dense: 'auto', ...opts }),
  attachArtifactDense,
  async hubSource(opts: { repo: string; revision: string; hubUrl: string; token: string | null }): Promise<FileSource & { revisionSha: string | null; notes: string[] }> {
    const source = await hubSource({ ...opts, cache: cache() });
    return Object.assign(source, { revisionSha: source.sha });
  },
  httpFolderSource(opts: { baseUrl: string }): FileSource {
    return httpFolderSource({ baseUrl: opts.baseUrl, cache: cache() });
  },
};
