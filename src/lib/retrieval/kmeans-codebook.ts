/**
 * The centroids of the residual int8 quantizer (quantize-int8.ts): two-level k-means on a seeded sample (Lloyd's
 * iterations), and the nearest centroid of a row (exact for a flat codebook, a two-level search otherwise).
 */
import { seededRandom } from '../random.ts';
import type { QuantizeOptions } from './quantized-data.ts';

/** ‖c_a‖²/2 of each centroid. */
export function halfNorms(centroids: Float32Array, dim: number): Float64Array {
  const k = centroids.length / dim;
  const half = new Float64Array(k);
  for (let a = 0; a < k; a++) half[a] = dot32(centroids, a * dim, centroids, a * dim, dim) / 2;
  return half;
}

/**
 * The centroid a ∈ [from, to) nearest (Euclidean) to row `off` of v: argmax_a s = x·c_a − ‖c_a‖²/2 (ties to the
 * lowest number).
 */
function nearest(v: Float32Array, off: number, centroids: Float32Array, half: Float64Array, from: number, to: number, dim: number): { a: number; s: number } {
  let best = -Infinity, bestA = from;
  let a = from;
  // four centroids per pass over the row (each x_j loaded once)
  for (; a + 3 < to; a += 4) {
    const c0 = a * dim, c1 = c0 + dim, c2 = c1 + dim, c3 = c2 + dim;
    let s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    for (let j = 0; j < dim; j++) {
      const x = v[off + j]!;
      s0 += x * centroids[c0 + j]!;
      s1 += x * centroids[c1 + j]!;
      s2 += x * centroids[c2 + j]!;
      s3 += x * centroids[c3 + j]!;
    }
    s0 -= half[a]!; s1 -= half[a + 1]!; s2 -= half[a + 2]!; s3 -= half[a + 3]!;
    if (s0 > best) { best = s0; bestA = a; }
    if (s1 > best) { best = s1; bestA = a + 1; }
    if (s2 > best) { best = s2; bestA = a + 2; }
    if (s3 > best) { best = s3; bestA = a + 3; }
  }
  for (; a < to; a++) {
    const s = dot32(v, off, centroids, a * dim, dim) - half[a]!;
    if (s > best) { best = s; bestA = a; }
  }
  return { a: bestA, s: best };
}

/** Centroids in groups (the fine centroids of one coarse cell are contiguous), for a two-level nearest search. */
export interface Codebook {
  centroids: Float32Array;
  /** Coarse centroids (G × dim); empty when the codebook is flat. */
  coarse: Float32Array;
  /** Group g holds centroids start[g] … start[g + 1] − 1 (G + 1 entries). */
  start: Int32Array;
}

/** Coarse cells probed per vector in the two-level assignment. */
const PROBES = 2;

/**
 * Two-level k-means on a seeded sample of trainPerCentroid·K rows (all rows when fewer): √K coarse centroids, then
 * the K centroids shared among the coarse cells by size and trained inside each cell (flat k-means below 32
 * centroids). Each vector then goes to its nearest centroid within the {@link PROBES} nearest coarse cells: about
 * 3·√K instead of K dot products per vector. Any centroid is a valid one (the scheme's bound holds for all); a
 * nearer one only makes the residual smaller.
 */
export function trainCodebook(v: Float32Array, dim: number, K: number, options: QuantizeOptions): Codebook {
  const n = v.length / dim;
  const rand = seededRandom(options.seed ?? 1);
  const iterations = options.iterations ?? 8;
  const m = Math.min(n, K * (options.trainPerCentroid ?? 32));
  // m distinct rows: partial Fisher–Yates
  const idx = new Int32Array(n);
  for (let i = 0; i < n; i++) idx[i] = i;
  for (let i = 0; i < m; i++) {
    const j = i + Math.floor(rand() * (n - i));
    const t = idx[i]!; idx[i] = idx[j]!; idx[j] = t;
  }
  const sample = new Float32Array(m * dim);
  for (let i = 0; i < m; i++) sample.set(v.subarray(idx[i]! * dim, (idx[i]! + 1) * dim), i * dim);
  const all = Int32Array.from({ length: m }, (_, i) => i);
  const G = K < 32 ? 1 : Math.round(Math.sqrt(K));
  if (G === 1) return { centroids: lloyd(sample, dim, all, K, iterations, rand).centroids, coarse: new Float32Array(0), start: Int32Array.from([0, K]) };
  const top = lloyd(sample, dim, all, G, iterations, rand);
  const members: number[][] = Array.from({ length: G }, () => []);
  top.owner.forEach((g, i) => members[g]!.push(i));
  // K centroids shared by cell size (largest remainders), at least one per non-empty cell, at most its rows
  const share = members.map((rows) => (rows.length * K) / m);
  const count = share.map((x, g) => Math.min(members[g]!.length, Math.max(members[g]!.length > 0 ? 1 : 0, Math.floor(x))));
  let left = K - count.reduce((a, b) => a + b, 0);
  const order = share.map((_, g) => g).sort((a, b) => (share[b]! - Math.floor(share[b]!)) - (share[a]! - Math.floor(share[a]!)) || a - b);
  for (let pass = 0; left > 0 && pass < 2; pass++) {
    for (const g of order) if (left > 0 && count[g]! < members[g]!.length) { count[g]!++; left--; }
  }
  const centroids = new Float32Array(count.reduce((a, b) => a + b, 0) * dim);
  const start = new Int32Array(G + 1);
  for (let g = 0; g < G; g++) {
    start[g + 1] = start[g]! + count[g]!;
    if (count[g]! > 0) centroids.set(lloyd(sample, dim, Int32Array.from(members[g]!), count[g]!, iterations, rand).centroids, start[g]! * dim);
  }
  return { centroids, coarse: top.centroids, start };
}

