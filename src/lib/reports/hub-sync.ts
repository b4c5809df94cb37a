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
import type { CommitOperation } from '@huggingface/hub';
import { commitAtHead, headSha } from '../hub/push.ts';
import { sha256Hex } from '../checksum.ts';
import { newReportId, serializeReport, type Report } from './format.ts';
import {
  DELETED_PATH,
  entryOf,
  INDEX_PATH,
  reportPath,
  serializeEntryList,
  syncableId,
  type IndexEntry,
} from './hub-layout.ts';
import type { ReportOrigin, ReportStore } from './store-types.ts';
import { reportTitle } from './title.ts';
import {
  context,
  enc,
  gitBlobOid,
  localHash,
  reportAt,
  sameVersion,
  seenOf,
  snapshot,
  syncErrorOf,
  type Snapshot,
} from './hub-snapshot.ts';
import {
  copyMemo,
  SyncError,
  type PullResult,
  type PushResult,
  type SyncChange,
  type SyncMemo,
  type SyncTarget,
} from './hub-sync-types.ts';

export {
  emptyMemo,
  SyncError,
  SyncMemoSchema,
  type PullResult,
  type PushResult,
  type SyncChange,
  type SyncFile,
  type SyncMemo,
  type SyncTarget,
} from './hub-sync-types.ts';

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
