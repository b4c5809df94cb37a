import { describe, expect, it } from 'vitest';
import { summariseList } from '../../src/lib/util/summarise-list.ts';

describe('summariseList', () => {
  it('lists a short list whole, a long one as its first items and a count, cutting long items', () => {
    expect(summariseList([])).toBe('none');
    expect(summariseList(['a', 'b', 'c'])).toBe('a, b, c');
    const ids = Array.from({ length: 100_000 }, (_, i) => `id-${i}`);
    expect(summariseList(ids, 3)).toBe('id-0, id-1, id-2, … and 99,997 more');
    expect(summariseList(['x'.repeat(500)], 10, 20)).toBe(`${'x'.repeat(19)}…`);
  });
});
