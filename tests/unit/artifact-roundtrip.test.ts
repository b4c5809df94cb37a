// hnswlib-wasm moves index files through IDBFS: serialising a graph needs IndexedDB.
import 'fake-indexeddb/auto';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { attachArtifactDense } from '../../src/lib/artifact/attach.ts';
import { ARTIFACT_FORMAT_VERSION, type ArtifactMeta } from '../../src/lib/artifact/format.ts';
import { memorySource } from '../../src/lib/artifact/memory-source.ts';
import { writeNpy } from '../../src/lib/artifact/npy.ts';
import { writeTable } from '../../src/lib/artifact/parquet.ts';
import { listIndexes, openArtifact } from '../../src/lib/artifact/read.ts';
import { ArtifactError, type ArtifactDense, type OpenedArtifact } from '../../src/lib/artifact/types.ts';
import { addToIndexConfig, indexConfigBytes, writeArtifact, type ArtifactFiles, type ArtifactInput } from '../../src/lib/artifact/write.ts';
import type { Qrels } from '../../src/lib/data/beir.ts';
import type { SourceDocument } from '../../src/lib/retrieval/document.ts';
import { buildCdf } from '../../src/lib/retrieval/calibrate.ts';
import { HnswIndex } from '../../src/lib/retrieval/hnsw.ts';
import { KnowledgeBase } from '../../src/lib/retrieval/knowledge-base.ts';
import { buildVectorIndex, type VectorIndexKind } from '../../src/lib/retrieval/vector-index.ts';
import { sha256Hex } from '../../src/lib/checksum.ts';
import { centres, clustered, row } from '../helpers/vectors.ts';

const HNSWLIB_CHATTER = /^(b\. jsFS synced|d\. Calling sync callback|EmscriptenFileSystemManager: Mounting|warning: \d+ FS\.syncfs)/;
const consoleLog = console.log.bind(console);
vi.spyOn(console, 'log').mockImplementation((...args: unknown[]) => {
  if (!HNSWLIB_CHATTER.test(String(args[0]))) consoleLog(...args);
});

const WORDS = 'river mountain tariff slavery commerce treaty navy army railroad bank currency gold silver labor union court justice education health ocean harbor canal wheat cotton steel oil energy atom peace war'.split(' ');

/** Seeded documents with metadata, long enough to chunk. */
function corpus(): SourceDocument[] {
  let s = 7;
  const rand = () => ((s = (s * 1103515245 + 12345) % 2147483648) / 2147483648);
  return Array.from({ length: 12 }, (_, d) => {
    const sentences = Array.from({ length: 6 + (d % 5) }, () => Array.from({ length: 8 + Math.floor(rand() * 10) }, () => WORDS[Math.floor(rand() * WORDS.length)]).join(' ') + '.');
    return { id: `doc-${d}`, title: `Address ${1800 + d * 10}`, text: sentences.join(d % 2 ? '\n\n' : ' '), ...(d === 3 ? {} : { meta: { year: 1800 + d * 10, party: d % 3 ? 'A' : 'B' } }) };
  });
}

const QUERIES = ['tariff on steel', 'navy and army', 'gold silver currency bank', 'peace treaty war', 'railroad canal harbor', 'nothing matches zebra'];
const DIM = 16;
const EMBEDDER: ArtifactDense['embedder'] = { id: 'test/fixture-embedder', dtype: 'fp32', dim: DIM, pooling: 'mean', normalized: true, prefixes: { query: '', passage: '' } };
const embedderOf = (id = EMBEDDER.id, dim = DIM) => ({ spec: { id, dtype: 'fp32' }, dim });

let kb: KnowledgeBase;
let vectors: Float32Array;
let queryVecs: Float32Array;
let written: ArtifactFiles;
const qrels: Qrels = new Map([['q1', new Map([['doc-1', 2], ['doc-4', 1]])], ['q2', new Map([['doc-7', 1]])]]);
const queries = [{ id: 'q1', text: 'tariff on steel' }, { id: 'q2', text: 'navy and army' }];

function input(over: Partial<ArtifactInput> = {}, dense: Partial<NonNullable<ArtifactInput['dense']>> = {}): ArtifactInput {
  return {
    id: 'test-kb', title: 'Test KB', description: 'A test corpus', created: '2026-01-02T03:04:05.000Z',
    fields: [{ name: 'year', label: 'Year', type: 'number' }, { name: 'party', label: 'Party', type: 'string' }],
    examples: [{ query: 'tariff' }], placeholder: 'Search the test corpus', kb,
    dense: { vectors, dim: DIM, embedder: EMBEDDER, cdf: buildCdf([[0.1, 0.5, 0.3], [0.9]]), int8: true, ...dense },
    queries, qrels, ...over,
  };
}

