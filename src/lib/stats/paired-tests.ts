/** The tests and intervals of paired statistics: percentile intervals, bootstrap and randomization p, Holm, W/T/L. */

/** Percentile (numpy's linear interpolation) of sorted values, p in [0, 100]. */
function percentileSorted(s: Float64Array, p: number): number {
  const h = ((s.length - 1) * p) / 100;
  const lo = Math.floor(h);
  const hi = Math.ceil(h);
  return s[lo]! + (h - lo) * (s[hi]! - s[lo]!);
}

/** The finite values of `xs`, sorted. */
function finiteSorted(xs: Float64Array): Float64Array {
  let n = 0;
  const out = new Float64Array(xs.length);
  for (const x of xs) if (Number.isFinite(x)) out[n++] = x;
  return out.subarray(0, n).sort();
}

/** Percentile interval of the finite values; null when none. */
export function percentileInterval(xs: Float64Array, level: number): [number, number] | null {
  const s = finiteSorted(xs);
  if (s.length === 0) return null;
  const tail = ((1 - level) / 2) * 100;
  return [percentileSorted(s, tail), percentileSorted(s, 100 - tail)];
}

/** Two-sided bootstrap p of resampled Δ*: min(1, 2·min(P(Δ* ≤ 0), P(Δ* ≥ 0))) over finite Δ*; null when none. */
export function bootstrapP(deltas: ArrayLike<number>): number | null {
  let n = 0, le = 0, ge = 0;
  for (let i = 0; i < deltas.length; i++) {
    const d = deltas[i]!;
    if (!Number.isFinite(d)) continue;
    n++;
    if (d <= 0) le++;
    if (d >= 0) ge++;
  }
  return n === 0 ? null : Math.min(1, (2 * Math.min(le, ge)) / n);
}

/**
 * Two-sided randomization p: (1 + #{|Δ_perm| ≥ |Δ_obs|}) / (1 + R) over the R finite permuted Δ; null when Δ_obs is
 * not a number or no permuted Δ is. |Δ_perm| ≥ |Δ_obs| is read with a relative tolerance of 1e-9, so a permutation that reproduces the
 * observed split (identity, full swap) counts whatever the rounding of its sums.
 */
export function randomizationP(observed: number, permuted: ArrayLike<number>): number | null {
  if (!Number.isFinite(observed)) return null;
  const bar = Math.abs(observed) - 1e-9 * Math.max(Math.abs(observed), 1e-12);
  let r = 0, hits = 0;
  for (let i = 0; i < permuted.length; i++) {
    const d = permuted[i]!;
    if (!Number.isFinite(d)) continue;
    r++;
    if (Math.abs(d) >= bar) hits++;
  }
  return r === 0 ? null : (1 + hits) / (1 + r);
}

/**
 * Holm's step-down adjustment: with the m non-null p sorted ascending, p̃₍ᵢ₎ = max_{j ≤ i} min(1, (m − j + 1)·p₍ⱼ₎),
 * returned in the input order (nulls stay null).
 */
export function holm(ps: ReadonlyArray<number | null>): Array<number | null> {
  const idx = ps.map((p, i) => ({ p, i })).filter((x): x is { p: number; i: number } => x.p !== null && Number.isFinite(x.p));
  idx.sort((a, b) => a.p - b.p || a.i - b.i);
  const out: Array<number | null> = ps.map(() => null);
  const m = idx.length;
  let running = 0;
  idx.forEach(({ p, i }, j) => {
    running = Math.max(running, Math.min(1, (m - j) * p));
    out[i] = running;
  });
  return out;
}

/** Per-row wins / ties / losses of B against A over rows where both have a value: tie when |b − a| ≤ eps. */
export function winTieLoss(a: ReadonlyArray<number | null>, b: ReadonlyArray<number | null>, higherIsBetter: boolean, eps = 1e-9): { win: number; tie: number; loss: number } {
  let win = 0, tie = 0, loss = 0;
  for (let i = 0; i < a.length; i++) {
    const x = a[i], y = b[i];
    if (x === null || x === undefined || y === null || y === undefined) continue;
    const d = y - x;
    if (Math.abs(d) <= eps) tie++;
    else if ((d > 0) === higherIsBetter) win++;
    else loss++;
  }
  return { win, tie, loss };
}
