import { describe, expect, it } from 'vitest';
import type { SourceDocument } from '../../src/lib/retrieval/document.ts';
import { compileFilters } from '../../src/lib/retrieval/filter.ts';

const docs: SourceDocument[] = [
  { id: 'a', title: '', text: '', meta: { year: 1900, party: 'Republican' } },
  { id: 'b', title: '', text: '', meta: { year: 1933, party: 'Democratic' } },
  { id: 'c', title: '', text: '', meta: { year: 1950, party: 'Democratic' } },
  { id: 'd', title: '', text: '', meta: { year: 1951, party: 'Democratic' } },
  { id: 'e', title: '', text: '' }, // no metadata
  { id: 'f', title: '', text: '', meta: { year: '1940', party: 'Whig' } }, // year as a string
];

describe('compileFilters', () => {
  it('returns null when no filter is active', () => {
    expect(compileFilters(docs, [])).toBeNull();
    expect(compileFilters(docs, [{ field: 'party' }])).toBeNull();
    expect(compileFilters(docs, [{ field: 'party', values: [] }])).toBeNull();
  });

  it('applies an inclusive year range', () => {
    const mask = compileFilters(docs, [{ field: 'year', min: 1900, max: 1950 }]);
    // a 1900 ✓ (inclusive), b 1933 ✓, c 1950 ✓ (inclusive), d 1951 ✗, e no meta ✗, f "1940" ✓
    expect([...mask!]).toEqual([1, 1, 1, 0, 0, 1]);
  });

  it('applies min or max alone', () => {
    expect([...compileFilters(docs, [{ field: 'year', min: 1940 }])!]).toEqual([0, 0, 1, 1, 0, 1]);
    expect([...compileFilters(docs, [{ field: 'year', max: 1933 }])!]).toEqual([1, 1, 0, 0, 0, 0]);
  });

  it('combines a year range and party values (all filters must pass)', () => {
    const mask = compileFilters(docs, [
      { field: 'year', min: 1920, max: 1950 },
      { field: 'party', values: ['Democratic', 'Whig'] },
    ]);
    // a 1900 ✗; b 1933 Dem ✓; c 1950 Dem ✓; d 1951 ✗; e ✗; f 1940 Whig ✓
    expect([...mask!]).toEqual([0, 1, 1, 0, 0, 1]);
    const repOnly = compileFilters(docs, [{ field: 'year', min: 1920 }, { field: 'party', values: ['Republican'] }]);
    expect([...repOnly!]).toEqual([0, 0, 0, 0, 0, 0]);
  });

  it('matches values as strings, including numeric metadata', () => {
    expect([...compileFilters(docs, [{ field: 'year', values: ['1933', '1940'] }])!]).toEqual([0, 1, 0, 0, 0, 1]);
  });

  it('excludes documents missing the field; a non-numeric value fails a range', () => {
    const odd: SourceDocument[] = [{ id: 'x', title: '', text: '', meta: { year: 'unknown' } }, { id: 'y', title: '', text: '', meta: { party: 'X' } }];
    expect([...compileFilters(odd, [{ field: 'year', min: 0 }])!]).toEqual([0, 0]);
  });

  it('returns a mask as long as the document list', () => {
    expect(compileFilters([], [{ field: 'year', min: 1 }])!.length).toBe(0);
  });
});
