/**
 * The contract of knowledge-base artifacts (format v1, docs/index-format.md): what a reader gets from a place that
 * holds files (a folder, a Hub dataset repo, memory), and what opening an artifact yields. Every reader and writer
 * (CLI, workers, tests) goes through these types; the valibot schemas of the JSON files live in `format.ts`.
 */
import type { BeirQuery, Qrels } from '../data/beir.ts';
import type { KbDescriptor } from '../data/kb-source.ts';
import type { CdfTable } from '../retrieval/calibrate.ts';
import type { HnswIndexData } from '../retrieval/hnsw.ts';
import type { KnowledgeBase } from '../retrieval/knowledge-base.ts';
import type { Int8IndexData } from '../retrieval/quantized.ts';

export { ArtifactError, type FileProgress, type FileSource, type ReadOptions } from '../file-source.ts';

/** The dense side of an opened artifact, ready for `attachArtifactDense`. */
export interface ArtifactDense {
  embedder: { id: string; dtype: string; dim: number; pooling: 'mean' | 'cls'; normalized: true; prefixes: { query: string; passage: string } };
  /** Row-major items × dim, L2-normalised (null when only the int8 file was read). */
  vectors: Float32Array | null;
  int8: Int8IndexData | null;
  hnsw: HnswIndexData | null;
  cdf: CdfTable | null;
  /** Rows left out of dense search (1 = NaN/infinite/zero in the shipped vectors; zeroed), or null/absent. */
  skip?: Uint8Array | null;
}

export interface OpenedArtifact {
  /** The index's id (its entry in index_config.json, or the folder name). */
  id: string;
  descriptor: KbDescriptor;
  kb: KnowledgeBase;
  dense: ArtifactDense | null;
  /** meta.json's `corpus_sha256` (the items' corpus hash); null when it has none (older artifacts, seed A's). */
  corpusHash: string | null;
  /** Carried by artifacts built from a BEIR folder. */
  queries: BeirQuery[] | null;
  qrels: Qrels | null;
  /** Things the user should know (seed-A files ignored, BM25 rebuilt…). */
  notes: string[];
  /** Bytes read per file (for the bench and the UI). */
  bytes: Record<string, number>;
}
