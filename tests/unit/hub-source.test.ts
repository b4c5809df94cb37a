/**
 * hubSource and httpFolderSource against the loopback Hub (tests/helpers/hub-repo-server.ts): progress, pinning,
 * resume after a cut connection, SHA-256 refusal without caching, 404/401 messages, where the token goes, offline
 * second open from the cache, and a full cache that still returns the bytes.
 */
import { createHash } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { ArtifactError } from '../../src/lib/artifact/types.ts';
import { ArtifactUnreachableError, authorizedFetch } from '../../src/lib/hub/download.ts';
import { httpFolderSource } from '../../src/lib/hub/http-source.ts';
import { hubSource } from '../../src/lib/hub/hub-source.ts';
import { memoryArtifactCache, type ArtifactFileCache } from '../../src/lib/hub/file-cache.ts';
import { serveHubRepos, type HubRepoServer } from '../helpers/hub-repo-server.ts';

const TOKEN = 'hf_testtoken123';
const REPO = 'tester/kb';
const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');
/** Deterministic bytes that differ at every offset (so a misplaced resume shows). */
function bytesOf(n: number, seed: number): Uint8Array {
  const b = new Uint8Array(n);
  let x = seed;
  for (let i = 0; i < n; i++) { x = (x * 1103515245 + 12345) >>> 0; b[i] = x >>> 24; }
  return b;
}
const big = bytesOf(300_000, 7);
const meta = new TextEncoder().encode(JSON.stringify({ version: 1, files: { 'kb/embeddings.npy': { size: big.byteLength, sha256: sha256(big) } } }));

let hub: HubRepoServer;
beforeEach(async () => {
  hub = await serveHubRepos({ token: TOKEN });
  hub.addRepo(REPO, new Map([['kb/meta.json', meta], ['kb/embeddings.npy', big], ['index_config.json', new TextEncoder().encode('{"indexes":[]}')]]));
});
afterEach(async () => { await hub.close(); });

const fast = { retryDelayMs: 1 };