/** The files of an index folder under `dir/` plus index_config.json, as a memory source. */
function repo(a: ArtifactFiles, dir = 'test-kb', extra: Record<string, Uint8Array> = {}) {
  const files = new Map<string, Uint8Array>([['index_config.json', indexConfigBytes(addToIndexConfig(null, { ...a.entry, path: dir }))]]);
  for (const [p, b] of a.files) files.set(`${dir}/${p}`, b);
  for (const [p, b] of Object.entries(extra)) files.set(p, b);
  return { source: memorySource(files, 'mem:test'), files };
}

/** Replaces a file of the folder and updates meta.json's table so only the content is wrong. */
async function replaceSigned(a: ArtifactFiles, name: string, bytes: Uint8Array): Promise<ArtifactFiles> {
  const meta: ArtifactMeta = structuredClone(a.meta);
  meta.files[name] = { bytes: bytes.byteLength, sha256: await sha256Hex(bytes) };
  const files = new Map(a.files);
  files.set(name, bytes);
  files.set('meta.json', new TextEncoder().encode(JSON.stringify(meta)));
  return { ...a, meta, files };
}

/** chunks.parquet of `kb` written here, with one column left out or its texts changed. */
function chunksTable(o: { drop?: string; text?: (i: number) => string } = {}): Uint8Array {
  const n = kb.size;
  const col = (name: string, type: 'STRING' | 'INT32', f: (i: number) => string | number) => ({ name, type, data: Array.from({ length: n }, (_, i) => f(i)) });
  return writeTable([
    col('chunk_id', 'STRING', kb.itemId),
    col('doc_id', 'STRING', (i) => kb.docOf(i).id),
    col('chunk_index', 'INT32', (i) => kb.itemSpan(i).chunkIndex),
    col('char_start', 'INT32', (i) => kb.itemSpan(i).start),
    col('char_end', 'INT32', (i) => kb.itemSpan(i).end),
    col('text', 'STRING', o.text ?? ((i) => kb.itemText(i))),
  ].filter((c) => c.name !== o.drop));
}

async function refusal(p: Promise<unknown>): Promise<ArtifactError> {
  const e = await p.then(() => null, (x: unknown) => x);
  expect(e).toBeInstanceOf(ArtifactError);
  return e as ArtifactError;
}

function topIds(k: KnowledgeBase, q: Float32Array) {
  return k.dense!.search(q, 10, k.itemId);
}

beforeAll(async () => {
  kb = KnowledgeBase.build(corpus(), { chunking: { chunkSize: 160, overlap: 30, separators: ['\n\n', '. ', ' '] }, cdfQueries: 20 });
  vectors = clustered(kb.size, DIM, centres(4, DIM, 3), 5);
  queryVecs = clustered(8, DIM, centres(4, DIM, 3), 9);
  const hnsw = await (await HnswIndex.build(vectors, DIM, { M: 8, efConstruction: 50, efSearch: 32 })).toData();
  written = await writeArtifact(input({}, { hnsw }));
});

