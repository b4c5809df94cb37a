/**
 * pushFiles against the loopback Hub: one commit through @huggingface/hub (preupload, then an ndjson commit carrying
 * parentCommit), index_config.json merged by the caller, and a concurrent commit between read and commit → 412 →
 * re-read and re-merge, so both entries survive.
 */
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { pushFiles } from '../../src/lib/hub/push.ts';
import { serveHubRepos, type HubRepoServer } from '../helpers/hub-repo-server.ts';

const TOKEN = 'hf_pushtoken42';
const REPO = 'tester/indexes';
const enc = (s: string) => new TextEncoder().encode(s);
const dec = (b: Uint8Array | null) => (b ? new TextDecoder().decode(b) : null);

interface Config { indexes: Array<{ id: string }> }
/** A merge as a caller writes it: replace this id's entry, keep the others. */
const addEntry = (id: string) => (current: Uint8Array | null): Uint8Array => {
  const cfg: Config = current ? (JSON.parse(dec(current)!) as Config) : { indexes: [] };
  cfg.indexes = [...cfg.indexes.filter((e) => e.id !== id), { id }];
  return enc(JSON.stringify(cfg));
};
const idsAt = (hub: HubRepoServer, rev = 'main') => (JSON.parse(dec(hub.fileAt(REPO, rev, 'index_config.json'))!) as Config).indexes.map((e) => e.id);

let hub: HubRepoServer;
beforeEach(async () => {
  hub = await serveHubRepos({ token: TOKEN });
  hub.addRepo(REPO, new Map([['index_config.json', enc('{"indexes":[{"id":"old"}]}')], ['old/meta.json', enc('{}')]]));
});
afterEach(async () => { await hub.close(); });

