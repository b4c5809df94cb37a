/** RAGBench rows: the JSONL parser on ../shared, malformed rows, and the Hub loader against a local dataset viewer. */
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  loadRagbenchFromHub,
  parseRagbenchJsonl,
  RAGBENCH_FIELDS,
  RAGBENCH_SUBSETS,
  ragbenchRowKey,
  RagbenchError,
  viewerRowsUrl,
} from '../../src/lib/data/ragbench.ts';
import { listenLocal } from '../helpers/listen.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const DATA = process.env.RAG_LAB_RAGBENCH ?? resolve(ROOT, '../shared/data/ragbench/test');
const read = (subset: string) => readFileSync(join(DATA, `${subset}.jsonl`), 'utf8');

const COUNTS: Record<string, number> = { covidqa: 246, delucionqa: 184, emanual: 132, expertqa: 203, hagrid: 1318, hotpotqa: 390, msmarco: 423 };

describe('parseRagbenchJsonl on the shared test split', () => {
  it.each(RAGBENCH_SUBSETS)('%s: every row valid, the documented count', (subset) => {
    const r = parseRagbenchJsonl(read(subset), subset);
    expect(r.skipped).toEqual([]);
    expect(r.rows).toHaveLength(COUNTS[subset]!);
    expect(r.total).toBe(COUNTS[subset]);
    expect(new Set(r.rows.map(ragbenchRowKey)).size).toBe(r.rows.length);
    const row = r.rows[0]!;
    expect(Object.keys(row).sort()).toEqual([...RAGBENCH_FIELDS].sort());
    expect(RAGBENCH_FIELDS).toHaveLength(26);
    expect(typeof row.adherence_score).toBe('boolean');
  });

  it.each([['delucionqa', 92], ['emanual', 66]] as const)('%s: ids repeat across generator models, keys do not', (subset, ids) => {
    const { rows } = parseRagbenchJsonl(read(subset), subset);
    expect(new Set(rows.map((r) => r.id)).size).toBe(ids);
    expect(new Set(rows.map(ragbenchRowKey)).size).toBe(rows.length);
    const byId = new Map<string, string[]>();
    for (const r of rows) byId.set(r.id, [...(byId.get(r.id) ?? []), r.generation_model_name]);
    for (const models of byId.values()) expect(new Set(models).size).toBe(models.length);
  });

  it('keeps null baseline scores as null', () => {
    const { rows } = parseRagbenchJsonl(read('expertqa'), 'expertqa');
    expect(rows.filter((r) => r.gpt3_adherence === null)).toHaveLength(3);
    expect(rows.filter((r) => r.trulens_context_relevance === null)).toHaveLength(15);
  });
});

describe('malformed rows are skipped and reported with subset and line', () => {
  const lines = read('emanual').split('\n').filter(Boolean);
  const row = (i: number) => JSON.parse(lines[i]!) as Record<string, unknown>;

  it('missing fields, wrong types, bad JSON, repeated keys, non-objects', () => {
    const missing = row(0); delete missing.response;
    const wrong = row(1); wrong.adherence_score = 'yes'; wrong.documents_sentences = [[['0a', 3]]];
    const nanRow = JSON.stringify(row(2)).replace(/"relevance_score":[^,]+/, '"relevance_score":NaN');
    const text = [JSON.stringify(missing), JSON.stringify(wrong), '{bad json', nanRow, lines[3], lines[3], '[1,2]', ''].join('\n');
    const r = parseRagbenchJsonl(text, 'emanual');
    expect(r.total).toBe(7);
    expect(r.rows).toHaveLength(2);
    expect(r.rows[0]!.relevance_score).toBeNull(); // bare NaN (Python's json) reads as null
    expect(r.skipped.map((s) => [s.subset, s.line])).toEqual([['emanual', 1], ['emanual', 2], ['emanual', 3], ['emanual', 6], ['emanual', 7]]);
    expect(r.skipped[0]!.message).toBe('response: missing');
    expect(r.skipped[1]!.message).toMatch(/documents_sentences\.0\.0\.1: .*string.*adherence_score: .*boolean/);
    expect(r.skipped[2]!.message).toMatch(/not valid JSON/);
    expect(r.skipped[3]!.message).toMatch(/duplicate key \(id "[^"]+", generation_model_name "[^"]+"\) first seen at line 5/);
    expect(r.skipped[4]!.message).toBe('not a JSON object');
  });

  it('throws when nothing at all is valid; empty text is no rows', () => {
    expect(() => parseRagbenchJsonl('{"id": 1}\n', 'covidqa')).toThrow(RagbenchError);
    expect(() => parseRagbenchJsonl('{"id": 1}\n', 'covidqa')).toThrow(/covidqa: no valid row in 1 \(first problem: covidqa line 1: question: missing/);
    expect(parseRagbenchJsonl('\n\n', 'covidqa')).toEqual({ subset: 'covidqa', rows: [], skipped: [], total: 0 });
  });
});

// ---------------------------------------------------------------------------------------------- local dataset viewer

interface Viewer { url: string; server: Server; requests: URL[]; failNext: number; truncate: Set<number>; close(): Promise<void> }

/** Speaks the dataset viewer's /rows wire format for rungalileo/ragbench from the shared JSONL files. */
async function serveViewer(): Promise<Viewer> {
  const requests: URL[] = [];
  const cache: Record<string, string[]> = {};
  const v = { failNext: 0, truncate: new Set<number>() } as Viewer;
  const server = createServer((req, res) => {
    const u = new URL(req.url ?? '/', 'http://x');
    requests.push(u);
    const json = (status: number, body: unknown) => res.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify(body));
    if (v.failNext > 0) { v.failNext--; json(429, { error: 'Too Many Requests' }); return; }
    const [dataset, config, split] = ['dataset', 'config', 'split'].map((k) => u.searchParams.get(k));
    if (u.pathname !== '/rows' || dataset !== 'rungalileo/ragbench' || split !== 'test' || !(RAGBENCH_SUBSETS as readonly string[]).includes(config ?? '')) {
      json(404, { error: 'The config does not exist.' });
      return;
    }
    const offset = Number(u.searchParams.get('offset') ?? 0);
    const length = Number(u.searchParams.get('length') ?? 100);
    if (length > 100) { json(422, { error: 'length must be <= 100' }); return; }
    const all = (cache[config!] ??= read(config!).split('\n').filter(Boolean));
    const rows = all.slice(offset, offset + length).map((l, i) => {
      const idx = offset + i;
      const row = JSON.parse(l) as Record<string, unknown>;
      // A truncated cell is sent as a cut string, as the viewer does.
      const cut = v.truncate.has(idx) && length > 1 ? ['documents'] : v.truncate.has(idx) && idx % 2 === 0 ? ['documents'] : [];
      if (cut.length) row.documents = JSON.stringify(row.documents).slice(0, 100);
      return { row_idx: idx, row, truncated_cells: cut };
    });
    json(200, {
      features: Object.keys(JSON.parse(all[0]!)).map((name, i) => ({ feature_idx: i, name, type: { _type: 'Value' } })),
      rows, num_rows_total: all.length, num_rows_per_page: 100, partial: false,
    });
  });
  const { origin, close } = await listenLocal(server);
  return Object.assign(v, { url: origin, server, requests, close });
}

