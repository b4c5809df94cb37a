/**
 * publishLocalKb against the loopback Hub (strict tokens, as huggingface.co): the first publish, a second knowledge
 * base kept beside the first, a concurrent writer between read and commit (412) merged, the published repo opening
 * through the artifact path at the pinned commit; a wrong or read-only token, a missing repo, offline, bad input.
 * The token is in no URL and no message.
 */
import { afterEach, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { openArtifact } from '../../src/lib/artifact/read.ts';
import { writeArtifact, type ArtifactFiles } from '../../src/lib/artifact/write.ts';
import { publishLocalKb, type PublishOptions } from '../../src/lib/kb-build/publish.ts';
import type { BuildProgress } from '../../src/lib/data/source-documents.ts';
import { parseHubId } from '../../src/lib/data/kb-registry.ts';
import { hubSource } from '../../src/lib/hub/hub-source.ts';
import { KnowledgeBase } from '../../src/lib/retrieval/knowledge-base.ts';
import { serveHubRepos, type HubRepoServer } from '../helpers/hub-repo-server.ts';

const TOKEN = 'hf_publishWRITEtoken77';
const READ_TOKEN = 'hf_readonlyTOKEN55';
const REPO = 'tester/my-kbs';
const enc = (s: string) => new TextEncoder().encode(s);
const dec = (b: Uint8Array | null) => (b ? new TextDecoder().decode(b) : null);

async function artifact(name: string, sentence: string): Promise<ArtifactFiles> {
  const docs = [
    { id: `${name}/a.txt`, title: 'a.txt', text: `${sentence} The rest of the first file talks about rivers and harbours.`, meta: { file: 'a.txt', format: 'txt' } },
    { id: `${name}/b.md`, title: 'B notes', text: 'Completely different words: tariff, steel, cotton and railroads.', meta: { file: 'b.md', format: 'md' } },
  ];
  return writeArtifact({ id: name, title: `KB ${name}`, fields: [{ name: 'file', label: 'File', type: 'string' }], kb: KnowledgeBase.build(docs), created: '2026-12-01T10:00:00.000Z' });
}

let hub: HubRepoServer;
let first: ArtifactFiles;
let second: ArtifactFiles;
beforeAll(async () => {
  first = await artifact('field-notes', 'The heron nests on the northern island.');
  second = await artifact('lab-book', 'The centrifuge runs at nine thousand turns.');
});
beforeEach(async () => {
  hub = await serveHubRepos({ token: TOKEN, strictTokens: true, readTokens: [READ_TOKEN] });
  hub.addRepo(REPO, new Map([['README.md', enc('# my knowledge bases\n')]]));
});
afterEach(async () => { await hub.close(); });

const opts = (a: ArtifactFiles, name: string, over: Partial<PublishOptions> = {}): PublishOptions =>
  ({ repo: REPO, hubUrl: hub.url, token: TOKEN, name, files: a.files, entry: a.entry, retryDelayMs: 1, ...over });
const idsAt = (rev = 'main') => (JSON.parse(dec(hub.fileAt(REPO, rev, 'index_config.json'))!) as { indexes: Array<{ id: string; path: string }> }).indexes.map((e) => `${e.id}@${e.path}`);
/** The error a publish fails with (the test fails if it succeeds). */
const failure = (p: Promise<unknown>): Promise<Error> => p.then(() => { throw new Error('expected the publish to fail'); }, (e: unknown) => e as Error);
const noToken = () => {
  for (const r of hub.requests) expect(`${r.path}${r.query}`).not.toContain(TOKEN);
};

describe('publishLocalKb', () => {
  test('first publish: one commit on the head with the files under <name>/ and index_config.json; the pinned id opens it', async () => {
    const parent = hub.head(REPO);
    const progress: BuildProgress[] = [];
    const out = await publishLocalKb(opts(first, 'field-notes', { onProgress: (p) => progress.push(p) }));
    expect(out.commit).toBe(hub.head(REPO));
    expect(out).toEqual({ repo: REPO, commit: out.commit, path: 'field-notes', kbId: `hub:${REPO}/field-notes@${out.commit}`, attempts: 1 });
    const commits = hub.requests.filter((r) => r.path.endsWith('/commit/main'));
    expect(commits.map((r) => [r.status, r.parentCommit])).toEqual([[200, parent]]);
    for (const [p, b] of first.files) expect(hub.fileAt(REPO, 'main', `field-notes/${p}`)).toEqual(b);
    expect(idsAt()).toEqual(['field-notes@field-notes']);
    expect(dec(hub.fileAt(REPO, 'main', 'README.md'))).toBe('# my knowledge bases\n');
    expect(progress[0]).toMatchObject({ stage: 'save', done: 0 });
    expect(progress.at(-1)).toMatchObject({ stage: 'save', done: progress.at(-1)!.total });
    noToken();

    // Anyone (no token) opens the link's id at the commit and finds the sentence.
    const ref = parseHubId(out.kbId);
    if (!ref.ok) throw new Error(ref.message);
    expect(ref.ref).toEqual({ kind: 'hub', repo: REPO, path: 'field-notes', revision: out.commit });
    const source = await hubSource({ repo: REPO, revision: ref.ref.revision, hubUrl: hub.url });
    const opened = await openArtifact(source, ref.ref.path);
    const top = opened.kb.bm25.search('heron island nests', 1, opened.kb.itemId)[0]!;
    expect(opened.kb.itemText(top.index)).toContain('The heron nests on the northern island.');
    expect(opened.kb.docOf(top.index).id).toBe('field-notes/a.txt');
  });

  test('a second knowledge base keeps the first one\'s entry and files; publishing one again replaces only its entry', async () => {
    const a = await publishLocalKb(opts(first, 'field-notes'));
    const b = await publishLocalKb(opts(second, 'lab-book'));
    expect(b.commit).not.toBe(a.commit);
    expect(idsAt()).toEqual(['field-notes@field-notes', 'lab-book@lab-book']);
    expect(hub.fileAt(REPO, 'main', 'field-notes/meta.json')).toEqual(first.files.get('meta.json'));
    const again = await publishLocalKb(opts(first, 'field-notes'));
    expect(idsAt()).toEqual(['field-notes@field-notes', 'lab-book@lab-book']);
    // The first link still opens the first commit's bytes.
    expect(hub.fileAt(REPO, a.commit, 'index_config.json')).not.toEqual(hub.fileAt(REPO, again.commit, 'index_config.json'));
    expect(hub.fileAt(REPO, a.commit, 'lab-book/meta.json')).toBeNull();
  });

  test('a writer committing between our read and our commit: 412, re-read, merged (their entry and files kept)', async () => {
    await publishLocalKb(opts(first, 'field-notes'));
    hub.beforeNextCommit(() => {
      const cfg = JSON.parse(dec(hub.fileAt(REPO, 'main', 'index_config.json'))!) as { indexes: unknown[] };
      cfg.indexes.push({ ...first.entry, id: 'theirs', path: 'theirs' });
      hub.commitFiles(REPO, new Map([['index_config.json', enc(JSON.stringify(cfg))], ['theirs/meta.json', enc('{}')]]), 'someone else');
    });
    const out = await publishLocalKb(opts(second, 'lab-book'));
    expect(out.attempts).toBe(2);
    expect(hub.requests.filter((r) => r.path.endsWith('/commit/main')).map((r) => r.status)).toEqual([200, 412, 200]);
    expect(idsAt()).toEqual(['field-notes@field-notes', 'theirs@theirs', 'lab-book@lab-book']);
    expect(hub.fileAt(REPO, 'main', 'theirs/meta.json')).not.toBeNull();
    expect(out.kbId).toBe(`hub:${REPO}/lab-book@${hub.head(REPO)}`);
  });

  test('a wrong token, a read-only token, no token: refused with a message that names the repo, never the token', async () => {
    const head = hub.head(REPO);
    const wrong = 'hf_wrongTOKEN0000';
    await expect(publishLocalKb(opts(first, 'field-notes', { token: wrong })))
      .rejects.toThrow(`${REPO}: the token cannot write to ${REPO} (127.0.0.1:${new URL(hub.url).port} answered HTTP 401)`);
    await expect(publishLocalKb(opts(first, 'field-notes', { token: READ_TOKEN })))
      .rejects.toThrow(/^tester\/my-kbs: the token cannot write to tester\/my-kbs \(.* answered HTTP 403\): in Settings, give an hf_ token with write access/);
    await expect(publishLocalKb(opts(first, 'field-notes', { token: '' }))).rejects.toThrow(/needs a Hugging Face token with write access .*: add it in Settings/);
    await expect(publishLocalKb(opts(first, 'field-notes', { token: 'not a token' }))).rejects.toThrow(/must look like hf_/);
    expect(hub.head(REPO)).toBe(head);
    for (const t of [wrong, READ_TOKEN]) {
      const e = await failure(publishLocalKb(opts(first, 'field-notes', { token: t })));
      expect(e.message).not.toContain(t);
    }
    for (const r of hub.requests) for (const t of [TOKEN, wrong, READ_TOKEN]) expect(`${r.path}${r.query}`).not.toContain(t);
  });

  test('a missing repo says to create it first; offline names the host; bad repo or name is refused before any request', async () => {
    await expect(publishLocalKb(opts(first, 'field-notes', { repo: 'tester/nowhere' })))
      .rejects.toThrow(/^tester\/nowhere: no dataset repo tester\/nowhere on 127\.0\.0\.1:\d+: create the dataset repo first/);
    const offline: typeof fetch = () => Promise.reject(new TypeError('Failed to fetch'));
    const e = await failure(publishLocalKb(opts(first, 'field-notes', { fetch: offline })));
    expect(e.message).toMatch(/could not reach 127\.0\.0\.1:\d+ \(no answer: you seem to be offline/);
    expect(e.message).not.toContain(TOKEN);
    const before = hub.requests.length;
    await expect(publishLocalKb(opts(first, 'field-notes', { repo: 'just-a-name' }))).rejects.toThrow(/is not a Hub dataset repo: give it as owner\/name/);
    await expect(publishLocalKb(opts(first, 'field-notes', { repo: '../x' }))).rejects.toThrow(/is not a Hub dataset repo/);
    await expect(publishLocalKb(opts(first, 'Bad Name'))).rejects.toThrow(/is not a knowledge-base name/);
    await expect(publishLocalKb(opts(first, 'field-notes', { hubUrl: 'ftp://x' }))).rejects.toThrow(/must be http\(s\)/);
    expect(hub.requests.length).toBe(before);
  });
});
