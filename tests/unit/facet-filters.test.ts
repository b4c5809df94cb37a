import { describe, expect, it } from 'vitest';
import type { Facet } from '../../src/lib/data/kb-source.ts';
import { boundOf, filtersScope, fitFilters, hasValue, withBound, withValue } from '../../src/ui/search/filters.ts';

const facets: Facet[] = [
  { field: 'year', label: 'Year', type: 'range', min: 1790, max: 2021 },
  { field: 'party', label: 'Party', type: 'values', values: ['Democratic', 'Republican', 'Whig'] },
];

describe('facet inputs → filters', () => {
  it('sets and clears range bounds, keeping one filter per field in place', () => {
    let f = withBound([], 'year', 'min', 1900);
    expect(f).toEqual([{ field: 'year', min: 1900 }]);
    f = withValue(f, 'party', 'Whig', true);
    f = withBound(f, 'year', 'max', 1950);
    expect(f).toEqual([{ field: 'year', min: 1900, max: 1950 }, { field: 'party', values: ['Whig'] }]);
    expect(boundOf(f, 'year', 'max')).toBe(1950);
    expect(boundOf(f, 'party', 'min')).toBeNull();
    f = withBound(withBound(f, 'year', 'min', null), 'year', 'max', null);
    expect(f).toEqual([{ field: 'party', values: ['Whig'] }]);
  });

  it('toggles values on and off; the last one off removes the filter', () => {
    let f = withValue(withValue([], 'party', 'Whig', true), 'party', 'Democratic', true);
    expect(f).toEqual([{ field: 'party', values: ['Whig', 'Democratic'] }]);
    expect(hasValue(f, 'party', 'Democratic')).toBe(true);
    expect(withValue(f, 'party', 'Whig', true)).toEqual([{ field: 'party', values: ['Democratic', 'Whig'] }]);
    f = withValue(withValue(f, 'party', 'Whig', false), 'party', 'Democratic', false);
    expect(f).toEqual([]);
  });
});

describe('fitting a link\'s filters to the knowledge base that opened', () => {
  it('keeps what the facets offer and names everything dropped', () => {
    const r = fitFilters([
      { field: 'year', min: 1900, values: ['x'] },
      { field: 'party', values: ['Whig', 'Tory'], max: 3 },
      { field: 'genre', values: ['poem'] },
      { field: 'empty' },
    ], facets, 'SOTU');
    expect(r.filters).toEqual([{ field: 'year', min: 1900 }, { field: 'party', values: ['Whig'] }]);
    expect(r.warnings).toEqual([
      'Ignored the values given for "year": it is a range (min/max) filter.',
      'Ignored the range given for "party": it filters by value.',
      'Ignored "Tory" for "party": SOTU has no such value.',
      'Ignored the filter on "genre": SOTU has no such filter.',
    ]);
  });

  it('drops a filter whose every value is unknown', () => {
    expect(fitFilters([{ field: 'party', values: ['Tory'] }], facets, 'SOTU').filters).toEqual([]);
    expect(fitFilters([], facets, 'SOTU')).toEqual({ filters: [], warnings: [] });
  });

  it('a switch tells the filters it cleared; the scope of that notice changes with knowledge base, query or filters', () => {
    expect(fitFilters([{ field: 'genre', values: ['poem'] }, { field: 'year', min: 1900 }], facets, 'SOTU', 'Cleared').warnings)
      .toEqual(['Cleared the filter on "genre": SOTU has no such filter.']);
    const f = [{ field: 'year', min: 1900 }];
    const at = filtersScope('sotu', 'tariff', f);
    expect(filtersScope('sotu', ' tariff ', [...f, { field: 'party' }])).toBe(at); // blank query ends, inactive filters
    expect(filtersScope('pieces', 'tariff', f)).not.toBe(at);
    expect(filtersScope('sotu', 'tariffs', f)).not.toBe(at);
    expect(filtersScope('sotu', 'tariff', [{ field: 'year', min: 1901 }])).not.toBe(at);
  });
});