describe('loadRagbenchFromHub (dataset viewer rows API)', () => {
  let viewer: Viewer;
  beforeAll(async () => { viewer = await serveViewer(); });
  afterAll(async () => { await viewer.close(); });

  it('builds the Hub URL', () => {
    expect(viewerRowsUrl('https://datasets-server.huggingface.co', 'rungalileo/ragbench', 'covidqa', 'test', 200, 100))
      .toBe('https://datasets-server.huggingface.co/rows?dataset=rungalileo%2Fragbench&config=covidqa&split=test&offset=200&length=100');
  });

  it('pages through a subset and returns the same rows as the JSONL file', async () => {
    viewer.requests.length = 0;
    const progress: [number, number][] = [];
    const r = await loadRagbenchFromHub('emanual', { endpoint: viewer.url, onProgress: (a, b) => progress.push([a, b]) });
    expect(r.skipped).toEqual([]);
    expect(r.rows).toEqual(parseRagbenchJsonl(read('emanual'), 'emanual').rows);
    expect(viewer.requests.map((u) => [u.searchParams.get('offset'), u.searchParams.get('length')])).toEqual([['0', '100'], ['100', '100']]);
    expect(progress).toEqual([[100, 132], [132, 132]]);
  });

  it('retries 429s, re-asks truncated pages in smaller pages and skips rows still truncated alone', async () => {
    viewer.requests.length = 0;
    viewer.failNext = 2;
    viewer.truncate = new Set([3, 10]); // row 10 stays truncated even alone (even index), row 3 comes back whole
    const r = await loadRagbenchFromHub('emanual', { endpoint: viewer.url, pageSize: 20, retryDelayMs: 1 });
    viewer.truncate = new Set();
    expect(r.rows).toHaveLength(131);
    expect(r.skipped).toEqual([{ subset: 'emanual', line: 10, source: 'row_idx', message: 'cells truncated by the dataset viewer: documents' }]);
    const full = parseRagbenchJsonl(read('emanual'), 'emanual').rows;
    expect(r.rows).toEqual(full.filter((_, i) => i !== 10));
    expect(viewer.requests.length).toBeGreaterThan(9);
  });

  it('reports HTTP errors and honours the abort signal', async () => {
    await expect(loadRagbenchFromHub('nosuch', { endpoint: viewer.url })).rejects.toThrow(/nosuch: the dataset viewer \(127\.0\.0\.1:\d+\) answered HTTP 404 \(The config does not exist\.\)/);
    viewer.failNext = 5;
    await expect(loadRagbenchFromHub('covidqa', { endpoint: viewer.url, retries: 2, retryDelayMs: 1 })).rejects.toThrow(/failed 2 times .*HTTP 429/);
    viewer.failNext = 0;
    const ctl = new AbortController();
    ctl.abort(new Error('stop'));
    await expect(loadRagbenchFromHub('covidqa', { endpoint: viewer.url, signal: ctl.signal })).rejects.toThrow('stop');
  });
});
