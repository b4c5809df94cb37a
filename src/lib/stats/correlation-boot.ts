/**
 * The bootstrap intervals of Pearson r, Spearman ρ and Kendall τ-b in one pass, by resample counts instead of
 * resampled arrays: the same resamples as correlationCi (correlation.ts; mulberry32(seed), n draws each, here taken
 * as how often each pair was drawn, stats/paired.ts `drawCounts`), so the same intervals to rounding, but each
 * statistic is a weighted sum over the original pairs (no sort per resample):
 *   Pearson:  r* = Σcᵢ(xᵢ−x̄*)(yᵢ−ȳ*) / sqrt(Σcᵢ(xᵢ−x̄*)² · Σcᵢ(yᵢ−ȳ*)²)
 *   Spearman: Pearson r* of the resample's average ranks; a tie group g of x spanning weight W_g after weight S_g
 *             below it has rank S_g + (W_g + 1)/2
 *   Kendall:  τ-b* = (n₀ − n_x − n_y + n_xy − 2·n_d) / sqrt((n₀ − n_x)(n₀ − n_y)), n₀ = N(N−1)/2, ties Σ W(W−1)/2
 *             over the tie groups of x, of y and of (x, y); n_d = Σ cᵢcⱼ over pairs with xᵢ < xⱼ and yᵢ > yⱼ
 *             (a Fenwick tree over y's ranks, walked in the (x, y) order sorted once).
 * H1 needs 3 × 20 intervals of 10,000 resamples: resorting 300 values per resample takes minutes, this a second.
 */
import { seededRandom } from '../random.ts';
import { drawCounts, percentileInterval } from './paired.ts';
import { CORRELATION_CI_DEFAULTS, type CorrelationCiOptions } from './correlation.ts';

export interface CorrelationIntervals { pearson: [number, number] | null; spearman: [number, number] | null; kendall: [number, number] | null }

/** Tie groups of `v` in ascending order: `order` (indexes sorted by v) cut where the value changes; group[i] of item i. */
function tieGroups(v: readonly number[], order: readonly number[]): { starts: number[]; group: Int32Array } {
  const starts: number[] = [];
  const group = new Int32Array(v.length);
  order.forEach((i, k) => {
    if (k === 0 || v[i] !== v[order[k - 1]!]) starts.push(k);
    group[i] = starts.length - 1;
  });
  return { starts, group };
}

/** Weighted Pearson r of (a, b) under weights c (NaN when a side has no spread). */
function weightedR(a: ArrayLike<number>, b: ArrayLike<number>, c: Float64Array): number {
  let w = 0, sa = 0, sb = 0;
  for (let i = 0; i < c.length; i++) { const ci = c[i]!; w += ci; sa += ci * a[i]!; sb += ci * b[i]!; }
  const ma = sa / w, mb = sb / w;
  let sab = 0, saa = 0, sbb = 0;
  for (let i = 0; i < c.length; i++) {
    const ci = c[i]!; if (ci === 0) continue;
    const da = a[i]! - ma, db = b[i]! - mb;
    sab += ci * da * db; saa += ci * da * da; sbb += ci * db * db;
  }
  return saa === 0 || sbb === 0 ? NaN : Math.max(-1, Math.min(1, sab / Math.sqrt(saa * sbb)));
}

/** Average ranks of the resample (out[i]: item i's rank) from the tie groups and the counts. */
function weightedRanks(g: { starts: number[]; group: Int32Array }, c: Float64Array, groupW: Float64Array, out: Float64Array): void {
  groupW.fill(0);
  for (let i = 0; i < c.length; i++) groupW[g.group[i]!]! += c[i]!;
  let below = 0;
  for (let k = 0; k < groupW.length; k++) { const w = groupW[k]!; groupW[k] = below + (w + 1) / 2; below += w; }
  for (let i = 0; i < c.length; i++) out[i] = groupW[g.group[i]!]!;
}

