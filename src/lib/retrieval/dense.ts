/**
 * Dense retrieval over given vectors. The embedding model that produces them lives in `models/`;
 * this module only searches. `ExactDenseIndex` scans every vector (cosine or inner product).
 */
import { FloatScan, scanErrorBound, topKWithin } from './scan-kernel.ts';
import type { Scored } from './topk.ts';

export type DenseMetric = 'cosine' | 'ip';

/** What the search pipeline needs from any vector index (exact now, HNSW later). */
export interface DenseRetriever {
  readonly dim: number;
  readonly size: number;
  readonly metric: DenseMetric;
  search(query: Float32Array, k: number, idOf: (index: number) => string, accept?: (index: number) => boolean): Scored[];
  /** Similarity of the query to chosen items (for fusing with items found by another retriever). */
  scoreItems(query: Float32Array, items: readonly number[]): number[];
}

/**
 * Row-major n × dim vectors; with 'cosine' rows are L2-normalised once at construction. The scan runs in the
 * float32 SIMD kernel of scan-kernel.ts; hits and scores are those of the float64 reference `dot` (re-scored).
 */
export class ExactDenseIndex implements DenseRetriever {
  readonly size: number;
  private readonly scan: FloatScan;
  private readonly scores: Float64Array;
  /** max_i ‖x_i‖₂ (float64), for the kernel's error bound. */
  private readonly maxNorm: number;

  constructor(
    vectors: Float32Array,
    readonly dim: number,
    readonly metric: DenseMetric = 'cosine',
  ) {
    if (!Number.isInteger(dim) || dim <= 0 || vectors.length % dim !== 0) {
      throw new Error(`ExactDenseIndex: ${vectors.length} values are not a whole number of ${dim}-dimensional vectors`);
    }
    this.size = vectors.length / dim;
    this.scan = new FloatScan(vectors, dim, metric === 'cosine' ? normalize : undefined);
    this.scores = new Float64Array(this.size);
    const { rows, stride } = this.scan;
    let max = 0;
    for (let i = 0; i < this.size; i++) max = Math.max(max, Math.sqrt(dot(rows, i * stride, rows.subarray(i * stride, i * stride + dim))));
    this.maxNorm = max;
  }

  private prepare(query: Float32Array): Float32Array {
    if (query.length !== this.dim) {
      throw new Error(`ExactDenseIndex: query has ${query.length} dimensions, the index has ${this.dim}`);
    }
    return this.metric === 'cosine' ? normalize(query.slice()) : query;
  }

  search(query: Float32Array, k: number, idOf: (index: number) => string, accept?: (index: number) => boolean): Scored[] {
    const q = this.prepare(query);
    const { rows, stride } = this.scan;
    // Σ_j |x_j·q_j| ≤ ‖x‖₂·‖q‖₂ (Cauchy–Schwarz); past 1e30 a float32 product could overflow: re-score all rows
    const l1 = this.maxNorm * Math.sqrt(dot(q, 0, q));
    const e = l1 < 1e30 ? scanErrorBound(this.dim, l1) : Infinity;
    return topKWithin(this.scan.scan(q), this.size, k, e, (i) => dot(rows, i * stride, q), this.scores, idOf, accept);
  }

  scoreItems(query: Float32Array, items: readonly number[]): number[] {
    const q = this.prepare(query);
    const { rows, stride } = this.scan;
    return items.map((i) => (Number.isInteger(i) && i >= 0 && i < this.size ? dot(rows, i * stride, q) : NaN));
  }
}

/** Σ v[off+j]·q[j], unrolled by 4. */
export function dot(v: Float32Array, off: number, q: Float32Array): number {
  const n = q.length;
  let s0 = 0, s1 = 0, s2 = 0, s3 = 0;
  let j = 0;
  for (; j + 3 < n; j += 4) {
    s0 += v[off + j]! * q[j]!;
    s1 += v[off + j + 1]! * q[j + 1]!;
    s2 += v[off + j + 2]! * q[j + 2]!;
    s3 += v[off + j + 3]! * q[j + 3]!;
  }
  for (; j < n; j++) s0 += v[off + j]! * q[j]!;
  return s0 + s1 + s2 + s3;
}

/** Scales v to unit L2 norm in place (a zero vector stays zero). */
export function normalize(v: Float32Array): Float32Array {
  let s = 0;
  for (const x of v) s += x * x;
  const n = Math.sqrt(s);
  if (n > 0) for (let i = 0; i < v.length; i++) v[i]! /= n;
  return v;
}
