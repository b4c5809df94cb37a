/**
 * The tuner's space comes from the run settings' declarations: each setting declared with `tune` is a dimension in
 * the modes it changes (a fixture schema's new setting joins with no other edit); candidates per mode are the product
 * of their dimensions with the base values first; the sample spreads the budget over the modes, seeded. And BM25
 * trials share the postings: `withBm25` ranks as a knowledge base built with those parameters.
 */
import { describe, expect, it } from 'vitest';
import { KnowledgeBase } from '../../src/lib/retrieval/knowledge-base.ts';
import { RUN_DEFAULTS, RUN_SETTINGS } from '../../src/lib/settings/retrieval-run.ts';
import { num } from '../../src/lib/settings/schema.ts';
import { candidateKey, finalistVariants, modeCandidates, sampleCandidates, spaceSize, SpaceError, tuneDimensions } from '../../src/lib/tune/space.ts';

describe('the search space', () => {
  it('has a dimension for each run setting declared with tune values, in the modes it changes', () => {
    const dims = tuneDimensions();
    const declared = Object.entries(RUN_SETTINGS).filter(([, s]) => 'tune' in s && s.tune && !('rebuild' in s.tune && s.tune.rebuild)).map(([k]) => k);
    expect(dims.map((d) => d.key)).toEqual(declared);
    // The chunking dimensions build the knowledge base again: in the space only when the tune may rebuild.
    const rebuilt = Object.entries(RUN_SETTINGS).filter(([, s]) => 'tune' in s && s.tune).map(([k]) => k);
    expect(tuneDimensions({ rebuild: true }).map((d) => d.key)).toEqual(rebuilt);
    expect(rebuilt.filter((k) => !declared.includes(k))).toEqual(['chunked', 'chunkSize', 'analyzer']);
    expect(declared).toEqual(expect.arrayContaining(['alpha', 'k1', 'b', 'calibration', 'entropyBasis', 'candidateK']));
    expect(dims.find((d) => d.key === 'alpha')).toMatchObject({ values: [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9], modes: ['hybrid_fixed', 'hybrid_fixed_rerank'] });
    // the rerank depth (the cross-encoder's pool) in the modes that rerank only
    expect(dims.find((d) => d.key === 'fusionTopK')).toMatchObject({ values: [null, 50, 100], modes: ['hybrid_fixed_rerank', 'hybrid_calibrated_rerank'] });
    // a fixture schema: its new tuned setting is a dimension by its declaration alone
    const fixture = { ...RUN_SETTINGS, rrfK: num({ default: 60, min: 1, max: 1000, flag: 'rrf-k', describe: 'RRF constant', tune: { values: [10, 60], modes: ['rrf'] } }) };
    expect(tuneDimensions({}, fixture).at(-1)).toEqual({ key: 'rrfK', values: [10, 60], modes: ['rrf'] });
  });
  it('leaves out a value that does not apply (a chunk size, unchunked): no two candidates are the same settings', () => {
    const dims = tuneDimensions({ rebuild: true, narrow: { chunkSize: [400, 800], k1: [0.9], b: [0.4] } }).filter((d) => ['chunked', 'chunkSize', 'k1', 'b'].includes(d.key));
    const base = { ...RUN_DEFAULTS, chunked: false };
    const all = modeCandidates('sparse', dims, base);
    // unchunked (the base, first), chunked at 400, chunked at 800: three, not 2 × 2
    expect(all.map((c) => c.values)).toEqual([{ chunked: false, k1: 0.9, b: 0.4 }, { chunked: true, chunkSize: 400, k1: 0.9, b: 0.4 }, { chunked: true, chunkSize: 800, k1: 0.9, b: 0.4 }]);
    expect(spaceSize(['sparse'], dims, base)).toBe(3);
  });
  it('leaves out fixed settings and narrows a dimension; refuses a value the setting does not take', () => {
    const dims = tuneDimensions({ fixed: ['k1', 'b'], narrow: { alpha: [0.3, 0.7], candidateK: [null, 20] } });
    expect(dims.map((d) => d.key)).not.toContain('k1');
    expect(dims.find((d) => d.key === 'alpha')!.values).toEqual([0.3, 0.7]);
    expect(() => tuneDimensions({ narrow: { alpha: [1.5] } })).toThrow(SpaceError);
    expect(() => tuneDimensions({ narrow: { calibration: ['bogus'] } })).toThrow(/bogus/);
    expect(() => tuneDimensions({ narrow: { alpha: [] } })).toThrow(/no value/);
    expect(() => tuneDimensions({ narrow: { depth: [10] } })).toThrow(/not a setting the tuner varies/);
  });
  it('a mode\'s candidates: the product of its dimensions, the base values first, each once', () => {
    const dims = tuneDimensions();
    const sparse = modeCandidates('sparse', dims, RUN_DEFAULTS);
    expect(sparse).toHaveLength(5 * 4); // k1 × b
    expect(sparse[0]).toEqual({ mode: 'sparse', values: { k1: RUN_DEFAULTS.k1, b: RUN_DEFAULTS.b } });
    expect(new Set(sparse.map(candidateKey)).size).toBe(sparse.length);
    // the vector index kinds (the base's 'auto' outside the listed kinds: the tuner maps the kind it picks to it, index-variants.ts)
    expect(modeCandidates('dense', dims, RUN_DEFAULTS).map((c) => c.values)).toEqual([{ index: 'auto' }, { index: 'exact' }, { index: 'int8' }, { index: 'hnsw' }]);
    expect(modeCandidates('dense', tuneDimensions({ fixed: ['index'] }), RUN_DEFAULTS)).toEqual([{ mode: 'dense', values: {} }]);
    expect(modeCandidates('hybrid_fixed', dims, RUN_DEFAULTS)).toHaveLength(3 * 5 * 4 * 9 * 3 + 1); // candidate_k × k1 × b × α × index kind, and the base (index 'auto')
    // a base value outside the listed ones is a candidate of its own, first
    const odd = modeCandidates('sparse', dims, { ...RUN_DEFAULTS, k1: 1.1 });
    expect(odd).toHaveLength(21);
    expect(odd[0]!.values).toMatchObject({ k1: 1.1 });
    expect(spaceSize(['sparse', 'dense'], dims, RUN_DEFAULTS)).toBe(24);
  });
  it('the sample: each mode\'s base first, then round robin over the modes; seeded; never more than the space', () => {
    // (the vector index kind is tried beside the finalists, not sampled: finalistVariants)
    const dims = tuneDimensions();
    const modes = ['sparse', 'dense', 'hybrid_fixed'] as const;
    const a = sampleCandidates(modes, dims, RUN_DEFAULTS, 10, 3);
    expect(a.slice(0, 3).map((c) => c.mode)).toEqual(['sparse', 'dense', 'hybrid_fixed']);
    expect(a[0]!.values).toEqual({ k1: RUN_DEFAULTS.k1, b: RUN_DEFAULTS.b });
    // dense has one candidate: after its base the others share the budget
    expect(a.filter((c) => c.mode === 'dense')).toHaveLength(1);
    expect(a.filter((c) => c.mode === 'sparse')).toHaveLength(5);
    expect(sampleCandidates(modes, dims, RUN_DEFAULTS, 10, 3)).toEqual(a);
    expect(sampleCandidates(modes, dims, RUN_DEFAULTS, 10, 4)).not.toEqual(a);
    expect(sampleCandidates(['sparse', 'dense'], dims, RUN_DEFAULTS, 1e6, 0)).toHaveLength(21);
    expect(a.every((c) => !('index' in c.values))).toBe(true);
    expect(() => sampleCandidates(modes, dims, RUN_DEFAULTS, 0, 0)).toThrow(/budget/);
    expect(() => sampleCandidates([], dims, RUN_DEFAULTS, 5, 0)).toThrow(/no mode/);
  });
});

