import { describe, expect, it } from 'vitest';
import { dedupByDocument } from '../../src/lib/retrieval/dedup.ts';

describe('dedupByDocument', () => {
  it('keeps the first (best-ranked) hit of each document, in ranking order', () => {
    const ranked = [
      { id: 'A#2', doc: 'A' },
      { id: 'A#0', doc: 'A' },
      { id: 'B#1', doc: 'B' },
      { id: 'A#1', doc: 'A' },
      { id: 'C#0', doc: 'C' },
      { id: 'B#0', doc: 'B' },
    ];
    const out = dedupByDocument(ranked, (h) => h.doc);
    expect(out.map((h) => h.id)).toEqual(['A#2', 'B#1', 'C#0']);
    // the very same objects are returned
    expect(out[0]).toBe(ranked[0]);
    expect(out[1]).toBe(ranked[2]);
    expect(out[2]).toBe(ranked[4]);
  });

  it('works with numeric document keys and leaves the input untouched', () => {
    const ranked = [{ d: 3 }, { d: 1 }, { d: 3 }, { d: 2 }, { d: 1 }];
    const copy = ranked.slice();
    expect(dedupByDocument(ranked, (h) => h.d).map((h) => h.d)).toEqual([3, 1, 2]);
    expect(ranked).toEqual(copy);
  });

  it('does not merge a numeric key with its string form', () => {
    const ranked: Array<string | number> = [1, '1'];
    expect(dedupByDocument(ranked, (h) => h)).toEqual([1, '1']);
  });

  it('returns [] for no hits and everything when all documents differ', () => {
    expect(dedupByDocument([], (h: { d: string }) => h.d)).toEqual([]);
    expect(dedupByDocument(['x', 'y', 'z'], (h) => h)).toEqual(['x', 'y', 'z']);
  });
});