describe('writeArtifact', () => {
  it('lists every file in meta.json with its size and SHA-256, meta.json last', async () => {
    const names = [...written.files.keys()];
    expect(names.at(-1)).toBe('meta.json');
    expect(Object.keys(written.meta.files).sort()).toEqual(names.slice(0, -1).sort());
    for (const [p, b] of written.files) {
      if (p === 'meta.json') continue;
      expect(written.meta.files[p]).toEqual({ bytes: b.byteLength, sha256: await sha256Hex(b) });
    }
    expect(names).toEqual(expect.arrayContaining(['docs.parquet', 'chunks.parquet', 'embeddings.npy', 'embeddings.int8/codes.npy', 'hnsw.bin',
      'sparse_cdf.npy', 'dense_cdf.npy', 'bm25/terms.json', 'bm25/docs.npy', 'queries.parquet', 'qrels.parquet']));
    expect(written.meta).toMatchObject({ format_version: ARTIFACT_FORMAT_VERSION, bm25: 'postings', counts: { documents: 12, chunks: kb.size, queries: 2, qrels: 3 } });
    expect(written.entry).toEqual({ id: 'test-kb', title: 'Test KB', description: 'A test corpus', path: 'test-kb', counts: { documents: 12, chunks: kb.size }, embedder: EMBEDDER.id, created: '2026-01-02T03:04:05.000Z', format_version: 1 });
  });

  it("keeps an example's mode; a meta.json example with an unknown mode opens without it, with a note", async () => {
    const a = await writeArtifact(input({ queries: undefined, qrels: undefined, examples: [{ query: 'tariff', mode: 'sparse' }, { query: 'navy', mode: 'dense' }] }, { int8: false }));
    expect((await openArtifact(memorySource(a.files), '', { dense: 'none' })).descriptor.examples).toEqual([{ query: 'tariff', mode: 'sparse' }, { query: 'navy', mode: 'dense' }]);
    const files = new Map(a.files);
    files.set('meta.json', new TextEncoder().encode(JSON.stringify({ ...a.meta, examples: [{ query: 'tariff', mode: 'sparse' }, { query: 'navy', mode: 'quantum' }] })));
    const opened = await openArtifact(memorySource(files), '', { dense: 'none' });
    expect(opened.descriptor.examples).toEqual([{ query: 'tariff', mode: 'sparse' }, { query: 'navy' }]);
    expect(opened.notes).toContain('meta.json: an example names an unknown mode (“quantum”); its chip keeps the current mode.');
  });

  it('normalises rows that are not unit length and keeps unit rows bit for bit', async () => {
    const scaled = vectors.map((x, i) => (i < DIM ? x * 3 : x));
    const a = await writeArtifact(input({ queries: undefined, qrels: undefined }, { vectors: scaled, int8: false }));
    const opened = await openArtifact(memorySource(a.files), '', { dense: 'float32' });
    const v = opened.dense!.vectors!;
    expect(Array.from(v.subarray(DIM))).toEqual(Array.from(vectors.subarray(DIM)));
    const norm = Math.hypot(...row(v, DIM, 0));
    expect(norm).toBeCloseTo(1, 6);
  });

  it('addToIndexConfig appends, and replaces an entry of the same id in place', () => {
    const e = (id: string, title = id) => ({ ...written.entry, id, title, path: id });
    let cfg = addToIndexConfig(null, e('a'));
    cfg = addToIndexConfig(cfg, e('b'));
    cfg = addToIndexConfig(cfg, e('a', 'A again'));
    expect(cfg.indexes.map((x) => [x.id, x.title])).toEqual([['a', 'A again'], ['b', 'b']]);
    expect(cfg.format_version).toBe(1);
  });
});

