/**
 * Exact dense search over int8 scalar-quantized vectors: one signed byte per component plus one float32 scale per
 * vector, 4× smaller than float32 (dim + 4 bytes per vector instead of 4·dim).
 *
 * Quantization is symmetric and per vector: scale = max|x| / 127, q = round(x / scale) ∈ [−127, 127], so every
 * component is reconstructed within half a step: |x − q·scale| ≤ scale/2. With 'cosine' the rows are L2-normalised
 * before quantizing. The query stays float32, so the score of item i is Σ_j q_ij·query_j·scale_i and differs from the
 * float32 score by at most (scale_i/2)·‖query‖₁ (≤ (scale_i/2)·√dim for a unit query); in practice the errors of the
 * components mostly cancel (typical error ≈ scale_i·‖query‖₂/√12).
 */
import { normalize, type DenseMetric, type DenseRetriever } from './dense.ts';
import { topK, type Scored } from './topk.ts';

/** Bump when the layout of {@link Int8IndexData} changes. */
export const INT8_INDEX_VERSION = 1;

export interface QuantizedVectors {
  /** Row-major n × dim codes in [−127, 127]. */
  codes: Int8Array;
  /** One scale per row (0 for an all-zero row). */
  scales: Float32Array;
}

/** Plain data of an {@link Int8DenseIndex} (typed arrays only: structured-clone and IndexedDB friendly). */
export interface Int8IndexData {
  kind: 'int8';
  version: number;
  dim: number;
  size: number;
  metric: DenseMetric;
  codes: Int8Array;
  scales: Float32Array;
}

/**
 * Symmetric per-row int8 quantization of row-major n × dim `vectors` (used as given: normalise first for cosine).
 * Guarantee: |x − q·scale| ≤ scale/2 for every component, with scale = max|row|/127 (stored as float32, and the
 * codes are computed with that stored scale, so the bound holds for what {@link dequantize} gives back).
 */
export function quantizeInt8(vectors: Float32Array, dim: number): QuantizedVectors {
  checkShape('quantizeInt8', vectors.length, dim);
  const n = vectors.length / dim;
  const codes = new Int8Array(vectors.length);
  const scales = new Float32Array(n);
  for (let i = 0; i < n; i++) {
    const off = i * dim;
    let max = 0;
    for (let j = 0; j < dim; j++) {
      const a = Math.abs(vectors[off + j]!);
      if (!(a < Infinity)) throw new Error(`quantizeInt8: vector ${i} has a non-finite component`);
      if (a > max) max = a;
    }
    if (max === 0) continue; // all-zero row: codes 0, scale 0
    const scale = Math.fround(max / 127); // scale = max|x| / 127 (rounded to the stored float32 first)
    scales[i] = scale;
    for (let j = 0; j < dim; j++) {
      // q = round(x / scale), clamped to the symmetric range [−127, 127]
      const q = Math.round(vectors[off + j]! / scale);
      codes[off + j] = q > 127 ? 127 : q < -127 ? -127 : q;
    }
  }
  return { codes, scales };
}

/** x̂ = q·scale, row-major n × dim float32 (each component within scale/2 of the quantized input). */
export function dequantize(codes: Int8Array, scales: Float32Array, dim: number): Float32Array {
  checkShape('dequantize', codes.length, dim);
  if (codes.length / dim !== scales.length) {
    throw new Error(`dequantize: ${codes.length / dim} rows of codes but ${scales.length} scales`);
  }
  const out = new Float32Array(codes.length);
  for (let i = 0; i < scales.length; i++) {
    const s = scales[i]!;
    for (let j = i * dim; j < (i + 1) * dim; j++) out[j] = codes[j]! * s;
  }
  return out;
}

/** Exact (brute-force) search over int8 codes; the float32 query is never quantized. */
export class Int8DenseIndex implements DenseRetriever {
  readonly dim: number;
  readonly metric: DenseMetric;
  readonly size: number;
  private readonly codes: Int8Array;
  private readonly scales: Float32Array;
  private readonly scores: Float64Array;

