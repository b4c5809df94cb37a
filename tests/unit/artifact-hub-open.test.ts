/**
 * An artifact written by writeArtifact, and a seed-A folder, served by the loopback Hub (tests/helpers/hub-repo-server.ts)
 * and opened through hubSource: the same knowledge base and scores as from memory; a second open with a warm cache
 * downloads nothing; a file changed on the Hub after meta.json was written is refused by the reader's own check.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { attachArtifactDense } from '../../src/lib/artifact/attach.ts';
import { memorySource } from '../../src/lib/artifact/memory-source.ts';
import { writeNpy } from '../../src/lib/artifact/npy.ts';
import { writeTable } from '../../src/lib/artifact/parquet.ts';
import { listIndexes, openArtifact } from '../../src/lib/artifact/read.ts';
import { ArtifactError } from '../../src/lib/artifact/types.ts';
import { addToIndexConfig, indexConfigBytes, writeArtifact, type ArtifactFiles } from '../../src/lib/artifact/write.ts';
import { hubSource } from '../../src/lib/hub/hub-source.ts';
import { KnowledgeBase } from '../../src/lib/retrieval/knowledge-base.ts';
import { memoryArtifactCache } from '../../src/lib/hub/file-cache.ts';
import { serveHubRepos, type HubRepoServer } from '../helpers/hub-repo-server.ts';
import { centres, clustered, row } from '../helpers/vectors.ts';

const DIM = 16;
const EMBEDDER = { id: 'test/fixture-embedder', dtype: 'fp32', dim: DIM, pooling: 'mean' as const, normalized: true as const, prefixes: { query: '', passage: '' } };
const docs = Array.from({ length: 8 }, (_, d) => ({
  id: `d${d}`, title: `Doc ${d}`, meta: { year: 1900 + d },
  text: `The ${['tariff', 'navy', 'bank', 'railroad'][d % 4]} question returned in year ${1900 + d}. Congress argued about the ${['steel', 'ships', 'gold', 'canal'][d % 4]} for months, and the press followed every turn of it.`,
}));

let hub: HubRepoServer;
let written: ArtifactFiles;
let kb: KnowledgeBase;
let vectors: Float32Array;
beforeAll(async () => {
  hub = await serveHubRepos();
  kb = KnowledgeBase.build(docs, { chunking: { chunkSize: 80, overlap: 10, separators: ['. ', ' '] }, cdfQueries: 10 });
  vectors = clustered(kb.size, DIM, centres(3, DIM, 2), 4);
  written = await writeArtifact({ id: 'kb', title: 'KB', fields: [{ name: 'year', label: 'Year', type: 'number' }], kb, dense: { vectors, dim: DIM, embedder: EMBEDDER, cdf: null, int8: true } });
  const files = new Map<string, Uint8Array>([['index_config.json', indexConfigBytes(addToIndexConfig(null, written.entry))]]);
  for (const [p, b] of written.files) files.set(`kb/${p}`, b);
  // A seed-A folder in the same repo.
  const n = kb.size;
  files.set('seed/chunks.parquet', writeTable([
    { name: 'id', type: 'STRING', data: Array.from({ length: n }, (_, i) => `c${i}`) },
    { name: 'source', type: 'STRING', data: Array.from({ length: n }, (_, i) => kb.docOf(i).id) },
    { name: 'text', type: 'STRING', data: Array.from({ length: n }, (_, i) => kb.itemText(i)) },
    { name: 'title', type: 'STRING', data: Array.from({ length: n }, (_, i) => kb.docOf(i).title) },
  ]));
  files.set('seed/embeddings.npy', writeNpy(vectors, [n, DIM]));
  files.set('seed/meta.json', new TextEncoder().encode(JSON.stringify({ model_name: EMBEDDER.id, dim: DIM })));
  files.set('seed/faiss.index', new Uint8Array(10));
  hub.addRepo('tester/kbs', files);
});
afterAll(async () => { await hub.close(); });

const fast = { retryDelayMs: 1 };

describe('artifacts through the loopback Hub', () => {
  it('lists and opens an index with the same items and scores as from memory', async () => {
    const source = await hubSource({ repo: 'tester/kbs', hubUrl: hub.url, ...fast });
    expect((await listIndexes(source)).map((e) => [e.id, e.path])).toEqual([['kb', 'kb']]);
    const a = await openArtifact(source, 'kb');
    const m = await openArtifact(memorySource(written.files), '');
    expect(a.kb.docs).toEqual(m.kb.docs);
    expect(a.descriptor.source).toEqual({ kind: 'folder', path: source.label });
    for (const q of ['tariff steel', 'navy ships', 'gold']) expect(a.kb.bm25.scoreAll(q)).toEqual(m.kb.bm25.scoreAll(q));
    await attachArtifactDense(a.kb, a.dense!, { spec: { id: EMBEDDER.id, dtype: 'fp32' }, dim: DIM });
    await attachArtifactDense(m.kb, m.dense!, { spec: { id: EMBEDDER.id, dtype: 'fp32' }, dim: DIM });
    const qv = row(clustered(1, DIM, centres(3, DIM, 2), 9), DIM, 0);
    expect(a.kb.dense!.search(qv, 5, a.kb.itemId)).toEqual(m.kb.dense!.search(qv, 5, m.kb.itemId));
    expect(a.bytes['kb/embeddings.npy']).toBeUndefined(); // auto read the int8 files only
  });

  it('a second open with a warm cache downloads no file', async () => {
    const cache = memoryArtifactCache();
    await openArtifact(await hubSource({ repo: 'tester/kbs', hubUrl: hub.url, cache, ...fast }), 'kb');
    const before = hub.requests.length;
    await openArtifact(await hubSource({ repo: 'tester/kbs', hubUrl: hub.url, cache, ...fast }), 'kb');
    expect(hub.requests.slice(before).filter((r) => r.path.includes('/resolve/'))).toEqual([]);
  });

  it('opens the seed-A folder of the repo, noting the ignored faiss.index', async () => {
    const a = await openArtifact(await hubSource({ repo: 'tester/kbs', hubUrl: hub.url, ...fast }), 'seed');
    expect(a.kb.size).toBe(kb.size);
    expect(a.notes.join(' ')).toMatch(/faiss\.index ignored/);
    expect(a.kb.bm25.scoreAll('tariff steel')).toEqual(kb.bm25.scoreAll('tariff steel'));
  });

  it('a file changed on the Hub after meta.json was written is refused, naming it', async () => {
    const bad = written.files.get('chunks.parquet')!.slice();
    bad[bad.length - 20] = bad[bad.length - 20]! ^ 1;
    hub.commitFiles('tester/kbs', new Map([['kb/chunks.parquet', bad]]));
    const e = await openArtifact(await hubSource({ repo: 'tester/kbs', hubUrl: hub.url, ...fast }), 'kb').catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ArtifactError);
    expect((e as ArtifactError).file).toBe('kb/chunks.parquet');
  });
});
