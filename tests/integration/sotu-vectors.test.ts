/**
 * The build's vectors for the embedded corpus (scripts/sotu-vectors.ts) against the loopback Hub serving the fixture
 * embedder (HF_ENDPOINT): the shipped artifact carries int8 vectors of that model for every chunk, a rebuild reads
 * them from the build cache, an unreachable Hub leaves BM25 in one line, and the tab's open path (KbSession, the
 * search worker's session) attaches the shipped vectors without embedding a passage. The steps run on a dozen of the
 * addresses (the same code as for all 16,564 chunks, which the e2e run's global setup embeds with this step every
 * run: tests/helpers/sotu-vectors-repo.ts), so the Node tier does not embed the whole corpus twice beside it.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { attachArtifactDense } from '../../src/lib/artifact/attach.ts';
import { memorySource } from '../../src/lib/artifact/memory-source.ts';
import { listIndexes, openArtifact, type OpenArtifactOptions } from '../../src/lib/artifact/read.ts';
import type { FileSource } from '../../src/lib/artifact/types.ts';
import { httpFolderSource } from '../../src/lib/hub/http-source.ts';
import { configureModels } from '../../src/lib/models/env.ts';
import { loadEmbedder, type Embedder } from '../../src/lib/models/embedder.ts';
import type { LoadedModel } from '../../src/lib/models/model-contract.ts';
import { KbSession } from '../../src/lib/rag/kb-session.ts';
import { MODE_IDS, MODES } from '../../src/lib/retrieval/modes.ts';
import { readSotuAddresses } from '../../cli/sotu-corpus.ts';
import { loadSotuArtifact, SOTU_INDEX_ID, type SotuArtifact } from '../../scripts/sotu-artifact.ts';
import { sotuVectors, sotuVectorsPlan, type SotuVectorsPlan, type SotuVectorsResult } from '../../scripts/sotu-vectors.ts';
import { embeddedArtifact } from '../../vite.config.ts';
import { serveHub, type HubServer } from '../helpers/hub-server.ts';
import { listenLocal } from '../helpers/listen.ts';
import { serveStatic, type StaticServer } from '../helpers/static-server.ts';

const FIXTURES = resolve(import.meta.dirname, '../fixtures/models');
const EMBEDDER = 'rag-lab/tiny-embedder';
/** The last twelve addresses, in the embedded corpus's form. */
const CORPUS = JSON.stringify({ version: 1, addresses: readSotuAddresses().slice(-12) });

let dir: string;
let hub: HubServer;
let plan: SotuVectorsPlan;
let bm25: SotuArtifact;
let built: SotuVectorsResult;
let embedder: Embedder;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'rag-lab-sotu-vectors-'));
  hub = await serveHub(FIXTURES);
  // The build's plan from its environment, with the fixture embedder standing in for the registry's default.
  plan = { ...sotuVectorsPlan({ HF_ENDPOINT: hub.url }, 'build')!, embedder: EMBEDDER };
  bm25 = await loadSotuArtifact({ cacheDir: join(dir, 'bm25'), corpusJson: CORPUS });
  built = await sotuVectors(bm25, plan, { cacheDir: join(dir, 'bm25-vectors'), modelsCacheDir: join(dir, 'models'), corpusJson: CORPUS });
  configureModels({ remoteHost: hub.url, cacheDir: join(dir, 'models') });
  embedder = await loadEmbedder({ id: EMBEDDER, dtype: 'q8', device: 'cpu' });
}, 300_000);

afterAll(async () => {
  await embedder?.dispose();
  await hub?.close();
  rmSync(dir, { recursive: true, force: true });
});

const files = () => built.files!;

