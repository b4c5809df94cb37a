/**
 * The artifact file caches: IndexedDB (fake-indexeddb here), memory and the CLI folder. Each returns what was put,
 * checks a record read back (length and SHA-256) and drops a damaged one, and keeps refs; the folder cache writes
 * through temporary names. A hub source over the folder cache opens a second time with the Hub gone.
 */
import 'fake-indexeddb/auto';
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { defaultArtifactCacheDir, folderArtifactCache } from '../../cli/artifact-file-cache.ts';
import { hubSource } from '../../src/lib/hub/hub-source.ts';
import { memoryArtifactCache, type ArtifactFileCache } from '../../src/lib/hub/file-cache.ts';
import { indexedDbArtifactCache } from '../../src/lib/store/artifact-cache.ts';
import { database } from '../../src/lib/store/db.ts';
import { serveHubRepos } from '../helpers/hub-repo-server.ts';

const dirs: string[] = [];
const tmp = () => { const d = mkdtempSync(join(tmpdir(), 'rag-lab-artifact-cache-')); dirs.push(d); return d; };
afterAll(() => { for (const d of dirs) rmSync(d, { recursive: true, force: true }); });
const bytes = new Uint8Array(5000).map((_, i) => (i * 31) % 256);
const SHA = 'a'.repeat(40);

async function roundTrip(cache: ArtifactFileCache) {
  expect(await cache.getFile('sha256:x')).toBeNull();
  await cache.putFile('sha256:x', bytes);
  expect(await cache.getFile('sha256:x')).toEqual(bytes);
  expect(await cache.getRef('ref:h|o/n|main')).toBeNull();
  await cache.putRef('ref:h|o/n|main', SHA);
  expect(await cache.getRef('ref:h|o/n|main')).toBe(SHA);
}

describe('artifact file caches', () => {
  test('memory: round trip', async () => { await roundTrip(memoryArtifactCache()); });

  test('IndexedDB: round trip; a record with damaged bytes or the wrong shape is dropped with a note', async () => {
    const cache = indexedDbArtifactCache();
    await roundTrip(cache);
    const db = await database();
    const rec = (await db.get('artifacts', 'file:sha256:x')) as { bytes: Uint8Array };
    const damaged = rec.bytes.slice();
    damaged[10] = damaged[10]! ^ 1;
    await db.put('artifacts', { ...rec, bytes: damaged });
    expect(await cache.getFile('sha256:x')).toBeNull();
    expect(cache.lastNote).toBe('The cached copy of sha256:x does not match its checksum; it was dropped and will be downloaded again.');
    expect(await db.get('artifacts', 'file:sha256:x')).toBeUndefined();
    await db.put('artifacts', { ...rec, bytes: bytes.slice(0, 100) });
    expect(await cache.getFile('sha256:x')).toBeNull();
    expect(cache.lastNote).toMatch(/has 100 bytes instead of 5000/);
    await db.put('artifacts', { key: 'file:sha256:y', schemaVersion: 1, size: 3, bytes: 'abc', sha256: 'z', savedAt: 0 });
    expect(await cache.getFile('sha256:y')).toBeNull();
    expect(cache.lastNote).toMatch(/^The cached artifact file has the wrong shape \(sha256: /);
    // Self-consistent bytes under a content key of another hash are not what the key promises.
    const other = `sha256:${'b'.repeat(64)}`;
    await cache.putFile(other, bytes);
    expect(await cache.getFile(other)).toBeNull();
    expect(cache.lastNote).toBe(`The cached copy of ${other} does not match its checksum; it was dropped and will be downloaded again.`);
    await db.put('artifacts', { key: 'ref:bad', schemaVersion: 1, sha: 'not-a-sha', savedAt: 0 });
    expect(await cache.getRef('bad')).toBeNull();
  });

  test('folder: round trip, no temporary files left, a damaged file is dropped', async () => {
    const dir = tmp();
    const cache = folderArtifactCache(dir);
    await roundTrip(cache);
    expect(readdirSync(join(dir, 'files')).filter((f) => f.endsWith('.tmp'))).toEqual([]);
    const name = createHash('sha256').update('sha256:x').digest('hex');
    writeFileSync(join(dir, 'files', `${name}.bin`), bytes.slice(0, 10));
    expect(await cache.getFile('sha256:x')).toBeNull();
    expect(cache.lastNote).toMatch(/was damaged; it was dropped/);
    expect(readdirSync(join(dir, 'files'))).toEqual([]);
    const other = `sha256:${'c'.repeat(64)}`;
    await cache.putFile(other, bytes);
    expect(await cache.getFile(other)).toBeNull();
    expect(defaultArtifactCacheDir({ XDG_CACHE_HOME: '/c' })).toBe('/c/rag-lab/artifacts');
  });

  test('a hub source over the folder cache opens again with the Hub closed', async () => {
    const hub = await serveHubRepos();
    hub.addRepo('o/kb', new Map([['kb/meta.json', new TextEncoder().encode('{"a":1}')], ['kb/x.bin', bytes]]));
    const dir = tmp();
    const sha256 = createHash('sha256').update(bytes).digest('hex');
    const first = await hubSource({ repo: 'o/kb', hubUrl: hub.url, cache: folderArtifactCache(dir) });
    await first.read('kb/meta.json');
    await first.read('kb/x.bin', { size: bytes.byteLength, sha256 });
    await hub.close();
    const again = await hubSource({ repo: 'o/kb', hubUrl: hub.url, cache: folderArtifactCache(dir), retries: 0 });
    expect(again.resolved).toBe('cache');
    expect(again.sha).toBe(first.sha);
    expect(new TextDecoder().decode((await again.read('kb/meta.json'))!)).toBe('{"a":1}');
    expect(await again.read('kb/x.bin', { size: bytes.byteLength, sha256 })).toEqual(bytes);
  });
});
