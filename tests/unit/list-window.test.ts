import { describe, expect, it } from 'vitest';
import { cappedWindow, LIST_CAP, listWindow, listWindowNote } from '../../src/ui/shared/list-window.ts';

const items = Array.from({ length: 1000 }, (_, i) => ({ id: `idx-${i}`, title: i === 987 ? 'Deep Harbor Records' : `Index ${i}` }));
const text = (x: { id: string; title: string }) => `${x.title} ${x.id}`;

describe('listWindow', () => {
  it('caps an unfiltered list and says so', () => {
    const w = listWindow(items, '', text);
    expect(w.shown).toHaveLength(LIST_CAP);
    expect(w.shown[0]!.id).toBe('idx-0');
    expect([w.matched, w.total]).toEqual([1000, 1000]);
    expect(listWindowNote(w, false)).toBe('Showing 200 of 1,000 — type to filter.');
  });

  it('finds an entry deep in the list, every word case-insensitively', () => {
    const w = listWindow(items, '  harbor DEEP ', text);
    expect(w.shown.map((x) => x.id)).toEqual(['idx-987']);
    expect(listWindowNote(w, true)).toBe('1 of 1,000 match.');
  });

  it('counts all matches while keeping only the cap', () => {
    const w = listWindow(items, 'idx-9', text, 5); // idx-9, idx-90…99, idx-900…999: 111
    expect(w.shown.map((x) => x.id)).toEqual(['idx-9', 'idx-90', 'idx-91', 'idx-92', 'idx-93']);
    expect(w.matched).toBe(111);
    expect(listWindowNote(w, true)).toBe('Showing 5 of 111 matches (of 1,000) — type more to narrow.');
    expect(listWindowNote(listWindow(items, 'zebra', text), true)).toBe('None of 1,000 match.');
    expect(listWindowNote(listWindow(items.slice(0, 3), '', text), false)).toBeNull();
  });

  it('a list another search filtered (the Reports tab\'s Find): its first 200, counted against the whole store', () => {
    const all = cappedWindow(items, items.length);
    expect(all.shown).toHaveLength(LIST_CAP);
    expect(listWindowNote(all, false)).toBe('Showing 200 of 1,000 — type to filter.');
    const found = cappedWindow(items.slice(0, 250), items.length);
    expect(listWindowNote(found, true)).toBe('Showing 200 of 250 matches (of 1,000) — type more to narrow.');
    expect(listWindowNote(cappedWindow(items.slice(0, 12), 12), false)).toBeNull();
  });
});