const pairsOf = (w: number) => (w * (w - 1)) / 2;

/** Pearson, Spearman and Kendall intervals of the same resamples as correlationCi(x, y, stat, opts) for each. */
export function correlationIntervals(x: readonly number[], y: readonly number[], opts: Partial<CorrelationCiOptions> = {}): CorrelationIntervals {
  const o: CorrelationCiOptions = { ...CORRELATION_CI_DEFAULTS, ...opts };
  if (x.length !== y.length) throw new Error(`correlationIntervals: ${x.length} predictor values but ${y.length} metric values`);
  const n = x.length;
  if (n < 3 || o.iterations < 1) return { pearson: null, spearman: null, kendall: null };
  const byX = [...x.keys()].sort((i, j) => x[i]! - x[j]!);
  const byY = [...y.keys()].sort((i, j) => y[i]! - y[j]!);
  const gx = tieGroups(x, byX), gy = tieGroups(y, byY);
  const ry = gy.group; // dense y ranks, 0-based
  const byXY = [...x.keys()].sort((i, j) => x[i]! - x[j]! || ry[i]! - ry[j]!);
  const gxy = tieGroups(Array.from({ length: n }, (_, i) => gx.group[i]! * n + ry[i]!), byXY);
  const xw = new Float64Array(gx.starts.length), yw = new Float64Array(gy.starts.length), xyw = new Float64Array(gxy.starts.length);
  const rankX = new Float64Array(n), rankY = new Float64Array(n);
  const tree = new Float64Array(gy.starts.length + 1);
  const counts = new Float64Array(n);
  const out = { p: new Float64Array(o.iterations), s: new Float64Array(o.iterations), k: new Float64Array(o.iterations) };
  const rand = seededRandom(o.seed);
  const n0 = pairsOf(n);
  for (let b = 0; b < o.iterations; b++) {
    drawCounts(counts, rand);
    out.p[b] = weightedR(x, y, counts);
    weightedRanks(gx, counts, xw, rankX);
    weightedRanks(gy, counts, yw, rankY);
    out.s[b] = weightedR(rankX, rankY, counts);
    // Kendall: tie pairs from the group weights, discordant pairs by the Fenwick tree in (x, y) order.
    xw.fill(0); yw.fill(0); xyw.fill(0);
    for (let i = 0; i < n; i++) { const c = counts[i]!; xw[gx.group[i]!]! += c; yw[ry[i]!]! += c; xyw[gxy.group[i]!]! += c; }
    let nx = 0, ny = 0, nxy = 0;
    for (const w of xw) nx += pairsOf(w);
    for (const w of yw) ny += pairsOf(w);
    for (const w of xyw) nxy += pairsOf(w);
    if (nx === n0 || ny === n0) { out.k[b] = NaN; continue; }
    tree.fill(0);
    let inserted = 0, dis = 0;
    for (let s = 0; s < gx.starts.length; s++) {
      const end = s + 1 < gx.starts.length ? gx.starts[s + 1]! : n;
      for (let k = gx.starts[s]!; k < end; k++) {
        const i = byXY[k]!, c = counts[i]!;
        if (c === 0) continue;
        let le = 0;
        for (let idx = ry[i]! + 1; idx > 0; idx &= idx - 1) le += tree[idx]!;
        dis += c * (inserted - le);
      }
      for (let k = gx.starts[s]!; k < end; k++) {
        const i = byXY[k]!, c = counts[i]!;
        if (c === 0) continue;
        for (let idx = ry[i]! + 1; idx < tree.length; idx += idx & -idx) tree[idx]! += c;
        inserted += c;
      }
    }
    out.k[b] = Math.max(-1, Math.min(1, (n0 - nx - ny + nxy - 2 * dis) / Math.sqrt((n0 - nx) * (n0 - ny))));
  }
  return { pearson: percentileInterval(out.p, o.level), spearman: percentileInterval(out.s, o.level), kendall: percentileInterval(out.k, o.level) };
}
