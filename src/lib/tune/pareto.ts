/**
 * The Pareto front of settings measured on two axes, quality to maximise (NDCG@10) and cost to minimise (p95
 * latency): the points no other point dominates (at least as good on both axes and better on one). Two identical
 * points are both on it.
 */
export interface FrontPoint { quality: number; cost: number }

/** Indexes of the non-dominated points, cheapest first (points with a non-finite axis are left out). */
export function paretoFront(points: readonly FrontPoint[]): number[] {
  const order = points.map((p, i) => ({ ...p, i })).filter((p) => Number.isFinite(p.quality) && Number.isFinite(p.cost))
    .sort((a, b) => a.cost - b.cost || b.quality - a.quality || a.i - b.i);
  const front: number[] = [];
  let best = -Infinity, bestCost = NaN;
  for (const p of order) {
    // Dominated: an earlier point costs no more and is better, or costs less and is as good.
    if (p.quality > best || (p.quality === best && p.cost === bestCost)) {
      front.push(p.i);
      best = p.quality;
      bestCost = p.cost;
    }
  }
  return front;
}
