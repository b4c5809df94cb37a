/**
 * The search in two steps (fused results first, reranked results after) and the cross-encoder score cache, with a
 * fake cross-encoder that counts the pairs it scores and answers only when the test releases it.
 */
import { describe, expect, it } from 'vitest';
import type { SourceDocument } from '../../src/lib/retrieval/document.ts';
import { DEFAULT_CHUNKING } from '../../src/lib/retrieval/chunk.ts';
import { ExactDenseIndex } from '../../src/lib/retrieval/dense.ts';
import { KnowledgeBase } from '../../src/lib/retrieval/knowledge-base.ts';
import { RerankCache, type RerankModelKey } from '../../src/lib/retrieval/rerank-cache.ts';
import {
  RERANK_PENDING, search, searchSteps, type Reranker, type SearchModels, type SearchOutcome, type SearchOptions,
} from '../../src/lib/retrieval/search.ts';

/*
 * x "river boat", y "river", z "mountain"; query "river" (df 2 of N 3: idf = ln(1 + 1.5/2.5) = 0.47000363).
 * avgdl 4/3; BM25 (k1 0.9, b 0.4): y (dl 1) = idf·1.9/(1 + 0.81) = 0.49337404, x (dl 2) = idf·1.9/(1 + 1.08) = 0.42932...
 * Dense: the query vector is [1, 0]; x [0, 1] → 0, y [1, 1] → 0.70710678, z [1, 0] → 1.
 * hybrid_fixed (α 0.5 over min-max): y = 0.5·(1 + 0.70710678) = 0.85355339, z = 0.5·1 = 0.5, x = 0.5·0.87018... = 0.43509
 * → fused order y, z, x.
 */
const DOCS: SourceDocument[] = [
  { id: 'x', title: '', text: 'river boat', meta: { year: 1990 } },
  { id: 'y', title: '', text: 'river', meta: { year: 2000 } },
  { id: 'z', title: '', text: 'mountain', meta: { year: 2010 } },
];
const LOGITS: Record<string, number> = { 'river boat': 4, river: -1, mountain: 2 };
const Q8: RerankModelKey = { id: 'org/ce', dtype: 'q8', device: 'wasm' };

function deferred<T = void>() {
  let resolve!: (v: T) => void;
  const promise = new Promise<T>((r) => { resolve = r; });
  return { promise, resolve };
}

/** Scores passages by LOGITS; counts calls and pairs; when gated, answers only after `release()`. */
class FakeCrossEncoder implements Reranker {
  calls: Array<{ query: string; passages: string[] }> = [];
  private gates: Array<() => void> = [];
  private waiters: Array<() => void> = [];

  constructor(readonly model?: RerankModelKey, private readonly gated = false, private readonly logits = LOGITS) {}

  get pairs(): number {
    return this.calls.reduce((a, c) => a + c.passages.length, 0);
  }

  async rerank(query: string, passages: readonly string[]): Promise<number[]> {
    this.calls.push({ query, passages: [...passages] });
    for (const w of this.waiters.splice(0)) w();
    if (this.gated) {
      const gate = deferred();
      this.gates.push(gate.resolve);
      await gate.promise;
    }
    return passages.map((p) => this.logits[p] ?? 0);
  }

  /** Resolves once the model has been called `n` times. */
  async called(n: number): Promise<void> {
    while (this.calls.length < n) {
      const d = deferred();
      this.waiters.push(d.resolve);
      await d.promise;
    }
  }

  release(): void {
    this.gates.shift()!();
  }
}

function setup(kb = KnowledgeBase.build(DOCS, { chunking: false, cdfQueries: 0, indexTitle: false })) {
  kb.dense = new ExactDenseIndex(Float32Array.from([0, 1, 1, 1, 1, 0]), 2);
  return kb;
}
const encoder = { embedQuery: async () => Float32Array.from([1, 0]) };
const RERANK: Partial<SearchOptions> = { mode: 'hybrid_fixed_rerank', rejectThreshold: 0 };

type Found = Extract<SearchOutcome, { status: 'ok' | 'rejected' }>;
function found(r: SearchOutcome): Found {
  if (r.status !== 'ok' && r.status !== 'rejected') throw new Error(`expected hits, got ${r.status}: ${r.reason}`);
  return r;
}
const ids = (r: SearchOutcome) => r.hits.map((h) => h.id);

