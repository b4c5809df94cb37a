/**
 * The embedded corpus as a build-time artifact: the files the Vite plugin ships open with the artifact reader and
 * score exactly as the knowledge base the app builds in the tab; the build cache is used only when it checks out.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { memorySource } from '../../src/lib/artifact/memory-source.ts';
import { openArtifact } from '../../src/lib/artifact/read.ts';
import { sotuDocuments } from '../../src/lib/data/sotu.ts';
import { KnowledgeBase } from '../../src/lib/retrieval/knowledge-base.ts';
import { search } from '../../src/lib/retrieval/search.ts';
import { folderSource } from '../../cli/folder-source.ts';
import { listIndexes } from '../../src/lib/artifact/read.ts';
import { loadSotuArtifact, SOTU_ARTIFACT_BASE, SOTU_INDEX_ID, sotuArtifactCommand, sotuArtifactCreated } from '../../scripts/sotu-artifact.ts';
import { sotuCorpusJson } from '../../cli/sotu-corpus.ts';
import { embeddedArtifact } from '../../vite.config.ts';

const QUERIES = ['emancipation of slaves', 'tariff on imported goods', 'purchase of Louisiana', 'war on poverty', 'the national debt and taxes'];

let cacheDir: string;
let built: Awaited<ReturnType<typeof loadSotuArtifact>>;
let inTab: KnowledgeBase;

beforeAll(async () => {
  cacheDir = mkdtempSync(join(tmpdir(), 'rag-lab-sotu-artifact-'));
  built = await loadSotuArtifact({ cacheDir });
  inTab = KnowledgeBase.build(sotuDocuments(JSON.parse(sotuCorpusJson())));
}, 120_000);

afterAll(() => rmSync(cacheDir, { recursive: true, force: true }));

/** The Search tab's BM25 ranking (calibrated score shown beside it), top 10 chunks, nothing rejected or merged. */
async function top10(kb: KnowledgeBase, query: string): Promise<{ id: string; score: number; cal: number | null }[]> {
  const r = await search(kb, query, { mode: 'sparse', topK: 10, dedup: false, rejectThreshold: 0 });
  return r.hits.map((h) => ({ id: h.id, score: h.score, cal: h.sparseCal }));
}