describe('openArtifact round trip', () => {
  let opened: OpenedArtifact;
  beforeAll(async () => {
    const { source } = repo(written);
    expect((await listIndexes(source)).map((e) => e.path)).toEqual(['test-kb']);
    opened = await openArtifact(source, 'test-kb', { dense: 'float32', hnsw: true });
  });

  it('gives the same documents, items, options and descriptor', () => {
    const k = opened.kb;
    expect(k.docs).toEqual(kb.docs);
    expect(k.size).toBe(kb.size);
    for (let i = 0; i < kb.size; i++) {
      expect(k.itemId(i)).toBe(kb.itemId(i));
      expect(k.itemText(i)).toBe(kb.itemText(i));
      expect(k.indexedText(i)).toBe(kb.indexedText(i));
      expect(k.itemSpan(i)).toEqual(kb.itemSpan(i));
    }
    expect(k.options).toEqual(kb.options);
    expect(k.sparseCdf).toEqual(kb.sparseCdf);
    expect(opened.descriptor).toEqual({ id: 'test-kb', title: 'Test KB', description: 'A test corpus', fields: input().fields, examples: [{ query: 'tariff' }], placeholder: 'Search the test corpus', source: { kind: 'folder', path: 'mem:test' } });
    expect(opened.queries).toEqual(queries);
    expect(opened.qrels).toEqual(qrels);
    expect(opened.bytes['test-kb/chunks.parquet']).toBe(written.files.get('chunks.parquet')!.byteLength);
  });

  it('restores BM25 postings with identical scores, and a rebuild gives identical scores too', async () => {
    const rebuilt = await writeArtifact(input({ bm25: 'rebuild' }));
    expect(Object.keys(rebuilt.meta.files).some((p) => p.startsWith('bm25/'))).toBe(false);
    const r = await openArtifact(memorySource(rebuilt.files), '', { dense: 'none' });
    expect(r.notes.join(' ')).toMatch(/BM25 was rebuilt/);
    expect(r.dense).toBeNull();
    for (const q of QUERIES) {
      expect(opened.kb.bm25.scoreAll(q)).toEqual(kb.bm25.scoreAll(q));
      expect(r.kb.bm25.scoreAll(q)).toEqual(kb.bm25.scoreAll(q));
      expect(opened.kb.bm25.search(q, 10, opened.kb.itemId)).toEqual(kb.bm25.search(q, 10, kb.itemId));
    }
    expect(kb.bm25.scoreAll('tariff on steel').some((s) => s > 0)).toBe(true);
  });

  it.each<[VectorIndexKind, 'float32' | 'int8' | 'auto', boolean]>([
    ['exact', 'float32', false],
    ['int8', 'int8', false],
    ['int8', 'auto', false],
    ['hnsw', 'float32', true],
  ])('dense %s (read %s): identical scores to an index built from the same vectors', async (kind, dense, hnsw) => {
    const { source } = repo(written);
    const a = await openArtifact(source, 'test-kb', { dense, hnsw });
    if (dense !== 'float32') expect(a.dense!.vectors).toBeNull();
    const got = await attachArtifactDense(a.kb, a.dense!, embedderOf(), { index: kind });
    expect(got).toMatchObject({ index: kind, dim: DIM });
    const direct = await buildVectorIndex(kind, vectors, DIM, undefined, { metric: 'cosine', hnsw: { M: 8, efConstruction: 50, efSearch: 32 } });
    expect(a.kb.denseCdf).toEqual(buildCdf([[0.1, 0.5, 0.3], [0.9]]));
    for (let q = 0; q < 8; q++) {
      const qv = row(queryVecs, DIM, q);
      expect(topIds(a.kb, qv)).toEqual(direct.search(qv, 10, kb.itemId));
      expect(a.kb.dense!.scoreItems(qv, [0, 3, 7])).toEqual(direct.scoreItems(qv, [0, 3, 7]));
    }
  });

  it('auto picks the shipped graph when it was read', async () => {
    expect((await attachArtifactDense(opened.kb, opened.dense!, embedderOf())).index).toBe('hnsw');
  });

  it('refuses an embedder of another id or dimension, naming the model to load', async () => {
    await expect(attachArtifactDense(opened.kb, opened.dense!, embedderOf('Xenova/all-MiniLM-L6-v2', 384)))
      .rejects.toThrow(/made by test\/fixture-embedder \(16-d\).*load test\/fixture-embedder under Settings → Models, or search it with BM25/);
    await expect(attachArtifactDense(opened.kb, opened.dense!, embedderOf(EMBEDDER.id, 32))).rejects.toThrow(/16-d/);
  });

  it('an exact index needs the float32 file', async () => {
    const a = await openArtifact(repo(written).source, 'test-kb', { dense: 'int8' });
    const e = await refusal(attachArtifactDense(a.kb, a.dense!, embedderOf(), { index: 'exact' }));
    expect(e.message).toMatch(/embeddings\.npy: was not read.*dense "float32"/);
  });

  it('reports per-file progress with meta.json\'s totals', async () => {
    const seen = new Map<string, number>();
    await openArtifact(repo(written).source, 'test-kb', { onProgress: (f, done, total) => { seen.set(f, total); expect(done).toBeLessThanOrEqual(total); } });
    expect(seen.get('test-kb/docs.parquet')).toBe(written.meta.files['docs.parquet']!.bytes);
    expect(seen.has('test-kb/embeddings.npy')).toBe(false); // auto read int8 only
    expect(seen.has('test-kb/embeddings.int8/codes.npy')).toBe(true);
  });
});

