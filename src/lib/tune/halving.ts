/**
 * Successive halving (Jamieson & Talwalkar 2016, "Non-stochastic best arm identification and hyperparameter
 * optimization"): every candidate is scored on a small budget, the best 1/η go on with η times the budget, until the
 * finalists remain. Here the budget is queries: the first q_r of the tuning queries in a seeded order, so each rung's
 * queries hold the last rung's and a candidate's rows are reused. With n candidates, Q queries and f finalists:
 *   R = ⌈log_η(n / f)⌉ rungs after the first (0 when n ≤ f);
 *   rung r ∈ [0, R]: n_r = max(f, ⌈n / η^r⌉) candidates (n at r = 0), q_r = min(Q, max(min(m, Q), ⌈Q / η^(R − r)⌉)) queries,
 * m the fewest queries a score is read from. Candidates are ranked by their score, ties (and failures, NaN, last) by
 * their order, so the same scores always keep the same candidates.
 */

export interface HalvingOptions {
  /** Keep the best 1/η at each rung. Default 3. */
  eta: number;
  /** Candidates that see every query. Default 8. */
  finalists: number;
  /** The fewest queries a rung scores on (all of them when there are fewer). Default 20. */
  minQueries: number;
}

export const HALVING_DEFAULTS: Readonly<HalvingOptions> = Object.freeze({ eta: 3, finalists: 8, minQueries: 20 });

export interface Rung { candidates: number; queries: number }

/** The rungs for n candidates and Q queries. */
export function halvingRungs(n: number, queries: number, o: HalvingOptions = HALVING_DEFAULTS): Rung[] {
  if (!(o.eta > 1)) throw new RangeError(`η must be above 1, got ${o.eta}`);
  if (!(o.finalists >= 1)) throw new RangeError(`at least one finalist, got ${o.finalists}`);
  if (n <= 0 || queries <= 0) return [];
  const R = n <= o.finalists ? 0 : Math.ceil(Math.log(n / o.finalists) / Math.log(o.eta) - 1e-12);
  const floor = Math.min(o.minQueries, queries);
  return Array.from({ length: R + 1 }, (_, r) => ({
    candidates: r === 0 ? n : Math.min(n, Math.max(o.finalists, Math.ceil(n / o.eta ** r))),
    queries: Math.min(queries, Math.max(floor, Math.ceil(queries / o.eta ** (R - r)))),
  }));
}

export interface HalvingResult {
  rungs: Rung[];
  /** Per candidate: the last rung it was scored at and its score there. */
  reached: Array<{ rung: number; score: number }>;
  /** The candidates of the last rung, best first. */
  finalists: number[];
}

/** Best first: by score (NaN last), ties by index. */
export function rankByScore(ids: readonly number[], score: (i: number) => number): number[] {
  const key = (i: number) => (Number.isNaN(score(i)) ? -Infinity : score(i));
  return [...ids].sort((a, b) => key(b) - key(a) || a - b);
}

/**
 * Runs the rungs: `score(candidate, q)` is the candidate's mean over the first q queries (the caller holds the order).
 * `onRung` hears each rung before it is scored.
 */
export async function successiveHalving(
  n: number, queries: number, score: (candidate: number, queries: number) => Promise<number>,
  o: HalvingOptions = HALVING_DEFAULTS, onRung?: (rung: number, r: Rung) => void,
): Promise<HalvingResult> {
  const rungs = halvingRungs(n, queries, o);
  const reached = Array.from({ length: n }, () => ({ rung: -1, score: NaN }));
  let alive = Array.from({ length: n }, (_, i) => i);
  for (const [r, rung] of rungs.entries()) {
    alive = alive.slice(0, rung.candidates);
    onRung?.(r, rung);
    for (const c of alive) reached[c] = { rung: r, score: await score(c, rung.queries) };
    alive = rankByScore(alive, (c) => reached[c]!.score);
  }
  return { rungs, reached, finalists: alive };
}

/**
 * Query evaluations a plan costs: Σ_r n_r · (q_r − q_{r−1}), since a candidate's rows of the earlier rungs' queries
 * are reused.
 */
export function halvingCost(rungs: readonly Rung[]): number {
  return rungs.reduce((a, r, i) => a + r.candidates * (r.queries - (i > 0 ? rungs[i - 1]!.queries : 0)), 0);
}

/**
 * A budget in time as trials: the most candidates (from 1 to `max`) whose plan costs at most `ms` at `msPerQuery` a
 * query evaluation; 1 when not even one fits.
 */
export function trialsWithin(ms: number, msPerQuery: number, queries: number, max: number, o: HalvingOptions = HALVING_DEFAULTS): number {
  if (!(msPerQuery > 0) || !Number.isFinite(msPerQuery)) return max;
  // Not monotone in n (one more rung shortens the first rung's queries): every n is tried, from the most down.
  for (let n = max; n > 1; n--) if (halvingCost(halvingRungs(n, queries, o)) * msPerQuery <= ms) return n;
  return 1;
}
