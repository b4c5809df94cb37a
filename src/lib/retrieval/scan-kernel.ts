/**
 * The exact-scan kernels behind `ExactDenseIndex` (float32 rows) and `Int8DenseIndex` (int8 codes through a
 * per-query table): the rows live in a WebAssembly memory and the SIMD kernels of scan-wasm.ts score them; where
 * WebAssembly SIMD is missing the same scans run in JS (8-way unrolled, float64 sums). Either way no allocation per
 * vector, and {@link topKScores} keeps a typed heap that only touches a score above its current threshold.
 *
 * Results stay bit-identical to the indexes' reference arithmetic (float64 sums, dense.ts `dot`): the kernels add
 * in float32, and a float32 sum whose terms each pass through at most d additions (and one rounded product) is
 * within γ_{d+1}·Σ|terms| ≈ (d + 1)·2⁻²⁴·Σ|terms| of the exact sum (the standard bound; d = dim/16 + 4 for the
 * float SIMD kernel, dim/4 + 2 for the table one). So with E = {@link scanErrorBound} ≥ |kernel − reference| for
 * every row, {@link topKWithin} takes the kernel's k-th score t, re-scores with the reference only the rows whose
 * kernel score is ≥ t − 2E (about k of them: 2E ≈ 10⁻⁵ for unit vectors at dim 384) and ranks those: every row of
 * the reference top k is among them (its kernel score ≥ its score − E ≥ the reference k-th score − E ≥ t − 2E), so
 * the hits and their scores are the reference's exactly.
 */
import { scanInstance, type ScanKernels } from './scan-wasm.ts';
import { sortRanked, topK, type IdOf, type Scored } from './topk.ts';

/** E = 1.01·(dim/4 + 4)·2⁻²⁴·l1: bounds |kernel − reference| for rows with Σ_j |x_j·q_j| ≤ l1 (1.01 covers γ and the reference's own float64 error). */
export function scanErrorBound(dim: number, l1: number): number {
  return (1.01 * (dim / 4 + 4) * l1) / 2 ** 24;
}

/**
 * The reference top k (as `topK` over `reference(i)` for all n rows) from kernel scores `approx` that are within
 * ±e of `reference` for every row: re-scores only the rows near the kernel's k-th score (module comment). `buffer`
 * (length ≥ n) receives the re-scored values. A non-finite e (or a kernel that may overflow) scores every row.
 */
export function topKWithin(
  approx: ArrayLike<number>, n: number, k: number, e: number, reference: (i: number) => number, buffer: Float64Array,
  idOf: IdOf, accept?: (index: number) => boolean,
): Scored[] {
  const rows: number[] = [];
  if (!(e < 1e30)) {
    for (let i = 0; i < n; i++) {
      buffer[i] = reference(i);
      rows.push(i);
    }
    return topK(buffer, rows, k, idOf, accept);
  }
  const first = topKScores(approx, n, k, idOf, accept);
  const cut = first.length < k ? -Infinity : first[first.length - 1]!.score - 2 * e;
  for (let i = 0; i < n; i++) {
    if (!(approx[i]! >= cut) && Number.isFinite(approx[i]!)) continue; // a non-finite kernel score is re-scored
    if (accept && !accept(i)) continue;
    buffer[i] = reference(i);
    rows.push(i);
  }
  return topK(buffer, rows, k, idOf);
}

const align = (x: number, to: number) => Math.ceil(x / to) * to;

/** Float32 rows (row-major n × dim) scored against float32 queries. */
export class FloatScan {
  readonly n: number;
  /** Row i is rows[i·stride … i·stride + dim) (stride ≥ dim, padded with zeros in the WebAssembly memory). */
  readonly rows: Float32Array;
  readonly stride: number;
  private readonly k: ScanKernels | null;
  private readonly qv: Float32Array | null;
  private readonly out: Float32Array | Float64Array;
  private readonly qOff: number;
  private readonly outOff: number;

  /** Copies `vectors` (L2-normalising each row with `normalize`); in JS without normalising, uses them as given. */
  constructor(vectors: Float32Array, readonly dim: number, normalizeRow?: (row: Float32Array) => void) {
    this.n = vectors.length / dim;
    const stride = align(dim, 16), strideB = stride * 4;
    const qOff = this.n * strideB, outOff = qOff + 4 * strideB;
    const inst = scanInstance(outOff + this.n * 16 + 16);
    this.k = inst?.kernels ?? null;
    this.qOff = qOff;
    this.outOff = outOff;
    if (inst) {
      this.stride = stride;
      this.rows = new Float32Array(inst.memory.buffer, 0, this.n * stride);
      for (let i = 0; i < this.n; i++) this.rows.set(vectors.subarray(i * dim, (i + 1) * dim), i * stride);
      this.qv = new Float32Array(inst.memory.buffer, qOff, 4 * stride);
      this.out = new Float32Array(inst.memory.buffer, outOff, this.n * 4 + 4);
    } else {
      this.stride = dim;
      this.rows = normalizeRow ? vectors.slice() : vectors;
      this.qv = null;
      this.out = new Float64Array(this.n * 4 + 4);
    }
    if (normalizeRow) for (let i = 0; i < this.n; i++) normalizeRow(this.rows.subarray(i * this.stride, i * this.stride + dim));
  }

