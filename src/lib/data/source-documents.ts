/**
 * The source contract: what every source of a knowledge base (dropped files through `src/lib/ingest/`, a Hub
 * dataset, arXiv, web pages, a saved knowledge base, the CLI's `--data`) gives the build session — documents plus what could
 * not be used — and the build's stages and progress, which sources report too. Pure types.
 */
import type { BeirQuery, Qrels } from './beir.ts';
import type { ExampleQuery, SourceDocument } from '../retrieval/document.ts';
import type { MetaField } from './kb-source.ts';

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
  | { kind: 'arxiv'; query: string; max: number }
  /** Web pages: the URLs read (the list's, then a search's) and the search query, if any. */
  | { kind: 'web'; urls: number; query: string | null };

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