describe('the build embeds the embedded corpus when the Hub answers', () => {
  test('the plan comes from HF_ENDPOINT and RAG_LAB_SOTU_VECTORS', () => {
    expect(plan.hubUrl).toBe(hub.url);
    expect(sotuVectorsPlan({}, 'build')).toMatchObject({ mode: 'auto', hubUrl: 'https://huggingface.co', embedder: 'Xenova/all-MiniLM-L6-v2', dtype: 'q8' });
    expect(sotuVectorsPlan({}, 'serve')).toBeNull();
    expect(sotuVectorsPlan({ RAG_LAB_SOTU_VECTORS: 'on' }, 'serve')).toMatchObject({ mode: 'on' });
    expect(sotuVectorsPlan({ RAG_LAB_SOTU_VECTORS: 'off', HF_ENDPOINT: hub.url }, 'build')).toBeNull();
    expect(() => sotuVectorsPlan({ RAG_LAB_SOTU_VECTORS: 'yes' }, 'build')).toThrow(/must be off, auto or on, got "yes"/);
    expect(() => sotuVectorsPlan({ HF_ENDPOINT: 'ftp://x' }, 'build')).toThrow(/HF_ENDPOINT must be an http\(s\) URL/);
  });

  test('the artifact ships int8 vectors of the fixture embedder, one per chunk, with its embedder record', async () => {
    expect(built.source).toBe('built');
    expect(hub.requests).toContain(`/hub/${EMBEDDER}/resolve/main/onnx/model_quantized.onnx`);
    const meta = JSON.parse(new TextDecoder().decode(files().get(`${SOTU_INDEX_ID}/meta.json`)));
    expect(meta.embedder).toMatchObject({ id: EMBEDDER, dtype: 'q8', dim: embedder.dim, pooling: 'mean', normalized: true });
    expect(Object.keys(meta.files)).toContain('embeddings.int8/codes.npy');
    expect(Object.keys(meta.files)).not.toContain('embeddings.npy');
    const config = JSON.parse(new TextDecoder().decode(files().get('index_config.json')));
    expect(config.indexes.map((e: { id: string; embedder: string | null }) => [e.id, e.embedder])).toEqual([[SOTU_INDEX_ID, EMBEDDER]]);

    const opened = await openArtifact(memorySource(files()), SOTU_INDEX_ID, { dense: 'auto' });
    const plain = await openArtifact(memorySource(bm25.files), SOTU_INDEX_ID);
    expect(opened.kb.size).toBe(plain.kb.size);
    expect(built.line).toMatch(new RegExp(`^SOTU vectors: embedded ${opened.kb.size} chunks with ${EMBEDDER} \\(q8\\) in [\\d.]+ s \\([\\d.]+ passages/s\\); int8 vectors shipped$`));
    expect(opened.dense!.int8!.size).toBe(opened.kb.size);
    expect(opened.dense!.int8!.dim).toBe(embedder.dim);
    expect(opened.dense!.vectors).toBeNull();
    // The same chunks as the BM25 artifact, in the same order.
    expect(opened.kb.size).toBeGreaterThan(300);
    for (const i of [0, 1, Math.floor(opened.kb.size / 2), opened.kb.size - 1]) expect(opened.kb.itemId(i)).toBe(plain.kb.itemId(i));

    // They are this model's passage vectors: a chunk's own passage embedding scores ≈ 1 against its shipped row.
    await attachArtifactDense(opened.kb, opened.dense!, embedder);
    for (const i of [0, Math.floor(opened.kb.size / 3), opened.kb.size - 1]) {
      const q = await embedder.embed([opened.kb.itemText(i)], 'passage');
      const [score] = opened.kb.dense!.scoreItems(q, [i]);
      expect(score, `chunk ${i}`).toBeGreaterThan(0.97);
    }
  });

  test('a rebuild reads the vectors from the build cache (the model is listed, not downloaded)', async () => {
    const before = hub.requests.length;
    const again = await sotuVectors(bm25, plan, { cacheDir: join(dir, 'bm25-vectors'), modelsCacheDir: join(dir, 'models'), corpusJson: CORPUS });
    expect(again.source).toBe('cache');
    expect(again.line).toBe(`SOTU vectors: int8 vectors of ${EMBEDDER} (q8) from the build cache`);
    expect(hub.requests.slice(before).filter((p) => p.includes('/resolve/'))).toEqual([]);
    expect([...again.files!.keys()]).toEqual([...files().keys()]);
    for (const [p, b] of files()) expect(Buffer.compare(again.files!.get(p)!, b), p).toBe(0);
  });

  test('the Vite plugin emits them under corpora/ in the build (from the build cache here)', async () => {
    const lines: string[] = [];
    const plugin = embeddedArtifact({ cacheDir: join(dir, 'bm25'), corpusJson: CORPUS, vectors: (command) => (command === 'build' ? plan : null), log: (m) => lines.push(m) });
    const emitted = new Map<string, Uint8Array>();
    const ctx = { emitFile: (f: { fileName: string; source: Uint8Array }) => { emitted.set(f.fileName, f.source); return f.fileName; } };
    await (plugin.generateBundle as unknown as (this: typeof ctx) => Promise<void>).call(ctx);
    expect([...emitted.keys()].sort()).toEqual([...files().keys()].map((p) => `corpora/${p}`).sort());
    expect(emitted.has('corpora/sotu/embeddings.int8/codes.npy')).toBe(true);
    expect(lines).toEqual([expect.stringMatching(/^SOTU artifact: \d+ files from the build cache/), `SOTU vectors: int8 vectors of ${EMBEDDER} (q8) from the build cache`]);
  });
});

