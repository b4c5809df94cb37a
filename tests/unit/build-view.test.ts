import { describe, expect, test } from 'vitest';
import { LOCAL_KB_NAME, type BuildSummary, type LocalKbMeta } from '../../src/lib/data/local-kb-meta.ts';
import {
  buildProgressText, checkBuildForm, countsText, openKbCounts, defaultBuildForm, filesLine, formatDuration, localKbLines, nameFromTitle, persistenceText,
  settingsText, skippedHeading, stagePercent, stagesFor, stageStates, summaryLines, titleForSource, titleFromFiles,
} from '../../src/ui/build/build-view.ts';

const summary = (over: Partial<BuildSummary> = {}): BuildSummary => ({
  name: 'manuals', title: 'Manuals', documents: 40, pages: 36, chunks: 152, skipped: [], skippedCount: 0, notes: [], embedder: null,
  stageMs: { extract: 1234, chunk: 12, index: 80.4, calibrate: 5, save: 40 }, totalMs: 1371.4, bytes: 2_345_678,
  origin: { kind: 'files', files: 7, bytes: 1_500_000 }, queries: 0, ...over,
});

const meta0: LocalKbMeta = {
  name: 'manuals', title: 'Manuals', description: '', createdAt: '2026-12-01T16:00:00.000Z', updatedAt: '2026-12-01T16:00:00.000Z',
  settings: { chunking: false, bm25: { k1: 1.2, b: 0.75 }, embed: false }, summary: summary(),
};

describe('names and titles', () => {
  test('a name is made from the title and always matches LOCAL_KB_NAME', () => {
    expect(nameFromTitle('GNU Libtasn1 manual')).toBe('gnu-libtasn1-manual');
    expect(nameFromTitle('  Énergie — Rapport 2024 (v2.1) ')).toBe('energie-rapport-2024-v2.1');
    expect(nameFromTitle('my_notes.v1')).toBe('my_notes.v1');
    expect(nameFromTitle('---Hello...')).toBe('hello');
    expect(nameFromTitle('日本語')).toBe('kb');
    expect(nameFromTitle('')).toBe('kb');
    const long = nameFromTitle('a'.repeat(63) + ' b c');
    expect(long.length).toBeLessThanOrEqual(64);
    expect(long).toBe('a'.repeat(63));
    for (const t of ['x', 'A/B\\C', '..', '.hidden', 'ends with dash -', 'ünïcödé', '1 2 3']) expect(nameFromTitle(t)).toMatch(LOCAL_KB_NAME);
  });

  test('a title comes from the common folder, the one file, or the first file and a count', () => {
    expect(titleFromFiles([])).toBe('');
    expect(titleFromFiles(['libtasn1.pdf'])).toBe('libtasn1');
    expect(titleFromFiles(['docs/a.md', 'docs/sub/b.txt'])).toBe('docs');
    expect(titleFromFiles(['a.md', 'b.txt', 'c.html'])).toBe('a and 2 more');
    expect(titleFromFiles(['docs/a.md', 'b.txt'])).toBe('a and 1 more');
    expect(titleFromFiles(['.env'])).toBe('.env');
  });

  test('a remote source suggests the dataset id or the arXiv query, shortened', () => {
    expect(titleForSource({ kind: 'hub-dataset', request: { dataset: ' BeIR/scifact ' } })).toBe('BeIR/scifact');
    expect(titleForSource({ kind: 'arxiv', request: { query: 'ti:retrieval   AND cat:cs.IR' } })).toBe('arXiv: ti:retrieval AND cat:cs.IR');
    const long = titleForSource({ kind: 'arxiv', request: { query: 'x'.repeat(200) } });
    expect(long.length).toBe(80);
    expect(long.endsWith('…')).toBe(true);
    expect(nameFromTitle(long)).toMatch(LOCAL_KB_NAME);
    expect(titleForSource({ kind: 'files' })).toBe('');
  });

  test('the picked files line counts and sums', () => {
    expect(filesLine(1, 512)).toBe('1 file, 512 B');
    expect(filesLine(3, 1_234_567)).toBe('3 files, 1.2 MB');
  });
});

