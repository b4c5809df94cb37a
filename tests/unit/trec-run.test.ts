import { describe, expect, it } from 'vitest';
import { trecRunLines } from '../../src/lib/eval/retrieval/trec-run.ts';

describe('trecRunLines', () => {
  it('writes `qid Q0 docid rank score tag`, rank 1-based in list order', () => {
    const lines = trecRunLines('q7', [{ id: 'd3', score: 12.5 }, { id: 'd1', score: 0.25 }, { id: 'd9', score: -1 }], 'bm25');
    expect(lines).toHaveLength(3);
    const rows = lines.map((l) => l.split(' '));
    for (const r of rows) {
      expect(r).toHaveLength(6);
      expect(r[0]).toBe('q7');
      expect(r[1]).toBe('Q0');
      expect(r[5]).toBe('bm25');
    }
    expect(rows.map((r) => r[2])).toEqual(['d3', 'd1', 'd9']);
    expect(rows.map((r) => r[3])).toEqual(['1', '2', '3']);
    expect(rows.map((r) => Number(r[4]))).toEqual([12.5, 0.25, -1]);
  });

  it('prints scores with 8 significant digits', () => {
    // 1/3 → 0.33333333; 1234.56789 → 1234.5679
    const [a, b] = trecRunLines('q', [{ id: 'x', score: 1 / 3 }, { id: 'y', score: 1234.56789 }], 't');
    expect(a).toBe('q Q0 x 1 0.33333333 t');
    expect(b).toBe('q Q0 y 2 1234.5679 t');
  });

  it('returns no lines for an empty ranking', () => {
    expect(trecRunLines('q', [], 't')).toEqual([]);
  });
});
