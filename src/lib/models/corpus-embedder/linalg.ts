/**
 * Small dense linear algebra for the randomized SVD, on column-major Float64Arrays (column c of an m × l matrix
 * is m contiguous numbers at c·m): Gram–Schmidt orthonormalisation, the Gram matrix, and the cyclic Jacobi
 * eigen-decomposition of a symmetric matrix.
 */

const dotAt = (a: Float64Array, ao: number, b: Float64Array, bo: number, m: number): number => {
  let s = 0;
  for (let i = 0; i < m; i++) s += a[ao + i]! * b[bo + i]!;
  return s;
};

/**
 * Orthonormalises the l columns of q (m × l) in place by modified Gram–Schmidt applied twice per column ("twice is
 * enough", Giraud et al. 2005), which keeps QᵀQ = I to rounding. A column that loses all but 1e-10 of its norm to
 * the earlier ones is set to zero (the matrix has lower rank); returns how many columns are nonzero.
 */
export function orthonormalizeColumns(q: Float64Array, m: number, l: number): number {
  let rank = 0;
  for (let c = 0; c < l; c++) {
    const co = c * m;
    const before = Math.sqrt(dotAt(q, co, q, co, m));
    for (let pass = 0; pass < 2; pass++) {
      for (let p = 0; p < c; p++) {
        const po = p * m;
        const r = dotAt(q, po, q, co, m); // q_c ← q_c − (q_pᵀ q_c) q_p
        if (r !== 0) for (let i = 0; i < m; i++) q[co + i] = q[co + i]! - r * q[po + i]!;
      }
    }
    const norm = Math.sqrt(dotAt(q, co, q, co, m));
    if (before === 0 || !(norm > 1e-10 * before)) {
      q.fill(0, co, co + m);
      continue;
    }
    for (let i = 0; i < m; i++) q[co + i] = q[co + i]! / norm;
    rank++;
  }
  return rank;
}

/**
 * G = WᵀW (l × l, symmetric, row-major = column-major) for W (n × l) column-major. Four columns of W are dotted
 * with each other column in one pass over it (a quarter of the memory traffic of one dot at a time).
 */
export function gram(w: Float64Array, n: number, l: number): Float64Array {
  const g = new Float64Array(l * l);
  for (let a = 0; a < l; a += 4) {
    const a1 = Math.min(a + 1, l - 1), a2 = Math.min(a + 2, l - 1), a3 = Math.min(a + 3, l - 1);
    const o0 = a * n, o1 = a1 * n, o2 = a2 * n, o3 = a3 * n;
    for (let b = a; b < l; b++) {
      const ob = b * n;
      let s0 = 0, s1 = 0, s2 = 0, s3 = 0;
      for (let i = 0; i < n; i++) {
        const x = w[ob + i]!;
        s0 += w[o0 + i]! * x; s1 += w[o1 + i]! * x; s2 += w[o2 + i]! * x; s3 += w[o3 + i]! * x;
      }
      const sums = [s0, s1, s2, s3];
      for (let j = 0; j < 4 && a + j < l; j++) {
        if (b < a + j) continue;
        g[(a + j) * l + b] = sums[j]!;
        g[b * l + a + j] = sums[j]!;
      }
    }
  }
  return g;
}

/**
 * Y = X V (m × k, column-major) for X (m × l) and V (l × k), both column-major, with column c of Y scaled by
 * scale[c]; four columns of X are added in one pass over a column of Y.
 */
export function multiplyDense(x: Float64Array, m: number, l: number, v: Float64Array, k: number, scale: Float64Array): Float64Array {
  const y = new Float64Array(m * k);
  for (let c = 0; c < k; c++) {
    const yo = c * m, sc = scale[c]!;
    if (sc === 0) continue;
    for (let b = 0; b < l; b += 4) {
      const v0 = v[c * l + b]! * sc;
      const v1 = b + 1 < l ? v[c * l + b + 1]! * sc : 0, v2 = b + 2 < l ? v[c * l + b + 2]! * sc : 0, v3 = b + 3 < l ? v[c * l + b + 3]! * sc : 0;
      const o0 = b * m, o1 = Math.min(b + 1, l - 1) * m, o2 = Math.min(b + 2, l - 1) * m, o3 = Math.min(b + 3, l - 1) * m;
      for (let i = 0; i < m; i++) y[yo + i] = y[yo + i]! + v0 * x[o0 + i]! + v1 * x[o1 + i]! + v2 * x[o2 + i]! + v3 * x[o3 + i]!;
    }
  }
  return y;
}

export interface Eigen {
  /** Eigenvalues, descending. */
  values: Float64Array;
  /** Eigenvectors as columns (l × l column-major), in the order of `values`. */
  vectors: Float64Array;
}

/**
 * Eigen-decomposition S = V Λ Vᵀ of a symmetric l × l matrix by cyclic Jacobi rotations (Golub & Van Loan §8.5):
 * each rotation zeroes s_pq with t = sgn(θ) / (|θ| + √(θ² + 1)), θ = (s_qq − s_pp) / (2 s_pq); sweeps until the
 * off-diagonal mass is below 1e-22 of the total (or 60 sweeps). `s` is not modified.
 */
export function symmetricEigen(s: Float64Array, l: number): Eigen {
  const a = Float64Array.from(s);
  const v = new Float64Array(l * l);
  for (let i = 0; i < l; i++) v[i * l + i] = 1;
  let total = 0;
  for (let i = 0; i < l * l; i++) total += a[i]! * a[i]!;
  for (let sweep = 0; sweep < 60; sweep++) {
    let off = 0;
    for (let p = 0; p < l; p++) for (let q = p + 1; q < l; q++) off += 2 * a[p * l + q]! * a[p * l + q]!;
    if (off <= 1e-22 * total || off === 0) break;
    for (let p = 0; p < l - 1; p++) {
      for (let q = p + 1; q < l; q++) {
        const apq = a[p * l + q]!;
        if (apq === 0) continue;
        const theta = (a[q * l + q]! - a[p * l + p]!) / (2 * apq);
        const t = Math.sign(theta || 1) / (Math.abs(theta) + Math.sqrt(theta * theta + 1));
        const c = 1 / Math.sqrt(t * t + 1), sn = t * c;
        // A ← Jᵀ A J on rows/columns p and q (A stays symmetric: both triangles are updated).
        for (let k = 0; k < l; k++) {
          const akp = a[k * l + p]!, akq = a[k * l + q]!;
          a[k * l + p] = c * akp - sn * akq;
          a[k * l + q] = sn * akp + c * akq;
        }
        for (let k = 0; k < l; k++) {
          const apk = a[p * l + k]!, aqk = a[q * l + k]!;
          a[p * l + k] = c * apk - sn * aqk;
          a[q * l + k] = sn * apk + c * aqk;
        }
        // V ← V J (columns p and q, contiguous in column-major).
        for (let k = 0; k < l; k++) {
          const vkp = v[p * l + k]!, vkq = v[q * l + k]!;
          v[p * l + k] = c * vkp - sn * vkq;
          v[q * l + k] = sn * vkp + c * vkq;
        }
      }
    }
  }
  const order = Array.from({ length: l }, (_, i) => i).sort((x, y) => a[y * l + y]! - a[x * l + x]!);
  const values = Float64Array.from(order, (i) => a[i * l + i]!);
  const vectors = new Float64Array(l * l);
  order.forEach((src, dst) => vectors.set(v.subarray(src * l, src * l + l), dst * l));
  return { values, vectors };
}
