/**
 * What the app says where α is shown (telemetry, the α simulator, a retrieval report) when both entropies are
 * saturated (`entropiesSaturated`, src/lib/retrieval/entropy.ts, decides): why α sits at 0.5, with a pointer to the
 * H1 result. Text only; the components render it.
 */
import { entropiesSaturated } from '../../lib/retrieval/entropy.ts';

/** Where the H1 result is written up (the app cites its docs by path and section, as elsewhere). */
export const H1_REFERENCE = 'docs/analysis.md, “Why α sits at 0.5 under CDF calibration”';

const WHY = 'the calibrated scores of the top candidates are near-uniform (under corpus-CDF calibration they all sit near percentile 1), ' +
  'so entropy carries no signal and α = 0.5, a fixed half-and-half fusion. This is seed B’s own H1 result: CDF entropy barely tracks ' +
  `retrieval quality (seed B: r = −0.115, against −0.407 for z-score entropy; measured here: ${H1_REFERENCE}).`;

/** The sentence for one query whose two entropies are both within 1 % of log2 k. */
export function saturatedNote(k: { sparse: number; dense: number }): string {
  const max = (n: number) => `log2(${n}) = ${Math.log2(n).toFixed(2)}`;
  const bound = k.sparse === k.dense ? max(k.sparse) : `${max(k.sparse)} (BM25) and ${max(k.dense)} (dense)`;
  return `Both entropies are within 1 % of their maximum ${bound}: ${WHY}`;
}

/**
 * The Search tab's telemetry: the note when the search's H_sparse and H_dense are saturated, else null. k of a side is
 * its entropy depth (candidate_k, or bm25_k / dense_k), capped by the candidates it returned.
 */
export function telemetryAlphaNote(t: {
  hSparse: number | null; hDense: number | null; entropy: { k: number; kDense?: number } | null; candidates: { sparse: number; dense: number };
}): string | null {
  if (!t.entropy) return null;
  const k = { sparse: Math.min(t.entropy.k, t.candidates.sparse), dense: Math.min(t.entropy.kDense ?? t.entropy.k, t.candidates.dense) };
  return entropiesSaturated({ sparse: t.hSparse, dense: t.hDense }, k) ? saturatedNote(k) : null;
}

/** The α simulator on one query (its own H under the picked calibration, over each retriever's top k). */
export function queryAlphaNote(h: { sparse: number; dense: number }, k: { sparse: number; dense: number }): string | null {
  return entropiesSaturated(h, k) ? saturatedNote(k) : null;
}

/**
 * A retrieval report: how many of its queries have both CDF entropies (`qpp.entropy.sparse.cdf`, `qpp.entropy.dense.cdf`,
 * over the config's `qpp.entropyK` / `entropyKDense`) saturated, each query counted once; null when the report has no
 * such fields. The line says so when any query is saturated.
 */
export function reportAlphaNote(
  rows: ReadonlyArray<{ key: string; group: string; scores: Readonly<Record<string, unknown>> }>, config: Readonly<Record<string, unknown>>,
): { saturated: number; total: number; text: string | null } | null {
  const qpp = config.qpp as { entropyK?: unknown; entropyKDense?: unknown } | null | undefined;
  const kS = typeof qpp?.entropyK === 'number' ? qpp.entropyK : null;
  if (kS === null) return null;
  const k = { sparse: kS, dense: typeof qpp?.entropyKDense === 'number' ? qpp.entropyKDense : kS };
  const seen = new Map<string, boolean>();
  for (const r of rows) {
    const s = r.scores['qpp.entropy.sparse.cdf'], d = r.scores['qpp.entropy.dense.cdf'];
    if (typeof s !== 'number' || typeof d !== 'number') continue;
    const id = r.key.startsWith(`${r.group}:`) ? r.key.slice(r.group.length + 1) : r.key;
    if (!seen.has(id)) seen.set(id, entropiesSaturated({ sparse: s, dense: d }, k));
  }
  if (seen.size === 0) return null;
  const saturated = [...seen.values()].filter(Boolean).length;
  const text = saturated === 0 ? null
    : `In ${saturated} of ${seen.size} queries ${saturatedNote(k).replace(/^Both/, 'both')}`;
  return { saturated, total: seen.size, text };
}
