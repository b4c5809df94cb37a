/**
 * The search worker's one seam to the artifact reader (src/lib/artifact/) and the Hub/HTTP file sources
 * (src/lib/hub/): the calls it makes, in the shape it makes them. The file sources read through the IndexedDB
 * artifact cache (a second open is offline). Until the reader is in this build, opening says so and the embedded
 * corpus opens from its JSON file.
 */
import { hubSource } from '../src/lib/hub/hub-source.ts';
import { httpFolderSource } from '../src/lib/hub/http-source.ts';
import { indexedDbArtifactCache } from '../src/lib/store/artifact-cache.ts';
import type { ArtifactDense, FileProgress, FileSource, OpenedArtifact } from '../src/lib/artifact/types.ts';
import type { KnowledgeBase } from '../src/lib/retrieval/knowledge-base.ts';
import type { TextEmbedder } from '../src/lib/models/types.ts';

export interface IndexListing {
  id: string;
  title?: string;
  description?: string;
  path: string;
  counts?: { documents?: number; chunks?: number };
  embedder?: { id: string } | null;
}

export interface ArtifactOpenOptions {
  onProgress?: FileProgress;
  signal?: AbortSignal;
  dense?: boolean;
}

const MISSING = 'Opening index artifacts is not part of this build yet.';
let shared: ReturnType<typeof indexedDbArtifactCache> | null = null;
const cache = () => (shared ??= indexedDbArtifactCache());

export const artifacts = {
  available: false,
  async listIndexes(_source: FileSource): Promise<IndexListing[]> {
    throw new Error(MISSING);
  },
  async openArtifact(_source: FileSource, _path: string, _opts: ArtifactOpenOptions = {}): Promise<OpenedArtifact> {
    throw new Error(MISSING);
  },
  async attachArtifactDense(_kb: KnowledgeBase, _dense: ArtifactDense, _embedder: Pick<TextEmbedder, 'spec' | 'dim'>, _opts: { index?: string } = {}): Promise<{ index: string; indexMs: number }> {
    throw new Error(MISSING);
  },
  async hubSource(opts: { repo: string; revision: string; hubUrl: string; token: string | null }): Promise<FileSource & { revisionSha: string | null; notes: string[] }> {
    const source = await hubSource({ ...opts, cache: cache() });
    return Object.assign(source, { revisionSha: source.sha });
  },
  httpFolderSource(opts: { baseUrl: string }): FileSource {
    return httpFolderSource({ baseUrl: opts.baseUrl, cache: cache() });
  },
};
