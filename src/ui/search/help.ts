/** One-line explanations of the Search tab's calibration and threshold controls. */
import type { Calibration } from '../../lib/retrieval/calibrate.ts';

export const CALIBRATION_HELP: Readonly<Record<Calibration, string>> = {
  raw: 'raw: each retriever’s own score (BM25 is unbounded, cosine −1…1), so fused modes mix scales and nothing is rejected.',
  minmax: 'min-max: rescales this query’s candidates so the best is 1 and the worst 0 (relative to this query only).',
  zscore: 'z-score: how many standard deviations a score is above this query’s mean (unbounded, so nothing is rejected).',
  cdf: 'CDF: the share of corpus-wide sample scores below this score (0…1, comparable across queries).',
};

export function thresholdHelp(threshold: number, modeDefault = false): string {
  return threshold > 0
    ? `Reject below ${threshold}${modeDefault ? ' (this mode’s default; type a number to override)' : ''}: when the top result’s confidence (0…1) is under ${threshold}, the search answers “No confident answer” and shows the candidates only for inspection.`
    : 'Reject below 0: nothing is rejected; every search presents its results as answers.';
}
