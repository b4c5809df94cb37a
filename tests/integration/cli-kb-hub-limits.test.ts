/**
 * `--kb hub:…` against a loopback Hub serving hostile sizes (tests/helpers/stream-body.ts: generated lazily, never
 * allocated here): an endless meta.json and one declared far over the limit each end in one line naming the limit,
 * exit 2, with the bytes the Hub actually sent bounded by the limit — the command runs in-process.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { searchCommand } from '../../cli/search.ts';
import { captureCommand } from '../helpers/cli.ts';
import { serveHubRepos, type HubRepoServer } from '../helpers/hub-repo-server.ts';

const MiB = 1024 * 1024;
const cacheDir = mkdtempSync(join(tmpdir(), 'rag-lab-limits-cache-'));
let hub: HubRepoServer;
const saved = { endpoint: process.env.HF_ENDPOINT, cache: process.env.XDG_CACHE_HOME };
beforeAll(async () => {
  hub = await serveHubRepos();
  hub.addRepo('tester/huge', new Map([['README.md', new TextEncoder().encode('# huge\n')]]));
  process.env.HF_ENDPOINT = hub.url;
  process.env.XDG_CACHE_HOME = cacheDir;
});
afterAll(async () => {
  await hub.close();
  for (const [k, v] of [['HF_ENDPOINT', saved.endpoint], ['XDG_CACHE_HOME', saved.cache]] as const) {
    if (v === undefined) delete process.env[k]; else process.env[k] = v;
  }
  rmSync(cacheDir, { recursive: true, force: true });
});

describe('search --kb hub: with a hostile meta.json', () => {
  it('an endless meta.json (no index_config.json): one line naming the 32 MB limit, exit 2, the download cut there', async () => {
    hub.faults.push({ kind: 'stream', path: 'meta.json', bytes: 700 * MiB, fill: 0x5b });
    const r = await captureCommand(searchCommand, ['--kb', 'hub:tester/huge', 'tariffs']);
    expect(r.error?.exitCode).toBe(2);
    expect(r.error?.message).toMatch(/^meta\.json: over the 32 MB limit for meta\.json \(stopped reading at 32\.\d MB\)/);
    expect(r.error?.message.split('\n')).toHaveLength(1);
    const sent = hub.requests.filter((q) => q.path.endsWith('/meta.json')).map((q) => q.bytes);
    expect(sent).toHaveLength(1);
    expect(sent[0]).toBeLessThan(48 * MiB);
  });

  it('a meta.json declared 700 MB: refused before reading it', async () => {
    hub.faults.push({ kind: 'stream', path: 'meta.json', bytes: 4 * MiB, declare: 700 * MiB });
    const r = await captureCommand(searchCommand, ['--kb', 'hub:tester/huge', 'tariffs']);
    expect(r.error?.exitCode).toBe(2);
    expect(r.error?.message).toMatch(/^meta\.json: declared 700\.0 MB \(by 127\.0\.0\.1:\d+\), over the 32 MB limit for meta\.json: refused before downloading it/);
    expect(r.error?.message.split('\n')).toHaveLength(1);
  });
});
