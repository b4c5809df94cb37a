/**
 * Report sync against the loopback Hub (tests/helpers/hub-repo-server.ts): one commit per change with parentCommit,
 * pull into an empty store, two clients racing on one repo (412 → re-read, re-merge, both reports kept), another
 * writer's file under the same id (ours saved under a new id), deletion and restore through
 * reports/deleted_reports.json, hostile remote files skipped with a note naming them, and faults (offline, wrong
 * token, missing repo, 5xx) that leave the local store as it was and never show the token.
 */
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { parseReportText, serializeReport, type Report } from '../../src/lib/reports/format.ts';
import { DELETED_PATH, INDEX_PATH, parseEntryList, reportPath } from '../../src/lib/reports/hub-layout.ts';
import { emptyMemo, locateReport, pullReports, pushChange, SyncError, type SyncMemo, type SyncTarget } from '../../src/lib/reports/hub-sync.ts';
import { serveHubRepos, type HubRepoServer } from '../helpers/hub-repo-server.ts';
import { MemoryReportStore } from '../../src/lib/reports/memory-store.ts';
import { syncReport } from '../helpers/report-fixture.ts';

const TOKEN = 'hf_synctoken12345';
const REPO = 'tester/reports';
const PRIVATE = 'tester/private-reports';
const enc = (s: string) => new TextEncoder().encode(s);
const dec = (b: Uint8Array | null) => (b ? new TextDecoder().decode(b) : null);

let hub: HubRepoServer;
beforeEach(async () => {
  hub = await serveHubRepos({ token: TOKEN });
  hub.addRepo(REPO, new Map([['README.md', enc('# reports\n')]]));
  hub.addRepo(PRIVATE, new Map([['README.md', enc('# private\n')]]), { private: true });
});
afterEach(async () => { await hub.close(); });

const target = (over: Partial<SyncTarget> = {}): SyncTarget => ({ repo: REPO, hubUrl: hub.url, token: TOKEN, retryDelayMs: 5, ...over });
const ids = (which: 'index' | 'deleted', rev = 'main') => {
  const text = dec(hub.fileAt(REPO, rev, which === 'index' ? INDEX_PATH : DELETED_PATH));
  if (text === null) return null;
  const p = parseEntryList(text, which);
  if (!p.ok) throw new Error(p.message);
  return p.entries.map((e) => e.id).sort();
};
const remoteReport = (id: string): Report | null => {
  const text = dec(hub.fileAt(REPO, 'main', reportPath(id)));
  if (text === null) return null;
  const p = parseReportText(text);
  if (!p.ok) throw new Error(p.message);
  return p.report;
};

/** A client: its own store and memo. */
function client() {
  const store = new MemoryReportStore();
  let memo: SyncMemo = emptyMemo();
  return {
    store,
    get memo() { return memo; },
    async save(r: Report) { await store.put(r, 'run'); const out = await pushChange(target(), store, memo, { type: 'put', id: r.id }); memo = out.memo; return out; },
    async push(type: 'put' | 'remove' | 'restore' | 'purge', id: string | null, t = target()) { const out = await pushChange(t, store, memo, { type, id }); memo = out.memo; return out; },
    async pull(t = target()) { const out = await pullReports(t, store, memo); memo = out.memo; return out; },
  };
}

