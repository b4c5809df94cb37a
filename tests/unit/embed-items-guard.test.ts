/**
 * Vectors of all zeros or NaN from any embedder never enter an index silently (issue 32: a 2-d model trained on
 * another corpus left 7,029 of 16,564 rows NaN or zero): embedItems, which every dense index and artifact is built
 * from, refuses above half of the rows and zeroes and counts fewer.
 */
import { describe, expect, it } from 'vitest';
import { embedItems } from '../../src/lib/retrieval/dense-build.ts';
import { KnowledgeBase } from '../../src/lib/retrieval/knowledge-base.ts';

const docs = Array.from({ length: 6 }, (_, i) => ({ id: `d${i}`, title: `doc ${i}`, text: `text number ${i} about things` }));
const kb = KnowledgeBase.build(docs, { chunking: false, cdfQueries: 0 });

/** 2-d vectors: row i is [1, 0] unless `bad(i)` gives NaN or zeros. */
function embedder(bad: (i: number) => 'nan' | 'zero' | null) {
  let seen = 0;
  return {
    embed: async (texts: readonly string[]) => {
      const out = new Float32Array(texts.length * 2);
      texts.forEach((_, j) => {
        const b = bad(seen++);
        out.set(b === 'nan' ? [NaN, 1] : b === 'zero' ? [0, 0] : [1, 0], j * 2);
      });
      return out;
    },
  };
}

describe('embedItems screens what a model gives', () => {
  it('refuses when more than half the rows are NaN or all zeros, naming the counts', async () => {
    await expect(embedItems(kb, embedder((i) => (i < 4 ? 'zero' : null)))).rejects.toThrow(
      'the embedder gave NaN or all-zero vectors for 4 of 6 chunks (more than half): it does not fit this corpus (a model trained on another corpus?), so no dense index was built');
  });

  it('zeroes a few NaN rows and counts them and the zero rows as unusable', async () => {
    const r = await embedItems(kb, embedder((i) => (i === 1 ? 'nan' : i === 3 ? 'zero' : null)));
    expect(r.unusable).toBe(2);
    expect(Array.from(r.vectors.subarray(2, 4))).toEqual([0, 0]);
    expect(Array.from(r.vectors.subarray(0, 2))).toEqual([1, 0]);
    const clean = await embedItems(kb, embedder(() => null));
    expect(clean.unusable).toBe(0);
  });
});
