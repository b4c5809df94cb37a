/**
 * A Hub dataset as a knowledge-base source (src/lib/data/hub-dataset.ts) against the loopback Hub
 * (tests/helpers/hub-repo-server.ts): the BEIR layout of BeIR/scifact (the Hub's conversion only, qrels in the
 * sibling repo) made from the shared SciFact in memory, a repo with its own sharded parquet files, the column guess,
 * the row limit across shards, ids (null, duplicate), empty text, metadata types, the token's rules and the faults.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { guessColumns, hubDatasetDocuments, inspectHubDataset, parseDatasetId, type HubDatasetOptions } from '../../src/lib/data/hub-dataset.ts';
import { splitOfPath } from '../../src/lib/data/hub-dataset-layout.ts';
import type { BuildProgress } from '../../src/lib/data/source-documents.ts';
import { addBeirScifact, parquet, scifactCorpus, scifactQrels, scifactQueries } from '../helpers/hub-dataset-fixtures.ts';
import { serveHubRepos, type HubRepoServer } from '../helpers/hub-repo-server.ts';

const TOKEN = 'hf_testtoken123';
let hub: HubRepoServer;
let convertSha: string;
let opts: HubDatasetOptions;
const corpus = scifactCorpus();

/** `o/papers`: its own parquet, two shards of train (6 + 4 rows) and a test split, with awkward rows. */
function papers(): Map<string, Uint8Array> {
  const shard = (ids: Array<bigint | null>, bodies: string[], years: number[]) => parquet([
    { name: 'doc_id', type: 'INT64', data: ids, nullable: true },
    { name: 'heading', type: 'STRING', data: ids.map((_, i) => `Heading ${i}`) },
    { name: 'body', type: 'STRING', data: bodies },
    { name: 'year', type: 'INT32', data: Int32Array.from(years) },
    { name: 'venue', type: 'STRING', data: years.map((y) => (y % 2 ? 'odd' : 'even')) },
    { name: 'extra', type: 'JSON', data: years.map((y) => ({ y, long: 'x'.repeat(400) })) },
  ], 3);
  return new Map([
    ['data/train-00000-of-00002.parquet', shard([1n, 2n, 2n, null, 5n, 6n], ['alpha one', 'beta two', 'beta again', 'delta four', '   ', 'zeta six'], [2001, 2002, 2003, 2004, 2005, 2006])],
    ['data/train-00001-of-00002.parquet', shard([7n, 8n, 9n, 10n], ['eta seven', 'theta eight', 'iota nine', 'kappa ten'], [2007, 2008, 2009, 2010])],
    ['data/test-00000-of-00001.parquet', shard([11n], ['lambda'], [2011])],
    ['README.md', new TextEncoder().encode('# papers')],
  ]);
}

beforeAll(async () => {
  hub = await serveHubRepos({ token: TOKEN });
  convertSha = addBeirScifact(hub);
  hub.addRepo('o/papers', papers());
  hub.addRepo('o/secret', papers(), { private: true });
  opts = { hubUrl: hub.url, token: null, retryDelayMs: 1 };
});
afterAll(() => hub.close());

