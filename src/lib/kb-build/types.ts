/**
 * The build contract: what every source of a knowledge base built in the tab or by the CLI gives the build session
 * (documents plus what could not be used), the build's stages and progress, and what is recorded about a knowledge
 * base built in this browser. Pure types; the session is `build-kb.ts`, the sources are `src/lib/ingest/` (files),
 * `src/lib/data/hub-dataset.ts` (a Hub dataset) and `src/lib/data/arxiv.ts` (arXiv).
 */
import type { BeirQuery, Qrels } from '../data/beir.ts';
import type { ExampleQuery, SourceDocument } from '../retrieval/document.ts';
import type { MetaField } from '../data/kb-source.ts';
import type { Bm25Options } from '../retrieval/bm25.ts';
import type { ChunkOptions } from '../retrieval/chunk.ts';

/** A file the user dropped or picked, or the CLI read from `--data`: its relative path (folder picks keep folders). */
export interface InputFile {
  path: string;
  bytes: Uint8Array;
}

/** A file (or row, or feed entry) that could not be used, and why, in words for the user ("no text layer (no OCR)"). */
export interface SkippedItem {
  path: string;
  reason: string;
}

/** Where a knowledge base's documents came from (recorded with it, shown in the Build tab). */
export type BuildOrigin =
  | { kind: 'files'; files: number; bytes: number }
  | { kind: 'hub-dataset'; dataset: string; config: string; split: string; revision: string | null; rows: number }
  | { kind: 'arxiv'; query: string; max: number };

/** What a source gives the build session: documents before chunking, plus everything it could not use. */
export interface SourceDocuments {
  docs: SourceDocument[];
  /** The documents' metadata fields (the descriptor's `fields`). */
  fields: MetaField[];
  /** PDF pages read (0 when no PDF). */
  pages: number;
  /** Inputs that could not be used, each with its reason; the rest were used. */
  skipped: SkippedItem[];
  /** Things the user should know (a charset guessed, a row limit reached, …). */
  notes: string[];
  examples?: ExampleQuery[];
  /** BEIR-layout sources: queries and judgements travel with the knowledge base (retrieval benchmark). */
  queries?: BeirQuery[];
  qrels?: Qrels;
  origin: BuildOrigin;
}

/** The stages of a build, in order; `download` only for remote sources. */
export const BUILD_STAGES = ['download', 'extract', 'chunk', 'index', 'embed', 'calibrate', 'save'] as const;
export type BuildStage = (typeof BUILD_STAGES)[number];

export interface BuildProgress {
  stage: BuildStage;
  done: number;
  total: number;
  /** The file, page or request being worked on ("report.pdf", "rows 2,000–3,000"). */
  item?: string;
}
export type OnBuildProgress = (p: BuildProgress) => void;

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
