/**
 * The build session (buildLocalKb): documents → chunks → BM25 → (vectors) → calibration → an artifact that the
 * reader opens; summary counts, stages in order, cancel between and inside stages, no usable document, examples.
 */
import { describe, expect, it } from 'vitest';
import { FILES } from '../../src/lib/artifact/format.ts';
import { memorySource } from '../../src/lib/artifact/memory-source.ts';
import { openArtifact } from '../../src/lib/artifact/read.ts';
import {
  buildLocalKb, filesOf, BuildError, deriveExamples, MAX_SKIPPED, nothingToIndex, usableDocuments, type BuildKbOptions,
} from '../../src/lib/kb-build/build-kb.ts';
import type { BuildProgress, SourceDocuments } from '../../src/lib/data/source-documents.ts';
import type { BuildSettings } from '../../src/lib/data/local-kb-meta.ts';
import type { SourceDocument } from '../../src/lib/retrieval/document.ts';
import type { TextEmbedder } from '../../src/lib/models/types.ts';
import { DEFAULT_BM25 } from '../../src/lib/retrieval/bm25.ts';
import { DEFAULT_CHUNKING } from '../../src/lib/retrieval/chunk.ts';
import { KnowledgeBase } from '../../src/lib/retrieval/knowledge-base.ts';

const WORDS = 'river mountain tariff commerce treaty navy army railroad bank currency gold silver labor court justice education health ocean harbor canal wheat cotton steel energy peace'.split(' ');
const KNOWN = 'The lighthouse keeper counted forty seven ships before dawn.';

/** Seeded documents long enough to chunk at 300/50; document 4's third paragraph holds {@link KNOWN}. */
function corpus(n = 8): SourceDocument[] {
  let s = 11;
  const rand = () => ((s = (s * 1103515245 + 12345) % 2147483648) / 2147483648);
  return Array.from({ length: n }, (_, d) => {
    const paras = Array.from({ length: 5 }, () => Array.from({ length: 3 }, () => Array.from({ length: 9 }, () => WORDS[Math.floor(rand() * WORDS.length)]).join(' ') + '.').join(' '));
    if (d === 4) paras[2] = `${paras[2]} ${KNOWN}`;
    return { id: `notes/file-${d}.txt`, title: `Harbour report ${d + 1}`, text: paras.join('\n\n'), meta: { file: `notes/file-${d}.txt`, format: 'txt' } };
  });
}

const source = (docs: SourceDocument[], over: Partial<SourceDocuments> = {}): SourceDocuments => ({
  docs, fields: [{ name: 'format', label: 'Format', type: 'string' }], pages: 0, skipped: [], notes: [],
  origin: { kind: 'files', files: docs.length, bytes: docs.reduce((a, d) => a + d.text.length, 0) }, ...over,
});

const SETTINGS: BuildSettings = { chunking: { ...DEFAULT_CHUNKING, chunkSize: 300, overlap: 50 }, bm25: DEFAULT_BM25, embed: false };
const opts = (over: Partial<BuildKbOptions> = {}): BuildKbOptions => ({ name: 'harbour', title: 'Harbour reports', settings: SETTINGS, ...over });

/** A deterministic bag-of-words embedder (8-d, word hashes), so dense scores are reproducible by hand. */
function fakeEmbedder(dim = 8): TextEmbedder & { calls: Array<{ n: number; kind: string }> } {
  const calls: Array<{ n: number; kind: string }> = [];
  return {
    spec: { id: 'test/bag-of-words', dtype: 'fp32', device: 'cpu' }, dim, calls,
    async embed(texts, kind) {
      calls.push({ n: texts.length, kind });
      const out = new Float32Array(texts.length * dim);
      texts.forEach((t, i) => {
        for (const w of t.toLowerCase().split(/\W+/)) if (w) { const j = i * dim + ([...w].reduce((a, c) => a + c.charCodeAt(0), 0) % dim); out[j] = out[j]! + 1; }
      });
      return out;
    },
  };
}