describe('names and layouts', () => {
  test('dataset ids from what a user types', () => {
    expect(parseDatasetId('BeIR/scifact')).toBe('BeIR/scifact');
    expect(parseDatasetId('  datasets/BeIR/scifact ')).toBe('BeIR/scifact');
    expect(parseDatasetId('https://huggingface.co/datasets/BeIR/scifact')).toBe('BeIR/scifact');
    expect(parseDatasetId('https://huggingface.co/datasets/rungalileo/ragbench/tree/main/covidqa')).toBe('rungalileo/ragbench');
    expect(parseDatasetId('https://huggingface.co/datasets/BeIR/scifact/viewer/corpus/corpus?row=3')).toBe('BeIR/scifact');
    expect(parseDatasetId('https://huggingface.co/BeIR/scifact')).toBeNull(); // a model page
    expect(parseDatasetId('scifact')).toBeNull();
    expect(parseDatasetId('../etc/passwd')).toBeNull();
    expect(parseDatasetId('')).toBeNull();
  });

  test('config and split from the Hub naming conventions', () => {
    expect(splitOfPath('data/train-00000-of-00002.parquet')).toEqual({ config: 'default', split: 'train', partial: false });
    expect(splitOfPath('covidqa/test-00000-of-00001.parquet')).toEqual({ config: 'covidqa', split: 'test', partial: false });
    expect(splitOfPath('en/data/validation-00003-of-00010.parquet')).toEqual({ config: 'en', split: 'validation', partial: false });
    expect(splitOfPath('corpus/corpus/0000.parquet', true)).toEqual({ config: 'corpus', split: 'corpus', partial: false });
    expect(splitOfPath('default/partial-train/0001.parquet', true)).toEqual({ config: 'default', split: 'train', partial: true });
    expect(splitOfPath('corpus.parquet')).toEqual({ config: 'default', split: 'corpus', partial: false });
    expect(splitOfPath('README.md')).toBeNull();
  });

  test('the guess: names first, else the string column with the longest values', () => {
    const cols = [{ name: 'pid', type: 'int64' }, { name: 'a', type: 'string' }, { name: 'b', type: 'string' }, { name: 'n', type: 'double' }, { name: 'v', type: 'list<float>' }];
    const g = guessColumns(cols, [{ a: 'short', b: 'a much longer value than a' }, { a: 'tiny', b: 'another long value here' }]);
    expect(g).toEqual({ id: 'pid', title: null, text: 'b', metadata: ['a', 'n'] });
    expect(guessColumns([{ name: 'Title', type: 'string' }, { name: 'passage', type: 'string' }, { name: '_id', type: 'string' }], []))
      .toEqual({ id: '_id', title: 'Title', text: 'passage', metadata: [] });
  });
});