describe('the form', () => {
  const ok = { taken: [] as string[], embedder: null };

  test('defaults give 800/120 chunks and BM25 0.9/0.4, without vectors', () => {
    const r = checkBuildForm({ ...defaultBuildForm(), title: 'Manuals ' }, ok);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.name).toBe('manuals');
    expect(r.title).toBe('Manuals');
    expect(r.settings.chunking && { size: r.settings.chunking.chunkSize, overlap: r.settings.chunking.overlap }).toEqual({ size: 800, overlap: 120 });
    expect(r.settings.bm25).toEqual({ k1: 0.9, b: 0.4 });
    expect(r.settings.embed).toBe(false);
  });

  test('each bad field gets its own message', () => {
    const r = checkBuildForm({ ...defaultBuildForm(), title: ' ', chunkSize: 50, overlap: 10.5, k1: -1, b: 1.5, embed: true, description: 'x'.repeat(2001) }, ok);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(Object.keys(r.errors).sort()).toEqual(['b', 'chunkSize', 'description', 'embed', 'k1', 'overlap', 'title']);
    expect(r.errors.chunkSize).toMatch(/from 100 to 20,000/);
    expect(r.errors.embed).toMatch(/^Embedding the chunks needs an embedding model: load one under Settings → Models/);
    expect(r.errors.description).toMatch(/2001 characters; at most 1000/);
  });

  test('empty number inputs (null) and an overlap not below the size are refused', () => {
    const r = checkBuildForm({ ...defaultBuildForm(), title: 't', chunkSize: null, k1: null, b: Number.NaN }, ok);
    expect(!r.ok && Object.keys(r.errors).sort()).toEqual(['b', 'chunkSize', 'k1']);
    const same = checkBuildForm({ ...defaultBuildForm(), title: 't', chunkSize: 200, overlap: 200 }, ok);
    expect(!same.ok && same.errors.overlap).toMatch(/less than the chunk size \(200\)/);
  });

  test('whole documents skip the chunk fields', () => {
    const r = checkBuildForm({ ...defaultBuildForm(), title: 't', wholeDocuments: true, chunkSize: null, overlap: null }, ok);
    expect(r.ok && r.settings.chunking).toBe(false);
  });

  test('a taken name needs "replace"; embedding needs a loaded embedder', () => {
    const taken = checkBuildForm({ ...defaultBuildForm(), title: 'Manuals' }, { taken: ['manuals'], embedder: null });
    expect(!taken.ok && taken.errors.name).toMatch(/“manuals” is already in this browser/);
    expect(checkBuildForm({ ...defaultBuildForm(), title: 'Manuals', replace: true }, { taken: ['manuals'], embedder: null }).ok).toBe(true);
    const embed = checkBuildForm({ ...defaultBuildForm(), title: 'Manuals', embed: true }, { taken: [], embedder: 'Xenova/all-MiniLM-L6-v2' });
    expect(embed.ok && embed.settings.embed).toBe(true);
  });

  test('a rebuild keeps its own name and title whatever the title field holds', () => {
    const r = checkBuildForm({ ...defaultBuildForm(), title: '', chunkSize: 400, overlap: 0 }, { taken: ['manuals'], embedder: null, fixed: { name: 'manuals', title: 'Manuals', description: 'd' } });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect([r.name, r.title, r.description]).toEqual(['manuals', 'Manuals', 'd']);
    expect(r.settings.chunking && r.settings.chunking.chunkSize).toBe(400);
  });
});

describe('progress', () => {
  test('the line names the stage, the item and the counts', () => {
    expect(buildProgressText({ stage: 'extract', done: 3, total: 10, item: 'report.pdf' })).toBe('Extracting text: report.pdf (3 / 10)');
    expect(buildProgressText({ stage: 'index', done: 0, total: 0 })).toBe('Building the BM25 index');
    expect(buildProgressText({ stage: 'embed', done: 1200, total: 5000 })).toBe('Embedding chunks (1,200 / 5,000)');
  });

  test('stages depend on the source and on embedding; earlier ones are done', () => {
    expect(stagesFor('files', false)).toEqual(['extract', 'chunk', 'index', 'calibrate', 'save']);
    expect(stagesFor('arxiv', true)).toEqual(['download', 'extract', 'chunk', 'index', 'embed', 'calibrate', 'save']);
    const s = stageStates(stagesFor('files', false), 'index');
    expect(s.map((x) => `${x.stage}:${x.state}`)).toEqual(['extract:done', 'chunk:done', 'index:current', 'calibrate:todo', 'save:todo']);
    expect(stageStates(stagesFor('files', false), null).every((x) => x.state === 'todo')).toBe(true);
    // A stage the plan did not expect (a rebuild that downloads nothing but reports `download`) is still shown.
    expect(stageStates(['chunk', 'save'], 'download').map((x) => x.stage)).toEqual(['download', 'chunk', 'save']);
  });

  test('percent of the stage', () => {
    expect(stagePercent(null)).toBe(0);
    expect(stagePercent({ stage: 'chunk', done: 1, total: 3 })).toBe(33);
    expect(stagePercent({ stage: 'chunk', done: 5, total: 0 })).toBe(0);
  });
});

