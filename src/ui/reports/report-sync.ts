/**
 * Pure helpers of the report sync settings (ReportSyncState): what is kept in localStorage `rag-lab:report-sync`
 * (opt-in flag, the repo, and per Hub + repo what the client last saw), validated on read, and the status line.
 * The Hub URL and the token are never kept here: they come from Settings and HubTokenState.
 */
import * as v from 'valibot';
import { dict } from '../../lib/dict.ts';
import { emptyMemo, SyncMemoSchema, type SyncMemo } from '../../lib/reports/hub-sync.ts';

export const SYNC_STORAGE_KEY = 'rag-lab:report-sync';
const REPO_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,95}\/[A-Za-z0-9][A-Za-z0-9._-]{0,95}$/;

export interface SyncSettings {
  enabled: boolean;
  repo: string;
  /** By `memoKey(hubUrl, repo)`. */
  memos: Record<string, SyncMemo>;
}

const SettingsSchema = v.object({
  enabled: v.boolean(),
  repo: v.union([v.literal(''), v.pipe(v.string(), v.regex(REPO_NAME))]),
  memos: v.pipe(v.record(v.pipe(v.string(), v.maxLength(400)), SyncMemoSchema), v.check((o) => Object.keys(o).length <= 20)),
});

export const defaultSyncSettings = (): SyncSettings => ({ enabled: false, repo: '', memos: dict<SyncMemo>() });

/** The stored settings; anything unreadable gives the defaults (sync off) and a note. */
export function readSyncSettings(raw: string | null): { settings: SyncSettings; note: string | null } {
  if (raw === null) return { settings: defaultSyncSettings(), note: null };
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch {
    return { settings: defaultSyncSettings(), note: 'The saved sync settings were not readable and were reset (sync is off).' };
  }
  const r = v.safeParse(SettingsSchema, json);
  if (!r.success) return { settings: defaultSyncSettings(), note: 'The saved sync settings were not valid and were reset (sync is off).' };
  const memos = dict<SyncMemo>();
  for (const [k, m] of Object.entries(r.output.memos)) memos[k] = { ...emptyMemo(), head: m.head, files: Object.assign(emptyMemo().files, m.files) };
  return { settings: { enabled: r.output.enabled, repo: r.output.repo, memos }, note: null };
}

export const memoKey = (hubUrl: string, repo: string) => `${hubUrl.replace(/\/+$/, '')}|${repo}`;

/** `owner/name` from what the user typed (also a pasted huggingface.co/datasets/owner/name URL's last two parts). */
export function parseRepoName(raw: string): { ok: true; repo: string } | { ok: false; message: string } {
  const t = raw.trim().replace(/^https?:\/\/[^/]+\/(datasets\/)?/, '').replace(/\/+$/, '');
  if (REPO_NAME.test(t) && !t.includes('..')) return { ok: true, repo: t };
  return { ok: false, message: 'A dataset repo is named owner/name (letters, digits, "-", "_", "."), e.g. alice/rag-lab-reports.' };
}

export interface SyncStatusFacts {
  enabled: boolean;
  repo: string;
  busy: boolean;
  pending: number;
  lastCommit: string | null;
  lastSyncedAt: string | null;
  /** The last sync failed (its message is shown apart). */
  failed?: boolean;
}

/** "Synced with owner/name at 1a2b3c4 (12:30) · 1 change pending" and the like. */
export function statusLine(s: SyncStatusFacts): string {
  if (!s.enabled) return 'Sync is off: reports are kept in this browser only.';
  if (!s.repo) return 'Sync is on, but no dataset repo is set.';
  const parts = [s.busy ? `Syncing with ${s.repo}…` : s.lastCommit ? `${s.failed ? 'Last synced' : 'Synced'} with ${s.repo} at ${s.lastCommit.slice(0, 7)}${s.lastSyncedAt ? ` (${s.lastSyncedAt})` : ''}` : `Not synced with ${s.repo} yet`];
  if (s.pending > 0) parts.push(`${s.pending} change${s.pending === 1 ? '' : 's'} pending`);
  return parts.join(' · ');
}
