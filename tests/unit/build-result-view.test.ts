import { describe, expect, test } from 'vitest';
import { buildSlot, exportNote, nameNotice } from '../../src/ui/build/build-result-view.ts';

describe('the form after a build (issue 32, point 8)', () => {
  test('no "already in this browser" warning about the knowledge base just built; another of that name is warned about', () => {
    const taken = ['test-manuals', 'notes'];
    expect(nameNotice('Test manuals', { taken, justBuilt: 'test-manuals' })).toBe('just-built');
    expect(nameNotice('Test manuals', { taken, justBuilt: null })).toBe('taken');
    expect(nameNotice('Notes', { taken, justBuilt: 'test-manuals' })).toBe('taken');
    expect(nameNotice('Something new', { taken, justBuilt: 'test-manuals' })).toBe('none');
    expect(nameNotice('  ', { taken: ['kb'], justBuilt: null })).toBe('none');
  });

  test('the progress and the summary stand under the panel whose button started the build', () => {
    for (const k of ['files', 'hub-dataset', 'arxiv', 'web'] as const) expect(buildSlot(k)).toBe(k);
    expect(buildSlot('rebuild')).toBe('list');
    expect(buildSlot(null)).toBe('list');
  });
});

describe('what an exported .zip holds, and why not more', () => {
  test('built without vectors: says so, where the tab\'s vectors are, and how to export them', () => {
    const note = exportNote({ name: 'notes', summary: { embedder: null } });
    expect(note).toMatch(/^notes\.zip holds the documents, chunks and BM25 index, and no vectors: this knowledge base was built without them/);
    expect(note).toMatch(/stay in this browser's cache/);
    expect(note).toMatch(/tick “Embed chunks” above and Rebuild it\.$/);
  });

  test('with vectors of a pretrained embedder: the vectors are in it, the model is named', () => {
    const note = exportNote({ name: 'notes', summary: { embedder: { id: 'Xenova/all-MiniLM-L6-v2', dtype: 'q8', dim: 384 } } });
    expect(note).toMatch(/^notes\.zip holds the documents, chunks, BM25 index and the vectors by Xenova\/all-MiniLM-L6-v2 \(q8, 384 dimensions\)\./);
    expect(note).toMatch(/is loaded there/);
  });

  test('with vectors of a corpus-trained embedder: the model is not in it, and why; how to get it again', () => {
    const note = exportNote({ name: 'manuals', summary: { embedder: { id: 'corpus/manuals-lsi64', dtype: 'fp32', dim: 64 } } });
    expect(note).toMatch(/corpus\/manuals-lsi64 was trained in this browser and is not in the \.zip \(the artifact format names the embedder but carries no model files\)/);
    expect(note).toMatch(/rag-lab train-embedder --data manuals\.zip/);
  });
});
