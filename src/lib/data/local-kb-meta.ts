/**
 * What is recorded about a knowledge base built in this browser (`LocalKbMeta`: its name, settings and build
 * summary), as the local store lists it and the registry names it (`local:<name>`). Pure types and the name rule.
 */
import type { Bm25Options } from '../retrieval/bm25.ts';
import type { ChunkOptions } from '../retrieval/chunk.ts';
import type { BuildOrigin, BuildStage, SkippedItem } from './source-documents.ts';

/** The longest description a knowledge base keeps (characters). */
export const MAX_DESCRIPTION = 1000;

/** How documents become a knowledge base (the Build tab's form, `rag-lab build-index` flags). */
export interface BuildSettings {
  /** Chunking (default 800/120), or false for whole documents. */
  chunking: ChunkOptions | false;
  bm25: Bm25Options;
  /** Embed every chunk with the embedder the models worker has loaded (its id and dtype are recorded). */
  embed: boolean;
}

/** What a finished build says (the Build tab's summary, and the record kept with the knowledge base). */
export interface BuildSummary {
  name: string;
  title: string;
  /** Documents indexed: a PDF gives one per page with text, a TXT/MD/HTML file one, a row or feed entry one. */
  documents: number;
  /** PDF pages read (0 when no PDF). */
  pages: number;
  /**
   * Files the documents came from (a `files` origin, or a rebuild of one: distinct `file` metadata); absent for other
   * sources and for knowledge bases built before it was recorded.
   */
  files?: number;
  chunks: number;
  /** Inputs that were not used, with reasons (capped at 1,000 entries; `skippedCount` is the full count). */
  skipped: SkippedItem[];
  skippedCount: number;
  notes: string[];
  /** The embedder that made the vectors, or null (BM25 only). */
  embedder: { id: string; dtype: string; dim: number } | null;
  /** Milliseconds per stage that ran. */
  stageMs: Partial<Record<BuildStage, number>>;
  totalMs: number;
  /** Bytes of the artifact files. */
  bytes: number;
  origin: BuildOrigin;
  /** Whether queries and judgements came along (BEIR layout). */
  queries: number;
}

/**
 * A knowledge base built in this browser, as the local store lists it (`src/lib/store/local-kb-store.ts`). Its
 * files are an index artifact (format v1, docs/index-format.md) kept in IndexedDB, opened like any artifact.
 */
export interface LocalKbMeta {
  /** The id: `local:<name>` is its knowledge-base id (`kb=` in links on this browser). */
  name: string;
  title: string;
  description: string;
  createdAt: string;
  updatedAt: string;
  settings: BuildSettings;
  summary: BuildSummary;
}

/** A local knowledge base's name: lower-case letters, digits, `-`, `_`, `.`, starting with a letter or digit. */
export const LOCAL_KB_NAME = /^[a-z0-9][a-z0-9._-]{0,63}$/;
