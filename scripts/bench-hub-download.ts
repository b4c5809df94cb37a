/**
 * `npx tsx scripts/bench-hub-download.ts`: the Hub source's download path from the loopback Hub
 * (tests/helpers/hub-repo-server.ts) in Node. Prints one JSON object on stdout (indented with --pretty).
 *
 * Data: a seeded synthetic float32 file of N × D values (default 16,500 × 384, as the SOTU embeddings) and its int8
 * counterpart (N × D bytes). For each: cold read (resolve + streamed download + SHA-256 check + put into a memory
 * cache), warm read (from the cache, hash re-checked, no request), and a cold read whose connection is cut once
 * half-way (resumed with Range). Times in ms (median of --runs), bytes sent by the server.
 *
 * Options: --rows 16500  --dim 384  --runs 3  --pretty
 */
import { createHash } from 'node:crypto';
import { parseArgs } from 'node:util';
import { hubSource } from '../src/lib/hub/hub-source.ts';
import { memoryArtifactCache } from '../src/lib/hub/file-cache.ts';
import { serveHubRepos } from '../tests/helpers/hub-repo-server.ts';

const { values } = parseArgs({ options: { rows: { type: 'string', default: '16500' }, dim: { type: 'string', default: '384' }, runs: { type: 'string', default: '3' }, pretty: { type: 'boolean', default: false } } });
const rows = Number(values.rows);
const dim = Number(values.dim);
const runs = Number(values.runs);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

function seeded(n: number): Uint8Array {
  const b = new Uint8Array(n);
  let x = 12345;
  for (let i = 0; i < n; i++) { x = (x * 1103515245 + 12345) >>> 0; b[i] = x >>> 24; }
  return b;
}

const files = { 'kb/embeddings.npy': seeded(rows * dim * 4), 'kb/embeddings.int8.bin': seeded(rows * dim) };
const hub = await serveHubRepos();
hub.addRepo('bench/kb', new Map(Object.entries(files)));
const out: Record<string, unknown> = { rows, dim, runs, node: process.version };
for (const [path, bytes] of Object.entries(files)) {
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  const opts = { size: bytes.byteLength, sha256 };
  const cold: number[] = [];
  const warm: number[] = [];
  const resumed: number[] = [];
  let sent = 0;
  for (let r = 0; r < runs; r++) {
    const cache = memoryArtifactCache();
    const before = hub.requests.length;
    let t = performance.now();
    const src = await hubSource({ repo: 'bench/kb', hubUrl: hub.url, cache });
    await src.read(path, opts);
    cold.push(performance.now() - t);
    sent = hub.requests.slice(before).reduce((a, q) => a + q.bytes, 0);
    t = performance.now();
    const again = await hubSource({ repo: 'bench/kb', revision: src.sha, hubUrl: hub.url, cache });
    await again.read(path, opts);
    warm.push(performance.now() - t);
    hub.faults.push({ kind: 'cut', path, afterBytes: Math.floor(bytes.byteLength / 2) });
    t = performance.now();
    await (await hubSource({ repo: 'bench/kb', hubUrl: hub.url, retryDelayMs: 1 })).read(path, opts);
    resumed.push(performance.now() - t);
  }
  out[path] = { bytes: bytes.byteLength, serverBytesCold: sent, coldMs: Math.round(median(cold)), warmMs: Math.round(median(warm)), cutOnceMs: Math.round(median(resumed)) };
}
await hub.close();
process.stdout.write(`${JSON.stringify(out, null, values.pretty ? 2 : undefined)}\n`);