describe('BEIR layout (BeIR/scifact as on the Hub)', () => {
  test('inspect: the conversion is found, pinned, and the BEIR parts recognised', async () => {
    const info = await inspectHubDataset({ dataset: 'https://huggingface.co/datasets/BeIR/scifact' }, opts);
    expect(info.dataset).toBe('BeIR/scifact');
    expect(info.revision).toBe(convertSha);
    expect(info.configs).toEqual([{ config: 'corpus', splits: ['corpus'] }, { config: 'queries', splits: ['queries'] }]);
    expect([info.config, info.split, info.rows]).toEqual(['corpus', 'corpus', corpus.length]);
    expect(info.columns).toEqual([{ name: '_id', type: 'string' }, { name: 'title', type: 'string' }, { name: 'text', type: 'string' }]);
    expect(info.guess).toEqual({ id: '_id', title: 'title', text: 'text', metadata: [] });
    expect(info.beir).toEqual({ queries: 'BeIR/scifact:queries/queries', qrels: 'BeIR/scifact-qrels:default/test' });
    expect(info.preview?.[0]?._id).toBe(corpus[0]!._id);
    expect(info.notes.join(' ')).toMatch(/conversion/);
  });

  test('documents, queries and qrels; every file read with ranges at the pinned sha', async () => {
    const before = hub.requests.length;
    const progress: BuildProgress[] = [];
    const out = await hubDatasetDocuments({ dataset: 'BeIR/scifact', config: 'corpus', split: 'corpus', maxRows: 10_000, columns: { id: '_id', title: 'title', text: 'text', metadata: [] } },
      { ...opts, onProgress: (p) => progress.push(p) });
    expect(out.docs.length).toBe(corpus.length);
    expect(out.docs[10]).toEqual({ id: corpus[10]!._id, title: corpus[10]!.title, text: corpus[10]!.text.trim() });
    expect(out.origin).toEqual({ kind: 'hub-dataset', dataset: 'BeIR/scifact', config: 'corpus', split: 'corpus', revision: convertSha, rows: corpus.length });
    expect(out.queries?.length).toBe(scifactQueries().length);
    const qrels = scifactQrels();
    expect(out.qrels?.size).toBe(new Set(qrels.map((r) => String(r[0]))).size);
    expect(out.qrels?.get(String(qrels[0]![0]))?.get(String(qrels[0]![1]))).toBe(qrels[0]![2]);
    expect(out.notes.some((n) => /read the first/.test(n))).toBe(false);
    expect(progress.every((p) => p.stage === 'download')).toBe(true);
    expect(progress.at(-1)).toMatchObject({ done: corpus.length, total: corpus.length });
    for (let i = 1; i < progress.length; i++) expect(progress[i]!.done).toBeGreaterThanOrEqual(progress[i - 1]!.done);
    const reads = hub.requests.slice(before).filter((r) => r.path.includes('/resolve/'));
    expect(reads.length).toBeGreaterThan(0);
    for (const r of reads) {
      expect(r.path).toMatch(/\/resolve\/[0-9a-f]{40}\//);
      expect(r.range).toMatch(/^bytes=\d+-\d+$/);
      expect(r.auth).toBe(false);
    }
  });

  test('the row limit: the first rows, a note, and the judged documents left out counted', async () => {
    const out = await hubDatasetDocuments({ dataset: 'BeIR/scifact', config: 'corpus', split: 'corpus', maxRows: 1500, columns: { id: '_id', title: null, text: 'text', metadata: [] } }, opts);
    expect(out.docs.map((d) => d.id)).toEqual(corpus.slice(0, 1500).map((d) => d._id));
    expect(out.docs[0]!.title).toBe('');
    expect(out.notes).toContain(`read the first 1,500 of ${corpus.length.toLocaleString('en-US')} rows (the row limit)`);
    expect(out.notes.some((n) => /judged documents? (are|is) not in the knowledge base \(the row limit cut the corpus\)/.test(n))).toBe(true);
  });

  test('a BEIR dataset with its own parquet files and a qrels config', async () => {
    const docs = corpus.slice(0, 40);
    const qs = scifactQueries().slice(0, 3);
    hub.addRepo('o/beir-own', new Map([
      ['corpus/corpus-00000-of-00001.parquet', parquet([{ name: '_id', type: 'STRING', data: docs.map((d) => d._id) }, { name: 'text', type: 'STRING', data: docs.map((d) => d.text) }])],
      ['queries/queries-00000-of-00001.parquet', parquet([{ name: '_id', type: 'STRING', data: qs.map((q) => q._id) }, { name: 'text', type: 'STRING', data: qs.map((q) => q.text) }])],
      ['qrels/train-00000-of-00001.parquet', parquet([{ name: 'query-id', type: 'STRING', data: ['x'] }, { name: 'corpus-id', type: 'STRING', data: ['y'] }, { name: 'score', type: 'INT32', data: Int32Array.from([1]) }])],
      ['qrels/test-00000-of-00001.parquet', parquet([
        { name: 'query-id', type: 'STRING', data: [qs[0]!._id, qs[0]!._id, qs[1]!._id] },
        { name: 'corpus-id', type: 'STRING', data: [docs[0]!._id, docs[1]!._id, 'not-in-corpus'] },
        { name: 'score', type: 'INT32', data: Int32Array.from([1, 2, 1]) },
      ])],
    ]));
    const info = await inspectHubDataset({ dataset: 'o/beir-own' }, opts);
    expect([info.config, info.split, info.revision]).toEqual(['corpus', 'corpus', hub.head('o/beir-own')]);
    expect(info.beir).toEqual({ queries: 'o/beir-own:queries/queries', qrels: 'o/beir-own:qrels/test' });
    const out = await hubDatasetDocuments({ dataset: 'o/beir-own', config: 'corpus', split: 'corpus', maxRows: 100, columns: info.guess }, opts);
    expect(out.queries).toEqual(qs.map((q) => ({ id: q._id, text: q.text })));
    expect([...out.qrels!].map(([q, m]) => [q, [...m]])).toEqual([[qs[0]!._id, [[docs[0]!._id, 1], [docs[1]!._id, 2]]], [qs[1]!._id, [['not-in-corpus', 1]]]]);
    expect(out.notes).toContain('1 judged document is not in the knowledge base');
  });

  test('the Hub\'s parquet list when the conversion\'s ref cannot be read (URLs that redirect, not pinned)', async () => {
    addBeirScifact(hub, 'o/listed', { rows: 300 });
    hub.faults.push({ kind: 'status', path: '/o/listed/revision/refs/convert/parquet', status: 404, times: 2 });
    const before = hub.requests.length;
    const info = await inspectHubDataset({ dataset: 'o/listed' }, opts);
    expect(info.configs).toEqual([{ config: 'corpus', splits: ['corpus'] }, { config: 'queries', splits: ['queries'] }]);
    expect([info.rows, info.revision]).toEqual([300, hub.head('o/listed')]);
    expect(info.notes.join(' ')).toMatch(/parquet list .*not pinned/);
    expect(hub.requests.slice(before).some((r) => r.path === '/api/datasets/o/listed/parquet/corpus/corpus/0.parquet' && r.status === 302)).toBe(true);
    const out = await hubDatasetDocuments({ dataset: 'o/listed', config: 'corpus', split: 'corpus', maxRows: 100, columns: info.guess }, opts);
    expect(out.docs.map((d) => d.id)).toEqual(corpus.slice(0, 100).map((d) => d._id));
    expect(hub.faults.length).toBe(0);
  });

  test('the queries config alone is not a corpus with judgements', async () => {
    const info = await inspectHubDataset({ dataset: 'BeIR/scifact', config: 'queries' }, opts);
    expect(info.beir).toBeNull();
    expect(info.split).toBe('queries');
  });
});

describe('a repo with its own parquet files', () => {
  const mapping = { id: 'doc_id', title: 'heading', text: 'body', metadata: ['year', 'venue', 'extra'] };

  test('inspect: configs and splits, types in words, the guess', async () => {
    const info = await inspectHubDataset({ dataset: 'o/papers' }, opts);
    expect(info.revision).toBe(hub.head('o/papers'));
    expect(info.configs).toEqual([{ config: 'default', splits: ['test', 'train'] }]);
    expect([info.split, info.rows]).toEqual(['train', 10]);
    expect(info.columns.map((c) => `${c.name}:${c.type}`)).toEqual(['doc_id:int64', 'heading:string', 'body:string', 'year:int32', 'venue:string', 'extra:json']);
    expect(info.guess).toEqual({ id: 'doc_id', title: 'heading', text: 'body', metadata: ['year', 'venue'] });
    expect(info.beir).toBeNull();
    expect(info.notes.join(' ')).toMatch(/2 parquet files/);
  });

  test('shards in order; null ids, duplicates, empty text; metadata typed', async () => {
    const out = await hubDatasetDocuments({ dataset: 'o/papers', config: 'default', split: 'train', maxRows: 100, columns: mapping }, opts);
    expect(out.docs.map((d) => d.id)).toEqual(['1', '2', '2-2', '3', '6', '7', '8', '9', '10']);
    expect(out.docs[3]).toMatchObject({ id: '3', title: 'Heading 3', text: 'delta four' }); // null id → its row number
    expect(out.docs[0]!.meta).toEqual({ year: 2001, venue: 'odd', extra: expect.stringMatching(/^\{"y":2001,"long":"x+…$/) });
    expect((out.docs[0]!.meta!.extra as string).length).toBe(201);
    expect(out.fields).toEqual([{ name: 'year', label: 'year', type: 'number' }, { name: 'venue', label: 'venue', type: 'string' }, { name: 'extra', label: 'extra', type: 'string' }]);
    expect(out.skipped).toEqual([{ path: 'row 4', reason: 'empty text (column "body")' }]);
    expect(out.notes).toEqual(expect.arrayContaining(['1 row with empty text was skipped', '1 duplicate id got a suffix (-2, -3, …)']));
    expect(out.queries).toBeUndefined();
  });

  test('the row limit across shards', async () => {
    const out = await hubDatasetDocuments({ dataset: 'o/papers', config: 'default', split: 'train', maxRows: 8, columns: mapping }, opts);
    expect(out.docs.map((d) => d.id)).toEqual(['1', '2', '2-2', '3', '6', '7', '8']);
    expect(out.origin).toMatchObject({ rows: 8 });
    expect(out.notes).toContain('read the first 8 of 10 rows (the row limit)');
  });

  test('one row per row group: 2,000 rows read in a handful of coalesced range requests, the same rows, a line that says why', async () => {
    const N = 2000;
    const ids = Array.from({ length: N }, (_, i) => `r${i}`);
    // ≈ 400 incompressible letters a row: the file (≈ 1 MB) is above hyparquet's 512 KB read-it-whole size.
    let seed = 1;
    const letters = () => Array.from({ length: 400 }, () => String.fromCharCode(97 + ((seed = (seed * 1103515245 + 12345) % 2147483648) % 26))).join('');
    const bodies = ids.map((id) => `passage ${id} ${letters()}`);
    const file = parquet([{ name: 'id', type: 'STRING', data: ids }, { name: 'body', type: 'STRING', data: bodies }], 1);
    expect(file.byteLength).toBeGreaterThan(1 << 19);
    hub.addRepo('o/tiny-groups', new Map([['data/train-00000-of-00001.parquet', file]]));
    const before = hub.requests.length;
    const items: string[] = [];
    const out = await hubDatasetDocuments({ dataset: 'o/tiny-groups', config: 'default', split: 'train', maxRows: N, columns: { id: 'id', title: null, text: 'body', metadata: [] } },
      { ...opts, onProgress: (p) => { if (p.item) items.push(p.item); } });
    expect(out.docs.map((d) => d.id)).toEqual(ids);
    expect(out.docs[1234]!.text).toBe(bodies[1234]);
    const reads = hub.requests.slice(before).filter((r) => r.path.includes('/resolve/') && r.method === 'GET');
    expect(reads.length).toBeLessThanOrEqual(6); // footer probe + footer + the rows' span(s); one per row before
    expect(items.at(-1)).toMatch(/^data\/train-00000-of-00001\.parquet stores 2,000 row groups of 1 row each: reading them in 1 request: rows 0–2,000$/);
  });

  test('a column that does not exist: its name and the columns there are', async () => {
    await expect(hubDatasetDocuments({ dataset: 'o/papers', config: 'default', split: 'train', maxRows: 10, columns: { ...mapping, text: 'abstract' } }, opts))
      .rejects.toThrow('column "abstract" is not in o/papers (default/train): its columns are "doc_id", "heading", "body", "year", "venue", "extra"');
  });

  test('bad requests and names', async () => {
    await expect(inspectHubDataset({ dataset: 'nope' }, opts)).rejects.toThrow(/not a Hub dataset: type owner\/name/);
    await expect(inspectHubDataset({ dataset: 'o/missing' }, opts)).rejects.toThrow(/no such dataset o\/missing/);
    await expect(inspectHubDataset({ dataset: 'o/papers', config: 'en' }, opts)).rejects.toThrow('no such config "en" in o/papers: its configs are "default"');
    await expect(inspectHubDataset({ dataset: 'o/papers', split: 'dev' }, opts)).rejects.toThrow('no such split "dev" in o/papers (config "default"): its splits are "test", "train"');
    await expect(hubDatasetDocuments({ dataset: 'o/papers', config: 'default', split: 'train', maxRows: 0, columns: mapping }, opts)).rejects.toThrow(/at least 1/);
    await expect(hubDatasetDocuments({ dataset: 'o/papers', config: 'default', split: 'train', maxRows: 10, columns: { ...mapping, text: 'heading', metadata: [] } }, opts)).resolves.toMatchObject({ pages: 0 });
  });
});

describe('tokens and faults', () => {
  test('a private dataset: the message without a token, the rows with it, the token only to the Hub', async () => {
    await expect(inspectHubDataset({ dataset: 'o/secret' }, opts)).rejects.toThrow('o/secret is private or gated: add a token in Settings');
    const before = hub.requests.length;
    const seen: string[] = [];
    const spy: typeof fetch = (input, init) => {
      const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
      if (new Headers(init?.headers).has('Authorization')) seen.push(new URL(url).origin);
      return fetch(input, init);
    };
    const info = await inspectHubDataset({ dataset: 'o/secret' }, { ...opts, token: TOKEN, fetch: spy });
    expect(info.rows).toBe(10);
    expect(hub.requests.slice(before).every((r) => r.auth)).toBe(true);
    expect(new Set(seen)).toEqual(new Set([hub.url]));
    // The same token with another Hub URL (a link's, say) is not sent to this one.
    const other = await serveHubRepos();
    try {
      other.addRepo('o/papers', papers());
      await inspectHubDataset({ dataset: 'o/papers' }, { ...opts, hubUrl: other.url, token: TOKEN, fetch: spy });
      expect(other.requests.every((r) => r.auth)).toBe(true);
    } finally {
      await other.close();
    }
    await expect(inspectHubDataset({ dataset: 'o/papers' }, { ...opts, token: 'not a token' })).rejects.toThrow(/must look like hf_/);
  });

  test('a connection cut in the middle of a range read is retried', async () => {
    hub.faults.push({ kind: 'cut', path: 'corpus/corpus/0000.parquet', afterBytes: 100, times: 2 });
    const out = await hubDatasetDocuments({ dataset: 'BeIR/scifact', config: 'corpus', split: 'corpus', maxRows: 500, columns: { id: '_id', title: 'title', text: 'text', metadata: [] } }, opts);
    expect(out.docs.length).toBe(500);
    expect(hub.faults.length).toBe(0);
  });

  test('the Hub failing for good: a clear error after the retries', async () => {
    hub.faults.push({ kind: 'status', path: 'data/train-00001-of-00002.parquet', status: 500, times: 50 });
    try {
      await expect(hubDatasetDocuments({ dataset: 'o/papers', config: 'default', split: 'train', maxRows: 100, columns: { id: null, title: null, text: 'body', metadata: [] } }, opts))
        .rejects.toThrow(/answered HTTP 500 for data\/train-00001-of-00002\.parquet \(after several tries\): try again later/);
    } finally {
      hub.faults.length = 0;
    }
    hub.faults.push({ kind: 'status', path: '/api/datasets/o/papers/tree', status: 503, times: 2 });
    await expect(inspectHubDataset({ dataset: 'o/papers' }, opts)).resolves.toMatchObject({ rows: 10 });
  });

  test('a connection that keeps dropping: the host and the file named after the retries', async () => {
    hub.faults.push({ kind: 'cut', path: 'data/train-00001-of-00002.parquet', afterBytes: 10, times: 50 });
    try {
      await expect(hubDatasetDocuments({ dataset: 'o/papers', config: 'default', split: 'train', maxRows: 100, columns: { id: null, title: null, text: 'body', metadata: [] } }, opts))
        .rejects.toThrow(`no answer from the Hub (${new URL(hub.url).host}) while reading data/train-00001-of-00002.parquet: the connection failed or dropped`);
    } finally {
      hub.faults.length = 0;
    }
    const gone = await serveHubRepos();
    const url = gone.url;
    await gone.close();
    await expect(inspectHubDataset({ dataset: 'o/papers' }, { ...opts, hubUrl: url, retries: 1 })).rejects.toThrow(/no answer from the Hub \(127\.0\.0\.1:\d+\) while reading o\/papers@main/);
  });

  test('cancelled while reading', async () => {
    const ac = new AbortController();
    await expect(hubDatasetDocuments({ dataset: 'BeIR/scifact', config: 'corpus', split: 'corpus', maxRows: 5000, columns: { id: '_id', title: 'title', text: 'text', metadata: [] } },
      { ...opts, signal: ac.signal, onProgress: (p) => { if (p.done >= 1000) ac.abort(); } })).rejects.toThrow(/abort/i);
  });
});
