/**
 * Beyond seed B: the fixed hybrid's α chosen per query from the query performance predictors the analysis computes
 * (eval/analysis/qpp.ts: WIG, NQC, clarity, entropies under each calibration, seed B's α), by a ridge regression
 * (stats/ridge.ts, λ = 1) fitted on the tuning queries only:
 *   α*(q) = the mean of the grid's α ∈ {0, 0.1, …, 1} that give q its best objective (a query every α scores alike
 *           carries nothing to learn and is left out of the fit);
 *   α̂(q) = clamp(ŷ(predictors of q), 0, 1), rounded to the grid: q's row of the fixed hybrid at that α.
 * On the held-out queries it is compared with the best fixed α (the grid's α with the best mean on the tuning queries)
 * and with RRF, by the paired bootstrap with Holm over the two comparisons.
 */
import { fitRidge, predictRidge } from '../stats/ridge.ts';
import { f4, heldOutFigures, pText, signed, type HeldOutFigure } from './held-out.ts';

export const ALPHA_GRID: readonly number[] = Object.freeze(Array.from({ length: 11 }, (_, i) => i / 10));

export interface LearnedAlphaInput {
  tuning: readonly string[];
  heldOut: readonly string[];
  /** The objective of each query at each α of ALPHA_GRID (same order). */
  atAlpha: ReadonlyArray<ReadonlyMap<string, number>>;
  rrf: ReadonlyMap<string, number>;
  predictors: ReadonlyMap<string, Readonly<Record<string, number | null>>>;
  metric: string;
  seed?: number;
}

export interface LearnedAlphaResult {
  /** The predictors the fit used (every qpp field finite on all tuning queries and not constant). */
  predictors: string[];
  /** Tuning queries fitted on; those every α scored alike. */
  fitted: number;
  flat: number;
  bestFixedAlpha: number;
  /** Mean α̂ over the held-out queries. */
  meanAlpha: number;
  learned: { score: number; ci: [number, number] | null };
  /** The learned α against each reference: Δ = learned − reference. */
  against: Array<{ label: string; score: number } & Pick<HeldOutFigure, 'delta' | 'deltaCi' | 'p' | 'pHolm' | 'wins' | 'ties' | 'losses'>>;
  verdict: string;
}

const meanOf = (ids: readonly string[], m: ReadonlyMap<string, number>) => ids.reduce((a, id) => a + (m.get(id) ?? NaN), 0) / ids.length;

export function learnedAlpha(input: LearnedAlphaInput): LearnedAlphaResult {
  const { tuning, heldOut, atAlpha } = input;
  const bestIndex = ALPHA_GRID.reduce((best, _, i) => (meanOf(tuning, atAlpha[i]!) > meanOf(tuning, atAlpha[best]!) ? i : best), 0);
  const names = [...new Set(tuning.flatMap((id) => Object.keys(input.predictors.get(id) ?? {})))].sort()
    .filter((k) => tuning.every((id) => Number.isFinite(input.predictors.get(id)?.[k] ?? NaN)));
  const row = (id: string) => names.map((k) => input.predictors.get(id)?.[k] ?? NaN);
  const x: number[][] = [], y: number[] = [];
  let flat = 0;
  for (const id of tuning) {
    const scores = ALPHA_GRID.map((_, i) => atAlpha[i]!.get(id) ?? NaN);
    const top = Math.max(...scores);
    const best = ALPHA_GRID.filter((_, i) => scores[i] === top);
    if (best.length === ALPHA_GRID.length) { flat++; continue; }
    x.push(row(id));
    y.push(best.reduce((a, b) => a + b, 0) / best.length);
  }
  const model = x.length > 0 && names.length > 0 ? fitRidge(x, y, 1) : null;
  const predicted = heldOut.map((id) => {
    const r = row(id);
    const a = model && r.every(Number.isFinite) ? Math.min(1, Math.max(0, predictRidge(model, r))) : ALPHA_GRID[bestIndex]!;
    return Math.round(a * 10);
  });
  const learnedScores = heldOut.map((id, i) => atAlpha[predicted[i]!]!.get(id) ?? NaN);
  const fixedLabel = `the best fixed α (${ALPHA_GRID[bestIndex]})`;
  const refs = [
    { label: fixedLabel, trial: 0, scores: heldOut.map((id) => atAlpha[bestIndex]!.get(id) ?? NaN), inFront: true },
    { label: 'RRF', trial: 1, scores: heldOut.map((id) => input.rrf.get(id) ?? NaN), inFront: true },
  ];
  // Each reference against the learned α (Holm over the two), then turned round: Δ = learned − reference.
  const f = heldOutFigures({ label: 'learned α', scores: learnedScores }, refs, { seed: input.seed ?? 0 });
  const against = f.others.map((o) => ({
    label: o.label, score: o.score, delta: o.delta === null ? null : -o.delta, deltaCi: o.deltaCi ? [-o.deltaCi[1], -o.deltaCi[0]] as [number, number] : null,
    p: o.p, pHolm: o.pHolm, wins: o.losses, ties: o.ties, losses: o.wins,
  }));
  const said = against.map((a) => {
    const sign = a.pHolm !== null && a.pHolm < 0.05 ? ((a.delta ?? 0) > 0 ? 'beats' : 'loses to') : 'cannot be told apart from';
    return `${sign} ${a.label} (${f4(a.score)}; Δ ${signed(a.delta)}, Holm ${pText(a.pHolm)})`;
  });
  const fit = model ? `ridge on ${model.features.length} predictors, fitted on ${x.length} tuning queries (${flat} scored alike at every α left out)` : `no fit (${x.length ? 'no predictor varies' : 'every tuning query scored alike at every α'}): the best fixed α throughout`;
  return {
    predictors: model ? model.features.map((j) => names[j]!) : [], fitted: x.length, flat, bestFixedAlpha: ALPHA_GRID[bestIndex]!,
    meanAlpha: predicted.reduce((a, b) => a + b, 0) / Math.max(1, predicted.length) / 10,
    learned: { score: f.current.score, ci: f.current.ci }, against,
    verdict: `Learned per-query α (${fit}): on the ${heldOut.length} held-out queries ${input.metric} ${f4(f.current.score)}; it ${said.join(', and ')}.`,
  };
}
