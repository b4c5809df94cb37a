/** Low-confidence rejection: refuse to return results when even the best one is too weak. */

/** Default threshold on the top result's confidence (a score in [0, 1]). */
export const DEFAULT_REJECT_THRESHOLD = 0.15;

export type RejectionCheck =
  | { rejected: false; confidence: number | null; note?: string }
  | { rejected: true; confidence: number; reason: string };

/**
 * Rejects when confidence < threshold. `confidence` is null when the mode has no score on a [0, 1] scale
 * (then nothing is rejected and `note` says why).
 */
export function checkConfidence(confidence: number | null, threshold: number, why?: string): RejectionCheck {
  if (confidence === null) return { rejected: false, confidence: null, note: why ?? 'no calibrated confidence for this mode' };
  if (confidence < threshold) {
    return {
      rejected: true,
      confidence,
      reason: `Low confidence: the best result scores ${confidence.toFixed(3)}, below the threshold ${threshold}.`,
    };
  }
  return { rejected: false, confidence };
}