describe('other embedders as a dimension', () => {
  it('a pool per mode and embedder in the modes with a dense side, each with its base first; the size counts them', () => {
    const dims = tuneDimensions({ fixed: ['index'], narrow: { k1: [0.9], b: [0.4], alpha: [0.3, 0.7], candidateK: [null] } });
    const e = { count: 2, modes: ['dense', 'hybrid_fixed'] as const };
    const got = sampleCandidates(['sparse', 'dense', 'hybrid_fixed'], dims, RUN_DEFAULTS, 100, 1, e);
    expect(got.slice(0, 6).map((c) => `${c.mode}${c.embedder === undefined ? '' : `/e${c.embedder}`}`)).toEqual(['sparse', 'dense', 'dense/e0', 'dense/e1', 'hybrid_fixed', 'hybrid_fixed/e0']);
    // sparse 1; dense 1 × 3 embedders; hybrid_fixed (α 0.3, 0.7, and the base's 0.5) × 3
    expect(spaceSize(['sparse', 'dense', 'hybrid_fixed'], dims, RUN_DEFAULTS, e)).toBe(1 + 3 + 9);
    expect(got).toHaveLength(13);
    expect(new Set(got.map(candidateKey)).size).toBe(13);
    // without other embedders: the sample it was
    expect(sampleCandidates(['sparse', 'dense'], dims, RUN_DEFAULTS, 5, 1)).toEqual(sampleCandidates(['sparse', 'dense'], dims, RUN_DEFAULTS, 5, 1, { count: 0, modes: [] }));
  });
});

