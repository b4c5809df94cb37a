/**
 * The loopback Hub answers @huggingface/hub's own calls the way the client expects (downloadFile's Range 0-0 probe
 * with ETag, listFiles paging through Link, listCommits, datasetInfo's sha, whoAmI) and sends the CORS headers a
 * browser needs, so tests against it exercise the real client.
 */
import { datasetInfo, downloadFile, listCommits, listFiles, whoAmI } from '@huggingface/hub';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { serveHubRepos, type HubRepoServer } from '../helpers/hub-repo-server.ts';

const TOKEN = 'hf_servertest';
const enc = (s: string) => new TextEncoder().encode(s);
const repo = { type: 'dataset' as const, name: 'o/r' };
let hub: HubRepoServer;
let first: string;
beforeAll(async () => {
  hub = await serveHubRepos({ token: TOKEN, pageSize: 2 });
  first = hub.addRepo('o/r', new Map([['a.txt', enc('alpha')], ['d/b.txt', enc('bravo')], ['d/e/c.txt', enc('charlie')]]));
  hub.commitFiles('o/r', new Map([['a.txt', enc('ALPHA')], ['d/b.txt', null]]), 'second');
});
afterAll(async () => { await hub.close(); });

describe('loopback Hub with @huggingface/hub', () => {
  test('downloadFile at main and at the first sha; a missing file is null', async () => {
    expect(await (await downloadFile({ repo, path: 'a.txt', hubUrl: hub.url }))!.text()).toBe('ALPHA');
    expect(await (await downloadFile({ repo, path: 'a.txt', revision: first, hubUrl: hub.url }))!.text()).toBe('alpha');
    expect(await (await downloadFile({ repo, path: 'd/b.txt', revision: first, hubUrl: hub.url }))!.text()).toBe('bravo');
    expect(await downloadFile({ repo, path: 'd/b.txt', hubUrl: hub.url })).toBeNull();
    const probe = hub.requests.find((r) => r.range === 'bytes=0-0');
    expect(probe?.status).toBe(206);
  });

  test('listFiles pages through Link (page size 2), recursive and not', async () => {
    const all: string[] = [];
    for await (const f of listFiles({ repo, revision: first, recursive: true, hubUrl: hub.url })) all.push(`${f.type}:${f.path}`);
    expect(all).toEqual(['file:a.txt', 'directory:d', 'file:d/b.txt', 'directory:d/e', 'file:d/e/c.txt']);
    expect(hub.requests.filter((r) => r.path.includes('/tree/')).length).toBe(3);
    const top: string[] = [];
    for await (const f of listFiles({ repo, path: 'd', hubUrl: hub.url })) top.push(f.path);
    expect(top).toEqual(['d/e']);
  });

  test('datasetInfo gives the head sha, listCommits walks back, whoAmI needs the token', async () => {
    const info = await datasetInfo({ name: 'o/r', hubUrl: hub.url, additionalFields: ['sha'] });
    expect(info.sha).toBe(hub.head('o/r'));
    const commits: string[] = [];
    for await (const c of listCommits({ repo, hubUrl: hub.url })) commits.push(c.title);
    expect(commits).toEqual(['second', 'initial commit']);
    expect((await whoAmI({ accessToken: TOKEN, hubUrl: hub.url })).name).toBe('tester');
    await expect(whoAmI({ accessToken: 'hf_wrong', hubUrl: hub.url })).rejects.toThrow(/Invalid credentials/);
    expect(hub.requests.some((r) => r.path === '/api/whoami-v2' && r.auth && r.status === 401)).toBe(true);
  });

  test('CORS: a preflight is answered and the headers the client reads are exposed', async () => {
    const pre = await fetch(`${hub.url}/api/datasets/o/r/commit/main`, {
      method: 'OPTIONS',
      headers: { Origin: 'http://127.0.0.1:9', 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'authorization, content-type' },
    });
    expect(pre.status).toBe(204);
    expect(pre.headers.get('access-control-allow-origin')).toBe('http://127.0.0.1:9');
    expect(pre.headers.get('access-control-allow-headers')).toMatch(/authorization.*content-type.*range/);
    expect(pre.headers.get('access-control-allow-methods')).toMatch(/POST/);
    const get = await fetch(`${hub.url}/datasets/o/r/resolve/main/a.txt`, { headers: { Range: 'bytes=1-2' } });
    expect(get.status).toBe(206);
    expect(await get.text()).toBe('LP');
    expect(get.headers.get('content-range')).toBe('bytes 1-2/5');
    for (const h of ['ETag', 'Content-Range', 'Link', 'X-Error-Code', 'X-Linked-Size', 'X-Linked-ETag']) {
      expect(get.headers.get('access-control-expose-headers')).toContain(h);
    }
  });

  test('another ref (refs/convert/parquet) by name and by sha; main does not move', async () => {
    const head = hub.head('o/r');
    const ref = hub.setRef('o/r', 'refs/convert/parquet', new Map([['default/train/0000.parquet', enc('PAR1')]]));
    expect(hub.head('o/r')).toBe(head);
    expect((await datasetInfo({ name: 'o/r', revision: 'refs/convert/parquet', hubUrl: hub.url, additionalFields: ['sha'] }) as { sha?: string }).sha).toBe(ref);
    expect(await (await downloadFile({ repo, path: 'default/train/0000.parquet', revision: ref, hubUrl: hub.url }))!.text()).toBe('PAR1');
    const files: string[] = [];
    for await (const f of listFiles({ repo, revision: ref, recursive: true, hubUrl: hub.url })) if (f.type === 'file') files.push(f.path);
    expect(files).toEqual(['default/train/0000.parquet']);
    expect(await downloadFile({ repo, path: 'a.txt', revision: ref, hubUrl: hub.url })).toBeNull();
  });
});