  /** Scores of every row against `q` (a view, valid until the next call). */
  scan(q: Float32Array): Float32Array | Float64Array {
    if (this.k) {
      this.qv!.set(q);
      this.k.scanF32(0, this.n, this.stride * 4, this.qOff, this.outOff);
      return this.out;
    }
    const { rows, n, dim, out } = this;
    for (let i = 0; i < n; i++) out[i] = dotF32(rows, i * dim, q, dim);
    return out;
  }

  /**
   * Scores of every row against up to four queries at once (each row read once): out[4i + t] for query t, within
   * {@link scanErrorBound} of the reference like {@link scan}'s (a view, valid until the next call).
   */
  scan4(queries: readonly Float32Array[]): Float32Array | Float64Array {
    const m = queries.length;
    if (m < 1 || m > 4) throw new Error(`FloatScan.scan4: 1 to 4 queries, got ${m}`);
    const { n, out } = this;
    if (this.k) {
      const qv = this.qv!, stride = this.stride;
      for (let t = 0; t < 4; t++) qv.set(queries[Math.min(t, m - 1)]!, t * stride);
      this.k.scanF32x4(0, n, stride * 4, this.qOff, this.outOff);
      return out;
    }
    const { rows, dim } = this;
    for (let i = 0; i < n; i++) for (let t = 0; t < 4; t++) out[4 * i + t] = dotF32(rows, i * dim, queries[Math.min(t, m - 1)]!, dim);
    return out;
  }
}

/** Σ_j v[off + j]·q[j] for j < dim, eight float64 partial sums. */
export function dotF32(v: Float32Array, off: number, q: Float32Array, dim: number): number {
  let s0 = 0, s1 = 0, s2 = 0, s3 = 0, s4 = 0, s5 = 0, s6 = 0, s7 = 0;
  let j = 0;
  for (; j + 7 < dim; j += 8) {
    const o = off + j;
    s0 += v[o]! * q[j]!;
    s1 += v[o + 1]! * q[j + 1]!;
    s2 += v[o + 2]! * q[j + 2]!;
    s3 += v[o + 3]! * q[j + 3]!;
    s4 += v[o + 4]! * q[j + 4]!;
    s5 += v[o + 5]! * q[j + 5]!;
    s6 += v[o + 6]! * q[j + 6]!;
    s7 += v[o + 7]! * q[j + 7]!;
  }
  for (; j < dim; j++) s0 += v[off + j]! * q[j]!;
  return (s0 + s1 + s2 + s3) + (s4 + s5 + s6 + s7);
}

/** Int8 codes (row-major n × dim, code k standing for a table entry) scored through a per-query table. */
export class TableScan {
  readonly n: number;
  /** The codes as bytes (k & 255), row i at i·rowBytes. */
  readonly bytes: Uint8Array;
  /** T[j·256 + b], to be filled per query for j < dim by the caller (rows past dim stay zero). */
  readonly table: Float32Array;
  /** Bytes per row in {@link bytes} (dim, or dim rounded up to 4 in the WebAssembly memory). */
  readonly rowBytes: number;
  private readonly k: ScanKernels | null;
  private readonly out: Float32Array | Float64Array;
  private readonly tableOff: number;
  private readonly outOff: number;

  constructor(codes: Int8Array, readonly dim: number) {
    this.n = codes.length / dim;
    const rowBytes = align(dim, 4);
    const tableOff = align(this.n * rowBytes, 16), outOff = tableOff + rowBytes * 1024;
    const inst = scanInstance(outOff + this.n * 4 + 16);
    this.k = inst?.kernels ?? null;
    this.tableOff = tableOff;
    this.outOff = outOff;
    const src = new Uint8Array(codes.buffer, codes.byteOffset, codes.length);
    if (inst) {
      this.rowBytes = rowBytes;
      this.bytes = new Uint8Array(inst.memory.buffer, 0, this.n * rowBytes);
      for (let i = 0; i < this.n; i++) this.bytes.set(src.subarray(i * dim, (i + 1) * dim), i * rowBytes);
      this.table = new Float32Array(inst.memory.buffer, tableOff, rowBytes * 256);
      this.out = new Float32Array(inst.memory.buffer, outOff, this.n + 1);
    } else {
      this.rowBytes = dim;
      this.bytes = src;
      this.table = new Float32Array(dim * 256);
      this.out = new Float64Array(this.n + 1);
    }
  }