describe('the SOTU artifact', () => {
  test('is an artifact repo: index_config.json names the sotu folder, every file of it is listed', () => {
    expect(built.source).toBe('built');
    const config = JSON.parse(new TextDecoder().decode(built.files.get('index_config.json')));
    expect(config.indexes.map((e: { id: string; path: string }) => [e.id, e.path])).toEqual([[SOTU_INDEX_ID, SOTU_INDEX_ID]]);
    const meta = JSON.parse(new TextDecoder().decode(built.files.get(`${SOTU_INDEX_ID}/meta.json`)));
    const shipped = [...built.files.keys()].filter((p) => p.startsWith(`${SOTU_INDEX_ID}/`) && p !== `${SOTU_INDEX_ID}/meta.json`);
    expect(Object.keys(meta.files).map((f) => `${SOTU_INDEX_ID}/${f}`).sort()).toEqual(shipped.sort());
    expect(meta.embedder).toBeNull();
  });

  test('meta.json says when it was built only through SOURCE_DATE_EPOCH', () => {
    expect(sotuArtifactCreated({})).toBe('1970-01-01T00:00:00.000Z');
    expect(sotuArtifactCreated({ SOURCE_DATE_EPOCH: '1700000000' })).toBe('2023-11-14T22:13:20.000Z');
    expect(sotuArtifactCreated({ SOURCE_DATE_EPOCH: 'yesterday' })).toBe('1970-01-01T00:00:00.000Z');
  });

  test('opens with the reader and gives the in-tab build’s BM25 top 10 and corpus CDF', async () => {
    const opened = await openArtifact(memorySource(built.files), SOTU_INDEX_ID);
    expect(opened.dense).toBeNull();
    expect(opened.kb.size).toBe(inTab.size);
    expect(opened.kb.docs.map((d) => d.id)).toEqual(inTab.docs.map((d) => d.id));
    expect(opened.kb.options).toEqual(inTab.options);
    for (const q of QUERIES) {
      const got = await top10(opened.kb, q), want = await top10(inTab, q);
      expect(want.length, q).toBe(10);
      expect(got.map((h) => h.id), q).toEqual(want.map((h) => h.id));
      got.forEach((h, i) => {
        expect(Math.abs(h.score - want[i]!.score), `${q} #${i + 1}`).toBeLessThanOrEqual(1e-9);
        expect(h.cal, `${q} #${i + 1} calibrated`).toBe(want[i]!.cal);
      });
    }
    expect(opened.kb.sparseCdf).toEqual(inTab.sparseCdf);
    expect(opened.descriptor.fields.map((f) => f.name)).toEqual(['year', 'president', 'party']);
  });

  test('a second build reads the cache; a cached file that differs from the manifest is rebuilt', async () => {
    const again = await loadSotuArtifact({ cacheDir });
    expect(again.source).toBe('cache');
    expect(again.key).toBe(built.key);
    expect([...again.files.keys()]).toEqual([...built.files.keys()]);
    for (const [p, b] of built.files) expect(Buffer.compare(again.files.get(p)!, b), p).toBe(0);

    const victim = join(cacheDir, built.key, 'files', `${SOTU_INDEX_ID}/chunks.parquet`);
    expect(existsSync(victim)).toBe(true);
    const bytes = readFileSync(victim);
    const at = bytes.length >> 1;
    bytes.writeUInt8(bytes.readUInt8(at) ^ 0xff, at);
    writeFileSync(victim, bytes);
    const rebuilt = await loadSotuArtifact({ cacheDir });
    expect(rebuilt.source).toBe('built');
    expect(rebuilt.note).toMatch(/chunks\.parquet differs/);
    expect(Buffer.compare(readFileSync(victim), built.files.get(`${SOTU_INDEX_ID}/chunks.parquet`)!)).toBe(0);
    // Reproducible: a rebuild gives the same bytes, meta.json included (its SHA-256 keys the tab's embeddings).
    expect([...rebuilt.files.keys()]).toEqual([...built.files.keys()]);
    for (const [p, b] of built.files) expect(Buffer.compare(rebuilt.files.get(p)!, b), p).toBe(0);
  }, 120_000);

  test('the Vite plugin emits the repo under corpora/ in the build', async () => {
    const plugin = embeddedArtifact({ cacheDir });
    const emitted = new Map<string, Uint8Array>();
    const ctx = { emitFile: (f: { fileName: string; source: Uint8Array }) => { emitted.set(f.fileName, f.source); return f.fileName; } };
    const generate = plugin.generateBundle as unknown as (this: typeof ctx) => Promise<void>;
    await generate.call(ctx);
    expect([...emitted.keys()].sort()).toEqual([...built.files.keys()].map((p) => `${SOTU_ARTIFACT_BASE}/${p}`).sort());
    expect(emitted.has('corpora/index_config.json')).toBe(true);
    expect(emitted.has('corpora/sotu/meta.json')).toBe(true);
  }, 120_000);
});

describe('scripts/sotu-artifact.ts --out (maintainers)', () => {
  test('refuses flags that make no artifact, before building', async () => {
    await expect(sotuArtifactCommand([])).rejects.toThrow(/--out DIR is required/);
    await expect(sotuArtifactCommand(['--out', cacheDir, '--int8'])).rejects.toThrow(/need --embedder/);
    await expect(sotuArtifactCommand(['--out', cacheDir, '--embedder', 'x/y', '--no-float32'])).rejects.toThrow(/--no-float32 needs --int8/);
    await expect(sotuArtifactCommand(['--out', cacheDir, '--bogus'])).rejects.toThrow(/bogus/);
  });

  test('writes the BM25 artifact into a repo folder, keeping the other indexes of its index_config.json', async () => {
    const out = join(cacheDir, 'repo');
    const other = { id: 'scifact', title: 'SciFact', description: '', path: 'scifact', counts: { documents: 3, chunks: 3 }, embedder: null, created: '2026-01-01T00:00:00.000Z', format_version: 1 };
    mkdirSync(out, { recursive: true });
    writeFileSync(join(out, 'index_config.json'), JSON.stringify({ format_version: 1, indexes: [other] }));
    await sotuArtifactCommand(['--out', out]);
    const source = folderSource(out);
    expect((await listIndexes(source)).map((e) => e.id)).toEqual(['scifact', SOTU_INDEX_ID]);
    const opened = await openArtifact(source, SOTU_INDEX_ID);
    expect(opened.kb.size).toBe(inTab.size);
    for (const [p, b] of built.files) {
      if (p.startsWith(`${SOTU_INDEX_ID}/`) && p !== `${SOTU_INDEX_ID}/meta.json`) expect(Buffer.compare(readFileSync(join(out, p)), b), p).toBe(0);
    }
  }, 120_000);
});
