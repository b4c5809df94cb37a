/**
 * Randomized truncated SVD of a sparse matrix (Halko, Martinsson & Tropp 2011, "Finding structure with randomness",
 * SIAM Review 53(2), Algorithms 4.4 and 5.1): A ≈ U_k Σ_k V_kᵀ from a Gaussian test matrix Ω (n × l, l = k +
 * oversampling), Q = orth(A Ω), q power iterations Q = orth(A orth(Aᵀ Q)) with re-orthonormalisation each half step,
 * then the small SVD of B = Qᵀ A through the eigen-decomposition B Bᵀ = Ũ Σ² Ũᵀ, so U = Q Ũ. Deterministic for a
 * seed. Only U and Σ are formed (the token vectors need no V).
 */
import { seededRandom } from '../../random.ts';
import { gram, orthonormalizeColumns, symmetricEigen } from './linalg.ts';
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

  const z = gaussian(opts.seed ?? 0);
  const omega = new Float64Array(n * l);
  for (let i = 0; i < omega.length; i++) omega[i] = z();
  let y = multiply(a, omega, l); // Y = A Ω
  orthonormalizeColumns(y, m, l);
  await step();
  for (let it = 0; it < q; it++) {
    const w = multiplyTransposed(a, y, l); // W = Aᵀ Q
    orthonormalizeColumns(w, n, l);
    await step();
    y = multiply(a, w, l); // Q = orth(A W)
    orthonormalizeColumns(y, m, l);
    await step();
  }
  const bt = multiplyTransposed(a, y, l); // Bᵀ = Aᵀ Q (n × l)
  await step();
  const { values, vectors } = symmetricEigen(gram(bt, n, l), l); // B Bᵀ = (Bᵀ)ᵀ Bᵀ = Ũ Σ² Ũᵀ
  const u = new Float64Array(m * k);
  const s = new Float64Array(k);
  for (let c = 0; c < k; c++) {
    s[c] = Math.sqrt(Math.max(0, values[c]!));
    const uo = c * m;
    for (let b = 0; b < l; b++) {
      const vb = vectors[c * l + b]!; // U = Q Ũ
      if (vb === 0) continue;
      const yo = b * m;
      for (let i = 0; i < m; i++) u[uo + i] = u[uo + i]! + vb * y[yo + i]!;
    }
    let big = 0;
    for (let i = 0; i < m; i++) if (Math.abs(u[uo + i]!) > Math.abs(big)) big = u[uo + i]!;
    if (big < 0) for (let i = 0; i < m; i++) u[uo + i] = -u[uo + i]!;
  }
  return { u, s, k };
}