  /** The codes as a fresh Int8Array (row-major n × dim, unpadded). */
  codes(): Int8Array {
    const out = new Int8Array(this.n * this.dim);
    for (let i = 0; i < this.n; i++) out.set(new Int8Array(this.bytes.buffer, this.bytes.byteOffset + i * this.rowBytes, this.dim), i * this.dim);
    return out;
  }

  /** Σ_j T[j·256 + byte_ij] for every row (a view, valid until the next call). */
  scan(): Float32Array | Float64Array {
    if (this.k) {
      this.k.sumTable(0, this.n, this.rowBytes, this.tableOff, this.outOff);
      return this.out;
    }
    const { bytes, table, n, dim, out } = this;
    for (let i = 0; i < n; i++) out[i] = sumTable(bytes, i * dim, dim, table);
    return out;
  }
}

/** Σ_j table[j·256 + bytes[off+j]], eight float64 partial sums. */
function sumTable(bytes: Uint8Array, off: number, dim: number, table: Float32Array): number {
  let s0 = 0, s1 = 0, s2 = 0, s3 = 0, s4 = 0, s5 = 0, s6 = 0, s7 = 0;
  let j = 0;
  for (; j + 7 < dim; j += 8) {
    const o = off + j, t = j << 8;
    s0 += table[t | bytes[o]!]!;
    s1 += table[(t + 256) | bytes[o + 1]!]!;
    s2 += table[(t + 512) | bytes[o + 2]!]!;
    s3 += table[(t + 768) | bytes[o + 3]!]!;
    s4 += table[(t + 1024) | bytes[o + 4]!]!;
    s5 += table[(t + 1280) | bytes[o + 5]!]!;
    s6 += table[(t + 1536) | bytes[o + 6]!]!;
    s7 += table[(t + 1792) | bytes[o + 7]!]!;
  }
  for (; j < dim; j++) s0 += table[(j << 8) | bytes[off + j]!]!;
  return (s0 + s1 + s2 + s3) + (s4 + s5 + s6 + s7);
}

/**
 * The best `k` of scores[0 … n) in ranking order (score descending, then id ascending), the same items as
 * `topK(scores, range(n), k, idOf, accept)`: a typed min-heap whose root is the worst kept item; a score below the
 * root is dropped on one comparison, without calling `accept` or `idOf`; a non-finite score is never kept.
 */
export function topKScores(scores: ArrayLike<number>, n: number, k: number, idOf: IdOf, accept?: (index: number) => boolean): Scored[] {
  if (k <= 0) return [];
  const hi = new Int32Array(k), hs = new Float64Array(k);
  let size = 0;
  // a (index, score) ranks below b?
  const worse = (ai: number, as: number, bi: number, bs: number) => as < bs || (as === bs && idOf(ai) > idOf(bi));
  for (let i = 0; i < n; i++) {
    const s = scores[i]!;
    if (size === k && (!(s >= hs[0]!) || (s === hs[0]! && !worse(hi[0]!, hs[0]!, i, s)))) continue;
    if (!Number.isFinite(s) || (accept && !accept(i))) continue;
    if (size < k) {
      let c = size++;
      while (c > 0) { // sift up
        const p = (c - 1) >> 1;
        if (!worse(i, s, hi[p]!, hs[p]!)) break;
        hi[c] = hi[p]!;
        hs[c] = hs[p]!;
        c = p;
      }
      hi[c] = i;
      hs[c] = s;
    } else {
      let c = 0;
      for (;;) { // sift down from the root
        const l = 2 * c + 1, r = l + 1;
        let m = -1, mi = i, ms = s;
        if (l < size && worse(hi[l]!, hs[l]!, mi, ms)) { m = l; mi = hi[l]!; ms = hs[l]!; }
        if (r < size && worse(hi[r]!, hs[r]!, mi, ms)) { m = r; mi = hi[r]!; ms = hs[r]!; }
        if (m < 0) break;
        hi[c] = mi;
        hs[c] = ms;
        c = m;
      }
      hi[c] = i;
      hs[c] = s;
    }
  }
  const items: Scored[] = [];
  for (let t = 0; t < size; t++) items.push({ index: hi[t]!, score: hs[t]! });
  return sortRanked(items, idOf);
}
