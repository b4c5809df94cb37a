import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { folderSource } from '../../cli/folder-source.ts';
import { attachArtifactDense } from '../../src/lib/artifact/attach.ts';
import { writeNpy } from '../../src/lib/artifact/npy.ts';
import { writeTable } from '../../src/lib/artifact/parquet.ts';
import { listIndexes, openArtifact } from '../../src/lib/artifact/read.ts';
import { seedAModelId } from '../../src/lib/artifact/seed-a.ts';
import { ArtifactError } from '../../src/lib/artifact/types.ts';
import { Bm25Index } from '../../src/lib/retrieval/bm25.ts';
import { buildVectorIndex } from '../../src/lib/retrieval/vector-index.ts';
import { centres, clustered, row } from '../helpers/vectors.ts';

const root = mkdtempSync(join(tmpdir(), 'seed-a-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const DIM = 16;
const DOCS = [
  { id: 'paper-1', title: 'Tariffs', text: 'The tariff on steel rose. Congress debated the tariff for weeks. Steel mills cheered.' },
  { id: 'paper-2', title: 'Navy', text: 'The navy grew. Ships of the navy sailed to every ocean. The army was smaller.' },
  { id: 'paper-3', title: 'Banks', text: 'Gold and silver backed the currency. The bank failed in the panic.' },
];
/** Seed A's chunks: sentence slices of the documents (its notebook's splitter), in document order. */
const CHUNKS = DOCS.flatMap((d) => d.text.split(/(?<=\.) /).map((text, k) => ({ id: `${d.id}_c${k}`, source: d.id, chunk: text, title: d.title })));
const N = CHUNKS.length;
const VECTORS = clustered(N, DIM, centres(2, DIM, 1), 2);

/** Writes a seed-A folder: chunks.parquet, embeddings.npy, meta.json, optional docs.parquet, dummy faiss.index and bm25.pkl. */
function seedFolder(name: string, opts: { docs?: boolean; columns?: Record<string, string>; meta?: Record<string, unknown>; vectors?: Uint8Array } = {}): string {
  const dir = join(root, name);
  mkdirSync(dir, { recursive: true });
  const col = (k: string) => opts.columns?.[k] ?? k;
  writeFileSync(join(dir, 'chunks.parquet'), writeTable([
    { name: col('id'), type: 'STRING', data: CHUNKS.map((c) => c.id) },
    { name: col('source'), type: 'STRING', data: CHUNKS.map((c) => c.source) },
    { name: col('chunk'), type: 'STRING', data: CHUNKS.map((c) => c.chunk) },
    ...(opts.docs ? [] : [{ name: 'title', type: 'STRING' as const, data: CHUNKS.map((c) => c.title) }]),
  ]));
  writeFileSync(join(dir, 'embeddings.npy'), opts.vectors ?? writeNpy(VECTORS, [N, DIM]));
  writeFileSync(join(dir, 'meta.json'), JSON.stringify(opts.meta ?? { embedding_model: 'test/fixture-embedder', dim: DIM, chunk_size: 512, chunk_overlap: 64, num_chunks: N, name: 'seed-papers' }));
  writeFileSync(join(dir, 'faiss.index'), new Uint8Array([1, 2, 3]));
  writeFileSync(join(dir, 'bm25.pkl'), new Uint8Array([0x80, 4, 0x95]));
  if (opts.docs) {
    writeFileSync(join(dir, 'docs.parquet'), writeTable([
      { name: 'doc_id', type: 'STRING', data: DOCS.map((d) => d.id) },
      { name: 'title', type: 'STRING', data: DOCS.map((d) => d.title) },
      { name: 'text', type: 'STRING', data: DOCS.map((d) => d.text) },
    ]));
  }
  return dir;
}

const QUERIES = ['tariff steel', 'navy ocean ships', 'gold bank panic', 'zebra'];

describe('seed-A folders', () => {
  it('open without docs.parquet: documents from the doc ids, notes on ignored files and checksums, BM25 rebuilt', async () => {
    const source = folderSource(seedFolder('plain'));
    const [entry] = await listIndexes(source);
    expect(entry).toMatchObject({ id: 'seed-papers', path: '', embedder: 'test/fixture-embedder', counts: { chunks: N } });
    const a = await openArtifact(source, '');
    expect(a.id).toBe('seed-papers');
    expect(a.kb.docs.map((d) => [d.id, d.title, d.text])).toEqual(DOCS.map((d) => [d.id, d.title, '']));
    const notes = a.notes.join('\n');
    expect(notes).toMatch(/faiss\.index and bm25\.pkl ignored/);
    expect(notes).toMatch(/no checksums/);
    expect(notes).toMatch(/No docs\.parquet/);
    for (let i = 0; i < N; i++) {
      expect(a.kb.itemId(i)).toBe(CHUNKS[i]!.id);
      expect(a.kb.itemText(i)).toBe(CHUNKS[i]!.chunk);
    }
    // Independent reference: BM25 over the same indexed texts (title line + chunk), the default analyzer.
    const ref = Bm25Index.build(CHUNKS.map((c) => `${c.title}\n${c.chunk}`), { k1: 0.9, b: 0.4 });
    for (const q of QUERIES) expect(a.kb.bm25.scoreAll(q)).toEqual(ref.scoreAll(q));
    expect(a.kb.bm25.scoreAll('tariff steel').filter((s) => s > 0).length).toBeGreaterThan(0);
    expect(a.kb.sparseCdf).not.toBeNull();
    expect(a.kb.options.chunking).toMatchObject({ chunkSize: 512, overlap: 64 });
  });

  it('vectors attach and score as an index built from the same vectors', async () => {
    const a = await openArtifact(folderSource(join(root, 'plain')), '');
    expect(a.dense!.embedder).toMatchObject({ id: 'test/fixture-embedder', dim: DIM, pooling: 'mean' });
    await attachArtifactDense(a.kb, a.dense!, { spec: { id: 'test/fixture-embedder', dtype: 'fp32' }, dim: DIM }, { index: 'exact' });
    const direct = await buildVectorIndex('exact', VECTORS, DIM);
    const q = row(clustered(1, DIM, centres(2, DIM, 1), 7), DIM, 0);
    expect(a.kb.dense!.search(q, 5, a.kb.itemId)).toEqual(direct.search(q, 5, (i) => CHUNKS[i]!.id));
  });

  it('with docs.parquet: full documents, chunk spans found in them, no separate chunk texts needed', async () => {
    const a = await openArtifact(folderSource(seedFolder('with-docs', { docs: true })), '');
    expect(a.kb.docs.map((d) => d.text)).toEqual(DOCS.map((d) => d.text));
    expect(a.notes.join(' ')).not.toMatch(/No docs\.parquet/);
    for (let i = 0; i < N; i++) {
      const { start, end } = a.kb.itemSpan(i);
      expect(a.kb.docOf(i).text.slice(start, end)).toBe(CHUNKS[i]!.chunk);
      expect(a.kb.itemText(i)).toBe(CHUNKS[i]!.chunk);
    }
  });

  it('accepts the documented column aliases', async () => {
    const a = await openArtifact(folderSource(seedFolder('aliases', { columns: { id: 'chunk_id', source: 'document_id', chunk: 'content' } })), '');
    expect(a.kb.size).toBe(N);
    expect(a.kb.itemText(0)).toBe(CHUNKS[0]!.chunk);
  });

  it('refuses other column names, listing what was expected', async () => {
    const e = await openArtifact(folderSource(seedFolder('bad-columns', { columns: { chunk: 'passage_body' } })), '').catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ArtifactError);
    expect((e as Error).message).toMatch(/chunks\.parquet: has no chunk text column: expected one of "text", "chunk", "content".*\(it has "id", "source", "passage_body", "title"\)/);
  });

  it('refuses vectors that do not fit the chunks or meta.json\'s dimension', async () => {
    const fewer = await openArtifact(folderSource(seedFolder('fewer', { vectors: writeNpy(VECTORS.subarray(0, DIM * 2), [2, DIM]) })), '').catch((x: unknown) => x);
    expect((fewer as Error).message).toMatch(/embeddings\.npy: has 2 vectors for \d+ chunks/);
    const dims = await openArtifact(folderSource(seedFolder('dims', { meta: { embedding_model: 'x/y', dim: 384 } })), '').catch((x: unknown) => x);
    expect((dims as Error).message).toMatch(/holds 16-dimensional vectors, meta\.json says 384/);
  });

  it('without a model name the vectors are not used, and the note says which keys were read', async () => {
    const a = await openArtifact(folderSource(seedFolder('no-model', { meta: { dims: DIM } })), '');
    expect(a.dense).toBeNull();
    expect(a.notes.join(' ')).toMatch(/names no embedding model \(read keys: embedding_model, model_name/);
  });

  it('maps seed A\'s model names to the registry\'s', () => {
    expect(seedAModelId('sentence-transformers/all-MiniLM-L6-v2')).toBe('Xenova/all-MiniLM-L6-v2');
    expect(seedAModelId('BAAI/bge-small-en-v1.5')).toBe('Xenova/bge-small-en-v1.5');
    expect(seedAModelId('my/own-model')).toBe('my/own-model');
  });

  it('the folder source refuses paths that climb out and reads a missing file as null', async () => {
    const source = folderSource(join(root, 'plain'));
    await expect(source.read('../with-docs/docs.parquet')).rejects.toThrow(/climbs out of the repo/);
    expect(await source.read('nothing.here')).toBeNull();
    expect(await source.list!('')).toEqual(['bm25.pkl', 'chunks.parquet', 'embeddings.npy', 'faiss.index', 'meta.json']);
  });
});