describe('searchSteps: fused results first, reranked results after', () => {
  it('the first outcome is the fused ranking, marked pending, before the cross-encoder is called', async () => {
    const kb = setup();
    const ce = new FakeCrossEncoder(Q8, true);
    const steps = await searchSteps(kb, 'river', RERANK, { encoder, reranker: ce });
    const first = found(steps.first);
    expect(ce.calls).toHaveLength(0);
    expect(ids(first)).toEqual(['y', 'z', 'x']);
    expect(first.hits[0]!.score).toBeCloseTo(0.85355339, 6);
    expect(first.hits[1]!.score).toBeCloseTo(0.5, 6);
    expect(first.hits.map((h) => h.rank)).toEqual([1, 2, 3]);
    expect(first.hits.every((h) => h.rerank === null)).toBe(true);
    expect(first.telemetry.pending).toEqual([...RERANK_PENDING]);
    expect(first.telemetry.confidence).toBeNull();
    expect(first.telemetry.timeToRerankedMs).toBeNull();
    expect(first.telemetry.rerankPairs).toBeNull();
    expect(first.telemetry.stages.map((s) => s.stage)).toEqual(['analyze', 'sparse', 'embed', 'dense', 'fuse']);
    // The same hits and scores as the mode without rerank.
    const plain = found(await search(kb, 'river', { mode: 'hybrid_fixed', rejectThreshold: 0 }, { encoder }));
    expect(first.hits.map((h) => [h.id, h.score])).toEqual(plain.hits.map((h) => [h.id, h.score]));

    const final = steps.final();
    await ce.called(1);
    let settled = false;
    void final.then(() => { settled = true; });
    expect(settled).toBe(false);
    ce.release();
    const out = found(await final);
    // logits x 4, z 2, y −1
    expect(ids(out)).toEqual(['x', 'z', 'y']);
    expect(out.hits.map((h) => h.rerank)).toEqual([4, 2, -1]);
    expect(out.hits.map((h) => h.score)).toEqual([4, 2, -1]);
    expect(out.telemetry.pending).toEqual([]);
    expect(out.telemetry.rerankPairs).toEqual({ scored: 3, cached: 0 });
    expect(out.telemetry.confidence).toBeCloseTo(1 / (1 + Math.exp(-4)), 9); // sigmoid(4) = 0.98201379
    expect(out.telemetry.timeToFirstMs).toBe(first.telemetry.timeToFirstMs);
    expect(out.telemetry.timeToRerankedMs).toBeGreaterThanOrEqual(out.telemetry.timeToFirstMs);
    expect(out.telemetry.stages.map((s) => s.stage)).toEqual(['analyze', 'sparse', 'embed', 'dense', 'fuse', 'rerank', 'dedup', 'reject']);
    // The first outcome is a snapshot: the rerank did not change it.
    expect(ids(first)).toEqual(['y', 'z', 'x']);
    expect(first.hits.every((h) => h.rerank === null)).toBe(true);
    expect(first.telemetry.stages).toHaveLength(5);
    // final() runs the rerank once.
    expect(await steps.final()).toBe(out);
    expect(ce.calls).toHaveLength(1);
  });

  it('modes without rerank: the first outcome is final and nothing is pending', async () => {
    const kb = setup();
    const steps = await searchSteps(kb, 'river', { mode: 'hybrid_fixed' }, { encoder });
    const first = found(steps.first);
    expect(first.telemetry.pending).toEqual([]);
    expect(first.telemetry.timeToRerankedMs).toBeNull();
    expect(first.telemetry.rerankPairs).toBeNull();
    expect(first.telemetry.timeToFirstMs).toBeGreaterThanOrEqual(first.telemetry.queryMs);
    expect(await steps.final()).toBe(first);
  });

  it('the final outcome keeps the rejection rule: the fused results show, then the rerank rejects them', async () => {
    const ce = new FakeCrossEncoder(Q8, false, { 'river boat': -4, river: -5, mountain: -6 });
    const steps = await searchSteps(setup(), 'river', { mode: 'hybrid_fixed_rerank' }, { encoder, reranker: ce });
    expect(steps.first.status).toBe('ok');
    const out = await steps.final();
    expect(out.status).toBe('rejected');
    // sigmoid(−4) = 0.01798621 < 0.15
    expect(out.telemetry?.confidence).toBeCloseTo(0.01798621, 7);
    expect(ids(out)).toEqual(['x', 'y', 'z']);
  });

  it('dedup runs after the rerank: each document keeps its best-reranked chunk', async () => {
    const long = Array.from({ length: 8 }, (_, i) => `Cat item${i} alpha beta gamma.`).join(' ');
    const docs: SourceDocument[] = [{ id: 'long', title: '', text: long }, { id: 'short', title: '', text: 'A cat here.' }];
    const kb = KnowledgeBase.build(docs, { chunking: { ...DEFAULT_CHUNKING, chunkSize: 40, overlap: 0 }, cdfQueries: 0, indexTitle: false });
    kb.dense = new ExactDenseIndex(new Float32Array(kb.size * 2).fill(1), 2);
    const texts = Array.from({ length: kb.size }, (_, i) => kb.itemText(i));
    const best = texts.findIndex((t) => t.includes('item5'));
    const ce = new FakeCrossEncoder(Q8, false, { [texts[best]!]: 9, 'A cat here.': 3 });
    const steps = await searchSteps(kb, 'cat', { ...RERANK, topK: 5 }, { encoder, reranker: ce });
    expect(new Set(steps.first.hits.map((h) => h.docId)).size).toBe(steps.first.hits.length);
    const out = found(await steps.final());
    expect(out.hits.map((h) => [h.docId, h.rerank])).toEqual([['long', 9], ['short', 3]]);
    expect(out.hits[0]!.id).toBe(kb.itemId(best));
    expect(out.telemetry.candidates.afterDedup).toBe(2);
    const all = found(await search(kb, 'cat', { ...RERANK, topK: 50, dedup: false }, { encoder, reranker: new FakeCrossEncoder(Q8, false, { [texts[best]!]: 9, 'A cat here.': 3 }) }));
    expect(all.hits).toHaveLength(kb.size);
  });

  it('an abort before the rerank skips the model; an abort during it drops the result but keeps the scores', async () => {
    const kb = setup();
    const cache = new RerankCache();
    const ce = new FakeCrossEncoder(Q8, true);
    const models: SearchModels = { encoder, reranker: ce, rerankCache: cache };
    const early = new AbortController();
    early.abort();
    const a = await searchSteps(kb, 'river', RERANK, models);
    await expect(a.final(early.signal)).rejects.toThrow(/abort/i);
    expect(ce.calls).toHaveLength(0);

    const late = new AbortController();
    const b = await searchSteps(kb, 'river', RERANK, models);
    const final = b.final(late.signal);
    await ce.called(1);
    late.abort();
    ce.release();
    await expect(final).rejects.toThrow(/abort/i);
    expect(cache.size).toBe(3);
    const again = found(await search(kb, 'river', RERANK, models));
    expect(ce.calls).toHaveLength(1);
    expect(again.telemetry.rerankPairs).toEqual({ scored: 0, cached: 3 });
    expect(ids(again)).toEqual(['x', 'z', 'y']);
  });

  it('a cross-encoder answering the wrong number of scores is an error, not a silent misranking', async () => {
    const bad: Reranker = { rerank: async () => [1] };
    await expect(search(setup(), 'river', RERANK, { encoder, reranker: bad })).rejects.toThrow(/returned 1 scores for 3 passages/);
  });
});