describe('the dimensions tried beside the finalists', () => {
  it('adds each other value next to each finalist it applies to, one dimension at a time, none twice', () => {
    const dims = tuneDimensions({ narrow: { index: ['auto', 'hnsw'] } });
    expect(dims.find((d) => d.key === 'index')).toMatchObject({ finalists: true, values: ['auto', 'hnsw'] });
    const sparse = { mode: 'sparse' as const, values: { k1: 0.9, b: 0.4 } };
    const dense = { mode: 'dense' as const, values: {} };
    const hybrid = { mode: 'hybrid_fixed' as const, values: { alpha: 0.7 } };
    const got = finalistVariants([hybrid, sparse, dense], dims, RUN_DEFAULTS, [hybrid, sparse, dense]);
    // sparse has no dense side; the base's 'auto' is each finalist's own value
    expect(got).toEqual([{ of: 0, c: { mode: 'hybrid_fixed', values: { alpha: 0.7, index: 'hnsw' } } }, { of: 2, c: { mode: 'dense', values: { index: 'hnsw' } } }]);
    // a variant that is already a candidate is not tried again
    expect(finalistVariants([dense], dims, RUN_DEFAULTS, [dense, { mode: 'dense', values: { index: 'hnsw' } }])).toEqual([]);
  });
});

describe('KnowledgeBase.withBm25', () => {
  const docs = Array.from({ length: 30 }, (_, i) => ({
    id: `d${i}`, title: i % 3 ? '' : `Title ${i}`,
    text: `${'alpha '.repeat(1 + (i % 4))}${'beta gamma '.repeat(1 + (i % 5))}delta epsilon ${i % 2 ? 'zeta eta theta iota kappa lambda '.repeat(i % 7) : ''}`,
  }));
  it('scores, ranks and calibrates as a knowledge base built with those parameters, sharing the dense side', () => {
    const base = KnowledgeBase.build(docs, { chunking: false, bm25: { k1: 0.9, b: 0.4 } });
    const fake = {} as NonNullable<KnowledgeBase['dense']>;
    base.dense = fake;
    const tuned = base.withBm25({ k1: 1.5, b: 0.75 });
    const built = KnowledgeBase.build(docs, { chunking: false, bm25: { k1: 1.5, b: 0.75 } });
    for (const q of ['alpha beta', 'zeta kappa', 'title epsilon']) {
      expect(Array.from(tuned.bm25.scoreAll(q))).toEqual(Array.from(built.bm25.scoreAll(q)));
      expect(Array.from(tuned.bm25.scoreAll(q))).not.toEqual(Array.from(base.bm25.scoreAll(q)));
    }
    expect(tuned.sparseCdf).toEqual(built.sparseCdf);
    expect(tuned.options.bm25).toEqual({ k1: 1.5, b: 0.75 });
    expect(tuned.dense).toBe(fake);
    expect(base.options.bm25).toEqual({ k1: 0.9, b: 0.4 }); // the base is unchanged
    expect(() => base.withBm25({ k1: 1, b: 2 })).toThrow(/0 <= b <= 1/);
  });
});
