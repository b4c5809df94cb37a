/**
 * Publishing a knowledge base built in this browser to a Hub dataset repo: its artifact folder under `<name>/` and
 * `index_config.json` in one commit on `parentCommit` (pushFiles), other writers' entries kept.
 * CONTRACT STUB (issue 12): the publish helper implements it.
 */
import type { IndexEntry } from '../artifact/format.ts';
import type { OnBuildProgress } from './types.ts';

export interface PublishOptions {
  repo: string;
  hubUrl: string;
  token: string;
  name: string;
  /** Index-folder-relative artifact files (as stored). */
  files: Map<string, Uint8Array>;
  entry: IndexEntry;
  fetch?: typeof fetch;
  signal?: AbortSignal;
  onProgress?: OnBuildProgress;
}

export async function publishLocalKb(_opts: PublishOptions): Promise<{ repo: string; commit: string; path: string; kbId: string }> {
  throw new Error('Publishing is not built yet.');
}
