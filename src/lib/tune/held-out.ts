/**
 * The honest figure of a tune: settings measured on the held-out queries (none of them chose the winner) against the
 * current settings, per query, with the paired bootstrap (Δ of the mean, its 95 % percentile interval and p:
 * stats/paired.ts, as Compare computes them), Holm's correction over the front, and win / tie / loss; then one
 * plain sentence about the winner.
 */
import { holm, pairedTable, winTieLoss, type Column } from '../stats/paired.ts';

export interface HeldOutFigure {
  label: string;
  /** The trial's id; null for the current settings. */
  trial: number | null;
  /** Mean of the objective over the held-out queries, with its bootstrap interval. */
  score: number;
  ci: [number, number] | null;
  /** Against the current settings (null for the current settings themselves). */
  delta: number | null;
  deltaCi: [number, number] | null;
  p: number | null;
  /** p after Holm's correction over the front. */
  pHolm: number | null;
  wins: number; ties: number; losses: number;
}

/** Resamples of the held-out intervals (the paired bootstrap). */
export const HELD_OUT_ITERATIONS = 10_000;

const column = (x: readonly number[]): Column => ({ kind: 'mean', x: Float64Array.from(x), defined: Uint8Array.from(x, (v) => (Number.isFinite(v) ? 1 : 0)), root: false });

/**
 * `current` and each of `others` as per-query scores in the same query order. Holm runs over the `others` marked
 * `inFront` (the comparisons a user chooses among). `iterations` resamples, seeded.
 */
export function heldOutFigures(
  current: { label: string; scores: readonly number[] },
  others: ReadonlyArray<{ label: string; trial: number; scores: readonly number[]; inFront: boolean }>,
  o: { iterations?: number; seed?: number } = {},
): { current: HeldOutFigure; others: HeldOutFigure[] } {
  const table = pairedTable([current, ...others].map((c) => [column(c.scores)]), 0, { iterations: o.iterations ?? HELD_OUT_ITERATIONS, permutations: 0, seed: o.seed ?? 0 });
  const ps = others.map((x, i) => (x.inFront ? table[i + 1]![0]!.pBootstrap : null));
  const adjusted = holm(ps);
  const cell = (i: number) => table[i]![0]!;
  const cur: HeldOutFigure = { label: current.label, trial: null, score: cell(0).value, ci: cell(0).ci, delta: null, deltaCi: null, p: null, pHolm: null, wins: 0, ties: 0, losses: 0 };
  return {
    current: cur,
    others: others.map((x, i) => {
      const c = cell(i + 1);
      const wtl = winTieLoss(current.scores, x.scores, true);
      return {
        label: x.label, trial: x.trial, score: c.value, ci: c.ci, delta: c.delta, deltaCi: c.deltaCi, p: c.pBootstrap,
        pHolm: adjusted[i] ?? c.pBootstrap, wins: wtl.win, ties: wtl.tie, losses: wtl.loss,
      };
    }),
  };
}

/** A figure to 4 places, a signed Δ, a p ("n/a" where there is none): the tune's texts (tune-text.ts, learned-alpha.ts). */
export const f4 = (x: number | null) => (x === null || !Number.isFinite(x) ? 'n/a' : x.toFixed(4));
export const signed = (x: number | null) => (x === null || !Number.isFinite(x) ? 'n/a' : `${x >= 0 ? '+' : '−'}${Math.abs(x).toFixed(4)}`);
export const pText = (p: number | null) => (p === null ? 'p n/a' : p < 0.001 ? 'p < 0.001' : `p = ${p.toFixed(3)}`);

/** One sentence: whether the held-out queries tell the winner from the current settings. */
export function verdictSentence(winner: HeldOutFigure | null, current: HeldOutFigure, n: number, metric: string, level = 0.05): string {
  if (!winner) return `The current settings (${current.label}) won on the tuning queries: nothing to adopt (held-out ${metric} ${f4(current.score)} on ${n} queries).`;
  const ci = winner.deltaCi ? `, 95% CI [${signed(winner.deltaCi[0])}, ${signed(winner.deltaCi[1])}]` : '';
  const stats = `Δ ${signed(winner.delta)}${ci}, ${pText(winner.pHolm)} (Holm over the front); ${winner.wins} wins, ${winner.ties} ties, ${winner.losses} losses`;
  const figures = `${metric} ${f4(winner.score)} against ${f4(current.score)} for the current settings`;
  if (winner.pHolm !== null && winner.pHolm < level && (winner.delta ?? 0) > 0) return `On the ${n} held-out queries the tuned setting is better: ${figures} (${stats}).`;
  if (winner.pHolm !== null && winner.pHolm < level && (winner.delta ?? 0) < 0) return `On the ${n} held-out queries the tuned setting is worse: ${figures} (${stats}); keep the current settings.`;
  return `On the ${n} held-out queries the tuned setting cannot be told apart from the current settings: ${figures} (${stats}).`;
}