  /** Quantizes row-major n × dim `vectors` (normalised first with 'cosine'; the caller's array is not modified). */
  constructor(vectors: Float32Array, dim: number, metric?: DenseMetric);
  constructor(data: Int8IndexData);
  constructor(
    source: Float32Array | Int8IndexData,
    dimArg?: number,
    metricArg: DenseMetric = 'cosine',
  ) {
    if (source instanceof Float32Array) {
      const dim = dimArg ?? 0;
      checkShape('Int8DenseIndex', source.length, dim);
      let v = source;
      if (metricArg === 'cosine') {
        v = source.slice();
        for (let i = 0; i < v.length / dim; i++) normalize(v.subarray(i * dim, (i + 1) * dim));
      }
      ({ codes: this.codes, scales: this.scales } = quantizeInt8(v, dim));
      this.dim = dim;
      this.metric = metricArg;
    } else {
      const d = source;
      if (d.kind !== 'int8' || d.version !== INT8_INDEX_VERSION) {
        throw new Error(`Int8DenseIndex: unsupported data (kind ${String(d.kind)}, version ${String(d.version)}; expected int8 version ${INT8_INDEX_VERSION})`);
      }
      checkShape('Int8DenseIndex', d.codes.length, d.dim);
      if (d.codes.length !== d.size * d.dim || d.scales.length !== d.size) {
        throw new Error(`Int8DenseIndex: data holds ${d.codes.length} codes and ${d.scales.length} scales, expected ${d.size} vectors of ${d.dim} dimensions`);
      }
      this.codes = d.codes;
      this.scales = d.scales;
      this.dim = d.dim;
      this.metric = d.metric;
    }
    this.size = this.scales.length;
    this.scores = new Float64Array(this.size);
  }

  /** Restores an index from {@link toData} output (the arrays are used as they are, not copied). */
  static fromData(data: Int8IndexData): Int8DenseIndex {
    return new Int8DenseIndex(data);
  }

  /** Plain typed arrays + version; the arrays are shared with the index (do not modify them). */
  toData(): Int8IndexData {
    return { kind: 'int8', version: INT8_INDEX_VERSION, dim: this.dim, size: this.size, metric: this.metric, codes: this.codes, scales: this.scales };
  }

  /** Bytes of the quantized vectors: n·dim codes + n float32 scales. */
  get bytes(): number {
    return this.codes.byteLength + this.scales.byteLength;
  }

  private prepare(query: Float32Array): Float32Array {
    if (query.length !== this.dim) {
      throw new Error(`Int8DenseIndex: query has ${query.length} dimensions, the index has ${this.dim}`);
    }
    return this.metric === 'cosine' ? normalize(query.slice()) : query;
  }

  private score(i: number, q: Float32Array): number {
    // score_i = scale_i · Σ_j q_ij · query_j  (int8 codes against the float query)
    return dotInt8(this.codes, i * this.dim, q) * this.scales[i]!;
  }

  search(query: Float32Array, k: number, idOf: (index: number) => string, accept?: (index: number) => boolean): Scored[] {
    const q = this.prepare(query);
    for (let i = 0; i < this.size; i++) this.scores[i] = this.score(i, q);
    return topK(this.scores, range(this.size), k, idOf, accept);
  }

  scoreItems(query: Float32Array, items: readonly number[]): number[] {
    const q = this.prepare(query);
    return items.map((i) => this.score(i, q));
  }
}

function checkShape(who: string, length: number, dim: number): void {
  if (!Number.isInteger(dim) || dim <= 0 || length % dim !== 0) {
    throw new Error(`${who}: ${length} values are not a whole number of ${dim}-dimensional vectors`);
  }
}

function* range(n: number): Iterable<number> {
  for (let i = 0; i < n; i++) yield i;
}

/** Σ codes[off+j]·q[j], unrolled by 4. */
function dotInt8(codes: Int8Array, off: number, q: Float32Array): number {
  const n = q.length;
  let s0 = 0, s1 = 0, s2 = 0, s3 = 0;
  let j = 0;
  for (; j + 3 < n; j += 4) {
    s0 += codes[off + j]! * q[j]!;
    s1 += codes[off + j + 1]! * q[j + 1]!;
    s2 += codes[off + j + 2]! * q[j + 2]!;
    s3 += codes[off + j + 3]! * q[j + 3]!;
  }
  for (; j < n; j++) s0 += codes[off + j]! * q[j]!;
  return s0 + s1 + s2 + s3;
}