/** Centroid number for row `off` of v: exact nearest for a flat codebook, two-level search otherwise. */
export function assignRow(v: Float32Array, off: number, book: Codebook, half: Float64Array, coarseHalf: Float64Array, dim: number, probe: Float64Array): number {
  const G = book.start.length - 1;
  if (G === 1) return nearest(v, off, book.centroids, half, 0, book.centroids.length / dim, dim).a;
  for (let g = 0; g < G; g++) probe[g] = dot32(v, off, book.coarse, g * dim, dim) - coarseHalf[g]!;
  let best = -Infinity, bestA = 0;
  for (let p = 0; p < Math.min(PROBES, G); p++) {
    let g = 0;
    for (let h = 1; h < G; h++) if (probe[h]! > probe[g]!) g = h;
    probe[g] = -Infinity;
    if (book.start[g + 1]! === book.start[g]!) continue;
    const r = nearest(v, off, book.centroids, half, book.start[g]!, book.start[g + 1]!, dim);
    if (r.s > best || (r.s === best && r.a < bestA)) { best = r.s; bestA = r.a; }
  }
  return best > -Infinity ? bestA : nearest(v, off, book.centroids, half, 0, book.centroids.length / dim, dim).a;
}

/**
 * Lloyd's k-means over `rows` of `sample`, k-means++ initialisation; a centroid left empty moves to the row
 * farthest from its centroid. Returns K × dim centroids and each row's centroid.
 */
function lloyd(sample: Float32Array, dim: number, rows: Int32Array, K: number, iterations: number, rand: () => number): { centroids: Float32Array; owner: Int32Array } {
  const m = rows.length;
  const centroids = new Float32Array(K * dim);
  // k-means++: each next seed drawn with probability ∝ squared distance to the nearest seed so far
  const d2 = new Float64Array(m).fill(Infinity);
  let pick = Math.floor(rand() * m);
  for (let a = 0; a < K; a++) {
    centroids.set(sample.subarray(rows[pick]! * dim, (rows[pick]! + 1) * dim), a * dim);
    if (a === K - 1) break;
    let total = 0;
    for (let i = 0; i < m; i++) {
      let d = 0;
      for (let j = 0, o = rows[i]! * dim, c = a * dim; j < dim; j++) { const e = sample[o + j]! - centroids[c + j]!; d += e * e; }
      if (d < d2[i]!) d2[i] = d;
      total += d2[i]!;
    }
    let r = rand() * total;
    pick = Math.floor(rand() * m);
    if (total > 0) for (let i = 0; i < m; i++) { r -= d2[i]!; if (r < 0) { pick = i; break; } }
  }
  const owner = new Int32Array(m).fill(-1);
  const sums = new Float64Array(K * dim);
  const counts = new Int32Array(K);
  const gap = new Float64Array(m); // ‖x − c‖² of each row to its centroid
  const norm2 = new Float64Array(m);
  for (let i = 0; i < m; i++) norm2[i] = dot32(sample, rows[i]! * dim, sample, rows[i]! * dim, dim);
  for (let it = 0; it <= iterations; it++) {
    const half = halfNorms(centroids, dim);
    let changed = 0;
    for (let i = 0; i < m; i++) {
      const { a, s } = nearest(sample, rows[i]! * dim, centroids, half, 0, K, dim);
      if (a !== owner[i]) { owner[i] = a; changed++; }
      gap[i] = norm2[i]! - 2 * s; // ‖x − c‖² = ‖x‖² − 2·(x·c − ‖c‖²/2)
    }
    if (it === iterations || changed === 0) break;
    sums.fill(0);
    counts.fill(0);
    for (let i = 0; i < m; i++) {
      const a = owner[i]!, o = rows[i]! * dim;
      counts[a]!++;
      for (let j = 0; j < dim; j++) sums[a * dim + j]! += sample[o + j]!;
    }
    for (let a = 0; a < K; a++) {
      if (counts[a]! > 0) {
        for (let j = 0; j < dim; j++) centroids[a * dim + j] = sums[a * dim + j]! / counts[a]!;
      } else {
        let far = 0;
        for (let i = 1; i < m; i++) if (gap[i]! > gap[far]!) far = i;
        centroids.set(sample.subarray(rows[far]! * dim, (rows[far]! + 1) * dim), a * dim);
        gap[far] = -Infinity;
      }
    }
  }
  return { centroids, owner };
}

/** Σ a[offA+j]·b[offB+j] over dim, unrolled by 4. */
function dot32(a: Float32Array, offA: number, b: Float32Array, offB: number, dim: number): number {
  let s0 = 0, s1 = 0, s2 = 0, s3 = 0;
  let j = 0;
  for (; j + 3 < dim; j += 4) {
    s0 += a[offA + j]! * b[offB + j]!;
    s1 += a[offA + j + 1]! * b[offB + j + 1]!;
    s2 += a[offA + j + 2]! * b[offB + j + 2]!;
    s3 += a[offA + j + 3]! * b[offB + j + 3]!;
  }
  for (; j < dim; j++) s0 += a[offA + j]! * b[offB + j]!;
  return s0 + s1 + s2 + s3;
}
