/**
 * Low-confidence rejection: refuse to return results when even the best one is too weak.
 *
 * Confidence of the top hit (see docs/internals/retrieval.md, "Confidence and rejection"):
 * - the lexical evidence `idfCoverage`: the share of the query's idf that the best BM25 match contains (every mode
 *   has it; dense mode looks BM25's best match up for it);
 * - modes with a model also need the model's own evidence for the top hit (clipped cosine, or the sigmoid of the
 *   rerank logit), and the confidence is the smaller of the two (`supportedConfidence`): an answer is trusted only
 *   when the query's words and the model both support it.
 * The default thresholds are chosen per mode by `npm run bench:rejection` (scripts/measure-rejection.ts).
 */
import type { RetrievalMode } from './modes.ts';

/**
 * Default threshold per mode, from `npm run bench:rejection`: the largest multiple of 0.05 that still answers at
 * least 95 % of the in-domain queries (SOTU, SciFact, seven RAGBench subsets, pooled). Model modes were measured
 * with the non-semantic fixture models only, so their figures are those of the lexical factor; see
 * docs/architecture.md.
 */
export const DEFAULT_REJECT_THRESHOLDS: Readonly<Record<RetrievalMode, number>> = Object.freeze({
  sparse: 0.3,
  dense: 0.3,
  rrf: 0.3,
  hybrid_fixed: 0.3,
  hybrid_calibrated: 0.3,
  hybrid_fixed_rerank: 0.3,
  hybrid_calibrated_rerank: 0.3,
});

/** The threshold a search uses: the one asked for, else the mode's default. */
export function rejectThresholdFor(mode: RetrievalMode, asked: number | null | undefined): number {
  return asked ?? DEFAULT_REJECT_THRESHOLDS[mode];
}

/** Share of the query's idf held by the item: Σ_{t ∈ q, t in item} idf(t) / Σ_{t ∈ q} idf(t) (0 for no terms). */
export function idfCoverage(idf: readonly number[], matched: readonly boolean[]): number {
  let all = 0, hit = 0;
  idf.forEach((w, i) => { all += w; if (matched[i]) hit += w; });
  return all > 0 ? hit / all : 0;
}

/** min(lexical, model), each clipped to [0, 1]: both the query's words and the model must support the top hit. */
export function supportedConfidence(lexical: number, model: number): number {
  const clip = (x: number) => Math.max(0, Math.min(1, x));
  return Math.min(clip(lexical), clip(model));
}

/** The confidence as every place shows it (the rejection reason, the top hit's card, the telemetry): 3 decimals. */
export function formatConfidence(confidence: number): string {
  return confidence.toFixed(3);
}

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
      reason: `Low confidence: the top result's confidence is ${formatConfidence(confidence)}, below the threshold ${threshold}.`,
    };
  }
  return { rejected: false, confidence };
}
