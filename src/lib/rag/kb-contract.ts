/**
 * The knowledge-base contract of the search session (kb-session.ts), shared by its worker and the UI: where a
 * knowledge base is opened from, its loading progress, what is known about it once open, and its dense side.
 */
import type { OpenStage } from '../store/kb-loader.ts';
import type { DenseSetup, DenseStage } from '../store/dense-loader.ts';
import type { ModelSpec } from '../models/types.ts';
import type { Facet, KbDescriptor } from '../data/kb-source.ts';
import type { DenseOwner } from '../models/readiness.ts';
import type { GoldQuestion } from '../data/ragbench-gold.ts';

/** `download-file`: one file of an index artifact (named in `file`), bytes done / total; `rows`: a dataset's rows read / total. */
export type LoadStage = 'download' | 'download-file' | 'artifact-open' | 'rows' | OpenStage;

export interface LoadProgress {
  stage: LoadStage | DenseStage;
  done: number;
  total: number;
  /** The artifact file being downloaded (stage 'download-file'). */
  file?: string;
}

/** What `open` is given: where the knowledge base comes from, plus what only the page knows. */
export type KbOpenRequest =
  | { kind: 'embedded'; id: string; baseUrl: string }
  | {
    kind: 'hub'; repo: string; revision: string; path: string;
    /** The Hub the user configured in Settings (never one from a link). */
    hubUrl: string;
    /** The user's hf_ token, sent only to `hubUrl` when it is https://huggingface.co or typed in Settings. */
    token: string | null;
  }
  /** A knowledge base built in this browser (Build tab): its artifact files from IndexedDB. */
  | { kind: 'local'; name: string }
  /**
   * A RAGBench test subset's pooled documents: the file picked for it in the Benchmark tab when one is remembered,
   * else the Hub's parquet (the dataset viewer as fallback) at the Benchmark tab's addresses from Settings.
   */
  | { kind: 'ragbench'; subset: string; hubUrl: string; viewerUrl: string };

/** A Hub artifact repo at a revision (no index path): what its index list and the embedded corpus's vectors come from. */
export type HubRepoRequest = Omit<Extract<KbOpenRequest, { kind: 'hub' }>, 'path'>;

/** An index listed in a Hub repo's index_config.json. */
export interface IndexChoice {
  id: string;
  title: string;
  description: string;
  path: string;
  documents: number | null;
  chunks: number | null;
  embedder: string | null;
}

export interface KbInfo {
  /** The knowledge base's id (`sotu`, `hub:owner/name/path@revision`), part of every config hash. */
  corpusId: string;
  descriptor: KbDescriptor;
  /** Facets computed from the documents for the descriptor's fields (`facetsOf`). */
  facets: Facet[];
  documents: number;
  items: number;
  /** `artifact`: read from an index artifact (no indexing in the tab). */
  source: 'cache' | 'built' | 'artifact';
  cacheNote: string | null;
  buildMs: number;
  /** The commit sha an artifact was read at, when the source knows it (pins the config hash). */
  revisionSha: string | null;
  /** The model that made the knowledge base's vectors (null: no dense index yet). */
  dense: DenseOwner | null;
  /** SHA-256 of its training texts (corpusHashOf of kbTrainingTexts): the models trained on it have the same (models/kb-embedder.ts). */
  corpusHash?: string;
  /** Vectors the artifact ships, attached when dense search is enabled with this embedder (id, dim). */
  artifactEmbedder: { id: string; dim: number } | null;
  /** Things the user should know about this knowledge base (ignored files, BM25 rebuilt…). */
  notes: string[];
  /** Questions the knowledge base comes with, with gold labels (a RAGBench subset's); absent for other kinds. */
  goldQuestions?: GoldQuestion[];
}

export interface DenseInfo extends DenseSetup {
  model: ModelSpec;
  /** Who owns the vectors now (what mode availability is derived from). */
  owner: DenseOwner;
}