/** Stage names in the order first seen, consecutive repeats merged. */
const stagesOf = (events: BuildProgress[]) => events.map((e) => e.stage).filter((s, i, a) => i === 0 || a[i - 1] !== s);

describe('buildLocalKb', () => {
  it('builds an artifact whose chunks and BM25 are those of KnowledgeBase.build, and BM25 finds a known sentence', async () => {
    const docs = corpus();
    const built = await buildLocalKb(source(docs), opts());
    const direct = KnowledgeBase.build(docs, { chunking: SETTINGS.chunking, bm25: SETTINGS.bm25 });
    expect(built.summary.chunks).toBe(direct.size);
    expect(direct.size).toBeGreaterThan(docs.length);
    expect([...built.files.keys()].at(-1)).toBe(FILES.meta);

    const opened = await openArtifact(memorySource(built.files), '');
    expect(opened.kb.size).toBe(direct.size);
    for (let i = 0; i < direct.size; i++) expect(opened.kb.itemId(i)).toBe(direct.itemId(i));
    // The calibration table computed after the vectors is the one KnowledgeBase.build makes in one go.
    expect(Array.from(opened.kb.sparseCdf!.sorted)).toEqual(Array.from(direct.sparseCdf!.sorted));
    const [top] = opened.kb.bm25.search('lighthouse keeper forty seven ships', 1, opened.kb.itemId);
    const item = top!.index;
    expect(opened.kb.docOf(item).id).toBe('notes/file-4.txt');
    expect(opened.kb.itemText(item)).toContain(KNOWN);
    expect(opened.descriptor).toMatchObject({ id: 'harbour', title: 'Harbour reports', fields: [{ name: 'format' }] });
    expect(opened.dense).toBeNull();
  });

  it('gives the summary: counts, skipped (source, empty, repeated ids), notes, bytes, origin, stage times', async () => {
    const docs = corpus(5);
    const src = source([...docs, { id: 'blank.md', title: 'blank', text: ' \n\t ' }, { ...docs[1]!, text: 'another text' }], {
      pages: 12, skipped: [{ path: 'scan.pdf', reason: 'no text layer (no OCR)' }], notes: ['one file was read as Windows-1252'],
      queries: [{ id: 'q1', text: 'lighthouse' }], qrels: new Map([['q1', new Map([['notes/file-4.txt', 1]])]]),
    });
    const { summary, files, entry } = await buildLocalKb(src, opts({ priorStageMs: { extract: 40 } }));
    expect(summary).toMatchObject({
      name: 'harbour', title: 'Harbour reports', documents: 5, pages: 12, files: 5, skippedCount: 3, embedder: null, queries: 1,
      notes: ['one file was read as Windows-1252'], origin: src.origin,
    });
    expect(summary.skipped).toEqual([
      { path: 'scan.pdf', reason: 'no text layer (no OCR)' },
      { path: 'blank.md', reason: 'no text' },
      { path: 'notes/file-1.txt', reason: 'the same document id came twice; the first one was kept' },
    ]);
    expect(summary.bytes).toBe([...files.values()].reduce((a, b) => a + b.byteLength, 0));
    expect(Object.keys(summary.stageMs).sort()).toEqual(['calibrate', 'chunk', 'extract', 'index', 'save']);
    expect(summary.stageMs.extract).toBe(40);
    expect(summary.totalMs).toBeGreaterThanOrEqual(40);
    expect(entry).toMatchObject({ id: 'harbour', path: 'harbour', counts: { documents: 5, chunks: summary.chunks }, embedder: null });
    const opened = await openArtifact(memorySource(files), '');
    expect(opened.queries).toEqual([{ id: 'q1', text: 'lighthouse' }]);
    expect(opened.qrels?.get('q1')?.get('notes/file-4.txt')).toBe(1);
  });

  it('counts the files documents came from: a PDF of many pages is one file (issue 21, point 8)', async () => {
    const pages = (file: string, n: number) => Array.from({ length: n }, (_, p) => ({
      id: `${file}#p${p + 1}`, title: `${file}, p. ${p + 1}`, text: `page ${p + 1} of ${file} about the harbour`, meta: { file, page: p + 1, format: 'pdf' },
    }));
    const docs = [...pages('a.pdf', 4), ...pages('b.pdf', 2), ...pages('c.pdf', 3)];
    expect(filesOf(docs)).toBe(3);
    const { summary } = await buildLocalKb(source(docs, { pages: 9, origin: { kind: 'files', files: 3, bytes: 900 } }), opts());
    expect(summary).toMatchObject({ documents: 9, pages: 9, files: 3 });
    // A source that is not files has no file count.
    const hub = await buildLocalKb(source(docs, { origin: { kind: 'arxiv', query: 'harbour', max: 9 } }), opts());
    expect(hub.summary.files).toBeUndefined();
  });

  it('keeps at most 1,000 skipped inputs and counts them all', async () => {
    const skipped = Array.from({ length: 1500 }, (_, i) => ({ path: `bad-${i}.bin.txt`, reason: 'binary data, not text' }));
    const { summary } = await buildLocalKb(source(corpus(2), { skipped }), opts());
    expect(summary.skipped).toHaveLength(MAX_SKIPPED);
    expect(summary.skippedCount).toBe(1500);
    expect(summary.skipped[999]).toEqual(skipped[999]);
  });

  it('reports the stages in their order, with done ≤ total', async () => {
    const events: BuildProgress[] = [];
    await buildLocalKb(source(corpus()), opts({ onProgress: (p) => events.push(p) }));
    expect(stagesOf(events)).toEqual(['chunk', 'index', 'calibrate', 'save']);
    for (const e of events) expect(e.done).toBeLessThanOrEqual(e.total);
    const withVectors: BuildProgress[] = [];
    await buildLocalKb(source(corpus()), opts({ settings: { ...SETTINGS, embed: true }, embedder: fakeEmbedder(), onProgress: (p) => withVectors.push(p) }));
    expect(stagesOf(withVectors)).toEqual(['chunk', 'index', 'embed', 'calibrate', 'save']);
    const embeds = withVectors.filter((e) => e.stage === 'embed');
    expect(embeds.at(-1)).toMatchObject({ done: embeds.at(-1)!.total });
  });

  it('embeds every chunk with the given embedder and ships the vectors and the dense CDF table', async () => {
    const docs = corpus();
    const embedder = fakeEmbedder();
    const built = await buildLocalKb(source(docs), opts({ settings: { ...SETTINGS, embed: true }, embedder }));
    expect(built.summary.embedder).toEqual({ id: 'test/bag-of-words', dtype: 'fp32', dim: 8 });
    expect(built.entry.embedder).toBe('test/bag-of-words');
    const passages = embedder.calls.filter((c) => c.kind === 'passage').reduce((a, c) => a + c.n, 0);
    expect(passages).toBe(built.summary.chunks);
    expect(embedder.calls.some((c) => c.kind === 'query')).toBe(true);
    const opened = await openArtifact(memorySource(built.files), '', { dense: 'float32' });
    expect(opened.dense?.embedder).toMatchObject({ id: 'test/bag-of-words', dim: 8, pooling: 'mean', normalized: true });
    expect(opened.dense?.vectors?.length).toBe(built.summary.chunks * 8);
    expect(opened.dense?.cdf?.sorted.length).toBeGreaterThan(0);
    // Row 0 is the unit-length bag of words of chunk 0's indexed text.
    const raw = await embedder.embed([opened.kb.indexedText(0)], 'passage');
    const norm = Math.hypot(...raw);
    expect(Array.from(opened.dense!.vectors!.subarray(0, 8)).map((x) => +x.toFixed(5))).toEqual(Array.from(raw).map((x) => +(x / norm).toFixed(5)));
  });

  it('refuses to embed without an embedder, and a bad name', async () => {
    await expect(buildLocalKb(source(corpus(2)), opts({ settings: { ...SETTINGS, embed: true } }))).rejects.toThrow(/load an embedding model first/);
    await expect(buildLocalKb(source(corpus(2)), opts({ name: 'Bad Name' }))).rejects.toThrow(/cannot name a knowledge base/);
  });

  it('stops when the signal aborts: before it starts, between stages and inside a long stage', async () => {
    const pre = new AbortController();
    pre.abort();
    await expect(buildLocalKb(source(corpus()), opts({ signal: pre.signal }))).rejects.toThrow(/abort/i);
    for (const at of ['index', 'calibrate', 'embed'] as const) {
      const c = new AbortController();
      const seen: string[] = [];
      const run = buildLocalKb(source(corpus(30)), opts({
        settings: { ...SETTINGS, embed: true }, embedder: fakeEmbedder(), signal: c.signal,
        onProgress: (p) => { seen.push(p.stage); if (p.stage === at) c.abort(); },
      }));
      await expect(run).rejects.toThrow(/abort/i);
      expect(seen).not.toContain('save');
    }
  });

  it('with no usable document, fails with the reasons', async () => {
    const src = source([{ id: 'empty.txt', title: 'empty', text: '' }], {
      skipped: [{ path: 'a.pdf', reason: 'encrypted PDF' }, { path: 'b.pdf', reason: 'encrypted PDF' }, { path: 'c.bin', reason: 'not a supported file type' }],
    });
    const err = await buildLocalKb(src, opts()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BuildError);
    expect((err as Error).message).toBe('None of the 4 inputs have text to index:\n- encrypted PDF: a.pdf, b.pdf\n- not a supported file type: c.bin\n- no text: empty.txt');
    expect(nothingToIndex([])).toMatch(/gave no documents/);
    expect(nothingToIndex(Array.from({ length: 5 }, (_, i) => ({ path: `f${i}`, reason: 'empty file' })))).toBe('None of the 5 inputs have text to index:\n- empty file: f0, f1, f2 and 2 more');
  });

  it('derives three example queries from document titles when the source gives none, and keeps the source\'s', async () => {
    const docs = Array.from({ length: 9 }, (_, i) => ({ id: `d${i}`, title: `Annual_report-${2010 + i}.pdf, p. ${i + 1}`, text: `Text of report ${i}.` }));
    expect(deriveExamples(docs)).toEqual([{ query: 'Annual report 2010' }, { query: 'Annual report 2014' }, { query: 'Annual report 2018' }]);
    // One title for every page: the other examples come from the pages' opening words, in the spread order
    // round(k · 3 / 2) = pages 0, 2, 3.
    const pages = Array.from({ length: 4 }, (_, i) => ({ id: `x.pdf#p${i + 1}`, title: `Field guide, p. ${i + 1}`, text: `Chapter ${i + 1} covers herons, egrets and bitterns in winter.` }));
    expect(deriveExamples(pages)).toEqual([{ query: 'Field guide' }, { query: 'Chapter 1 covers herons egrets' }, { query: 'Chapter 3 covers herons egrets' }]);
    expect(deriveExamples([])).toEqual([]);
    const built = await buildLocalKb(source(corpus()), opts());
    expect((await openArtifact(memorySource(built.files), '')).descriptor.examples).toEqual(deriveExamples(corpus()));
    const given = await buildLocalKb(source(corpus(), { examples: [{ query: 'ships at dawn' }] }), opts());
    expect((await openArtifact(memorySource(given.files), '')).descriptor.examples).toEqual([{ query: 'ships at dawn' }]);
  });

  it('usableDocuments keeps the first of a repeated id and drops whitespace-only texts', () => {
    const r = usableDocuments([{ id: 'a', title: '', text: 'x' }, { id: 'a', title: '', text: 'y' }, { id: 'b', title: '', text: '\u00a0 ' }]);
    expect(r.docs.map((d) => d.text)).toEqual(['x']);
    expect(r.skipped.map((s) => s.path)).toEqual(['a', 'b']);
  });
});