describe('pushFiles', () => {
  test('pushes two files and the merged index_config.json in one commit through @huggingface/hub', async () => {
    const parent = hub.head(REPO);
    const files = new Map([['kb/meta.json', enc('{"v":1}')], ['kb/embeddings.npy', new Uint8Array(2000).map((_, i) => i % 251)]]);
    const out = await pushFiles({ repo: REPO, files, hubUrl: hub.url, token: TOKEN, title: 'Add kb', updateIndexConfig: addEntry('kb') });
    expect(out.commit).toBe(hub.head(REPO));
    expect(out.commit).not.toBe(parent);
    expect(out.attempts).toBe(1);
    expect(dec(hub.fileAt(REPO, 'main', 'kb/meta.json'))).toBe('{"v":1}');
    expect(hub.fileAt(REPO, 'main', 'kb/embeddings.npy')).toEqual(files.get('kb/embeddings.npy'));
    expect(idsAt(hub)).toEqual(['old', 'kb']);
    expect(hub.fileAt(REPO, 'main', 'old/meta.json')).not.toBeNull();
    const api = hub.requests.filter((r) => r.method === 'POST');
    expect(api.map((r) => r.path)).toEqual([`/api/datasets/${REPO}/preupload/main`, `/api/datasets/${REPO}/commit/main`]);
    expect(api[1]!.contentType).toBe('application/x-ndjson');
    expect(api[1]!.parentCommit).toBe(parent);
    // index_config.json was read at the head sha (immutable), not at "main".
    expect(hub.requests.some((r) => r.path === `/datasets/${REPO}/resolve/${parent}/index_config.json`)).toBe(true);
    expect(hub.requests.every((r) => r.auth)).toBe(true);
  });

  test('a commit landing between read and commit gets 412; the retry re-reads and keeps both entries', async () => {
    // Someone else adds "theirs" just before our first commit is checked.
    hub.beforeNextCommit(() => {
      const cfg = JSON.parse(dec(hub.fileAt(REPO, 'main', 'index_config.json'))!) as Config;
      cfg.indexes.push({ id: 'theirs' });
      hub.commitFiles(REPO, new Map([['index_config.json', enc(JSON.stringify(cfg))], ['theirs/meta.json', enc('{}')]]));
    });
    const seen: Array<Uint8Array | null> = [];
    const merge = (cur: Uint8Array | null) => { seen.push(cur); return addEntry('mine')(cur); };
    const out = await pushFiles({ repo: REPO, files: new Map([['mine/meta.json', enc('{}')]]), hubUrl: hub.url, token: TOKEN, title: 'Add mine', updateIndexConfig: merge, retryDelayMs: 1 });
    expect(out.attempts).toBe(2);
    const commits = hub.requests.filter((r) => r.path.endsWith('/commit/main'));
    expect(commits.map((r) => r.status)).toEqual([412, 200]);
    expect(commits[0]!.parentCommit).not.toBe(commits[1]!.parentCommit);
    expect(seen).toHaveLength(2);
    expect(idsAt(hub)).toEqual(['old', 'theirs', 'mine']);
    expect(hub.fileAt(REPO, 'main', 'theirs/meta.json')).not.toBeNull();
    expect(hub.fileAt(REPO, 'main', 'mine/meta.json')).not.toBeNull();
  });

  test('commits that keep landing exhaust the retries with a message; nothing of ours is committed', async () => {
    let n = 0;
    const busy = () => { hub.commitFiles(REPO, new Map([[`x${n++}.json`, enc('{}')]])); hub.beforeNextCommit(busy); };
    hub.beforeNextCommit(busy);
    await expect(pushFiles({ repo: REPO, files: new Map([['mine/meta.json', enc('{}')]]), hubUrl: hub.url, token: TOKEN, title: 't', retries: 2, retryDelayMs: 1 }))
      .rejects.toThrow(`${REPO}: other commits kept landing on ${REPO} while pushing (3 tries): try again later`);
    expect(hub.fileAt(REPO, 'main', 'mine/meta.json')).toBeNull();
  });

  test('a missing repo says to create it first; a bad token is refused; no index_config.json → the merge gets null', async () => {
    await expect(pushFiles({ repo: 'tester/none', files: new Map(), hubUrl: hub.url, token: TOKEN, title: 't' }))
      .rejects.toThrow(/^tester\/none: no dataset repo tester\/none on 127\.0\.0\.1:\d+: create the dataset repo first/);
    await expect(pushFiles({ repo: REPO, files: new Map(), hubUrl: hub.url, token: 'secret', title: 't' })).rejects.toThrow(/must look like hf_/);
    hub.addRepo('tester/empty', new Map([['README.md', enc('#')]]));
    let got: Uint8Array | null | undefined;
    await pushFiles({ repo: 'tester/empty', files: new Map(), hubUrl: hub.url, token: TOKEN, title: 't', updateIndexConfig: (c) => { got = c; return enc('{"indexes":[]}'); } });
    expect(got).toBeNull();
    expect(dec(hub.fileAt('tester/empty', 'main', 'index_config.json'))).toBe('{"indexes":[]}');
  });

  test('an answer that is not JSON (a captive portal\'s page) on the head read or the commit: one line naming the host and what came', async () => {
    const files = new Map([['new/meta.json', enc('{}')]]);
    const host = new URL(hub.url).host.replaceAll('.', '\\.');
    const notJson = new RegExp(`^${REPO}: ${host} answered 200 with text/html; charset=utf-8, not JSON \\(first bytes: '<!DOCTYPE html> <html><head><title>Sign in to the network.*…'\\)$`);
    hub.faults.push({ kind: 'html', path: `/api/datasets/${REPO}/revision/` });
    await expect(pushFiles({ repo: REPO, files, hubUrl: hub.url, token: TOKEN, title: 't' })).rejects.toThrow(notJson);
    hub.faults.push({ kind: 'html', path: '/commit/main' });
    await expect(pushFiles({ repo: REPO, files, hubUrl: hub.url, token: TOKEN, title: 't', updateIndexConfig: addEntry('new') })).rejects.toThrow(notJson);
    expect(idsAt(hub)).toEqual(['old']);
  });
});
