/**
 * The tuner's split of a test set's judged queries into a tuning part (the settings are chosen on it) and a held-out
 * part (the winner is reported on it: a maximum over many settings measured on the same queries is biased upward).
 * The ids are sorted, shuffled by a seeded Fisher–Yates (mulberry32, random.ts), and the first round(n · heldOut)
 * are held out: the same ids and seed give the same split, whatever order the test set lists them in.
 */
import { seededRandom } from '../random.ts';

/** The held-out fraction when none is given. */
export const DEFAULT_HELD_OUT = 0.3;

export interface TuneSplit {
  seed: number;
  /** The fraction asked for (the held-out part is round(n · heldOutFraction) queries). */
  heldOutFraction: number;
  tuning: string[];
  heldOut: string[];
}

export function tuneSplit(ids: readonly string[], seed = 0, heldOutFraction = DEFAULT_HELD_OUT): TuneSplit {
  if (!(heldOutFraction > 0 && heldOutFraction < 1)) throw new RangeError(`the held-out fraction must be between 0 and 1 (exclusive), got ${heldOutFraction}`);
  const order = [...new Set(ids)].sort();
  const rand = seededRandom(seed);
  for (let i = order.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [order[i], order[j]] = [order[j]!, order[i]!];
  }
  const held = Math.round(order.length * heldOutFraction);
  return { seed, heldOutFraction, heldOut: order.slice(0, held), tuning: order.slice(held) };
}