describe('other shapes of knowledge base', () => {
  it('a folder with meta.json and no index_config.json is one index at the root', async () => {
    const [e] = await listIndexes(memorySource(written.files, 'mem:folder'));
    expect(e).toEqual({ ...written.entry, path: '' });
    await expect(listIndexes(memorySource(new Map(), 'mem:empty'))).rejects.toThrow(/mem:empty has neither index_config\.json nor meta\.json/);
  });

  it('whole documents, a document without text, no vectors, no queries', async () => {
    const docs = [...corpus().slice(0, 4), { id: 'empty', title: 'Only a title', text: '' }];
    const whole = KnowledgeBase.build(docs, { chunking: false, cdfQueries: 5 });
    const chunked = KnowledgeBase.build(docs, { cdfQueries: 5 });
    for (const k of [whole, chunked]) {
      const a = await writeArtifact({ id: 'small', title: 'Small', fields: [], kb: k });
      expect(a.meta.embedder).toBeNull();
      const o = await openArtifact(memorySource(a.files), '');
      expect(o.kb.size).toBe(k.size);
      expect(o.dense).toBeNull();
      expect(o.queries).toBeNull();
      expect(Array.from({ length: k.size }, (_, i) => o.kb.itemId(i))).toEqual(Array.from({ length: k.size }, (_, i) => k.itemId(i)));
      expect(o.kb.bm25.scoreAll('only title tariff')).toEqual(k.bm25.scoreAll('only title tariff'));
    }
    expect(Array.from(chunked.data.itemDoc)).not.toContain(4); // the document without text has no chunk
  });

  it('stops when aborted', async () => {
    const ctl = new AbortController();
    ctl.abort();
    await expect(openArtifact(repo(written).source, 'test-kb', { signal: ctl.signal })).rejects.toThrow(/abort/i);
  });
});

describe('openArtifact refusals', () => {
  it('a file whose SHA-256 differs from meta.json, naming it', async () => {
    const { files } = repo(written);
    const bad = files.get('test-kb/chunks.parquet')!.slice();
    bad[100] = bad[100]! ^ 0xff;
    files.set('test-kb/chunks.parquet', bad);
    const e = await refusal(openArtifact(memorySource(files), 'test-kb'));
    expect(e.file).toBe('test-kb/chunks.parquet');
    expect(e.message).toMatch(/SHA-256 .* differs from meta\.json.*re-download/);
  });

  it('a file of another size, and a missing file', async () => {
    const { files } = repo(written);
    files.set('test-kb/docs.parquet', files.get('test-kb/docs.parquet')!.subarray(0, 50));
    const e = await refusal(openArtifact(memorySource(files), 'test-kb'));
    expect(e.message).toMatch(/docs\.parquet: has 50 bytes, meta\.json says \d+/);
    files.delete('test-kb/docs.parquet');
    expect((await refusal(openArtifact(memorySource(files), 'test-kb'))).message).toMatch(/docs\.parquet: is missing from .*upload the index folder again/);
  });

  it('parquet missing a column, naming file and column', async () => {
    const e = await refusal(openArtifact(memorySource((await replaceSigned(written, 'chunks.parquet', chunksTable({ drop: 'char_end' }))).files), ''));
    expect(e.file).toBe('chunks.parquet');
    expect(e.message).toMatch(/missing column "char_end"/);
  });

  it('vectors of another dimension than the embedder\'s', async () => {
    const other = writeNpy(new Float32Array(kb.size * 8), [kb.size, 8]);
    const e = await refusal(openArtifact(memorySource((await replaceSigned(written, 'embeddings.npy', other)).files), '', { dense: 'float32' }));
    expect(e.file).toBe('embeddings.npy');
    expect(e.message).toMatch(/holds 8-dimensional vectors, but meta\.json's embedder test\/fixture-embedder has 16/);
  });

  it('a chunk text that is not its document\'s slice', async () => {
    const table = chunksTable({ text: (i) => (i === 2 ? 'changed text' : kb.itemText(i)) });
    const e = await refusal(openArtifact(memorySource((await replaceSigned(written, 'chunks.parquet', table)).files), ''));
    expect(e.message).toMatch(/row 2: the chunk text is not characters/);
  });

  it('counts that disagree with the files', async () => {
    const meta = { ...structuredClone(written.meta), counts: { ...written.meta.counts, chunks: kb.size + 1 } };
    const files = new Map(written.files);
    files.set('meta.json', new TextEncoder().encode(JSON.stringify(meta)));
    expect((await refusal(openArtifact(memorySource(files), ''))).message).toMatch(/chunks\.parquet: has \d+ chunks, meta\.json says \d+/);
  });

  it('a newer format, a missing meta.json, a path that climbs out', async () => {
    const files = new Map(written.files);
    files.set('meta.json', new TextEncoder().encode(JSON.stringify({ ...written.meta, format_version: 2 })));
    expect((await refusal(openArtifact(memorySource(files), ''))).message).toMatch(/written by a newer RAG Lab \(format 2\); this build reads format 1/);
    expect((await refusal(openArtifact(memorySource(new Map()), 'nope'))).message).toMatch(/nope\/meta\.json: is missing/);
    expect((await refusal(openArtifact(memorySource(written.files), '../x'))).message).toMatch(/climbs out of the repo/);
  });
});
