/**
 * Syncing the saved reports (a ReportStore) with an HF dataset repo in the layout of hub-layout.ts, with
 * @huggingface/hub (hubUrl, token and fetch passed in; the token only in the Authorization header, only to hubUrl).
 *
 * - `pullReports`: head sha → the listing, index and deleted list AT that sha (immutable reads) → download the reports
 *   missing here (each validated with parseReport: a bad file is skipped with a note naming it, never stored), take
 *   remote updates of reports unchanged here, move reports deleted on the Hub into the local archive.
 * - `pushChange`: one commit per change (report file + index, or index + deleted list) on `parentCommit` = the head
 *   read; on 412 everything is read again at the new head and merged again (commitAtHead, ≤ 5 tries, jittered).
 *   A report file is only replaced when the Hub still holds the version this client last saw (`SyncMemo`); when
 *   another writer changed it (or wrote it without this client ever seeing it), ours is saved under a new id, so
 *   both stay.
 * Every failure becomes a `SyncError` whose message says what to do (token, repo, Hub unreachable) and never holds
 * the token; the local store is only written after a read succeeded and validated.
 */
import { HubApiError, listFiles, type CommitOperation } from '@huggingface/hub';
import * as v from 'valibot';
import { ArtifactError } from '../artifact/types.ts';
import { hostOf, isNetworkError } from '../hub/hub-reach.ts';
import { ArtifactUnreachableError, authorizedFetch, checkHubToken, downloadVerified, type Fetch } from '../hub/download.ts';
import { commitAtHead, headSha } from '../hub/push.ts';
import { jsonApiFetch, unexpectedAnswerLine } from '../hub/server-answer.ts';
import { sha256Hex } from '../checksum.ts';
import { newReportId, parseReportText, serializeReport, type Report } from './format.ts';
import { DELETED_PATH, entryOf, idOfPath, INDEX_PATH, parseEntryList, REPORTS_DIR, reportPath, serializeEntryList, syncableId, type IndexEntry } from './hub-layout.ts';
import type { ReportOrigin, ReportStore } from './store-types.ts';
import { reportTitle } from './title.ts';

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
const copyMemo = (m: SyncMemo): SyncMemo => {
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

const enc = new TextEncoder();
const dec = new TextDecoder();
const gitBlobOid = async (bytes: Uint8Array): Promise<string> => {
  // Git's blob id: SHA-1 of "blob <size>\0" then the bytes.
  const head = enc.encode(`blob ${bytes.byteLength}\0`);
  const all = new Uint8Array(head.byteLength + bytes.byteLength);
  all.set(head);
  all.set(bytes, head.byteLength);
  const d = await crypto.subtle.digest('SHA-1', all);
  return [...new Uint8Array(d)].map((b) => b.toString(16).padStart(2, '0')).join('');
};

interface RemoteFile { oid: string | null; lfsSha256: string | null }
const sameVersion = (f: RemoteFile, seen: Pick<SyncFile, 'oid' | 'sha256'>) => (f.lfsSha256 ? f.lfsSha256 === seen.sha256 : f.oid === seen.oid);

interface Ctx { t: SyncTarget; hubUrl: string; f: Fetch; host: string; notes: string[] }

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

function context(t: SyncTarget): Ctx {
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
interface Snapshot {
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
async function reportAt(c: Ctx, s: Snapshot, id: string): Promise<{ report: Report; bytes: Uint8Array } | null> {
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

async function snapshot(c: Ctx, sha: string): Promise<Snapshot> {
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

async function seenOf(bytes: Uint8Array, local: Report, commit: string): Promise<SyncFile> {
  return { oid: await gitBlobOid(bytes), sha256: await sha256Hex(bytes), local: await localHash(local), commit };
}
const localHash = (r: Report) => sha256Hex(serializeReport(r));

/**
 * Brings the Hub's reports into `store`. Writes the store only with validated reports; a failure before that throws a
 * SyncError and leaves the store as it was.
 */
export async function pullReports(t: SyncTarget, store: ReportStore, memoIn: SyncMemo): Promise<PullResult> {
  const c = context(t);
  const memo = copyMemo(memoIn);
  const out: PullResult = { head: '', added: [], updated: [], removed: [], notes: c.notes, localAhead: [], memo };
  try {
    const sha = await headSha(t.repo, c.hubUrl, c.f);
    const s = await snapshot(c, sha);
    out.head = sha;
    const liveRemote = new Set(s.index.map((e) => e.id));
    const deletedRemote = new Set(s.deleted.map((e) => e.id));
    const liveHere = new Set((await store.list()).map((m) => m.id));
    for (const id of liveRemote) {
      const file = s.files.get(reportPath(id))!;
      const seen = memo.files[id];
      // Unchanged on the Hub since last seen and still here: nothing to read (the common case of a Refresh).
      if (seen && !seen.hubDeleted && liveHere.has(id) && sameVersion(file, seen)) continue;
      const local = await store.get(id);
      if (local) {
        if (seen && sameVersion(file, seen)) {
          if (seen.hubDeleted) memo.files[id] = { ...seen, hubDeleted: false };
          continue;
        }
        const mine = await localHash(local);
        if (seen && mine !== seen.local) {
          c.notes.push(`${reportPath(id)} changed on the Hub and here: the local copy was kept (it is pushed as a new report when it changes again).`);
          continue;
        }
        const r = await reportAt(c, s, id);
        if (!r) continue;
        if (!seen && (await localHash(r.report)) !== mine) {
          c.notes.push(`${reportPath(id)} on the Hub differs from the local report with the same id: the local copy was kept.`);
          continue;
        }
        if (seen) { await store.put(r.report, 'hub'); out.updated.push(id); }
        memo.files[id] = await seenOf(r.bytes, r.report, sha);
      } else if (await store.getDeleted(id)) {
        if (seen?.hubDeleted) {
          // Deleted on the Hub before, restored there since: restored here too.
          await store.restore(id);
          memo.files[id] = { ...seen, hubDeleted: false };
          out.added.push(id);
        } else if (seen) {
          // Deleted here, not yet on the Hub (offline, or a push that failed).
          out.localAhead.push({ type: 'remove', id });
        }
      } else {
        const r = await reportAt(c, s, id);
        if (!r) continue;
        await store.put(r.report, 'hub');
        memo.files[id] = await seenOf(r.bytes, r.report, sha);
        out.added.push(id);
      }
    }
    for (const id of deletedRemote) {
      const local = await store.get(id);
      const seen = memo.files[id];
      if (local) {
        if (seen && (await localHash(local)) === seen.local) {
          await store.remove(id);
          memo.files[id] = { ...seen, hubDeleted: true };
          out.removed.push(id);
        } else if (seen) c.notes.push(`${reportPath(id)} was deleted on the Hub but changed here: the local copy was kept.`);
        else c.notes.push(`${reportPath(id)} was deleted on the Hub; the local report with the same id was kept.`);
      } else if (!(await store.getDeleted(id))) {
        // Never seen here: kept in the local archive, restorable like any deleted report.
        const r = await reportAt(c, s, id);
        if (!r) continue;
        await store.put(r.report, 'hub');
        await store.remove(id);
        memo.files[id] = { ...(await seenOf(r.bytes, r.report, sha)), hubDeleted: true };
      } else if (seen && !seen.hubDeleted) {
        memo.files[id] = { ...seen, hubDeleted: true };
      }
    }
    // Synced before, gone from the Hub for good (purged there): into the local archive when unchanged here.
    for (const [id, seen] of Object.entries(memo.files)) {
      if (liveRemote.has(id) || deletedRemote.has(id) || s.files.has(reportPath(id))) continue;
      const local = await store.get(id);
      if (local && (await localHash(local)) === seen.local) { await store.remove(id); out.removed.push(id); }
      delete memo.files[id];
    }
    // Local reports the Hub has never had.
    for (const m of await store.list()) {
      if (!memo.files[m.id] && !s.files.has(reportPath(m.id))) out.localAhead.push({ type: 'put', id: m.id });
    }
    memo.head = sha;
    return out;
  } catch (e) {
    throw syncErrorOf(e, t);
  }
}

const upsert = (list: IndexEntry[], e: IndexEntry) => [...list.filter((x) => x.id !== e.id), e];
const sameEntries = (a: IndexEntry[], b: IndexEntry[]) => serializeEntryList(a, 'index') === serializeEntryList(b, 'index');
const blob = (s: string) => new Blob([s]);

/** Pushes one local change in one commit (see the module comment); a SyncError when it cannot. */
export async function pushChange(t: SyncTarget, store: ReportStore, memoIn: SyncMemo, change: SyncChange, origin: ReportOrigin = 'run'): Promise<PushResult> {
  if (!t.token) throw new SyncError('Pushing reports needs a Hugging Face token with write access: add it in Settings. Local reports are unchanged.');
  const c = context(t);
  const memo = copyMemo(memoIn);
  const forkId = newReportId();
  let fork: { from: string; to: string; ours: Report } | null = null;
  let written: { id: string; bytes: Uint8Array; report: Report } | null = null;
  let last: Snapshot | null = null;
  const purged: string[] = [];
  try {
    const res = await commitAtHead({
      repo: t.repo, hubUrl: c.hubUrl, fetch: c.f, retries: t.retries ?? 4, retryDelayMs: t.retryDelayMs ?? 400, signal: t.signal,
      headError: (e) => e as Error, commitError: (e) => e as Error,
      prepare: async (sha) => {
        c.notes.length = 0;
        fork = null;
        written = null;
        purged.length = 0;
        const s = await snapshot(c, sha);
        last = s;
        let index = [...s.index];
        let deleted = [...s.deleted];
        const ops: CommitOperation[] = [];
        const now = new Date().toISOString();
        let title = '';
        const id = change.id;
        if (id !== null && !syncableId(id)) throw new SyncError(`Report ${id.slice(0, 70)} has an id sync cannot use: export it and import it again.`);
        if (change.type === 'put' && id) {
          const local = await store.get(id);
          if (!local) return null;
          let report = local;
          let bytes = enc.encode(serializeReport(report));
          const remote = s.files.get(reportPath(id));
          const seen = memo.files[id];
          if (remote && !(seen && sameVersion(remote, seen)) && !sameVersion(remote, { oid: await gitBlobOid(bytes), sha256: await sha256Hex(bytes) })) {
            // Another writer's version of this id: ours goes under a new id, theirs stays.
            report = { ...local, id: forkId };
            bytes = enc.encode(serializeReport(report));
            fork = { from: id, to: forkId, ours: report };
          }
          const path = reportPath(report.id);
          const entry = entryOf(report, now);
          const before = s.files.get(path);
          const fileSame = before && sameVersion(before, { oid: await gitBlobOid(bytes), sha256: await sha256Hex(bytes) });
          const listed = index.find((e) => e.id === report.id);
          if (fileSame && listed && JSON.stringify({ ...listed, updatedAt: '' }) === JSON.stringify({ ...entry, updatedAt: '' }) && !s.rebuilt) {
            written = { id: report.id, bytes, report };
            return null;
          }
          if (!fileSame) ops.push({ operation: 'addOrUpdate', path, content: new Blob([bytes as Uint8Array<ArrayBuffer>]) });
          index = upsert(index, entry);
          deleted = deleted.filter((e) => e.id !== report.id);
          written = { id: report.id, bytes, report };
          title = `${before ? 'Update' : 'Add'} report ${report.id}: ${reportTitle(report).slice(0, 60)}`;
        } else if (change.type === 'remove' && id) {
          const entry = index.find((e) => e.id === id);
          if (!entry) return null;
          index = index.filter((e) => e.id !== id);
          deleted = upsert(deleted, { ...entry, deletedAt: now });
          title = `Delete report ${id}`;
        } else if (change.type === 'restore' && id) {
          const local = await store.get(id);
          const entry = deleted.find((e) => e.id === id) ?? (local ? entryOf(local, now) : null);
          if (!entry || index.some((e) => e.id === id)) return null;
          if (!s.files.has(reportPath(id))) {
            if (!local) return null;
            const bytes = enc.encode(serializeReport(local));
            ops.push({ operation: 'addOrUpdate', path: reportPath(id), content: new Blob([bytes as Uint8Array<ArrayBuffer>]) });
            written = { id, bytes, report: local };
          }
          const { deletedAt: _, ...live } = entry;
          index = upsert(index, { ...live, updatedAt: now });
          deleted = deleted.filter((e) => e.id !== id);
          title = `Restore report ${id}`;
        } else if (change.type === 'purge') {
          // One id, or every Hub-deleted report this client knows and no longer keeps anywhere.
          const candidates = id ? [id] : deleted.map((e) => e.id).filter((x) => memo.files[x]);
          let archived = 0;
          for (const x of candidates) {
            if ((await store.get(x)) || (await store.getDeleted(x))) continue;
            const live = index.find((e) => e.id === x);
            if (live) {
              // Gone here without a deletion first (a draft pruned): on the Hub it moves to the deleted list, restorable.
              index = index.filter((e) => e.id !== x);
              deleted = upsert(deleted, { ...live, deletedAt: now });
              archived++;
              continue;
            }
            if (!deleted.some((e) => e.id === x)) continue;
            if (s.files.has(reportPath(x))) ops.push({ operation: 'delete', path: reportPath(x) });
            deleted = deleted.filter((e) => e.id !== x);
            purged.push(x);
          }
          if (!purged.length && !archived) return null;
          title = purged.length === 0 ? `Delete report ${id}` : purged.length === 1 ? `Purge deleted report ${purged[0]}` : `Purge ${purged.length} deleted reports`;
        } else {
          return null;
        }
        if (s.rebuilt || !sameEntries(index, s.index) || !s.files.has(INDEX_PATH)) ops.push({ operation: 'addOrUpdate', path: INDEX_PATH, content: blob(serializeEntryList(index, 'index')) });
        if (!sameEntries(deleted, s.deleted) || (change.type !== 'put' && !s.files.has(DELETED_PATH))) {
          ops.push({ operation: 'addOrUpdate', path: DELETED_PATH, content: blob(serializeEntryList(deleted, 'deleted')) });
        }
        return ops.length ? { title, operations: ops } : null;
      },
    });
    const at = res.commit ?? res.parent;
    const notes = [...c.notes];
    const w = written as { id: string; bytes: Uint8Array; report: Report } | null;
    if (w) memo.files[w.id] = await seenOf(w.bytes, w.report, at);
    for (const x of purged) delete memo.files[x];
    const known = change.id !== null ? memo.files[change.id] : undefined;
    if (known && (change.type === 'remove' || change.type === 'restore')) memo.files[change.id!] = { ...known, hubDeleted: change.type === 'remove' };
    const fk = fork as { from: string; to: string; ours: Report } | null;
    if (fk) {
      // Ours is kept here under its new id; the id it had takes the Hub's copy (validated) when it reads well.
      await store.put(fk.ours, origin);
      // The commit is made: a failed read of theirs only leaves ours twice here (said in a note), never an error.
      const theirs = last ? await reportAt(c, last, fk.from).catch(() => { c.notes.push(`${reportPath(fk.from)} could not be read from the Hub: press Refresh to get it.`); return null; }) : null;
      if (theirs) {
        await store.put(theirs.report, 'hub');
        memo.files[fk.from] = await seenOf(theirs.bytes, theirs.report, at);
      }
      notes.push(...c.notes.filter((n) => !notes.includes(n)));
      notes.push(`Another writer changed report ${fk.from} on the Hub: yours was saved as a new report ${fk.to}, and both are kept.`);
    }
    memo.head = res.commit ?? res.parent;
    return { commit: res.commit, attempts: res.attempts, notes, renamed: fk ? { from: fk.from, to: fk.to } : null, memo };
  } catch (e) {
    throw syncErrorOf(e, t);
  }
}

/** Where a synced report's file is at a commit (for share links), or null when this client has not synced it. */
export function locateReport(memo: SyncMemo, repo: string, id: string): { repo: string; commit: string; path: string } | null {
  const f = Object.hasOwn(memo.files, id) ? memo.files[id] : undefined;
  return f ? { repo, commit: f.commit, path: reportPath(id) } : null;
}
