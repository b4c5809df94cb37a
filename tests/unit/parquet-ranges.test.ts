import { describe, expect, it } from 'vitest';
import { parquetMetadata } from 'hyparquet';
import { batchNote, groupRanges, planBatches, spanBuffer, type GroupRange } from '../../src/lib/data/parquet-ranges.ts';
import { parquet } from '../helpers/hub-dataset-fixtures.ts';

const g = (rows: number, start: number, end: number): GroupRange => ({ rows, start, end });

describe('planBatches', () => {
  it('merges adjacent row groups up to the span limit, splits at a big gap, and stops at the row limit', () => {
    const groups = [g(1, 4, 14), g(1, 14, 24), g(1, 24, 34), g(1, 34, 44), g(2, 100, 110), g(1, 110, 120)];
    // span ≤ 25 bytes, gaps ≤ 5: [4,24) | [24,44) | gap 56 → [100,120)
    expect(planBatches(groups, 100, { spanBytes: 25, gapBytes: 5 })).toEqual([
      { first: 0, last: 1, rowStart: 0, rowEnd: 2, start: 4, end: 24 },
      { first: 2, last: 3, rowStart: 2, rowEnd: 4, start: 24, end: 44 },
      { first: 4, last: 5, rowStart: 4, rowEnd: 7, start: 100, end: 120 },
    ]);
    // The row limit ends inside group 4 (rows 4–5): rows [4, 5) of it.
    expect(planBatches(groups, 5, { spanBytes: 1000, gapBytes: 1000 })).toEqual([{ first: 0, last: 4, rowStart: 0, rowEnd: 5, start: 4, end: 110 }]);
    // A gap within the limit is read through; a group larger than the span is a batch of its own.
    expect(planBatches([g(1, 0, 10), g(1, 13, 50), g(1, 50, 55)], 10, { spanBytes: 20, gapBytes: 5 })).toEqual([
      { first: 0, last: 0, rowStart: 0, rowEnd: 1, start: 0, end: 10 },
      { first: 1, last: 1, rowStart: 1, rowEnd: 2, start: 13, end: 50 },
      { first: 2, last: 2, rowStart: 2, rowEnd: 3, start: 50, end: 55 },
    ]);
  });

  it('the progress line says why a read of tiny row groups takes its requests', () => {
    const groups = Array.from({ length: 10_000 }, (_, i) => g(1, i * 10, i * 10 + 10));
    const batches = planBatches(groups, Infinity, { spanBytes: 1000 });
    expect(batches).toHaveLength(100);
    expect(batchNote('data/x.parquet', groups, batches)).toBe('data/x.parquet stores 10,000 row groups of 1 row each: reading them in 100 requests');
    expect(batchNote('x', [g(5000, 0, 10), g(5000, 10, 20)], planBatches([g(5000, 0, 10), g(5000, 10, 20)], Infinity))).toBeNull();
  });
});

describe('groupRanges and spanBuffer over a real file', () => {
  it("each row group's requested columns lie inside its range; a span serves their bytes from memory", async () => {
    const bytes = parquet([
      { name: 'id', type: 'STRING', data: ['a', 'b', 'c', 'd'] },
      { name: 'text', type: 'STRING', data: ['one', 'two', 'three', 'four'] },
    ], 1);
    const meta = parquetMetadata(bytes.buffer as ArrayBuffer);
    const all = groupRanges(meta), text = groupRanges(meta, ['text']);
    expect(all.map((r) => r.rows)).toEqual([1, 1, 1, 1]);
    for (let i = 0; i < 4; i++) {
      expect(text[i]!.start).toBeGreaterThan(all[i]!.start);
      expect(text[i]!.end).toBe(all[i]!.end);
      if (i > 0) expect(all[i]!.start).toBeGreaterThanOrEqual(all[i - 1]!.end);
    }
    const asked: Array<[number, number]> = [];
    const file = { byteLength: bytes.byteLength, slice: (s: number, e?: number) => { asked.push([s, e ?? bytes.byteLength]); return bytes.slice(s, e).buffer as ArrayBuffer; } };
    const span = spanBuffer(file, 10, bytes.slice(10, 50).buffer as ArrayBuffer);
    expect(new Uint8Array(await span.slice(12, 20))).toEqual(bytes.slice(12, 20));
    expect(asked).toEqual([]);
    await span.slice(40, 60); // outside: read from the file
    expect(asked).toEqual([[40, 60]]);
  });
});
