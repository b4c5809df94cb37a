/**
 * What report sync (hub-sync.ts) is given and gives back: the target repo, what this client last saw of each
 * report file (`SyncMemo`, with its schema for the caller's storage), a local change, the results, the error.
 */
import * as v from 'valibot';
import type { Fetch } from '../hub/download.ts';
import { syncableId } from './hub-layout.ts';

export interface SyncTarget {
  /** `owner/name` of an existing dataset repo. */
  repo: string;
  /** The Hub set in Settings (the only host the token goes to). */
  hubUrl: string;
  token: string | null;
  fetch?: Fetch;
  /** Tries after a 412 (default 4: five in all). */
  retries?: number;
  /** First backoff after a 412, ms (default 400). */
  retryDelayMs?: number;
  signal?: AbortSignal;
}

/** What this client last saw of one report file on the Hub. */
export interface SyncFile {
  /** Git blob oid of the bytes (what the Hub's listing gives for a regular file). */
  oid: string;
  /** SHA-256 of the bytes (the listing's lfs.oid when the Hub stored the file in LFS). */
  sha256: string;
  /** SHA-256 of the local copy's serialization when it was synced (tells a local edit since). */
  local: string;
  /** A commit where the file has those bytes. */
  commit: string;
  /** The report is in the Hub's deleted list as far as this client knows (pulled or pushed so). */
  hubDeleted?: boolean;
}

/** Per repo, kept by the caller between syncs (ReportSyncState keeps it in localStorage). */
export interface SyncMemo { head: string | null; files: Record<string, SyncFile> }

const hex = (n: number) => v.pipe(v.string(), v.regex(new RegExp(`^[0-9a-f]{${n}}$`)));
export const SyncMemoSchema = v.object({
  head: v.nullable(hex(40)),
  files: v.pipe(
    v.record(v.pipe(v.string(), v.check(syncableId)), v.object({ oid: hex(40), sha256: hex(64), local: hex(64), commit: hex(40), hubDeleted: v.optional(v.boolean()) })),
    v.check((o) => Object.keys(o).length <= 100_000),
  ),
});
export const emptyMemo = (): SyncMemo => ({ head: null, files: Object.create(null) as Record<string, SyncFile> });
/** A copy whose `files` has no prototype (an id can never reach Object.prototype). */
export const copyMemo = (m: SyncMemo): SyncMemo => {
  const files = Object.create(null) as Record<string, SyncFile>;
  for (const [k, f] of Object.entries(m.files)) if (syncableId(k)) files[k] = f;
  return { head: m.head, files };
};

export type SyncChange = { type: 'put' | 'remove' | 'restore' | 'purge'; id: string | null };

/** A sync failure with a message fit to show (names the host or repo, never a URL or the token). */
export class SyncError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SyncError';
  }
}

export interface PullResult {
  head: string;
  /** Reports new here (live), reports replaced by a newer Hub copy, reports moved into the local archive. */
  added: string[];
  updated: string[];
  removed: string[];
  /** What was skipped and why (bad files, conflicts), each naming the file. */
  notes: string[];
  /** Local changes the Hub does not have yet (made offline, or a push that failed): push them. */
  localAhead: SyncChange[];
  memo: SyncMemo;
}

export interface PushResult {
  /** The new commit, or null when the Hub already had the change. */
  commit: string | null;
  attempts: number;
  notes: string[];
  /** Set when ours was saved under a new id because another writer holds the id. */
  renamed: { from: string; to: string } | null;
  memo: SyncMemo;
}
