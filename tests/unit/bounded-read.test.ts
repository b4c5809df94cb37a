/**
 * The one bounded reader (src/lib/hub/bounded-read.ts, download-limits.ts) against the loopback Hub serving bodies it
 * generates lazily (tests/helpers/stream-body.ts: nothing huge is ever allocated here): an undeclared body is cut at
 * the limit, a declared Content-Length or a meta.json size over it is refused before any body byte, and an artifact
 * whose meta.json declares a 10 GB chunks.parquet is refused before the file is requested.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openArtifact } from '../../src/lib/artifact/read.ts';
import { addToIndexConfig, indexConfigBytes, writeArtifact } from '../../src/lib/artifact/write.ts';
import { readBounded } from '../../src/lib/hub/bounded-read.ts';
import { DOWNLOAD_LIMITS, DownloadLimitError, kindOf } from '../../src/lib/hub/download-limits.ts';
import { hubSource } from '../../src/lib/hub/hub-source.ts';
import { HubDatasetError } from '../../src/lib/data/hub-dataset.ts';
import { retryingFetch } from '../../src/lib/data/hub-dataset-http.ts';
import { REPORT_LIMITS } from '../../src/lib/reports/format.ts';
import { KnowledgeBase } from '../../src/lib/retrieval/knowledge-base.ts';
import { serveHubRepos, type HubRepoServer } from '../helpers/hub-repo-server.ts';

const MiB = 1024 * 1024;
const REPO = 'tester/hostile';
let hub: HubRepoServer;
let sha: string;
beforeAll(async () => {
  hub = await serveHubRepos();
  const kb = KnowledgeBase.build([{ id: 'd0', title: 'D', text: 'A short document about tariffs and ships.', meta: {} }], { cdfQueries: 0 });
  const w = await writeArtifact({ id: 'kb', title: 'KB', fields: [], kb });
  const meta = JSON.parse(new TextDecoder().decode(w.files.get('meta.json')!)) as { files: Record<string, { bytes: number }> };
  meta.files['chunks.parquet']!.bytes = 10 * 1024 ** 3;
  const files = new Map<string, Uint8Array>([['index_config.json', indexConfigBytes(addToIndexConfig(null, w.entry))]]);
  for (const [p, b] of w.files) files.set(`kb/${p}`, b);
  files.set('kb/meta.json', new TextEncoder().encode(JSON.stringify(meta)));
  sha = hub.addRepo(REPO, files);
});
afterAll(async () => { await hub.close(); });

const url = (path: string) => `${hub.url}/datasets/${REPO}/resolve/${sha}/${path}`;
const served = (path: string) => hub.requests.filter((r) => r.path.endsWith(`/${path}`));

describe('the bounded reader', () => {
  it('cuts an undeclared endless body at the limit and says so', async () => {
    hub.faults.push({ kind: 'stream', path: 'endless.bin', bytes: 1024 * MiB });
    const limit = 2 * MiB;
    const seen: number[] = [];
    const err = await readBounded(await fetch(url('endless.bin')), { file: 'endless.bin', limit, onProgress: (d) => seen.push(d) }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DownloadLimitError);
    expect((err as Error).message).toMatch(/^endless\.bin: over the 2 MB limit for HNSW graphs \(stopped reading at 2\.\d MB\)$/);
    const read = (err as DownloadLimitError).seen as { read: number };
    expect(read.read).toBeGreaterThan(limit);
    expect(read.read).toBeLessThanOrEqual(limit + 256 * 1024);
    expect(Math.max(...seen)).toBeLessThanOrEqual(limit);
    // The server stopped long before the 1 GiB body: the client cancelled (socket buffers add a few MB at most).
    await new Promise((ok) => setTimeout(ok, 50));
    expect(served('endless.bin')[0]!.bytes).toBeLessThan(64 * MiB);
  });

  it('refuses a declared Content-Length over the limit with no body byte read', async () => {
    hub.faults.push({ kind: 'stream', path: 'reports/report_big.json', bytes: 8 * MiB, declare: 600 * MiB });
    let progress = 0;
    const err = await readBounded(await fetch(url('reports/report_big.json')), { file: 'reports/report_big.json', onProgress: () => progress++ }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DownloadLimitError);
    expect((err as Error).message).toBe('reports/report_big.json: declared 600.0 MB (by the server (Content-Length)), over the 200 MB limit for reports: refused before downloading it');
    expect(progress).toBe(0);
  });

  it('keeps the report limit equal to the report format\'s and names each kind', () => {
    expect(DOWNLOAD_LIMITS.report).toBe(REPORT_LIMITS.maxBytes);
    expect(['kb/meta.json', 'index_config.json', 'kb/chunks.parquet', 'kb/embeddings.int8/codes.npy', 'kb/hnsw.bin', 'reports/report_x.json', 'kb.zip', 'kb/bm25/terms.json'].map(kindOf))
      .toEqual(['meta', 'index-config', 'parquet', 'npy', 'hnsw', 'report', 'zip', 'json']);
  });
});

describe('downloads through hubSource', () => {
  it('cuts an endless meta.json at its limit, whatever the retries', async () => {
    hub.faults.push({ kind: 'stream', path: 'big/meta.json', bytes: 1024 * MiB, fill: 0x5b });
    const src = await hubSource({ repo: REPO, revision: sha, hubUrl: hub.url, retryDelayMs: 1 });
    const before = served('big/meta.json').length;
    const err = await src.read('big/meta.json').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DownloadLimitError);
    expect((err as Error).message).toMatch(/^big\/meta\.json: over the 32 MB limit for meta\.json \(stopped reading at 32\.\d MB\)$/);
    expect(served('big/meta.json').length - before).toBe(1);
  });

  it('refuses a size meta.json declares over the limit before any request', async () => {
    const src = await hubSource({ repo: REPO, revision: sha, hubUrl: hub.url });
    const err = await src.read('kb/embeddings.npy', { size: 3 * 1024 ** 3 + 1 }).catch((e: unknown) => e);
    expect((err as Error).message).toBe('kb/embeddings.npy: declared 3.0 GB (by meta.json), over the 2 GB limit for .npy arrays: refused before downloading it');
    expect(served('kb/embeddings.npy')).toHaveLength(0);
  });

  it('refuses an artifact whose meta.json declares a 10 GB chunks.parquet before requesting any data file', async () => {
    const src = await hubSource({ repo: REPO, revision: sha, hubUrl: hub.url });
    const err = await openArtifact(src, 'kb').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DownloadLimitError);
    expect((err as Error).message).toBe('kb/chunks.parquet: declared 10.0 GB (by meta.json), over the 1 GB limit for parquet files: refused before downloading it');
    expect(hub.requests.filter((r) => r.path.includes('/resolve/') && r.path.includes('/kb/') && !r.path.endsWith('/kb/meta.json'))).toHaveLength(0);
  });
});

describe('bounded memory', () => {
  it('a seed-A chunks.parquet without a Content-Length that is not parquet stops at its first bytes, never read whole', async () => {
    const files = new Map<string, Uint8Array>([['seeda/meta.json', new TextEncoder().encode(JSON.stringify({ embedding_model: 'sentence-transformers/all-MiniLM-L6-v2', embedding_dim: 384 }))]]);
    const seedSha = hub.addRepo('tester/seed-a', files);
    hub.faults.push({ kind: 'stream', path: 'seeda/chunks.parquet', bytes: 64 * MiB, fill: 0x7b });
    const src = await hubSource({ repo: 'tester/seed-a', revision: seedSha, hubUrl: hub.url, retryDelayMs: 1 });
    const err = await openArtifact(src, 'seeda').catch((e: unknown) => e);
    expect((err as Error).message).toMatch(/^seeda\/chunks\.parquet: is not a parquet file \(PAR1\): its first bytes say otherwise, so it was not downloaded \(stopped reading at \d+(\.\d)? KB\)$/);
    await new Promise((ok) => setTimeout(ok, 50));
    const servedBytes = hub.requests.filter((r) => r.path.endsWith('/seeda/chunks.parquet')).map((r) => r.bytes);
    expect(servedBytes).toHaveLength(1);
    expect(servedBytes[0]).toBeLessThan(16 * MiB);
  });

  it('an undeclared body over the limit: the bytes held never exceed the limit plus one chunk', async () => {
    hub.faults.push({ kind: 'stream', path: 'held.bin', bytes: 64 * MiB });
    const held: number[] = [];
    const limit = 4 * MiB;
    const err = await readBounded(await fetch(url('held.bin')), { file: 'held.bin', limit, onHeld: (n) => held.push(n) }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DownloadLimitError);
    expect(held.length).toBeGreaterThan(10);
    expect(Math.max(...held)).toBeGreaterThan(limit);
    expect(Math.max(...held)).toBeLessThanOrEqual(limit + 256 * 1024);
  });

  it('a declared body is read into one buffer of its size: held never twice the body', async () => {
    hub.faults.push({ kind: 'stream', path: 'declared.bin', bytes: 8 * MiB, declare: 8 * MiB, fill: 0x41 });
    const held: number[] = [];
    const bytes = await readBounded(await fetch(url('declared.bin')), { file: 'declared.bin', onHeld: (n) => held.push(n) });
    expect(bytes.byteLength).toBe(8 * MiB);
    expect(bytes.every((b) => b === 0x41)).toBe(true);
    expect(held.length).toBeGreaterThan(10);
    expect(Math.max(...held)).toBeLessThanOrEqual(8 * MiB + 256 * 1024);
  });
});

describe('Hub dataset reads', () => {
  it('a parquet range answered with a declared 2 GB body is refused at the parquet limit, not retried', async () => {
    hub.faults.push({ kind: 'stream', path: 'data/train-0000.parquet', bytes: 4 * MiB, declare: 2 * 1024 ** 3 });
    const f = retryingFetch((i, init) => fetch(i, init), 2, 1);
    const err = await f(url('data/train-0000.parquet'), { headers: { Range: 'bytes=0-99' } }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(HubDatasetError);
    expect((err as Error).message).toBe('train-0000.parquet: declared 2.0 GB (by the server (Content-Length)), over the 1 GB limit for parquet files: refused before downloading it');
    expect(served('data/train-0000.parquet')).toHaveLength(1);
  });
});

describe('sniffing a body for its magic bytes', () => {
  /** A body of `n` chunks of `size` bytes starting with `head`, with no Content-Length. */
  const body = (head: string, n: number, size: number) => new Response(new ReadableStream<Uint8Array>({
    start(c) {
      for (let i = 0; i < n; i++) { const b = new Uint8Array(size); if (i === 0) b.set(new TextEncoder().encode(head)); c.enqueue(b); }
      c.close();
    },
  }));

  it('reads a parquet body in linear copies (the magic is checked on the first bytes, not on a copy of all so far)', async () => {
    const set = Uint8Array.prototype.set;
    let copied = 0;
    Uint8Array.prototype.set = function (this: Uint8Array, src: ArrayLike<number>, at?: number) { copied += src.length; return set.call(this, src, at); };
    try {
      const bytes = await readBounded(body('PAR1', 1000, 4096), { file: 'kb/chunks.parquet', sniff: true });
      expect(bytes.byteLength).toBe(1000 * 4096);
    } finally {
      Uint8Array.prototype.set = set;
    }
    // One copy into the result (plus the chunk the first check spans): a copy of the body so far per chunk was 2 GB here.
    expect(copied).toBeLessThanOrEqual(2 * 1000 * 4096);
  });

  it('checks magic bytes split over the first chunks, and refuses a body that does not start with them', async () => {
    const split = new Response(new ReadableStream<Uint8Array>({ start(c) { for (const s of ['PA', 'R', '1xyz']) c.enqueue(new TextEncoder().encode(s)); c.close(); } }));
    expect(new TextDecoder().decode(await readBounded(split, { file: 'kb/chunks.parquet', sniff: true }))).toBe('PAR1xyz');
    await expect(readBounded(body('<!doctype html>', 3, 64), { file: 'kb/chunks.parquet', sniff: true })).rejects.toThrow(/parquet/i);
  });
});
