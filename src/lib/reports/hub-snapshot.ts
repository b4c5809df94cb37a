/**
 * Reading the Hub's state of the reports for hub-sync.ts: the sync context (repo name and token checked, the token
 * only to hubUrl), failures in words (`syncErrorOf`), and a snapshot at one commit: the listing, the index and
 * deleted list, validated report files; git blob ids and hashes of what this client saw.
 */
import { HubApiError, listFiles } from '@huggingface/hub';
import { ArtifactError } from '../artifact/types.ts';
import { hostOf, isNetworkError } from '../hub/hub-reach.ts';
import {
  ArtifactUnreachableError,
  authorizedFetch,
  checkHubToken,
  downloadVerified,
  type Fetch,
} from '../hub/download.ts';
import { jsonApiFetch, unexpectedAnswerLine } from '../hub/server-answer.ts';
import { sha256Hex } from '../checksum.ts';
import { parseReportText, serializeReport, type Report } from './format.ts';
import {
  DELETED_PATH,
  entryOf,
  idOfPath,
  INDEX_PATH,
  parseEntryList,
  REPORTS_DIR,
  reportPath,
  type IndexEntry,
} from './hub-layout.ts';

import { SyncError, type SyncFile, type SyncTarget } from './hub-sync-types.ts';

export const enc = new TextEncoder();
const dec = new TextDecoder();
export const gitBlobOid = async (bytes: Uint8Array): Promise<string> => {
  // Git's blob id: SHA-1 of "blob <size>\0" then the bytes.
  const head = enc.encode(`blob ${bytes.byteLength}\0`);
  const all = new Uint8Array(head.byteLength + bytes.byteLength);
  all.set(head);
  all.set(bytes, head.byteLength);
  const d = await crypto.subtle.digest('SHA-1', all);
  return [...new Uint8Array(d)].map((b) => b.toString(16).padStart(2, '0')).join('');
};

export interface RemoteFile { oid: string | null; lfsSha256: string | null }
export const sameVersion = (f: RemoteFile, seen: Pick<SyncFile, 'oid' | 'sha256'>) => (f.lfsSha256 ? f.lfsSha256 === seen.sha256 : f.oid === seen.oid);

export interface Ctx { t: SyncTarget; hubUrl: string; f: Fetch; host: string; notes: string[] }

/** The messages a user sees; `e` as it came from @huggingface/hub, download.ts or here. */
export function syncErrorOf(e: unknown, t: Pick<SyncTarget, 'repo' | 'hubUrl' | 'token'>): SyncError {
  const host = hostOf(t.hubUrl);
  const keep = ' Local reports are unchanged.';
  let msg: string;
  const unreadable = unexpectedAnswerLine(e, t.hubUrl);
  if (e instanceof SyncError) msg = e.message;
  else if (unreadable) msg = `${unreadable}: not a Hub API answer (a captive portal or a proxy?).${keep}`;
  else if (e instanceof ArtifactUnreachableError || isNetworkError(e)) msg = `Could not reach ${host}: you seem to be offline, or the Hub is blocked or refuses cross-origin requests.${keep} Press Refresh to try again.`;
  else if (e instanceof HubApiError && e.statusCode === 401) msg = `${host} refused the token (HTTP 401): the Hugging Face token is missing or wrong (a private repo needs one). Check it in Settings.${keep}`;
  else if (e instanceof HubApiError && e.statusCode === 403) msg = `${host} refused (HTTP 403): the token has no write access to ${t.repo}. Use a token with write access in Settings.${keep}`;
  else if (e instanceof HubApiError && e.statusCode === 404) msg = `No dataset repo ${t.repo} on ${host}, or it is private and the token cannot see it: create it on the Hub (New → Dataset) or check the name and the token.${keep}`;
  else if (e instanceof HubApiError && e.statusCode === 412) msg = `Other commits kept landing on ${t.repo} while syncing: press Refresh to try again.${keep}`;
  else if (e instanceof HubApiError) msg = `${host} answered HTTP ${e.statusCode}: the Hub is having trouble; try again later.${keep}`;
  else if (e instanceof ArtifactError) msg = `${e.message}.${keep}`;
  else msg = `Sync with ${t.repo} failed: ${(e as Error)?.message || String(e)}.${keep}`;
  // Belt and braces: no message ever carries the token, whatever a server echoed back.
  if (t.token) msg = msg.split(t.token).join('hf_…');
  return new SyncError(msg.replace(/\bhf_[A-Za-z0-9]{8,}/g, 'hf_…'));
}