describe('push', () => {
  test('a saved report goes up with the index in one commit based on the head read (parentCommit)', async () => {
    const a = client();
    const parent = hub.head(REPO);
    const r = syncReport('first run');
    const out = await a.save(r);
    expect(out.commit).toBe(hub.head(REPO));
    expect(out.attempts).toBe(1);
    expect(out.renamed).toBeNull();
    const commits = hub.requests.filter((q) => q.method === 'POST' && q.path.endsWith('/commit/main'));
    expect(commits).toHaveLength(1);
    expect(commits[0]!.parentCommit).toBe(parent);
    expect(dec(hub.fileAt(REPO, 'main', reportPath(r.id)))).toBe(serializeReport(r));
    expect(ids('index')).toEqual([r.id]);
    expect(hub.fileAt(REPO, parent, reportPath(r.id))).toBeNull();
    expect(hub.fileAt(REPO, 'main', 'README.md')).not.toBeNull();
    // The commit it is in, for share links.
    expect(locateReport(a.memo, REPO, r.id)).toEqual({ repo: REPO, commit: out.commit, path: reportPath(r.id) });
    expect(locateReport(a.memo, REPO, 'unknown-id')).toBeNull();
    // The same report again: nothing to commit.
    const again = await a.push('put', r.id);
    expect(again.commit).toBeNull();
    expect(hub.head(REPO)).toBe(out.commit);
  });

  test('pull into an empty store gets the same report (parseReport equal), then nothing more', async () => {
    const a = client();
    const r = syncReport('to pull', 3);
    await a.save(r);
    const b = client();
    const got = await b.pull();
    expect(got.added).toEqual([r.id]);
    expect(got.notes).toEqual([]);
    expect(await b.store.get(r.id)).toEqual(r);
    expect((await b.store.list()).find((m) => m.id === r.id)!.origin).toBe('hub');
    const twice = await b.pull();
    expect([twice.added, twice.updated, twice.removed]).toEqual([[], [], []]);
    // A rename on A reaches B (B's copy is unchanged since it synced).
    await a.save({ ...r, title: 'renamed' });
    const third = await b.pull();
    expect(third.updated).toEqual([r.id]);
    expect((await b.store.get(r.id))!.title).toBe('renamed');
  });

  test('a report file another writer added without listing it is pulled, and the next push lists it', async () => {
    const a = client();
    await a.save(syncReport('listed', 4));
    const extra = syncReport('only the file', 6);
    hub.commitFiles(REPO, new Map([[reportPath(extra.id), enc(serializeReport(extra))]]));
    const b = client();
    expect((await b.pull()).added).toContain(extra.id);
    await b.save(syncReport('from b', 8));
    expect(ids('index')).toContain(extra.id);
  });

  test('two clients on one repo: B commits between A\'s read and A\'s commit, A gets 412, re-merges, both survive', async () => {
    const a = client();
    const b = client();
    const ra = syncReport('from A', 5);
    const rb = syncReport('from B', 7);
    await b.store.put(rb, 'run');
    await a.store.put(ra, 'run');
    // A's fetch lets B's whole push happen just before A's first commit request leaves.
    let raced = false;
    const gated: typeof fetch = async (input, init) => {
      const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
      if (!raced && init?.method === 'POST' && url.includes('/commit/main')) {
        raced = true;
        await b.push('put', rb.id);
      }
      return fetch(input, init);
    };
    const out = await a.push('put', ra.id, target({ fetch: gated }));
    expect(raced).toBe(true);
    expect(out.attempts).toBe(2);
    const commits = hub.requests.filter((q) => q.method === 'POST' && q.path.endsWith('/commit/main'));
    expect(commits.map((q) => q.status)).toEqual([200, 412, 200]);
    expect(ids('index')).toEqual([ra.id, rb.id].sort());
    expect(remoteReport(ra.id)).toEqual(ra);
    expect(remoteReport(rb.id)).toEqual(rb);
    const c = client();
    expect((await c.pull()).added.sort()).toEqual([ra.id, rb.id].sort());
  });

  test('another writer puts a file under the same id between read and commit: ours is saved under a new id, theirs stays', async () => {
    const a = client();
    const mine = syncReport('mine', 11);
    const theirs = syncReport('theirs', 12, 8, mine.id);
    await a.store.put(mine, 'run');
    hub.beforeNextCommit(() => { hub.commitFiles(REPO, new Map([[reportPath(mine.id), enc(serializeReport(theirs))]]), 'someone else'); });
    const out = await a.push('put', mine.id);
    expect(out.attempts).toBe(2);
    expect(out.renamed?.from).toBe(mine.id);
    const newId = out.renamed!.to;
    expect(newId).not.toBe(mine.id);
    expect(out.notes.join(' ')).toContain(`yours was saved as a new report ${newId}`);
    expect(remoteReport(mine.id)!.title).toBe('theirs');
    expect(remoteReport(newId)).toEqual({ ...mine, id: newId });
    // The index was rebuilt with both (theirs was listed nowhere).
    expect(ids('index')).toEqual([mine.id, newId].sort());
    // Locally both too: ours under the new id, theirs under the old one.
    expect((await a.store.get(newId))!.title).toBe('mine');
    expect((await a.store.get(mine.id))!.title).toBe('theirs');
  });

  test('an edit of a report another writer changed since this client saw it does not replace theirs', async () => {
    const a = client();
    const r = syncReport('v1', 13);
    await a.save(r);
    hub.commitFiles(REPO, new Map([[reportPath(r.id), enc(serializeReport({ ...r, title: 'their edit' }))]]));
    const out = await a.save({ ...r, title: 'my edit' });
    expect(out.renamed?.from).toBe(r.id);
    expect(remoteReport(r.id)!.title).toBe('their edit');
    expect(remoteReport(out.renamed!.to)!.title).toBe('my edit');
  });
});

