/**
 * RAGBench from the Hub: parquet written at test time from ../shared, served by a loopback server speaking the Hub's
 * file protocol (HEAD, Range, 206, Content-Range), read with range requests; the dataset viewer as the fallback;
 * the message when no host answers.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseRagbenchJsonl } from '../../src/lib/data/ragbench.ts';
import { HubUnreachableError } from '../../src/lib/hub/hub-reach.ts';
import { loadRagbenchSubset, ragbenchParquetUrls } from '../../src/lib/data/ragbench-hub.ts';
import { serveDatasetHub, type DatasetHubServer } from '../helpers/dataset-hub-server.ts';
import { listenLocal } from '../helpers/listen.ts';
import { ragbenchParquet, readJsonlRows } from '../helpers/ragbench-parquet.ts';
import { serveViewer, type ViewerServer } from '../helpers/viewer-server.ts';

const DATA = process.env.RAG_LAB_RAGBENCH ?? resolve(import.meta.dirname, '../../../shared/data/ragbench/test');
const jsonlRows = (subset: string) => parseRagbenchJsonl(readJsonlRows(DATA, subset).map((r) => JSON.stringify(r)).join('\n'), subset).rows;

let dir: string;
let hub: DatasetHubServer;
let viewer: ViewerServer;
let closedUrl: string;
const sizes: Record<string, number> = {};

function put(path: string, bytes: ArrayBuffer) {
  mkdirSync(dirname(join(dir, path)), { recursive: true });
  writeFileSync(join(dir, path), new Uint8Array(bytes));
  sizes[path] = bytes.byteLength;
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'rag-lab-parquet-hub-'));
  // emanual in the repository's own layout (main), hotpotqa only in the Hub's conversion (refs/convert/parquet).
  put('main/emanual/test-00000-of-00001.parquet', ragbenchParquet(readJsonlRows(DATA, 'emanual')));
  put('refs/convert/parquet/hotpotqa/test/0000.parquet', ragbenchParquet(readJsonlRows(DATA, 'hotpotqa')));
  hub = await serveDatasetHub(dir);
  viewer = await serveViewer(DATA);
  const probe = await listenLocal(createServer());
  closedUrl = `${probe.origin}/`;
  await probe.close();
});
afterAll(async () => {
  await hub?.close();
  await viewer?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('ragbenchParquetUrls', () => {
  it('names the repository file on main, then the refs/convert/parquet conversion', () => {
    expect(ragbenchParquetUrls('https://huggingface.co/', 'rungalileo/ragbench', 'covidqa', 'test')).toEqual([
      'https://huggingface.co/datasets/rungalileo/ragbench/resolve/main/covidqa/test-00000-of-00001.parquet',
      'https://huggingface.co/datasets/rungalileo/ragbench/resolve/refs%2Fconvert%2Fparquet/covidqa/test/0000.parquet',
    ]);
  });
});

describe('loadRagbenchSubset', () => {
  it('reads the parquet file with range requests only, and the rows match the JSONL', async () => {
    hub.requests.length = 0;
    const progress: number[] = [];
    const r = await loadRagbenchSubset('emanual', { hubUrl: hub.url, viewerUrl: closedUrl, retries: 1, onProgress: (l) => progress.push(l) });
    expect(r.source).toBe('parquet');
    expect(r.rows).toEqual(jsonlRows('emanual'));
    expect(r.skipped).toEqual([]);
    const size = sizes['main/emanual/test-00000-of-00001.parquet']!;
    const gets = hub.requests.filter((q) => q.method === 'GET');
    expect(hub.requests[0]).toMatchObject({ method: 'HEAD', status: 200 });
    // Footer, then column chunks of each row group: several ranges, every one answered 206, none the whole file.
    expect(gets.length).toBeGreaterThan(3);
    for (const g of gets) {
      expect(g.range).toMatch(/^bytes=\d+-\d+$/);
      expect(g.status).toBe(206);
      expect(g.bytes).toBeLessThan(size);
    }
    expect(progress.at(-1)).toBe(132);
    expect(progress.length).toBeGreaterThan(2);
  });

  it('falls back to refs/convert/parquet when the repository file is missing', async () => {
    hub.requests.length = 0;
    const r = await loadRagbenchSubset('hotpotqa', { hubUrl: hub.url, viewerUrl: closedUrl, retries: 1 });
    expect(r.source).toBe('parquet');
    expect(r.rows).toEqual(jsonlRows('hotpotqa'));
    expect(r.notes).toEqual(['hotpotqa: parquet (main): not found']);
    expect(hub.requests[0]).toMatchObject({ method: 'HEAD', status: 404, path: '/datasets/rungalileo/ragbench/resolve/main/hotpotqa/test-00000-of-00001.parquet' });
  });

  it('falls back to the dataset viewer when no parquet file exists', async () => {
    viewer.requests.length = 0;
    const r = await loadRagbenchSubset('covidqa', { hubUrl: hub.url, viewerUrl: viewer.url, retries: 1 });
    expect(r.source).toBe('viewer');
    expect(r.rows).toEqual(jsonlRows('covidqa'));
    expect(r.notes).toHaveLength(2);
    expect(viewer.requests.length).toBe(3);
  });

  it('offline (no host answers): says what to do next, without a URL or "Failed to fetch"', async () => {
    const e = await loadRagbenchSubset('emanual', { hubUrl: closedUrl, viewerUrl: closedUrl, retries: 2, retryDelayMs: 1 }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(HubUnreachableError);
    const host = new URL(closedUrl).host;
    expect((e as Error).message).toBe(`Could not reach the Hugging Face Hub (${host}). You seem to be offline or the host is blocked: load the subset from a local file (jsonl or parquet) instead.`);
    expect((e as Error).message).not.toMatch(/https?:|fetch failed|Failed to fetch/);
  });

  it('a viewer HTTP error names the dataset, not the request URL', async () => {
    const e = await loadRagbenchSubset('nosuch', { hubUrl: hub.url, viewerUrl: viewer.url, retries: 1 }).then(() => new Error('loaded'), (x: unknown) => x as Error);
    expect(e.message).toMatch(/^nosuch: the dataset viewer \(127\.0\.0\.1:\d+\) answered HTTP 404 \(The config does not exist\.\) for rungalileo\/ragbench nosuch\/test rows 0–99/);
    expect(e.message).not.toMatch(/https?:/);
  });
});
