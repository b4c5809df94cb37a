/**
 * Issue 32's bar, on a SciFact subset (the full run is docs/analysis.md's `scripts/measure-cdf-ties.ts`): under seed
 * B's protocol no two of a query's top candidate_k share a corpus-CDF value unless their raw scores are equal, on
 * the BM25 side and on a dense side (a hashed bag-of-words embedder: cost only, its ranking means nothing).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseCorpus, parseQrels, parseQueries } from '../../src/lib/data/beir.ts';
import { buildRunKb, runSettings } from '../../src/lib/eval/retrieval/retrieval-session.ts';
import { calibrate } from '../../src/lib/retrieval/calibrate.ts';
import { ExactDenseIndex } from '../../src/lib/retrieval/dense.ts';
import { denseCdfTable, embedItems, type ItemEmbedder } from '../../src/lib/retrieval/dense-build.ts';
import { SCIFACT } from '../helpers/beir-subset.ts';

const DIM = 64;
/** Each word adds ±1 at two hashed coordinates. */
const hashed: ItemEmbedder = {
  embed: async (texts) => {
    const out = new Float32Array(texts.length * DIM);
    texts.forEach((t, r) => {
      for (const w of t.toLowerCase().match(/\p{L}+/gu) ?? []) {
        let h = 2166136261;
        for (let i = 0; i < w.length; i++) h = Math.imul(h ^ w.charCodeAt(i), 16777619) >>> 0;
        out[r * DIM + (h % DIM)]! += 1;
        out[r * DIM + ((h >>> 8) % DIM)]! += (h & 1) ? 1 : -1;
      }
    });
    return out;
  },
};

/** Pairs of a list whose raw scores differ but whose calibrated values are equal. */
function tiedPairs(raw: readonly number[], cal: readonly number[]): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  for (let i = 0; i < raw.length; i++) for (let j = i + 1; j < raw.length; j++) if (raw[i] !== raw[j] && cal[i] === cal[j]) out.push([raw[i]!, raw[j]!]);
  return out;
}

describe('corpus-CDF calibration under seed B on a SciFact subset', () => {
  it("gives distinct values to a query's top candidates whose raw scores differ (BM25 and dense)", async () => {
    const settings = runSettings('seed-b');
    const k = settings.candidateK ?? 20;
    const docs = parseCorpus(readFileSync(join(SCIFACT, 'corpus.jsonl'), 'utf8').split('\n').slice(0, 600).join('\n'));
    const qrels = parseQrels(readFileSync(join(SCIFACT, 'qrels/test.tsv'), 'utf8'));
    const queries = parseQueries(readFileSync(join(SCIFACT, 'queries.jsonl'), 'utf8')).filter((q) => qrels.has(q.id)).slice(0, 40);
    const kb = buildRunKb(docs, settings);
    const { vectors } = await embedItems(kb, hashed);
    kb.dense = new ExactDenseIndex(vectors, DIM);
    kb.denseCdf = await denseCdfTable(kb, kb.dense, hashed, 100, kb.options.seed);
    // the table keeps every score: 100 pseudo-queries × every chunk on the dense side
    expect(kb.denseCdf!.sorted.length).toBe(100 * kb.size);
    expect(kb.sparseCdf!.sorted.length).toBe(kb.sparseCdf!.count);
    expect(kb.sparseCdf!.count).toBeGreaterThan(4096);
    const qv = await hashed.embed(queries.map((q) => q.text), 'query');
    let sparsePairs = 0, densePairs = 0;
    queries.forEach((q, i) => {
      const sparse = kb.bm25.search(kb.bm25.queryTerms(q.text), k, kb.itemId).map((h) => h.score);
      const dense = kb.dense!.search(qv.subarray(i * DIM, (i + 1) * DIM), k, kb.itemId).map((h) => h.score);
      expect(tiedPairs(sparse, calibrate('cdf', sparse, kb.sparseCdf!)), `query ${q.id} BM25`).toEqual([]);
      expect(tiedPairs(dense, calibrate('cdf', dense, kb.denseCdf!)), `query ${q.id} dense`).toEqual([]);
      sparsePairs += sparse.length * (sparse.length - 1) / 2;
      densePairs += dense.length * (dense.length - 1) / 2;
    });
    expect(sparsePairs).toBeGreaterThan(1000);
    expect(densePairs).toBeGreaterThan(1000);
  });
});
