import { describe, expect, test } from 'vitest';
import { examplesOf } from '../../src/lib/data/examples.ts';
import { SOTU_EXAMPLES } from '../../src/lib/data/sotu.ts';
import { modeTable, type LoadedModelLike } from '../../src/lib/models/readiness.ts';
import { MODE_IDS, MODES, type RetrievalMode } from '../../src/lib/retrieval/modes.ts';
import { bestAvailableMode, chipChoice } from '../../src/ui/search/example-chips.ts';
import type { ModeAvailability } from '../../workers/search-api.ts';

/** Availability with only the listed modes runnable (the others with a reason naming them). */
const only = (...ok: RetrievalMode[]): ModeAvailability => Object.fromEntries(MODE_IDS.map((m) => [m, ok.includes(m) ? { available: true } : { available: false, reason: `no model for ${m}.` }])) as ModeAvailability;
const all = only(...MODE_IDS);
const bm25Only = only('sparse');
const noReranker = only('sparse', 'dense', 'rrf', 'hybrid_fixed', 'hybrid_calibrated');

describe('the best available mode', () => {
  test("a mode that runs is kept; a rerank mode falls back to its own fusion, then to BM25; anything else to BM25", () => {
    for (const m of MODE_IDS) expect(bestAvailableMode(m, all)).toBe(m);
    expect(bestAvailableMode('hybrid_calibrated_rerank', noReranker)).toBe('hybrid_calibrated');
    expect(bestAvailableMode('hybrid_fixed_rerank', noReranker)).toBe('hybrid_fixed');
    expect(bestAvailableMode('hybrid_calibrated_rerank', bm25Only)).toBe('sparse');
    expect(bestAvailableMode('dense', bm25Only)).toBe('sparse');
    expect(bestAvailableMode('rrf', bm25Only)).toBe('sparse');
    // Not known yet: the example's own.
    expect(bestAvailableMode('dense', null)).toBe('dense');
  });

  test('with the real mode table: no models loaded leaves BM25 only', () => {
    const table = modeTable(null, []);
    expect(MODE_IDS.filter((m) => bestAvailableMode(m, table) !== 'sparse')).toEqual([]);
  });
});

describe('a chip sets the query and the mode', () => {
  test('an example with a mode that runs: that query and that mode, no notice', () => {
    expect(chipChoice({ query: 'war on poverty', mode: 'hybrid_calibrated_rerank' }, all, 'sparse')).toEqual({ query: 'war on poverty', mode: 'hybrid_calibrated_rerank', notice: null });
    expect(chipChoice({ query: 'tariff', mode: 'sparse' }, bm25Only, 'dense')).toEqual({ query: 'tariff', mode: 'sparse', notice: null });
  });

  test('an example without a mode keeps the current mode', () => {
    expect(chipChoice({ query: 'tariff' }, all, 'rrf')).toEqual({ query: 'tariff', mode: 'rrf', notice: null });
  });

  test("a mode that needs a model not loaded: the best one that runs, and one line saying why", () => {
    const c = chipChoice({ query: 'war on poverty', mode: 'hybrid_calibrated_rerank' }, noReranker, 'sparse');
    expect(c.mode).toBe('hybrid_calibrated');
    expect(c.notice).toBe(`This example is meant for ${MODES.hybrid_calibrated_rerank.label}; it ran with ${MODES.hybrid_calibrated.label}. no model for hybrid_calibrated_rerank.`);
    const embedder: LoadedModelLike = { task: 'embedder', spec: { id: 'e', dtype: 'q8', device: 'wasm' }, dim: 4 };
    const real = chipChoice({ query: 'war on poverty', mode: 'hybrid_calibrated_rerank' }, modeTable({ id: 'e', dtype: 'q8', device: 'wasm', dim: 4 }, [embedder]), 'sparse');
    expect(real.mode).toBe('hybrid_calibrated');
    expect(real.notice).toMatch(/cross-encoder/);
    expect(chipChoice({ query: 'x', mode: 'dense' }, bm25Only, 'sparse')).toMatchObject({ mode: 'sparse', notice: expect.stringMatching(/^This example is meant for Dense; it ran with BM25\. /) });
  });
});

describe('SOTU examples', () => {
  test("seed B's spirit: a lexical one, a dense paraphrase, a hybrid+rerank one, and the off-topic one reranked", () => {
    const modeOf = (q: string) => SOTU_EXAMPLES.find((e) => e.query === q)?.mode;
    expect(modeOf('emancipation of slaves')).toBe('sparse');
    expect(SOTU_EXAMPLES.some((e) => e.mode === 'dense')).toBe(true);
    expect(modeOf('war on poverty')).toBe('hybrid_calibrated_rerank');
    const off = SOTU_EXAMPLES.filter((e) => e.note);
    expect(off.map((e) => e.mode)).toEqual(['hybrid_calibrated_rerank']);
    // Every mode named is one this build knows (examplesOf keeps them all).
    expect(examplesOf(SOTU_EXAMPLES, 'sotu').examples).toEqual(SOTU_EXAMPLES);
  });
});

describe('stored examples (a descriptor in meta.json)', () => {
  test('old ones without modes are valid as they are', () => {
    expect(examplesOf([{ query: 'a' }, { query: 'b', note: 'off-topic' }], 'meta.json')).toEqual({ examples: [{ query: 'a' }, { query: 'b', note: 'off-topic' }], notes: [] });
  });

  test('known modes are kept; an unknown or non-string mode is dropped (the example stays) and said once', () => {
    const one = examplesOf([{ query: 'a', mode: 'dense' }, { query: 'b', mode: 'hybrid_v9' }], 'kb/meta.json');
    expect(one.examples).toEqual([{ query: 'a', mode: 'dense' }, { query: 'b' }]);
    expect(one.notes).toEqual(['kb/meta.json: an example names an unknown mode (“hybrid_v9”); its chip keeps the current mode.']);
    const two = examplesOf([{ query: 'a', mode: 7 }, { query: 'b', mode: null }, { query: 'c', mode: 'sparse' }], 'meta.json');
    expect(two.examples).toEqual([{ query: 'a' }, { query: 'b' }, { query: 'c', mode: 'sparse' }]);
    expect(two.notes).toEqual(['meta.json: 2 examples name an unknown mode (a number, …); their chips keep the current mode.']);
    // A mode name inherited from Object.prototype is not a mode.
    expect(examplesOf([{ query: 'a', mode: 'toString' }], 'meta.json').examples).toEqual([{ query: 'a' }]);
  });
});
