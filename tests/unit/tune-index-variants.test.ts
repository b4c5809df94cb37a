/**
 * The tuner's vector index dimension: the kind the knowledge base has is the base's 'auto'; each other kind is built
 * once over the vectors its dense side keeps (an int8 index keeps none: the dimension is left out, with a note), and a
 * trial of that kind runs on the same items, postings and dense calibration with only the retriever swapped.
 */
import { describe, expect, it } from 'vitest';
import { KnowledgeBase } from '../../src/lib/retrieval/knowledge-base.ts';
import { buildVectorIndex, vectorIndexKind } from '../../src/lib/retrieval/vector-index.ts';
import { seededRandom } from '../../src/lib/random.ts';
import { indexDimensions, IndexVariants, ownIndexKind } from '../../src/lib/tune/index-variants.ts';
import { tuneDimensions } from '../../src/lib/tune/space.ts';

const docs = Array.from({ length: 40 }, (_, i) => ({ id: `d${i}`, title: '', text: `word${i % 7} common text ${'more '.repeat(i % 5)}` }));
const DIM = 8;
const rand = seededRandom(7);
const vectors = Float32Array.from({ length: docs.length * DIM }, () => rand() - 0.5);

async function kbWith(kind: 'exact' | 'int8' | 'hnsw' | null) {
  const kb = KnowledgeBase.build(docs, { chunking: false });
  if (kind) {
    kb.dense = await buildVectorIndex(kind, vectors, DIM);
    kb.denseCdf = { scores: new Float64Array([0, 1]) } as unknown as KnowledgeBase['denseCdf'];
  }
  return kb;
}

describe('the vector index dimension', () => {
  it('maps the kind the knowledge base has to the base value; leaves the dimension out when no other kind can be built', async () => {
    const dims = tuneDimensions({ narrow: { k1: [0.9] } });
    const notes: string[] = [];
    const exact = await kbWith('exact');
    expect(indexDimensions(dims, 'auto', exact, notes).find((d) => d.key === 'index')!.values).toEqual(['auto', 'int8', 'hnsw']);
    // an explicit base kind stays as it is
    expect(indexDimensions(dims, 'exact', exact, notes).find((d) => d.key === 'index')!.values).toEqual(['exact', 'int8', 'hnsw']);
    expect(notes).toEqual([]);
    // no dense side: the dense modes cannot run, the dimension goes quietly
    expect(indexDimensions(dims, 'auto', await kbWith(null), notes).map((d) => d.key)).not.toContain('index');
    expect(notes).toEqual([]);
    // int8 keeps codes, not the float vectors
    expect(indexDimensions(dims, 'auto', await kbWith('int8'), notes).map((d) => d.key)).not.toContain('index');
    expect(notes).toEqual([expect.stringMatching(/vector index kind is not in the space: the knowledge base's int8 index keeps no float vectors/)]);
    // the other dimensions are untouched
    expect(indexDimensions(dims, 'auto', exact, []).filter((d) => d.key !== 'index')).toEqual(dims.filter((d) => d.key !== 'index'));
  });

  it('builds each kind once over the same vectors; a variant shares the items, postings and dense calibration', async () => {
    const kb = await kbWith('exact');
    const variants = new IndexVariants();
    expect(await variants.of(kb, 'whole', 'auto')).toBe(kb);
    expect(await variants.of(kb, 'whole', 'exact')).toBe(kb);
    const [h1, h2] = await Promise.all([variants.of(kb, 'whole', 'hnsw'), variants.of(kb, 'whole', 'hnsw')]);
    expect(h1!.dense).toBe(h2!.dense); // built once
    expect(ownIndexKind(h1!)).toBe('hnsw');
    expect(h1!.bm25).toBe(kb.bm25);
    expect(h1!.denseCdf).toBe(kb.denseCdf);
    expect(kb.dense && vectorIndexKind(kb.dense)).toBe('exact'); // the base is unchanged
    // 40 vectors: the graph finds what the exact scan finds, with the same (exactly re-scored) scores
    const q = vectors.slice(3 * DIM, 4 * DIM);
    const id = (i: number) => `d${i}`;
    expect(h1!.dense!.search(q, 10, id)).toEqual(kb.dense!.search(q, 10, id));
    const int8 = await variants.of(kb, 'whole', 'int8');
    expect(ownIndexKind(int8)).toBe('int8');
    expect(int8.dense!.search(q, 1, id)[0]!.index).toBe(3);
    // from an HNSW knowledge base: its kept vectors build the exact index
    const exactAgain = await new IndexVariants().of(h1!, 'whole', 'exact');
    expect(exactAgain.dense!.search(q, 10, id).map((h) => h.index)).toEqual(kb.dense!.search(q, 10, id).map((h) => h.index));
    expect(variants.notes).toEqual([expect.stringMatching(/^the hnsw vector index over 40 vectors built once for its trials \(\d+\.\d s\)$/), expect.stringMatching(/^the int8 vector index/)]);
    variants.dispose();
    expect(() => kb.withDenseIndex(kb.dense!).withDenseIndex({ ...kb.dense!, size: 3 } as never)).toThrow(/3 vectors, the knowledge base 40 items/);
  });
});
