/**
 * Randomized truncated SVD of a sparse matrix (Halko, Martinsson & Tropp 2011, "Finding structure with randomness",
 * SIAM Review 53(2), Algorithms 4.4 and 5.1), orthonormalising on the smaller side only. With A (m × n):
 *   n ≤ m: Q = orth(Aᵀ Ω) (n × l, Ω m × l Gaussian, l = k + oversampling), q power iterations Q = orth(Aᵀ (A Q)),
 *          C = A Q, Cᵀ C = Ṽ Σ² Ṽᵀ (Jacobi), U = C Ṽ Σ⁻¹ (so Uᵀ U = Σ⁻¹ Ṽᵀ Cᵀ C Ṽ Σ⁻¹ = I).
 *   m < n: Q = orth(A Ω) (m × l), q iterations Q = orth(A (Aᵀ Q)), W = Aᵀ Q, Wᵀ W = Ũ Σ² Ũᵀ, U = Q Ũ.
 * One orthonormalisation per application of A Aᵀ (or Aᵀ A) keeps the basis well conditioned (float64, a few
 * iterations). Deterministic for a seed. Only U and Σ are formed (the token vectors need no V).
 */
import { seededRandom } from '../../random.ts';
import { gram, multiplyDense, orthonormalizeColumns, symmetricEigen } from './linalg.ts';
import { multiply, multiplyTransposed, type SparseColumns } from './tfidf.ts';

export interface RsvdOptions {
  /** Extra random directions beyond k (Halko et al.'s p). Default 10. */
  oversample?: number;
  /** Power iterations (q). Default 3. */
  powerIterations?: number;
  seed?: number;
  /** Called after each product with A or Aᵀ (done of total), and awaited: the place to yield and to cancel. */
  onStep?: (done: number, total: number) => void | Promise<void>;
}

export interface TruncatedSvd {
  /** Left singular vectors as columns, rows × k column-major. */
  u: Float64Array;
  /** Singular values, descending (length k). */
  s: Float64Array;
  k: number;
}

/** Standard normal numbers by Box–Muller over the seeded mulberry32 stream. */
export function gaussian(seed: number): () => number {
  const rand = seededRandom(seed);
  let spare: number | null = null;
  return () => {
    if (spare !== null) { const s = spare; spare = null; return s; }
    let u = 0;
    while (u === 0) u = rand();
    const r = Math.sqrt(-2 * Math.log(u)), t = 2 * Math.PI * rand();
    spare = r * Math.sin(t);
    return r * Math.cos(t); // z = √(−2 ln u₁) cos(2π u₂)
  };
}

/**
 * The top k singular triplets' U and Σ (k ≤ min(rows, cols)). Columns past A's numerical rank have σ ≈ 0 and an
 * arbitrary direction: the caller keeps the rank it trusts from `s`. Each U column's sign is fixed so its
 * largest-magnitude entry is positive.
 */
export async function randomizedSvd(a: SparseColumns, k: number, opts: RsvdOptions = {}): Promise<TruncatedSvd> {
  const { rows: m, cols: n } = a;
  const full = Math.min(m, n);
  if (!(k >= 1 && k <= full)) throw new Error(`randomizedSvd: k must be in 1..${full}, got ${k}`);
  const l = Math.min(full, k + Math.max(0, opts.oversample ?? 10));
  const q = Math.max(0, Math.floor(opts.powerIterations ?? 3));
  const total = 2 * q + 2;
  let done = 0;
  const step = async () => { await opts.onStep?.(++done, total); };
  // The basis lives on the smaller side: columns of Aᵀ's range (n ≤ m) or of A's (m < n).
  const small = n <= m;
  const side = small ? n : m, other = small ? m : n;
  const into = (x: Float64Array) => (small ? multiplyTransposed(a, x, l) : multiply(a, x, l)); // other → side
  const back = (x: Float64Array) => (small ? multiply(a, x, l) : multiplyTransposed(a, x, l)); // side → other

  const z = gaussian(opts.seed ?? 0);
  const omega = new Float64Array(other * l);
  for (let i = 0; i < omega.length; i++) omega[i] = z();
  let basis = into(omega);
  orthonormalizeColumns(basis, side, l);
  await step();
  for (let it = 0; it < q; it++) {
    const c = back(basis);
    await step();
    basis = into(c);
    orthonormalizeColumns(basis, side, l);
    await step();
  }
  const c = back(basis); // C = A Q (n ≤ m) or W = Aᵀ Q (m < n): other × l
  await step();
  const { values, vectors } = symmetricEigen(gram(c, other, l), l); // Cᵀ C = Ṽ Σ² Ṽᵀ
  const s = Float64Array.from({ length: k }, (_, c) => Math.sqrt(Math.max(0, values[c]!)));
  // U = C Ṽ Σ⁻¹ (n ≤ m) or U = Q Ũ (m < n); a numerically zero σ leaves its column zero.
  const scale = Float64Array.from(s, (sigma) => (!small ? 1 : sigma > 1e-12 * s[0]! ? 1 / sigma : 0));
  const u = multiplyDense(small ? c : basis, m, l, vectors, k, scale);
  for (let col = 0; col < k; col++) {
    const uo = col * m;
    let big = 0;
    for (let i = 0; i < m; i++) if (Math.abs(u[uo + i]!) > Math.abs(big)) big = u[uo + i]!;
    if (big < 0) for (let i = 0; i < m; i++) u[uo + i] = -u[uo + i]!;
  }
  return { u, s, k };
}
