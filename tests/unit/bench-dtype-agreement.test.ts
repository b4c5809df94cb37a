import { describe, expect, it } from 'vitest';
import { agreement, cosine, dtypeTables, maxAbsDiff, type DtypeRun } from '../../scripts/bench/models-agreement.ts';

describe('bench:models dtype agreement', () => {
  it('cosine and max |Δ| on hand-computed values', () => {
    // (1,0)·(1,1) / (1 · √2) = 1/√2
    expect(cosine([1, 0], [1, 1])).toBeCloseTo(Math.SQRT1_2, 12);
    expect(cosine([3, 4], [6, 8])).toBeCloseTo(1, 12);
    expect(cosine([1, 2], [1])).toBeNull();
    expect(maxAbsDiff([1, -2, 3], [1.5, -2, 1])).toBe(2);
    expect(maxAbsDiff([], [])).toBeNull();
  });

  it('agreement takes the min and mean cosine over the probe batch and the largest logit difference', () => {
    const ref = { embeddings: [[1, 0], [0, 1]], scores: [0.5, -1] };
    const other = { embeddings: [[1, 1], [0, 2]], scores: [0.25, -1.5] };
    const a = agreement(ref, other);
    expect(a.embeddingCosine).toEqual({ min: 0.707107, mean: 0.853553, n: 2 }); // (1/√2 + 1) / 2
    expect(a.rerankLogitMaxAbsDiff).toBe(0.5);
    expect(agreement(ref, undefined)).toEqual({ embeddingCosine: null, rerankLogitMaxAbsDiff: null });
  });

  it('picks the fastest dtype that keeps cosine >= 0.99, per runtime and thread count', () => {
    const e = (x: number) => ({ embeddings: [[1, x]], scores: [0] });
    const runs: DtypeRun[] = [
      { runtime: 'node', dtype: 'fp32', threads: 1, passagesPerS: 40, rerankMeanMs: 400, probe: e(0), error: null },
      // cos((1,0.1),(1,0)) = 1/√1.01 ≈ 0.995: kept
      { runtime: 'node', dtype: 'q8', threads: 1, passagesPerS: 80, rerankMeanMs: 200, probe: e(0.1), error: null },
      // cos((1,0.2),(1,0)) = 1/√1.04 ≈ 0.981: faster but below the bar
      { runtime: 'node', dtype: 'q4', threads: 1, passagesPerS: 120, rerankMeanMs: 150, probe: e(0.2), error: null },
      { runtime: 'chromium', dtype: 'q8', threads: 1, passagesPerS: 20, rerankMeanMs: 900, probe: e(0), error: null },
    ];
    const [node, chromium] = dtypeTables(runs, { q8: { embedder: 23, reranker: 24 } });
    expect(node!.fastestKeepingBar).toBe('q8');
    expect(node!.rows.map((r) => r.keepsCosineBar)).toEqual([true, true, false]);
    expect(node!.rows[1]!.speedupVsFp32).toEqual({ embed: 2, rerank: 2 });
    expect(node!.rows[1]!.bytes).toEqual({ embedder: 23, reranker: 24 });
    // No fp32 run in Chromium: nothing to compare with, so no choice.
    expect(chromium!.fastestKeepingBar).toBeNull();
    expect(chromium!.rows[0]!.embeddingCosine).toBeNull();
  });
});