describe('when the Hub cannot be reached', () => {
  test('a closed port: one line, BM25 only; with RAG_LAB_SOTU_VECTORS=on the build fails', async () => {
    const closed = await listenLocal(createServer());
    await closed.close();
    const offline = { ...plan, hubUrl: `${closed.origin}/` };
    const r = await sotuVectors(bm25, offline, { cacheDir: null });
    expect(r.files).toBeNull();
    expect(r.line).toMatch(new RegExp(`^SOTU vectors: no vectors from ${closed.origin} \\(.+\\); shipping BM25 only \\(RAG_LAB_SOTU_VECTORS=off skips this step\\)$`));
    expect(r.line).not.toContain('\n');
    await expect(sotuVectors(bm25, { ...offline, mode: 'on' }, { cacheDir: null })).rejects.toThrow(/RAG_LAB_SOTU_VECTORS=on/);
  });

  test('a host that accepts and never answers is given up after the headers timeout', async () => {
    const silent = createServer(() => { /* never answers */ });
    const s = await listenLocal(silent);
    try {
      const r = await sotuVectors(bm25, { ...plan, hubUrl: `${s.origin}/`, headersMs: 300 }, { cacheDir: null });
      expect(r.files).toBeNull();
      expect(r.line).toMatch(/shipping BM25 only/);
    } finally {
      await s.close();
    }
  });
});

describe('the tab opens the shipped vectors', () => {
  let site: StaticServer;
  beforeAll(async () => {
    for (const [p, b] of files()) {
      const f = join(dir, 'site/corpora', p);
      mkdirSync(dirname(f), { recursive: true });
      writeFileSync(f, b);
    }
    site = await serveStatic(join(dir, 'site'), '/site/');
  });
  afterAll(() => site?.close());

  test('modes that need an embedder open once it is loaded, with no passage embedded in the tab', async () => {
    const artifacts = {
      listIndexes,
      openArtifact: (source: FileSource, path: string, opts: OpenArtifactOptions = {}) => openArtifact(source, path, { dense: 'auto', ...opts }),
      hubSource: () => Promise.reject(new Error('no Hub repo in this test')),
      httpFolderSource: (opts: { baseUrl: string }) => httpFolderSource({ baseUrl: opts.baseUrl }),
    };
    const session = new KbSession({ artifacts, localKbs: () => { throw new Error('no local knowledge bases here'); }, transformCache: { get: async () => undefined, set: async () => {} } });
    const info = await session.open({ kind: 'embedded', id: SOTU_INDEX_ID, baseUrl: site.url }, () => {});
    expect(info.source).toBe('artifact');
    expect(info.artifactEmbedder).toEqual({ id: EMBEDDER, dim: embedder.dim });
    expect(site.requests).toContain('/site/corpora/sotu/embeddings.int8/codes.npy');

    const loaded: LoadedModel[] = [{ task: 'embedder', spec: embedder.spec, dim: embedder.dim, loadMs: 0, warmupMs: null, firstCallMs: null, fallback: null, threads: null }];
    const kinds: string[] = [];
    session.attachModels({
      loaded: async () => loaded,
      embed: async (texts, kind) => { kinds.push(...texts.map(() => kind)); return embedder.embed(texts, kind); },
      rerank: () => Promise.reject(new Error('no cross-encoder')),
    });
    expect(session.modes([]).dense.available).toBe(false);
    const dense = await session.enableDense(() => {});
    expect(dense.source).toBe('artifact');
    expect(dense.index).toBe('int8');
    expect(dense.embedMs).toBe(0);
    expect(kinds.filter((k) => k === 'passage')).toEqual([]);
    const modes = session.modes(loaded);
    // Every mode but the reranking ones (no cross-encoder here).
    for (const m of MODE_IDS) expect(modes[m].available, m).toBe(!MODES[m].needsReranker);
    expect(MODE_IDS.filter((m) => MODES[m].needsDense).length).toBeGreaterThan(0);

    // Another embedder embeds in the tab, as when the build ships no vectors (not an error about the build's model).
    const other: LoadedModel[] = [{ ...loaded[0]!, spec: { ...embedder.spec, id: 'other/embedder' } }];
    session.attachModels({
      loaded: async () => other,
      embed: async (texts, kind) => { kinds.push(...texts.map(() => kind)); return embedder.embed(texts, kind); },
      rerank: () => Promise.reject(new Error('no cross-encoder')),
    });
    const inTab = await session.enableDense(() => {});
    expect(inTab.source).not.toBe('artifact');
    expect(inTab.owner.id).toBe('other/embedder');
    expect(kinds.filter((k) => k === 'passage').length).toBe(info.items);
  }, 180_000);
});
