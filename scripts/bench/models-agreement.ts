/**
 * Agreement between dtype variants in `npm run bench:models`, and the per-runtime choice of a default dtype.
 *
 * Probe (models-measure.ts): the first embedding batch's vectors and the first rerank's 20 scores, the same inputs in
 * every configuration. Against fp32 in the same runtime:
 *   embedding cosine   cos(u, v) = u·v / (‖u‖ ‖v‖) per chunk; min and mean over the batch
 *   rerank logits      max_i |s_i − s_i(fp32)|
 * Choice: the fastest dtype (passages/s) whose min cosine with fp32 is ≥ COSINE_BAR (issue 25: "the fastest that
 * keeps cosine ≥ 0.99 with fp32"). On random weights these say how much a format perturbs a MiniLM-shaped network,
 * not how a trained model's ranking moves: `npm run bench:dtypes` measures that on SciFact (NDCG@10).
 */
import type { Dtype } from '../../src/lib/models/types.ts';

export const COSINE_BAR = 0.99;

export interface Probe {
  embeddings: number[][];
  scores: number[];
}

const round = (x: number, digits: number) => Number(x.toFixed(digits));

/** cos(u, v) = u·v / (‖u‖ ‖v‖); null when the lengths differ or a vector is empty. */
export function cosine(a: readonly number[], b: readonly number[]): number | null {
  if (!a.length || a.length !== b.length) return null;
  let ab = 0, aa = 0, bb = 0;
  for (let i = 0; i < a.length; i++) { ab += a[i]! * b[i]!; aa += a[i]! ** 2; bb += b[i]! ** 2; }
  return ab / Math.sqrt(aa * bb);
}

/** max_i |a_i − b_i|; null when the lengths differ or are 0. */
export function maxAbsDiff(a: readonly number[], b: readonly number[]): number | null {
  if (!a.length || a.length !== b.length) return null;
  let m = 0;
  for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i]! - b[i]!));
  return m;
}

export interface Agreement {
  embeddingCosine: { min: number; mean: number; n: number } | null;
  rerankLogitMaxAbsDiff: number | null;
}

/** How closely `other` reproduces `ref` on the probe (per-chunk cosines, largest logit difference). */
export function agreement(ref: Probe | undefined, other: Probe | undefined): Agreement {
  const cos: number[] = [];
  if (ref && other && ref.embeddings.length === other.embeddings.length) {
    for (let i = 0; i < ref.embeddings.length; i++) {
      const c = cosine(ref.embeddings[i]!, other.embeddings[i]!);
      if (c !== null) cos.push(c);
    }
  }
  const diff = ref && other ? maxAbsDiff(ref.scores, other.scores) : null;
  return {
    embeddingCosine: cos.length
      ? { min: round(Math.min(...cos), 6), mean: round(cos.reduce((s, c) => s + c, 0) / cos.length, 6), n: cos.length }
      : null,
    rerankLogitMaxAbsDiff: diff === null ? null : Number(diff.toPrecision(3)),
  };
}

export interface DtypeRun {
  runtime: string;
  dtype: Dtype;
  threads: number;
  passagesPerS: number | null;
  rerankMeanMs: number | null;
  probe: Probe | undefined;
  error: string | null;
}

export interface DtypeRow extends Agreement {
  dtype: Dtype;
  passagesPerS: number | null;
  rerankMeanMs: number | null;
  speedupVsFp32: { embed: number | null; rerank: number | null };
  bytes: { embedder: number; reranker: number } | null;
  keepsCosineBar: boolean | null;
  error: string | null;
}

export interface DtypeTable {
  runtime: string;
  threads: number;
  rows: DtypeRow[];
  /** The fastest dtype (passages/s) with min cosine ≥ COSINE_BAR; null without an fp32 run to compare with. */
  fastestKeepingBar: Dtype | null;
}

/** One table per runtime and thread count: each dtype's speed and its agreement with that runtime's fp32. */
export function dtypeTables(runs: readonly DtypeRun[], bytes: Partial<Record<Dtype, { embedder: number; reranker: number }>>): DtypeTable[] {
  const keys = [...new Set(runs.map((r) => `${r.runtime}\u0000${r.threads}`))];
  return keys.map((key) => {
    const [runtime, threads] = key.split('\u0000') as [string, string];
    const mine = runs.filter((r) => r.runtime === runtime && String(r.threads) === threads);
    const ref = mine.find((r) => r.dtype === 'fp32' && r.probe);
    const ratio = (a: number | null | undefined, b: number | null | undefined) => (a && b ? round(a / b, 2) : null);
    const rows: DtypeRow[] = mine.map((r) => {
      const agree = ref && r.probe ? agreement(ref.probe, r.probe) : { embeddingCosine: null, rerankLogitMaxAbsDiff: null };
      return {
        dtype: r.dtype,
        passagesPerS: r.passagesPerS,
        rerankMeanMs: r.rerankMeanMs,
        speedupVsFp32: { embed: ratio(r.passagesPerS, ref?.passagesPerS), rerank: ratio(ref?.rerankMeanMs, r.rerankMeanMs) },
        bytes: bytes[r.dtype] ?? null,
        ...agree,
        keepsCosineBar: agree.embeddingCosine ? agree.embeddingCosine.min >= COSINE_BAR : null,
        error: r.error,
      };
    });
    const ok = rows.filter((r) => r.keepsCosineBar && r.passagesPerS !== null).sort((a, b) => b.passagesPerS! - a.passagesPerS!);
    return { runtime, threads: Number(threads), rows, fastestKeepingBar: ok[0]?.dtype ?? null };
  });
}
