import { describe, expect, it } from 'vitest';
import type { SourceDocument } from '../../src/lib/retrieval/document.ts';
import { analyzerOf, buildRunKb, retrievalRunConfig, runSettings, RunSettingsError } from '../../src/lib/eval/retrieval/retrieval-session.ts';
import { KnowledgeBase } from '../../src/lib/retrieval/knowledge-base.ts';

const DOCS: SourceDocument[] = [
  { id: 'a', title: '', text: 'The runner was running in the park' },
  { id: 'b', title: '', text: 'Cats sleep all day' },
];
const ID = { dataKey: 'beir:0', dataset: 'toy', kb: null, embedder: null, reranker: null };

describe('retrieval run settings', () => {
  it("seed B's preset: 800/120 chunks, candidate_k 20 without pool growth, cdf + calibrated entropy, BM25Okapi k1 1.5 b 0.75 over plain words, exact scan, 1,000 resamples", () => {
    expect(runSettings('seed-b')).toMatchObject({
      protocol: 'seed-b', chunking: { chunkSize: 800, overlap: 120 }, candidateK: 20, growPool: false, calibration: 'cdf',
      entropyBasis: 'calibrated', bm25: { k1: 1.5, b: 0.75 }, analyzer: 'plain', index: 'exact', resamples: 1000,
    });
    expect(runSettings('seed-b', { candidateK: 40, analyzer: 'english' })).toMatchObject({ candidateK: 40, analyzer: 'english', growPool: false });
    expect(runSettings()).toMatchObject({ protocol: 'default', chunking: false, candidateK: null, analyzer: 'english', growPool: true });
  });

  it('refuses values a form or a worker message could carry, naming the field', () => {
    const bad: Array<[Record<string, unknown>, RegExp]> = [
      [{ analyzer: 'porter' }, /^analyzer must be one of english, plain, got "porter"$/], [{ growPool: 'yes' }, /candidate pool/], [{ predictors: 1 }, /predictors/],
      [{ split: '../x' }, /split/], [{ candidateK: 0 }, /^candidate-k must be unset or an integer in \[1, 1000\], got 0$/],
      // The bound its flag and the form have (settings/retrieval-run.ts), not a wider one of its own.
      [{ candidateK: 1001 }, /^candidate-k must be/], [{ bm25: { k1: 11, b: 0.4 } }, /^k1 must be a number in \[0, 10\], got 11$/], [{ resamples: 50 }, /resamples/], [{ calibration: 'sigmoid' }, /calibration/],
    ];
    for (const [o, m] of bad) expect(() => runSettings('default', o as never), JSON.stringify(o)).toThrow(m);
    expect(() => runSettings('seed-c' as never)).toThrow(RunSettingsError);
  });

  it("buildRunKb: 'plain' keeps every lower-cased word (seed B), 'english' drops stop words and stems; the config records which", async () => {
    const english = buildRunKb(DOCS, runSettings());
    const plain = buildRunKb(DOCS, runSettings('default', { analyzer: 'plain' }));
    expect(english.bm25.queryTerms('the runners running')).toEqual(['runner', 'run']);
    expect(plain.bm25.queryTerms('the runners running')).toEqual(['the', 'runners', 'running']);
    expect([analyzerOf(english), analyzerOf(plain)]).toEqual(['english', 'plain']);
    // the English analyzer builds the knowledge base exactly as KnowledgeBase.build always did
    expect(english.bm25.toData()).toEqual(KnowledgeBase.build(DOCS, { chunking: false }).bm25.toData());
    const a = await retrievalRunConfig(runSettings(), english, ID, { modes: ['sparse'] });
    const b = await retrievalRunConfig(runSettings('default', { analyzer: 'plain' }), plain, ID, { modes: ['sparse'] });
    expect([a.config['analyzer'], b.config['analyzer']]).toEqual(['english', 'plain']);
    expect(a.configHash).not.toBe(b.configHash);
    // modes, the query sample and the protocol's name do not change a row, so they do not change the hash
    const c = await retrievalRunConfig(runSettings('default', { maxQueries: 5, seed: 3 }), english, ID, { modes: ['sparse', 'dense'] });
    expect(c.configHash).toBe(a.configHash);
  });
});