describe('rerank score cache', () => {
  it('the same query again scores no pair; top_k paging and filters re-score only unseen pairs', async () => {
    const kb = setup();
    const cache = new RerankCache();
    const ce = new FakeCrossEncoder(Q8);
    const models: SearchModels = { encoder, reranker: ce, rerankCache: cache };
    const once = found(await search(kb, 'river', RERANK, models));
    expect(ce.pairs).toBe(3);
    expect(once.telemetry.rerankPairs).toEqual({ scored: 3, cached: 0 });

    const twice = found(await search(kb, 'river', RERANK, models));
    expect(ce.calls).toHaveLength(1);
    expect(twice.telemetry.rerankPairs).toEqual({ scored: 0, cached: 3 });
    expect(twice.hits.map((h) => [h.id, h.rerank])).toEqual(once.hits.map((h) => [h.id, h.rerank]));
    expect(twice.telemetry.stages.filter((s) => s.model).map((s) => s.stage)).toEqual(['embed', 'rerank']);

    const paged = found(await search(kb, 'river', { ...RERANK, topK: 1 }, models));
    expect(ce.calls).toHaveLength(1);
    expect(ids(paged)).toEqual(['x']);

    const filtered = found(await search(kb, 'river', { ...RERANK, filters: [{ field: 'year', min: 2000 }] }, models));
    expect(ce.calls).toHaveLength(1);
    expect(ids(filtered)).toEqual(['z', 'y']);
    expect(filtered.telemetry.rerankPairs).toEqual({ scored: 0, cached: 2 });
  });

  it('another query, model, dtype or device scores its pairs again; a pool with some known pairs sends only the rest', async () => {
    const kb = setup();
    const cache = new RerankCache();
    const run = (ce: FakeCrossEncoder, query = 'river', extra: Partial<SearchOptions> = {}) =>
      search(kb, query, { ...RERANK, ...extra }, { encoder, reranker: ce, rerankCache: cache });
    const a = new FakeCrossEncoder(Q8);
    await run(a, 'river', { filters: [{ field: 'year', max: 2000 }] }); // x and y
    expect(a.pairs).toBe(2);
    const all = found(await run(a));
    expect(a.calls.map((c) => c.passages)).toEqual([['river', 'river boat'], ['mountain']]);
    expect(all.telemetry.rerankPairs).toEqual({ scored: 1, cached: 2 });
    await run(a, 'river boat');
    expect(a.calls[2]!.query).toBe('river boat');
    expect(a.calls[2]!.passages).toHaveLength(3);
    for (const model of [{ ...Q8, dtype: 'fp32' }, { ...Q8, id: 'org/other' }, { ...Q8, device: 'webgpu' }]) {
      const ce = new FakeCrossEncoder(model);
      await run(ce);
      expect(ce.pairs, JSON.stringify(model)).toBe(3);
    }
  });

  it('a reranker that does not name its model is never cached', async () => {
    const kb = setup();
    const cache = new RerankCache();
    const ce = new FakeCrossEncoder(undefined);
    await search(kb, 'river', RERANK, { encoder, reranker: ce, rerankCache: cache });
    await search(kb, 'river', RERANK, { encoder, reranker: ce, rerankCache: cache });
    expect(ce.pairs).toBe(6);
    expect(cache.size).toBe(0);
  });
});
