import { describe, expect, it } from 'vitest';
import type { SourceDocument } from '../../src/lib/retrieval/document.ts';
import { DEFAULT_CHUNKING } from '../../src/lib/retrieval/chunk.ts';
import { KnowledgeBase, type KbData } from '../../src/lib/retrieval/knowledge-base.ts';

const docs: SourceDocument[] = [
  { id: 'a', title: 'Pets', text: 'cat dog' },
  { id: 'b', title: 'Water', text: 'cat fish' },
  { id: 'c', title: '', text: 'frog lion' },
];

describe('KnowledgeBase', () => {
  it('whole documents: one item per document, id = document id, span = whole text', () => {
    const kb = KnowledgeBase.build(docs, { chunking: false, cdfQueries: 0 });
    expect(kb.size).toBe(3);
    expect([0, 1, 2].map(kb.itemId)).toEqual(['a', 'b', 'c']);
    expect(kb.itemText(1)).toBe('cat fish');
    expect(kb.itemSpan(1)).toEqual({ chunkIndex: 0, start: 0, end: 8 });
    expect(kb.docOf(2).id).toBe('c');
    expect(kb.docIndexOf(2)).toBe(2);
    expect(kb.sparseCdf).toBeNull();
    expect(kb.dense).toBeNull();
  });

  it('indexes the title with the text by default, and not with indexTitle: false', () => {
    const withTitle = KnowledgeBase.build(docs, { chunking: false, cdfQueries: 0 });
    expect(withTitle.bm25.search('pets', 5, withTitle.itemId).map((h) => h.index)).toEqual([0]);
    const noTitle = KnowledgeBase.build(docs, { chunking: false, cdfQueries: 0, indexTitle: false });
    expect(noTitle.bm25.search('pets', 5, noTitle.itemId)).toEqual([]);
    // the item text stays the document text only
    expect(withTitle.itemText(0)).toBe('cat dog');
  });

  it('chunks: ids docId#chunkIndex and item text = the chunk span of the document', () => {
    const long: SourceDocument = { id: 'long', title: '', text: Array.from({ length: 60 }, (_, i) => `word${i}`).join(' ') };
    const kb = KnowledgeBase.build([long, docs[0]!], { chunking: { ...DEFAULT_CHUNKING, chunkSize: 60, overlap: 10 }, cdfQueries: 0 });
    expect(kb.size).toBeGreaterThan(3);
    const ids = Array.from({ length: kb.size }, (_, i) => kb.itemId(i));
    const longIds = ids.filter((id) => id.startsWith('long#'));
    expect(longIds).toEqual(longIds.map((_, i) => `long#${i}`));
    expect(ids[ids.length - 1]).toBe('a#0');
    for (let i = 0; i < kb.size; i++) {
      const { start, end } = kb.itemSpan(i);
      expect(kb.itemText(i)).toBe(kb.docOf(i).text.slice(start, end));
      expect(end - start).toBeLessThanOrEqual(60);
    }
  });

  it('builds a corpus-CDF table of positive BM25 scores when cdfQueries > 0', () => {
    const kb = KnowledgeBase.build(docs, { chunking: false, cdfQueries: 25 });
    const t = kb.sparseCdf!;
    expect(t).not.toBeNull();
    expect(t.queries).toBeGreaterThan(0);
    expect(t.queries).toBeLessThanOrEqual(25);
    expect(t.sorted.length).toBeGreaterThan(0);
    for (let i = 0; i < t.sorted.length; i++) {
      expect(t.sorted[i]!).toBeGreaterThan(0);
      if (i > 0) expect(t.sorted[i]!).toBeGreaterThanOrEqual(t.sorted[i - 1]!);
    }
    // same seed → same table
    const again = KnowledgeBase.build(docs, { chunking: false, cdfQueries: 25 });
    expect([...again.sparseCdf!.sorted]).toEqual([...t.sorted]);
  });

  it('reports progress for each build stage', () => {
    const stages = new Set<string>();
    KnowledgeBase.build(docs, { chunking: false, cdfQueries: 5 }, (stage) => stages.add(stage));
    expect([...stages].sort()).toEqual(['calibrate', 'chunk', 'index']);
  });

  it('fromData restores an equivalent knowledge base and rejects mismatches', () => {
    const kb = KnowledgeBase.build(docs, { chunking: false, cdfQueries: 10 });
    const data = structuredClone(kb.data);
    const restored = KnowledgeBase.fromData(docs, data);
    expect([...restored.bm25.scoreAll('cat fish')]).toEqual([...kb.bm25.scoreAll('cat fish')]);
    expect([...restored.sparseCdf!.sorted]).toEqual([...kb.sparseCdf!.sorted]);
    expect(() => KnowledgeBase.fromData(docs.slice(0, 2), data)).toThrow(/does not match/);
    expect(() => KnowledgeBase.fromData(docs, { ...data, itemEnd: data.itemEnd.slice(1) })).toThrow(/does not match/);
    expect(() => KnowledgeBase.fromData(docs, { ...data, version: 3 } as unknown as KbData)).toThrow(/version/);
  });

  it('fromItems: items given from outside, texts and ids kept apart from the documents, BM25 built or given', () => {
    const two = KnowledgeBase.build(docs.slice(0, 2), { chunking: false, cdfQueries: 0 });
    const items = { itemDoc: Uint32Array.from([0, 0, 1]), itemChunk: Uint32Array.from([0, 1, 0]), itemStart: Uint32Array.from([0, 4, 0]), itemEnd: Uint32Array.from([3, 7, 8]) };
    const kb = KnowledgeBase.fromItems(docs, items, { cdfQueries: 0 });
    expect([0, 1, 2].map(kb.itemId)).toEqual(['a#0', 'a#1', 'b#0']);
    expect([0, 1, 2].map((i) => kb.indexedText(i))).toEqual(['Pets\ncat', 'Pets\ndog', 'Water\ncat fish']);
    // BM25 over exactly those texts: 'dog' only in item 1.
    expect(Array.from(kb.bm25.scoreAll('dog')).map((x) => x > 0)).toEqual([false, true, false]);
    const bare = docs.map((d) => ({ ...d, text: '' }));
    const own = KnowledgeBase.fromItems(bare, { ...items, texts: ['cat', 'dog', 'cat fish'], ids: ['x1', 'x2', 'x3'] }, { cdfQueries: 0 });
    expect([0, 1, 2].map(own.itemId)).toEqual(['x1', 'x2', 'x3']);
    expect(own.itemText(1)).toBe('dog');
    expect(own.bm25.scoreAll('dog')).toEqual(kb.bm25.scoreAll('dog'));
    const given = KnowledgeBase.fromItems(docs, items, { cdfQueries: 0 }, { bm25: kb.bm25.toData(), sparseCdf: null });
    expect(given.bm25.scoreAll('cat')).toEqual(kb.bm25.scoreAll('cat'));
    expect(() => KnowledgeBase.fromItems(docs, items, {}, { bm25: two.bm25.toData() })).toThrow(/BM25 index does not match/);
    expect(() => KnowledgeBase.fromItems(docs, { ...items, itemEnd: Uint32Array.from([1]) })).toThrow(/different lengths/);
    expect(() => KnowledgeBase.fromItems(docs, { ...items, itemDoc: Uint32Array.from([0, 0, 7]) })).toThrow(/names document 7 of 3/);
  });
});
