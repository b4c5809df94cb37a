/**
 * Seed A's separate k's in a retrieval run (RetrievalRunSettings bm25K / denseK / fusionTopK): they reach the
 * search and the predictors' entropy depth, they change the config hash only when set (a run without them keys its
 * cached rows as before), and the config records them always.
 */
import { describe, expect, it } from 'vitest';
import type { BeirQuery, Qrels } from '../../src/lib/data/beir.ts';
import { buildRunKb, retrievalRunConfig, runRetrievalSession, runSettings, type RetrievalRunSettings } from '../../src/lib/eval/retrieval/retrieval-session.ts';
import type { SourceDocument } from '../../src/lib/retrieval/document.ts';

const DOCS: SourceDocument[] = ['river boat on the water', 'boat engine repair guide', 'fishing boats and nets', 'river ice in winter', 'a boat on the river bank']
  .map((text, i) => ({ id: `d${i}`, title: '', text }));
const QUERIES: BeirQuery[] = [{ id: 'q1', text: 'river boat' }];
const QRELS: Qrels = new Map([['q1', new Map([['d0', 1], ['d4', 1], ['d1', 1]])]]);
const ID = { dataKey: 'beir:toy', dataset: 'toy', kb: null, embedder: null, reranker: null };

async function run(s: RetrievalRunSettings) {
  const kb = buildRunKb(DOCS, s);
  return runRetrievalSession({
    kb, queries: QUERIES, qrels: QRELS, settings: s, identity: ID, modes: ['sparse'], models: {},
    data: { dataset: 'toy', revision: null, subsets: ['test'], source: 'local', kb: null },
    environment: { app: 'test', runtime: 'node', agent: 'vitest', models: [], llm: null, judge: null },
  });
}

describe("a retrieval run with bm25_k", () => {
  it('BM25 gives bm25_k candidates and the entropy is over them; the hash changes only when a k is set', async () => {
    const base = runSettings('default', { growPool: false, predictors: true });
    const one = runSettings('default', { growPool: false, predictors: true, bm25K: 1 });
    const [a, b] = [await run(base), await run(one)];
    const row = (r: Awaited<ReturnType<typeof run>>) => r.run.rows.find((x) => x.group === 'sparse')!;
    // three of the five documents hold "river" or "boat" and are judged: recall@5 is 1 with the default depth, 1/3 with one candidate
    expect(row(a).scores['r@5']).toBe(1);
    expect(row(b).scores['r@5']).toBeCloseTo(1 / 3, 12);
    // H of a single score is 0; over the whole list it is not
    expect(row(b).scores['qpp.entropy.sparse.raw']).toBe(0);
    expect(row(a).scores['qpp.entropy.sparse.raw']).toBeGreaterThan(0);
    expect(b.configHash).not.toBe(a.configHash);
    expect(a.config).toMatchObject({ bm25K: null, denseK: null, fusionTopK: null });
    expect(b.config).toMatchObject({ bm25K: 1, denseK: null, fusionTopK: null });
    const kb = buildRunKb(DOCS, base);
    const again = await retrievalRunConfig(runSettings('default', { growPool: false, predictors: true, bm25K: undefined }), kb, ID, { modes: ['sparse'] });
    expect(again.configHash).toBe(a.configHash);
  });

  it('refuses a k that is not a whole number ≥ 1, naming it', () => {
    expect(() => runSettings('default', { denseK: 0 })).toThrow(/^dense-k must be unset or an integer in \[1, 1000\], got 0$/);
    expect(() => runSettings('default', { fusionTopK: 2.5 })).toThrow(/^fusion-top-k must be unset or an integer in \[1, 1000\], got 2.5$/);
  });
});
