/**
 * The shapes of a Hub dataset source (hub-dataset.ts): the request, the options, the column mapping, what the form
 * is shown before a build, and the error the user can act on.
 */
import type { OnBuildProgress } from './source-documents.ts';

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
  /** Up to 3 rows of the guessed columns (strings cut at 200 characters), for the form's preview. */
  preview?: Array<Record<string, string>>;
}

export interface HubDatasetOptions {
  /** The Hub from Settings (never from a link). */
  hubUrl: string;
  /** The user's hf_ token; sent only to `hubUrl`. */
  token: string | null;
  fetch?: typeof fetch;
  signal?: AbortSignal;
  onProgress?: OnBuildProgress;
  /** Extra tries after a dropped connection, no answer or a 5xx/429 (default 3). */
  retries?: number;
  /** First backoff in ms (default 400; tests make it small). */
  retryDelayMs?: number;
}

/** A problem the user can act on (a name, a column, a token, the Hub failing): its message is shown as is. */
export class HubDatasetError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'HubDatasetError';
  }
}

/** The form's default row limit and the most it accepts. */
export const DEFAULT_MAX_ROWS = 10_000;
export const MAX_ROWS = 200_000;
const DATASET_ID = /^[A-Za-z0-9][\w.-]*\/[A-Za-z0-9][\w.-]*$/;

/**
 * `owner/name` from what a user typed: `owner/name`, `datasets/owner/name`, or a Hub page URL
 * (`https://huggingface.co/datasets/owner/name[/tree/main/…|/viewer/…]`). Null when it is none of these.
 */
export function parseDatasetId(input: string): string | null {
  let s = input.trim();
  if (/^https?:\/\//i.test(s)) {
    try {
      s = new URL(s).pathname;
    } catch {
      return null;
    }
  }
  s = s.replace(/^\/+/, '');
  if (s.startsWith('datasets/')) s = s.slice('datasets/'.length);
  else if (/^https?:/i.test(input.trim())) return null;
  const parts = s.split('/').filter((p) => p !== '');
  if (parts.length < 2) return null;
  const id = `${parts[0]}/${parts[1]}`;
  return DATASET_ID.test(id) && !id.includes('..') ? id : null;
}
