/**
 * A Hugging Face Hub dataset as a knowledge-base source (Build tab, `rag-lab build-index --hub-dataset`): configs and
 * splits, the parquet schema with guessed id / title / text / metadata columns, and the rows read as parquet with
 * HTTP range requests (hyparquet), up to a row limit, with progress. BEIR-layout datasets (configs `corpus` and
 * `queries`, judgements in `<dataset>-qrels` or a `qrels` config) bring their queries and qrels along.
 * CONTRACT STUB (issue 12): the helper that owns this file implements it.
 */
import type { OnBuildProgress, SourceDocuments } from '../build/types.ts';

/** Which column plays which part; `null` id = row number, `null` title = none. */
export interface ColumnMapping {
  id: string | null;
  title: string | null;
  text: string;
  metadata: string[];
}

export interface HubDatasetRequest {
  /** `owner/name`. */
  dataset: string;
  config: string;
  split: string;
  /** Branch, tag or commit; default `main`. */
  revision?: string;
  columns: ColumnMapping;
  /** At most this many rows are read (the form's row limit). */
  maxRows: number;
}

export interface HubDatasetColumn {
  name: string;
  /** The parquet type in words ("string", "int64", "list<string>", …). */
  type: string;
}

/** What the form shows before a build: the choices, the schema and the guessed mapping. */
export interface HubDatasetInfo {
  dataset: string;
  /** The commit sha read, when the Hub said. */
  revision: string | null;
  configs: Array<{ config: string; splits: string[] }>;
  config: string;
  split: string;
  columns: HubDatasetColumn[];
  rows: number;
  guess: ColumnMapping;
  /** A BEIR-layout dataset: where its queries and judgements come from. */
  beir: { queries: string; qrels: string } | null;
  notes: string[];
}

export interface HubDatasetOptions {
  /** The Hub from Settings (never from a link). */
  hubUrl: string;
  /** The user's hf_ token; sent only to `hubUrl`. */
  token: string | null;
  fetch?: typeof fetch;
  signal?: AbortSignal;
  onProgress?: OnBuildProgress;
}

export async function inspectHubDataset(_req: { dataset: string; config?: string; split?: string; revision?: string }, _opts: HubDatasetOptions): Promise<HubDatasetInfo> {
  throw new Error('Hub dataset import is not built yet.');
}

export async function hubDatasetDocuments(_req: HubDatasetRequest, _opts: HubDatasetOptions): Promise<SourceDocuments> {
  throw new Error('Hub dataset import is not built yet.');
}