describe('deletion', () => {
  test('delete → deleted_reports.json (file kept) → the other client archives it → restore brings it back on both', async () => {
    const a = client();
    const b = client();
    const r = syncReport('to delete', 17);
    const keep = syncReport('kept', 18);
    await a.save(r);
    await a.save(keep);
    await b.pull();
    await a.store.remove(r.id);
    const del = await a.push('remove', r.id);
    expect(del.commit).toBe(hub.head(REPO));
    expect(ids('index')).toEqual([keep.id]);
    expect(ids('deleted')).toEqual([r.id]);
    expect(hub.fileAt(REPO, 'main', reportPath(r.id))).not.toBeNull();
    // One commit changed the two lists and nothing else.
    const posted = hub.requests.filter((q) => q.method === 'POST' && q.path.endsWith('/commit/main'));
    expect(posted.at(-1)!.parentCommit).not.toBeNull();

    const pulled = await b.pull();
    expect(pulled.removed).toEqual([r.id]);
    expect(await b.store.get(r.id)).toBeNull();
    expect(await b.store.getDeleted(r.id)).toEqual(r);
    // A client that never had it keeps it in its archive, restorable.
    const c = client();
    await c.pull();
    expect(await c.store.getDeleted(r.id)).toEqual(r);
    expect(await c.store.get(keep.id)).toEqual(keep);

    await a.store.restore(r.id);
    await a.push('restore', r.id);
    expect(ids('index')).toEqual([r.id, keep.id].sort());
    expect(ids('deleted')).toEqual([]);
    const back = await b.pull();
    expect(back.added).toEqual([r.id]);
    expect(await b.store.get(r.id)).toEqual(r);
  });

  test('a local deletion made while offline is reported as local-ahead, not undone by the pull', async () => {
    const a = client();
    const r = syncReport('offline delete', 19);
    await a.save(r);
    await a.store.remove(r.id);
    const out = await a.pull();
    expect(out.localAhead).toEqual([{ type: 'remove', id: r.id }]);
    expect(await a.store.get(r.id)).toBeNull();
    const other = syncReport('never pushed', 20);
    await a.store.put(other, 'run');
    expect((await a.pull()).localAhead).toContainEqual({ type: 'put', id: other.id });
  });

  test('purge removes the file and the deleted entry', async () => {
    const a = client();
    const r = syncReport('purge me', 21);
    await a.save(r);
    await a.store.remove(r.id);
    await a.push('remove', r.id);
    await a.store.purge(r.id);
    const out = await a.push('purge', r.id);
    expect(out.commit).toBe(hub.head(REPO));
    expect(hub.fileAt(REPO, 'main', reportPath(r.id))).toBeNull();
    expect(ids('deleted')).toEqual([]);
    expect(locateReport(a.memo, REPO, r.id)).toBeNull();
  });

  test('a report purged here without a deletion first (a pruned draft) moves to the Hub\'s deleted list, file kept', async () => {
    const a = client();
    const r = syncReport('draft', 22);
    await a.save(r);
    // As ReportsState prunes an old draft: removed and purged at once.
    await a.store.remove(r.id);
    await a.store.purge(r.id);
    await a.push('purge', r.id);
    expect(ids('index')).toEqual([]);
    expect(ids('deleted')).toEqual([r.id]);
    expect(remoteReport(r.id)).toEqual(r);
  });
});

describe('hostile remote files', () => {
  test('bad report files are skipped with a note naming them; markup in a title stays text; a bad index is rebuilt', async () => {
    const good = syncReport('<img src=x onerror=alert(1)><script>alert(1)</script>', 23);
    const future = { ...JSON.parse(serializeReport(syncReport('future', 24))), version: 2 };
    const protoId = syncReport('proto', 25);
    const proto = serializeReport(protoId).replace('"config": {', '"config": {"__proto__": {"polluted": true},');
    const mismatch = syncReport('wrong name', 26);
    hub.commitFiles(REPO, new Map([
      [reportPath(good.id), enc(serializeReport(good))],
      [reportPath('futureid01'), enc(JSON.stringify({ ...future, id: 'futureid01' }))],
      [reportPath(protoId.id), enc(proto)],
      [reportPath('otherid001'), enc(serializeReport(mismatch))],
      [reportPath('notjson001'), enc('{"format": "rag-lab-report", ')],
      [INDEX_PATH, enc('{"format":"rag-lab-report-index","version":1,"reports":[{"id":"x","__proto__":{}}]}')],
    ]));
    const b = client();
    const out = await b.pull();
    expect(out.added).toEqual([good.id]);
    expect((await b.store.get(good.id))!.title).toBe(good.title);
    const notes = out.notes.join('\n');
    expect(notes).toContain(`${INDEX_PATH} on the Hub has a forbidden key`);
    expect(notes).toContain(`${reportPath('futureid01')} on the Hub was skipped: This report is format v2`);
    expect(notes).toContain(`${reportPath(protoId.id)} on the Hub was skipped: The report was refused: a forbidden key "__proto__"`);
    expect(notes).toContain(`${reportPath('otherid001')} on the Hub was skipped: it holds report ${mismatch.id}`);
    expect(notes).toContain(`${reportPath('notjson001')} on the Hub was skipped`);
    expect(await b.store.list()).toHaveLength(1);
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
    // The next push writes a valid index of the files that read well.
    const r = syncReport('after', 27);
    await b.save(r);
    expect(ids('index')).toEqual([good.id, r.id].sort());
  });

  test('an index entry pointing at another path is refused (the index is rebuilt from the files)', async () => {
    const r = syncReport('listed', 29);
    const entry = { id: r.id, title: 't', kind: r.kind, createdAt: r.createdAt, n: 8, headline: [], path: '../../etc/passwd', updatedAt: r.createdAt };
    hub.commitFiles(REPO, new Map([[reportPath(r.id), enc(serializeReport(r))], [INDEX_PATH, enc(JSON.stringify({ format: 'rag-lab-report-index', version: 1, reports: [entry] }))]]));
    const out = await client().pull();
    expect(out.notes.join('\n')).toContain(`${INDEX_PATH} on the Hub is not valid (reports.0: path must be reports/report_<id>.json of the same id)`);
    expect(out.added).toEqual([r.id]);
  });
});

