import { describe, expect, it } from 'vitest';
import type { SourceDocument } from '../../src/lib/retrieval/document.ts';
import { KnowledgeBase } from '../../src/lib/retrieval/knowledge-base.ts';
import { documentSentences, expandItem, expandSpan, windowContexts } from '../../src/lib/rag/windows.ts';

const S = [
  'The observatory stands on the northern ridge above the town.', // [0, 60)
  'It was founded in 1921 by the astronomer Clara Whitfield.', // [61, 118)
  'Its first telescope was a refractor with a lens of forty centimetres.', // [119, 188)
  'During the war the dome was painted green to hide it from aircraft.', // [189, 256)
  'In 1968 a radio dish was added beside the old dome.', // [257, 308)
  'The radio dish mapped hydrogen clouds in the southern sky.', // [309, 367)
  'Today the site runs public nights every Friday in summer.', // [368, 425)
  'Visitors climb a path of three hundred steps to reach the gate.', // [426, 489)
];
const DOC: SourceDocument = { id: 'obs', title: 'Ridge Observatory', text: S.join(' ') };
// Chunks at 200/40 on '. ': obs#0 = S0–S2 [0,188), obs#1 = S3–S5 [189,367), obs#2 = S6–S7 [368,489).
const kb = KnowledgeBase.build([DOC], { chunking: { chunkSize: 200, overlap: 40, separators: ['\n\n', '\n', '. ', ' '] }, cdfQueries: 0 });

describe('sentence windows', () => {
  it('the chunks are the ones the expectations below assume', () => {
    expect([0, 1, 2].map((i) => kb.itemSpan(i))).toEqual([
      { chunkIndex: 0, start: 0, end: 188 }, { chunkIndex: 1, start: 189, end: 367 }, { chunkIndex: 2, start: 368, end: 489 },
    ]);
  });

  it('w = 0 returns the chunk itself', () => {
    const w = expandItem(kb, 1, 0);
    expect(w).toMatchObject({ text: S.slice(3, 6).join(' '), start: 189, end: 367, added: { before: 0, after: 0 } });
  });

  it('w = 1 adds one sentence on each side (default)', () => {
    expect(expandItem(kb, 1)).toEqual({
      text: S.slice(2, 7).join(' '), start: 119, end: 425, chunkStart: 189, chunkEnd: 367, added: { before: 1, after: 1 },
    });
  });

  it('w = 2 adds two, and stops at the document edges', () => {
    expect(expandItem(kb, 1, 2).text).toBe(S.slice(1, 8).join(' '));
    expect(expandItem(kb, 0, 1)).toMatchObject({ text: S.slice(0, 4).join(' '), start: 0, end: 256, added: { before: 0, after: 1 } });
    expect(expandItem(kb, 2, 5)).toMatchObject({ text: S.slice(1).join(' '), start: 61, end: 489, added: { before: 5, after: 0 } });
    expect(expandItem(kb, 2, 9)).toMatchObject({ text: S.join(' '), start: 0, end: 489, added: { before: 6, after: 0 } });
  });

  it('a span cut mid-sentence gets the rest of its sentences, then w more', () => {
    // [70, 100) lies inside S1 [61, 118)
    expect(expandSpan(DOC, 70, 100, 0).text).toBe(DOC.text.slice(70, 100));
    expect(expandSpan(DOC, 70, 100, 1)).toMatchObject({ text: S.slice(0, 3).join(' '), start: 0, end: 188 });
    // [200, 270) runs from inside S3 into S4
    expect(expandSpan(DOC, 200, 270, 1)).toMatchObject({ start: 119, end: 367 });
  });

  it('caches the sentences per document', () => {
    expect(documentSentences(DOC)).toBe(documentSentences(DOC));
    expect(documentSentences(DOC).map((s) => s.text)).toEqual(S);
  });

  it('numbers the windowed contexts in ranking order', () => {
    const ctx = windowContexts(kb, [{ item: 2, id: 'obs#2', docId: 'obs', score: 3, rerank: null }, { item: 0, id: 'obs#0', docId: 'obs', score: 1, rerank: null }], 1);
    expect(ctx.map((c) => [c.n, c.chunk_id, c.start, c.end, c.score, c.title])).toEqual([
      [1, 'obs#2', 309, 489, 3, 'Ridge Observatory'],
      [2, 'obs#0', 0, 256, 1, 'Ridge Observatory'],
    ]);
  });
});