describe('hubSource', () => {
  test('resolves main to the head sha and reads a file with per-file progress', async () => {
    const src = await hubSource({ repo: REPO, hubUrl: hub.url, ...fast });
    expect(src.sha).toBe(hub.head(REPO));
    expect(src.resolved).toBe('network');
    const progress: Array<[number, number]> = [];
    const b = await src.read('kb/embeddings.npy', { size: big.byteLength, sha256: sha256(big), onProgress: (d, t) => progress.push([d, t]) });
    expect(sha256(b!)).toBe(sha256(big));
    expect(progress.length).toBeGreaterThan(1);
    expect(progress.every(([, t]) => t === big.byteLength)).toBe(true);
    expect(progress.at(-1)).toEqual([big.byteLength, big.byteLength]);
    for (let i = 1; i < progress.length; i++) expect(progress[i]![0]).toBeGreaterThanOrEqual(progress[i - 1]![0]);
    const resolves = hub.requests.filter((r) => r.path.includes('/resolve/'));
    expect(resolves.map((r) => r.path)).toEqual([`/datasets/${REPO}/resolve/${src.sha}/kb/embeddings.npy`]);
    expect(await src.list('kb')).toEqual(['kb/embeddings.npy', 'kb/meta.json']);
  });

  test('a pinned sha serves the old bytes after main moved, with no revision request', async () => {
    const old = hub.head(REPO);
    hub.commitFiles(REPO, new Map([['kb/meta.json', new TextEncoder().encode('{"changed":true}')]]));
    expect(hub.head(REPO)).not.toBe(old);
    const src = await hubSource({ repo: REPO, revision: old, hubUrl: hub.url, ...fast });
    expect(src.resolved).toBe('pinned');
    expect(new TextDecoder().decode((await src.read('kb/meta.json'))!)).toBe(new TextDecoder().decode(meta));
    expect(hub.requests.some((r) => r.path.includes('/revision/'))).toBe(false);
    const now = await hubSource({ repo: REPO, hubUrl: hub.url, ...fast });
    expect(new TextDecoder().decode((await now.read('kb/meta.json'))!)).toBe('{"changed":true}');
  });

  test('a cut connection is resumed with Range: bytes=N- and the bytes are right', async () => {
    hub.faults.push({ kind: 'cut', path: 'kb/embeddings.npy', afterBytes: 100_000, times: 1 });
    const cache = memoryArtifactCache();
    const src = await hubSource({ repo: REPO, hubUrl: hub.url, cache, ...fast });
    const b = await src.read('kb/embeddings.npy', { size: big.byteLength, sha256: sha256(big) });
    expect(sha256(b!)).toBe(sha256(big));
    const gets = hub.requests.filter((r) => r.path.endsWith('/kb/embeddings.npy'));
    expect(gets).toHaveLength(2);
    expect(gets[0]!.range).toBeNull();
    expect(gets[0]!.bytes).toBe(100_000);
    const resumedAt = Number(/^bytes=(\d+)-$/.exec(gets[1]!.range ?? '')?.[1]);
    expect(resumedAt).toBeGreaterThan(0);
    expect(resumedAt).toBeLessThanOrEqual(100_000);
    expect(gets[1]!.status).toBe(206);
    expect(gets[1]!.bytes).toBe(big.byteLength - resumedAt);
    expect(cache.files.get(`sha256:${sha256(big)}`)).toEqual(big);
  });

  test('a connection cut every time fails after the retries, names the file, caches nothing', async () => {
    hub.faults.push({ kind: 'cut', path: 'kb/embeddings.npy', afterBytes: 1000, times: 100 });
    const cache = memoryArtifactCache();
    const src = await hubSource({ repo: REPO, hubUrl: hub.url, cache, retries: 2, ...fast });
    await expect(src.read('kb/embeddings.npy', { size: big.byteLength, sha256: sha256(big) })).rejects.toThrow(/^kb\/embeddings\.npy: the download from 127\.0\.0\.1:\d+ failed 3 times \(the connection dropped\)/);
    expect(hub.requests.filter((r) => r.path.endsWith('/kb/embeddings.npy'))).toHaveLength(3);
    expect(cache.files.size).toBe(0);
  });

  test('a 500 is retried; a 500 that stays names the status', async () => {
    hub.faults.push({ kind: 'status', path: 'kb/meta.json', status: 500, times: 1 });
    const src = await hubSource({ repo: REPO, hubUrl: hub.url, ...fast });
    expect(await src.read('kb/meta.json')).toEqual(meta);
    hub.faults.push({ kind: 'status', path: 'index_config.json', status: 500, times: 10 });
    await expect(src.read('index_config.json')).rejects.toThrow(/index_config\.json: .*failed 4 times \(HTTP 500\)/);
  });

  test('a file whose SHA-256 differs is refused and not cached; after the fix the next read succeeds', async () => {
    const wrong = big.slice();
    wrong[12345] = wrong[12345]! ^ 0xff;
    hub.commitFiles(REPO, new Map([['kb/embeddings.npy', wrong]]));
    const cache = memoryArtifactCache();
    const src = await hubSource({ repo: REPO, hubUrl: hub.url, cache, ...fast });
    await expect(src.read('kb/embeddings.npy', { size: big.byteLength, sha256: sha256(big) })).rejects.toThrow(/^kb\/embeddings\.npy: the SHA-256 .* differs from meta\.json.*nothing was cached/);
    expect(cache.files.size).toBe(0);
    hub.commitFiles(REPO, new Map([['kb/embeddings.npy', big]]));
    const fixed = await hubSource({ repo: REPO, hubUrl: hub.url, cache, ...fast });
    expect(sha256((await fixed.read('kb/embeddings.npy', { size: big.byteLength, sha256: sha256(big) }))!)).toBe(sha256(big));
    expect(cache.files.size).toBe(1);
  });

  test('a wrong size is refused with both numbers', async () => {
    const src = await hubSource({ repo: REPO, hubUrl: hub.url, ...fast });
    await expect(src.read('kb/embeddings.npy', { size: 1234 })).rejects.toThrow(`kb/embeddings.npy: the file on ${new URL(hub.url).host} has ${big.byteLength} bytes, meta.json says 1234`);
  });

  test('404 → null; a missing repo and a private repo without a token get messages that say what to do', async () => {
    const src = await hubSource({ repo: REPO, hubUrl: hub.url, ...fast });
    expect(await src.read('kb/missing.parquet')).toBeNull();
    await expect(hubSource({ repo: 'tester/nope', hubUrl: hub.url })).rejects.toThrow(/^tester\/nope@main: no dataset repo tester\/nope .*check the repo name/);
    hub.addRepo('tester/secret', new Map([['a.json', new Uint8Array([1])]]), { private: true });
    await expect(hubSource({ repo: 'tester/secret', hubUrl: hub.url })).rejects.toThrow('tester/secret@main: the repo tester/secret is private or gated: add a Hugging Face token (hf_…) in Settings');
    const pinned = await hubSource({ repo: 'tester/secret', revision: hub.head('tester/secret'), hubUrl: hub.url });
    await expect(pinned.read('a.json')).rejects.toThrow('a.json: the repo tester/secret is private or gated: add a Hugging Face token (hf_…) in Settings');
    const withToken = await hubSource({ repo: 'tester/secret', hubUrl: hub.url, token: TOKEN });
    expect(await withToken.read('a.json')).toEqual(new Uint8Array([1]));
    await expect(hubSource({ repo: '../etc', hubUrl: hub.url })).rejects.toBeInstanceOf(ArtifactError);
    await expect(src.read('../x.json')).rejects.toThrow(/^\.\.\/x\.json: the path is not inside the repo/);
  });

  test('the token goes only in Authorization, only to the hubUrl origin, never in a URL or a message', async () => {
    hub.addRepo('tester/secret', new Map([['a.json', new Uint8Array([1])]]), { private: true });
    const seen: Array<{ url: string; auth: string | null }> = [];
    const recording: typeof fetch = (input, init) => {
      const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
      seen.push({ url, auth: new Headers(init?.headers).get('authorization') });
      return fetch(input, init);
    };
    const src = await hubSource({ repo: 'tester/secret', hubUrl: hub.url, token: TOKEN, fetch: recording });
    await src.read('a.json');
    expect(seen.length).toBeGreaterThan(1);
    expect(seen.every((s) => s.auth === `Bearer ${TOKEN}` && !s.url.includes(TOKEN))).toBe(true);
    expect(hub.requests.every((r) => r.auth)).toBe(true);
    // Another origin (the same server under "localhost", as a CDN redirect or a link would be): no token goes there.
    const other = hub.url.replace('127.0.0.1', 'localhost');
    seen.length = 0;
    const guarded = authorizedFetch(recording, TOKEN, hub.url);
    expect((await guarded(`${other}/datasets/tester/secret/resolve/main/a.json`)).status).toBe(401);
    expect((await guarded(`${hub.url}/datasets/tester/secret/resolve/main/a.json`)).status).toBe(200);
    expect(seen.map((s) => s.auth)).toEqual([null, `Bearer ${TOKEN}`]);
    // A source whose hubUrl is the other origin sends its token there only: the 401 message carries no token.
    seen.length = 0;
    const opened = await hubSource({ repo: 'tester/secret', hubUrl: other, token: TOKEN, fetch: recording });
    expect(opened.sha).toBe(hub.head('tester/secret'));
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.every((s) => s.url.startsWith(other) && !s.url.includes(TOKEN) && s.auth === `Bearer ${TOKEN}`)).toBe(true);
    // A refused token's message names the repo, never the token.
    const refused = await hubSource({ repo: 'tester/secret', hubUrl: hub.url, token: 'hf_wrongtoken' }).catch((e: Error) => e);
    expect((refused as Error).message).toMatch(/private or gated/);
    expect((refused as Error).message).not.toContain('hf_wrongtoken');
    await expect(hubSource({ repo: REPO, hubUrl: hub.url, token: 'not-a-token' })).rejects.toThrow(/must look like hf_/);
  });

  test('a resolve redirected to another origin (a CDN) is followed without the token', async () => {
    hub.addRepo('tester/secret', new Map([['kb/x.bin', big]]), { private: true });
    const cdn = await serveHubRepos();
    try {
      cdn.addRepo('cdn/objects', new Map([['x.bin', big]]));
      hub.faults.push({ kind: 'redirect', path: 'kb/x.bin', to: `${cdn.url}/datasets/cdn/objects/resolve/main/x.bin` });
      const src = await hubSource({ repo: 'tester/secret', hubUrl: hub.url, token: TOKEN, ...fast });
      expect(sha256((await src.read('kb/x.bin', { size: big.byteLength, sha256: sha256(big) }))!)).toBe(sha256(big));
      expect(hub.requests.filter((r) => r.path.endsWith('kb/x.bin')).map((r) => [r.status, r.auth])).toEqual([[302, true]]);
      expect(cdn.requests.map((r) => [r.path, r.auth])).toEqual([['/datasets/cdn/objects/resolve/main/x.bin', false]]);
    } finally {
      await cdn.close();
    }
  });

  test('a second open with the server closed works from the cache, with no request', async () => {
    const cache = memoryArtifactCache();
    const first = await hubSource({ repo: REPO, hubUrl: hub.url, cache, ...fast });
    const m1 = await first.read('kb/meta.json');
    const e1 = await first.read('kb/embeddings.npy', { size: big.byteLength, sha256: sha256(big) });
    await hub.close();
    const calls: string[] = [];
    const counting: typeof fetch = (input, init) => { calls.push(String(input)); return fetch(input, init); };
    const second = await hubSource({ repo: REPO, hubUrl: hub.url, cache, retries: 0, fetch: counting, ...fast });
    expect(calls).toHaveLength(1); // the revision could not be resolved
    calls.length = 0;
    expect(second.resolved).toBe('cache');
    expect(second.sha).toBe(first.sha);
    expect(await second.read('kb/meta.json')).toEqual(m1);
    expect(await second.read('kb/embeddings.npy', { size: big.byteLength, sha256: sha256(big) })).toEqual(e1);
    expect(calls).toEqual([]);
    // A file never cached: the message names the host, not a URL.
    const err = await second.read('index_config.json').catch((e: Error) => e);
    expect(err).toBeInstanceOf(ArtifactUnreachableError);
    expect((err as Error).message).toMatch(/^index_config\.json: could not reach 127\.0\.0\.1:\d+ /);
    expect((err as Error).message).not.toContain('http://');
    // With no cache at all, an unreachable Hub says so.
    await expect(hubSource({ repo: REPO, hubUrl: hub.url })).rejects.toBeInstanceOf(ArtifactUnreachableError);
  });

  test('a full cache (putFile throws QuotaExceededError) still returns the bytes, with a note', async () => {
    const inner = memoryArtifactCache();
    const full: ArtifactFileCache = { ...inner, putFile: async () => { throw new DOMException('full', 'QuotaExceededError'); } };
    const src = await hubSource({ repo: REPO, hubUrl: hub.url, cache: full, ...fast });
    expect(await src.read('kb/meta.json')).toEqual(meta);
    expect(src.lastNote).toMatch(/^kb\/meta\.json: the browser storage is full, so this file is not cached and will be downloaded again next time/);
    expect(inner.files.size).toBe(0);
  });

  test('a host that ignores Range after a cut (200 with the whole file) still yields the right bytes', async () => {
    hub.faults.push({ kind: 'cut', path: 'kb/embeddings.npy', afterBytes: 120_000, times: 1 });
    const noRange: typeof fetch = (input, init) => {
      const headers = new Headers(init?.headers);
      headers.delete('range');
      return fetch(input, { ...init, headers });
    };
    const src = await hubSource({ repo: REPO, hubUrl: hub.url, fetch: noRange, ...fast });
    const b = await src.read('kb/embeddings.npy', { size: big.byteLength, sha256: sha256(big) });
    expect(sha256(b!)).toBe(sha256(big));
    const gets = hub.requests.filter((r) => r.path.endsWith('embeddings.npy'));
    expect(gets.map((r) => [r.range, r.status])).toEqual([[null, 200], [null, 200]]);
  });

  test('an abort mid-download rejects as an abort (not a network fault), with no retry and nothing cached', async () => {
    hub.faults.push({ kind: 'delay', path: 'kb/meta.json', ms: 200, times: 1 });
    const cache = memoryArtifactCache();
    const src = await hubSource({ repo: REPO, hubUrl: hub.url, cache, ...fast });
    const ac = new AbortController();
    const read = src.read('kb/embeddings.npy', { size: big.byteLength, sha256: sha256(big), signal: ac.signal, onProgress: () => ac.abort() });
    await expect(read).rejects.toMatchObject({ name: 'AbortError' });
    const waiting = new AbortController();
    const delayed = src.read('kb/meta.json', { signal: waiting.signal });
    waiting.abort();
    await expect(delayed).rejects.toMatchObject({ name: 'AbortError' });
    expect(hub.requests.filter((r) => r.path.endsWith('embeddings.npy'))).toHaveLength(1);
    expect(cache.files.size).toBe(0);
  });

  test('a cached copy that does not match the expected hash is not used', async () => {
    const cache = memoryArtifactCache();
    cache.files.set(`sha256:${sha256(big)}`, bytesOf(big.byteLength, 99));
    const src = await hubSource({ repo: REPO, hubUrl: hub.url, cache, ...fast });
    expect(sha256((await src.read('kb/embeddings.npy', { size: big.byteLength, sha256: sha256(big) }))!)).toBe(sha256(big));
    expect(hub.requests.filter((r) => r.path.endsWith('embeddings.npy'))).toHaveLength(1);
  });
});

