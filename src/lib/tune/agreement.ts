/**
 * Whether two test sets of one knowledge base rank the same settings alike (e.g. 30 labelled queries against 300
 * written by an LLM, or pseudo-queries): Kendall τ-b of the settings' scores on each (stats/correlation.ts; Voorhees
 * 2000 read τ ≥ 0.9 between two judgements as "equivalent") and the regret of the other set's top setting, measured on
 * the reference set: regret = max_s A(s) − A(argmax_s B(s)). The check passes at τ ≥ 0.9 and regret ≤ 0.01.
 */
import { kendallTauB } from '../stats/correlation.ts';

export const AGREEMENT_BAR = Object.freeze({ tau: 0.9, regret: 0.01 });

export interface Agreement {
  settings: number;
  tau: number | null;
  /** Indexes of each set's top setting (ties: the first). */
  topReference: number;
  topOther: number;
  regret: number;
  passes: boolean;
}

/** `reference[i]` and `other[i]` are setting i's scores on the two test sets. */
export function agreementOf(reference: readonly number[], other: readonly number[]): Agreement {
  if (reference.length !== other.length || reference.length < 2) throw new RangeError('agreement needs the same two or more settings scored on both test sets');
  const top = (xs: readonly number[]) => xs.reduce((best, x, i) => (x > xs[best]! ? i : best), 0);
  const topReference = top(reference), topOther = top(other);
  const tau = kendallTauB(reference, other);
  const regret = reference[topReference]! - reference[topOther]!;
  return { settings: reference.length, tau, topReference, topOther, regret, passes: tau !== null && tau >= AGREEMENT_BAR.tau && regret <= AGREEMENT_BAR.regret };
}
