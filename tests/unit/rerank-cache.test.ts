import { describe, expect, it } from 'vitest';
import { LruMap } from '../../src/lib/util/lru.ts';
import { RerankCache } from '../../src/lib/retrieval/rerank-cache.ts';

describe('LruMap', () => {
  it('evicts the least recently used entry; get and set refresh an entry', () => {
    const m = new LruMap<string, number>(2);
    m.set('a', 1);
    m.set('b', 2);
    expect(m.get('a')).toBe(1); // a is now newer than b
    m.set('c', 3); // evicts b
    expect(m.get('b')).toBeUndefined();
    expect(m.get('a')).toBe(1);
    expect(m.get('c')).toBe(3);
    m.set('a', 10); // overwrite refreshes a, so c is the oldest
    m.set('d', 4);
    expect(m.get('c')).toBeUndefined();
    expect(m.get('a')).toBe(10);
    expect(m.size).toBe(2);
    m.clear();
    expect(m.size).toBe(0);
  });

  it('keeps a stored 0 or other falsy value', () => {
    const m = new LruMap<string, number>(1);
    m.set('z', 0);
    expect(m.get('z')).toBe(0);
  });

  it('refuses a capacity that is not a positive integer', () => {
    for (const c of [0, -1, 1.5, Number.NaN]) expect(() => new LruMap(c)).toThrow(/positive integer/);
  });
});

describe('RerankCache', () => {
  const q8 = { id: 'org/ce', dtype: 'q8', device: 'wasm' };

  it('keys a score by model id, dtype, device, query and chunk', () => {
    const c = new RerankCache();
    c.set(q8, 'tariff', 'doc#1', 2.5);
    expect(c.get(q8, 'tariff', 'doc#1')).toBe(2.5);
    expect(c.get({ ...q8, dtype: 'fp32' }, 'tariff', 'doc#1')).toBeUndefined();
    expect(c.get({ ...q8, id: 'org/other' }, 'tariff', 'doc#1')).toBeUndefined();
    expect(c.get({ ...q8, device: 'webgpu' }, 'tariff', 'doc#1')).toBeUndefined();
    expect(c.get(q8, 'tariffs', 'doc#1')).toBeUndefined();
    expect(c.get(q8, 'tariff', 'doc#2')).toBeUndefined();
  });

  it('parts that contain separators do not collide', () => {
    const c = new RerankCache();
    c.set(q8, 'a|b', 'c', 1);
    expect(c.get(q8, 'a', 'b|c')).toBeUndefined();
    c.set(q8, 'x\u0000', 'y', 2);
    expect(c.get(q8, 'x', '\u0000y')).toBeUndefined();
  });

  it('holds at most its capacity of pairs, dropping the least recently used', () => {
    const c = new RerankCache(2);
    c.set(q8, 'q', 'a', 1);
    c.set(q8, 'q', 'b', 2);
    c.get(q8, 'q', 'a');
    c.set(q8, 'q', 'c', 3);
    expect(c.size).toBe(2);
    expect(c.get(q8, 'q', 'b')).toBeUndefined();
    expect(c.get(q8, 'q', 'a')).toBe(1);
    c.clear();
    expect(c.get(q8, 'q', 'a')).toBeUndefined();
  });
});