describe('faults leave the local store as it was and never show the token', () => {
  async function expectSyncError(p: Promise<unknown>, pattern: RegExp): Promise<string> {
    const e = await p.then(() => null, (x: unknown) => x);
    expect(e).toBeInstanceOf(SyncError);
    const msg = (e as Error).message;
    expect(msg).toMatch(pattern);
    expect(msg).toContain('Local reports are unchanged');
    expect(msg).not.toContain('hf_');
    expect(msg).not.toMatch(/\n\s+at /);
    return msg;
  }

  test('other commits landing before each of the five tries: a message, the local report kept, nothing overwritten', async () => {
    const a = client();
    const r = syncReport('stormy', 35);
    await a.store.put(r, 'run');
    let n = 0;
    const storm = () => { hub.commitFiles(REPO, new Map([[`other/${++n}.txt`, enc(String(n))]])); hub.beforeNextCommit(storm); };
    hub.beforeNextCommit(storm);
    await expectSyncError(a.push('put', r.id), /Other commits kept landing on tester\/reports while syncing/);
    const commits = hub.requests.filter((q) => q.method === 'POST' && q.path.endsWith('/commit/main'));
    expect(commits.map((q) => q.status)).toEqual([412, 412, 412, 412, 412]);
    expect(hub.fileAt(REPO, 'main', reportPath(r.id))).toBeNull();
    expect(await a.store.get(r.id)).toEqual(r);
  });

  test('offline Hub', async () => {
    const a = client();
    const r = syncReport('local only', 31);
    await a.store.put(r, 'run');
    const gone = await serveHubRepos();
    const url = gone.url;
    await gone.close();
    const t = target({ hubUrl: url, token: 'hf_secretvalue9999' });
    const msg = await expectSyncError(a.pull(t), /Could not reach 127\.0\.0\.1:\d+/);
    expect(msg).not.toContain('secretvalue');
    await expectSyncError(a.push('put', r.id, t), /Could not reach/);
    expect(await a.store.get(r.id)).toEqual(r);
  });

  test('wrong token, missing token, missing repo, 5xx', async () => {
    const a = client();
    const r = syncReport('local', 33);
    await a.store.put(r, 'run');
    const wrong = 'hf_wrongtoken77777';
    const msg = await expectSyncError(a.pull(target({ repo: PRIVATE, token: wrong })), /refused the token \(HTTP 401\): the Hugging Face token is missing or wrong/);
    expect(msg).not.toContain('wrongtoken');
    await expectSyncError(a.push('put', r.id, target({ repo: PRIVATE, token: wrong })), /HTTP 401/);
    await expectSyncError(a.pull(target({ repo: PRIVATE, token: null })), /HTTP 401/);
    await expectSyncError(a.push('put', r.id, target({ token: null })), /needs a Hugging Face token with write access/);
    await expectSyncError(a.pull(target({ repo: 'tester/nope' })), /No dataset repo tester\/nope on 127\.0\.0\.1/);
    hub.faults.push({ kind: 'status', path: '/revision/', status: 503 });
    await expectSyncError(a.pull(), /answered HTTP 503: the Hub is having trouble/);
    // A captive portal's page where the Hub's JSON should be: one line naming the host and what came back.
    hub.faults.push({ kind: 'html', path: '/revision/' });
    await expectSyncError(a.pull(), /127\.0\.0\.1:\d+ answered 200 with text\/html; charset=utf-8, not JSON \(first bytes: '<!DOCTYPE html> <html><head><title>Sign in/);
    expect(await a.store.get(r.id)).toEqual(r);
    expect(await a.store.list()).toHaveLength(1);
    // And with the right token the private repo syncs.
    const ok = await a.push('put', r.id, target({ repo: PRIVATE }));
    expect(ok.commit).toBe(hub.head(PRIVATE));
  });
});