describe('httpFolderSource', () => {
  const base = () => `${hub.url}/datasets/${REPO}/resolve/main/`;

  test('reads with progress, resumes a cut, verifies, caches by hash, and works offline from the cache', async () => {
    hub.faults.push({ kind: 'cut', path: 'kb/embeddings.npy', afterBytes: 50_000, times: 1 });
    const cache = memoryArtifactCache();
    const src = httpFolderSource({ baseUrl: base(), cache, ...fast });
    let last: [number, number] = [0, 0];
    const b = await src.read('kb/embeddings.npy', { size: big.byteLength, sha256: sha256(big), onProgress: (d, t) => { last = [d, t]; } });
    expect(sha256(b!)).toBe(sha256(big));
    expect(last).toEqual([big.byteLength, big.byteLength]);
    const gets = hub.requests.filter((r) => r.path.endsWith('embeddings.npy'));
    expect(gets.map((r) => r.range)).toEqual([null, expect.stringMatching(/^bytes=\d+-$/)]);
    expect(await src.read('kb/meta.json')).toEqual(meta);
    expect(await src.read('kb/nothing.json')).toBeNull();
    await hub.close();
    const offline = httpFolderSource({ baseUrl: base(), cache, retries: 0, ...fast });
    expect(await offline.read('kb/embeddings.npy', { size: big.byteLength, sha256: sha256(big) })).toEqual(big);
    expect(await offline.read('kb/meta.json')).toEqual(meta);
    expect(offline.notes.join('\n')).toMatch(/kb\/meta\.json: 127\.0\.0\.1:\d+ did not answer/);
  });

  test('a wrong SHA-256 is refused and not cached; paths cannot climb out', async () => {
    const cache = memoryArtifactCache();
    const src = httpFolderSource({ baseUrl: base(), cache, ...fast });
    await expect(src.read('kb/embeddings.npy', { sha256: '0'.repeat(64) })).rejects.toThrow(/SHA-256/);
    expect(cache.files.size).toBe(0);
    await expect(src.read('kb/../../x')).rejects.toThrow(/not inside/);
    expect(() => httpFolderSource({ baseUrl: 'http://127.0.0.1/no-slash' })).toThrow(/must end with/);
  });
});