export function context(t: SyncTarget): Ctx {
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]*\/[A-Za-z0-9][A-Za-z0-9._-]*$/.test(t.repo) || t.repo.includes('..')) {
    throw new SyncError('A dataset repo is named owner/name (letters, digits, "-", "_", "."): check the repo in the sync settings.');
  }
  try {
    checkHubToken(t.token);
  } catch (e) {
    throw new SyncError((e as Error).message);
  }
  const hubUrl = t.hubUrl.replace(/\/+$/, '');
  return { t, hubUrl, f: jsonApiFetch(authorizedFetch(t.fetch ?? ((i, init) => fetch(i, init)), t.token, hubUrl), hubUrl), host: hostOf(hubUrl), notes: [] };
}

/** A file's bytes at `sha` (null when missing). */
async function fileAt(c: Ctx, sha: string, path: string): Promise<Uint8Array | null> {
  return downloadVerified({
    url: `${c.hubUrl}/datasets/${c.t.repo}/resolve/${sha}/${path}`, file: path, fetch: c.f, signal: c.t.signal, retries: 2, retryDelayMs: 300,
    forbidden: `${c.host} refused the download: the Hugging Face token is missing or wrong for ${c.t.repo}; check it in Settings`,
  });
}

/** The Hub's state of the reports at one commit. */
export interface Snapshot {
  sha: string;
  files: Map<string, RemoteFile>;
  index: IndexEntry[];
  deleted: IndexEntry[];
  /** The index was missing, invalid or incomplete and was rebuilt from the files: the next commit writes it. */
  rebuilt: boolean;
  /** Reports downloaded while reading (validated), by id. */
  reports: Map<string, { report: Report; bytes: Uint8Array }>;
}

/** A report file at `sha`, validated, with its id checked against its name; null (and a note) when bad or missing. */
export async function reportAt(c: Ctx, s: Snapshot, id: string): Promise<{ report: Report; bytes: Uint8Array } | null> {
  const hit = s.reports.get(id);
  if (hit) return hit;
  const path = reportPath(id);
  const bytes = await fileAt(c, s.sha, path);
  if (!bytes) { c.notes.push(`${path} is listed but missing on the Hub: skipped.`); return null; }
  const p = parseReportText(dec.decode(bytes), `${path} on the Hub`);
  if (!p.ok) { c.notes.push(`${path} on the Hub was skipped: ${p.message}`); return null; }
  if (p.report.id !== id) { c.notes.push(`${path} on the Hub was skipped: it holds report ${p.report.id}, not ${id}.`); return null; }
  const out = { report: p.report, bytes };
  s.reports.set(id, out);
  return out;
}

export async function snapshot(c: Ctx, sha: string): Promise<Snapshot> {
  const files = new Map<string, RemoteFile>();
  try {
    for await (const e of listFiles({ repo: { type: 'dataset', name: c.t.repo }, path: REPORTS_DIR, recursive: true, revision: sha, hubUrl: c.hubUrl, fetch: c.f })) {
      if (e.type === 'file') files.set(e.path, { oid: e.oid ?? null, lfsSha256: e.lfs?.oid ?? null });
    }
  } catch (e) {
    // No reports/ folder yet: an empty listing (the repo itself was found when its head was read).
    if (!(e instanceof HubApiError && e.statusCode === 404)) throw e;
  }
  const s: Snapshot = { sha, files, index: [], deleted: [], rebuilt: false, reports: new Map() };
  const readList = async (which: 'index' | 'deleted'): Promise<IndexEntry[] | null> => {
    const path = which === 'index' ? INDEX_PATH : DELETED_PATH;
    if (!files.has(path)) return null;
    const bytes = await fileAt(c, sha, path);
    if (!bytes) return null;
    const p = parseEntryList(dec.decode(bytes), which);
    if (!p.ok) { c.notes.push(`${p.message}: ${which === 'index' ? 'rebuilt from the report files' : 'read as empty'}.`); return null; }
    // An entry whose file is gone is dropped (the file decides).
    return p.entries.filter((e) => files.has(e.path));
  };
  s.deleted = (await readList('deleted')) ?? [];
  const index = await readList('index');
  const gone = new Set(s.deleted.map((e) => e.id));
  s.index = (index ?? []).filter((e) => !gone.has(e.id));
  // Report files neither list names (no index, an invalid one, or a writer that added only the file) are live.
  const listed = new Set(s.index.map((e) => e.id));
  const orphans = [...files.keys()].map(idOfPath).filter((id): id is string => id !== null && !gone.has(id) && !listed.has(id));
  s.rebuilt = orphans.length > 0 || (index === null && files.has(INDEX_PATH));
  const now = new Date().toISOString();
  for (const id of orphans) {
    const r = await reportAt(c, s, id);
    if (r) s.index.push(entryOf(r.report, now));
  }
  return s;
}

export async function seenOf(bytes: Uint8Array, local: Report, commit: string): Promise<SyncFile> {
  return { oid: await gitBlobOid(bytes), sha256: await sha256Hex(bytes), local: await localHash(local), commit };
}
export const localHash = (r: Report) => sha256Hex(serializeReport(r));
