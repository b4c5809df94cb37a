/**
 * Ridge regression on standardised features: each feature z_j = (x_j − mean_j) / sd_j over the fitting rows (a
 * feature with sd 0 is dropped), then w = (ZᵀZ + λI)⁻¹ Zᵀ(y − ȳ) and ŷ(x) = ȳ + w·z(x). Solved by Cholesky
 * (ZᵀZ + λI is symmetric positive definite for λ > 0).
 */

export interface RidgeModel {
  /** The features kept (indexes into the input columns), their means and standard deviations (population). */
  features: number[];
  means: number[];
  sds: number[];
  weights: number[];
  intercept: number;
}

/** Fits `y` on the rows of `x` (each row the same length); rows with a non-finite value are left out. */
export function fitRidge(x: readonly (readonly number[])[], y: readonly number[], lambda = 1): RidgeModel {
  if (!(lambda > 0)) throw new RangeError(`ridge needs λ > 0, got ${lambda}`);
  const rows = x.map((r, i) => ({ r, y: y[i]! })).filter(({ r, y: t }) => Number.isFinite(t) && r.every(Number.isFinite));
  const n = rows.length, d = x[0]?.length ?? 0;
  if (n === 0) throw new RangeError('ridge needs at least one complete row');
  const intercept = rows.reduce((a, { y: t }) => a + t, 0) / n;
  const features: number[] = [], means: number[] = [], sds: number[] = [];
  for (let j = 0; j < d; j++) {
    const m = rows.reduce((a, { r }) => a + r[j]!, 0) / n;
    const sd = Math.sqrt(rows.reduce((a, { r }) => a + (r[j]! - m) ** 2, 0) / n);
    if (sd > 1e-12) { features.push(j); means.push(m); sds.push(sd); }
  }
  const k = features.length;
  const z = rows.map(({ r }) => features.map((j, f) => (r[j]! - means[f]!) / sds[f]!));
  // A = ZᵀZ + λI, b = Zᵀ(y − ȳ)
  const a = Array.from({ length: k }, (_, p) => Array.from({ length: k }, (_, q) => z.reduce((s, zr) => s + zr[p]! * zr[q]!, 0) + (p === q ? lambda : 0)));
  const b = Array.from({ length: k }, (_, p) => z.reduce((s, zr, i) => s + zr[p]! * (rows[i]!.y - intercept), 0));
  return { features, means, sds, weights: choleskySolve(a, b), intercept };
}

/** ŷ of one row (its kept features standardised as in the fit). */
export function predictRidge(m: RidgeModel, row: readonly number[]): number {
  return m.intercept + m.features.reduce((s, j, f) => s + m.weights[f]! * ((row[j]! - m.means[f]!) / m.sds[f]!), 0);
}

/** Solves A w = b for a symmetric positive definite A (Cholesky: A = L Lᵀ). */
function choleskySolve(a: number[][], b: number[]): number[] {
  const k = b.length;
  const l = Array.from({ length: k }, () => new Array<number>(k).fill(0));
  for (let i = 0; i < k; i++) {
    for (let j = 0; j <= i; j++) {
      let s = a[i]![j]!;
      for (let p = 0; p < j; p++) s -= l[i]![p]! * l[j]![p]!;
      l[i]![j] = i === j ? Math.sqrt(s) : s / l[j]![j]!;
    }
  }
  const v = new Array<number>(k).fill(0);
  for (let i = 0; i < k; i++) { let s = b[i]!; for (let p = 0; p < i; p++) s -= l[i]![p]! * v[p]!; v[i] = s / l[i]![i]!; }
  const w = new Array<number>(k).fill(0);
  for (let i = k - 1; i >= 0; i--) { let s = v[i]!; for (let p = i + 1; p < k; p++) s -= l[p]![i]! * w[p]!; w[i] = s / l[i]![i]!; }
  return w;
}