describe('summary and list', () => {
  test('durations', () => {
    expect(formatDuration(820.4)).toBe('820 ms');
    expect(formatDuration(3449)).toBe('3.4 s');
    expect(formatDuration(125_000)).toBe('2 min 05 s');
    expect(formatDuration(Number.NaN)).toBe('—');
  });

  test('the summary lines say counts, time, size, origin, vectors and stage times', () => {
    expect(summaryLines(summary())).toEqual([
      '40 documents · 36 pages · 152 chunks · built in 1.4 s · 2.3 MB',
      'From 7 files, 1.5 MB read.',
      'BM25 only (no vectors).',
      'Time per stage: extract 1.2 s · chunk 12 ms · index 80 ms · calibrate 5 ms · save 40 ms.',
    ]);
    const hub = summaryLines(summary({
      pages: 0, queries: 300, stageMs: {}, embedder: { id: 'Xenova/all-MiniLM-L6-v2', dtype: 'q8', dim: 384 },
      origin: { kind: 'hub-dataset', dataset: 'BeIR/scifact', config: 'corpus', split: 'corpus', revision: null, rows: 5183 },
    }));
    expect(hub).toEqual([
      '40 documents · 152 chunks · built in 1.4 s · 2.3 MB',
      'From 5,183 rows of the Hub dataset BeIR/scifact (corpus/corpus).',
      'Vectors: Xenova/all-MiniLM-L6-v2 (q8, 384 dimensions).',
      '300 queries with relevance judgements came along (retrieval benchmark).',
    ]);
  });

  test('the skipped heading counts with the origin\'s unit and says when the list is capped', () => {
    expect(skippedHeading(summary())).toBeNull();
    expect(skippedHeading(summary({ skipped: [{ path: 'a.txt', reason: 'empty file' }], skippedCount: 1 }))).toBe('1 file skipped');
    const capped = summary({ skipped: Array.from({ length: 1000 }, (_, i) => ({ path: `${i}.txt`, reason: 'empty file' })), skippedCount: 4321 });
    expect(skippedHeading(capped)).toBe('4,321 files skipped (the first 1,000 listed)');
    expect(skippedHeading(summary({ skipped: [{ path: 'x', reason: 'no title' }], skippedCount: 2, origin: { kind: 'arxiv', query: 'q', max: 5 } }))).toBe('2 entries skipped (the first 1 listed)');
  });

  test('persistence in words', () => {
    expect(persistenceText(true)).toMatch(/^Storage is persistent/);
    expect(persistenceText(false)).toMatch(/^Storage is not persistent: .* Export a \.zip/);
    expect(persistenceText(null)).toMatch(/did not say/);
  });

  test('a list entry shows counts, date, settings and embedder', () => {
    const meta: LocalKbMeta = {
      name: 'manuals', title: 'Manuals', description: '', createdAt: '2026-12-01T16:00:00.000Z', updatedAt: '2026-12-01T16:05:09.000Z',
      settings: { chunking: false, bm25: { k1: 1.2, b: 0.75 }, embed: false }, summary: summary({ pages: 0 }),
    };
    expect(localKbLines(meta)).toEqual(['40 documents · 152 chunks · built 2026-12-01 16:00 UTC · changed 2026-12-01 16:05 UTC', 'whole documents · BM25 k1 1.2, b 0.75 · BM25 only (no vectors)']);
    expect(settingsText({ chunking: { chunkSize: 500, overlap: 50, separators: [] }, bm25: { k1: 0.9, b: 0.4 }, embed: false })).toBe('chunks of 500 characters, 50 overlap · BM25 k1 0.9, b 0.4');
    expect(countsText({ documents: 1, pages: 1, chunks: 1 })).toBe('1 document · 1 page · 1 chunk');
  });

  test('files are counted as files and pages, not as one document per PDF page (issue 21, point 8)', () => {
    // Three PDFs of 329 pages are 329 documents inside (one per page), but the tab says what the user gave it.
    const pdfs = summary({ documents: 329, pages: 329, files: 3, chunks: 1020, origin: { kind: 'files', files: 3, bytes: 9_000_000 } });
    expect(countsText(pdfs)).toBe('3 files · 329 pages · 1,020 chunks');
    expect(summaryLines(pdfs)[0]).toMatch(/^3 files · 329 pages · 1,020 chunks · built in /);
    expect(countsText({ documents: 2, pages: 0, files: 1, chunks: 4 })).toBe('1 file · 4 chunks');
    // Other sources (and records from before the file count) count documents.
    expect(countsText({ documents: 5183, pages: 0, chunks: 6000 })).toBe('5,183 documents · 6,000 chunks');
    // The open knowledge base: a built one as its summary counts it, any other by documents and chunks.
    expect(openKbCounts({ documents: 329, items: 1020 }, pdfs)).toEqual(['3 files', '329 pages', '1,020 chunks']);
    expect(openKbCounts({ documents: 233, items: 16_123 }, null)).toEqual(['233 documents', '16,123 chunks']);
    expect(localKbLines({ ...meta0, summary: pdfs })[0]).toMatch(/^3 files · 329 pages · 1,020 chunks · built /);
  });
});
