/**
 * The build session: documents from any source (`SourceDocuments`) → chunks → BM25 index → vectors (optional) →
 * calibration → an index artifact (format v1), in stages with progress and cancel. The build worker and the CLI call
 * it. CONTRACT STUB (issue 12): the build-core helper implements it.
 */
import type { IndexEntry } from '../artifact/format.ts';
import type { TextEmbedder } from '../models/types.ts';
import type { BuildSettings, BuildSummary, OnBuildProgress, SourceDocuments } from './types.ts';

export interface BuildKbOptions {
  name: string;
  title: string;
  description?: string;
  settings: BuildSettings;
  /** Needed when `settings.embed`. */
  embedder?: TextEmbedder | null;
  signal?: AbortSignal;
  onProgress?: OnBuildProgress;
}

export interface BuiltKb {
  /** Index-folder-relative paths (meta.json last), as `writeArtifact` gives them. */
  files: Map<string, Uint8Array>;
  entry: IndexEntry;
  summary: BuildSummary;
}

export async function buildLocalKb(_source: SourceDocuments, _opts: BuildKbOptions): Promise<BuiltKb> {
  throw new Error('The build session is not built yet.');
}
