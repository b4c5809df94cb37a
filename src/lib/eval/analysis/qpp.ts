/**
 * Query performance predictors (post-retrieval) of one query's ranked list, as QPP4CS `post_retrieval.py` defines
 * them (../shared/notes/hub-and-formats.md §8), and the score entropy of seed B under each calibration:
 *
 *   entropy_c  = H(calibrate_c(top entropyK scores))             (entropy.ts: log2; softmax when a score is < 0)
 *   NQC        = std_pop(top nqcK scores) / |mean(all listDepth scores)|   (nqc_nonorm: without the divisor)
 *   WIG        = (mean(top wigK) − mean(all)) / sqrt(|q|)
 *   clarity    = Σ_w p(w|q) · ln(p(w|q) / p_coll(w)), RM1 over the top clarityK items weighted by their scores,
 *                top clarityTerms terms renormalised, p_coll(w) = cf(w) / total terms (tokens of the BM25 index)
 *
 * Pinned choices (tests/unit/qpp.test.ts): population std (ddof 0); NQC's divisor is the absolute mean of the WHOLE
 * list (not the top k); a list shorter than k uses all of it; a zero divisor or an empty list gives null. Clarity
 * uses the natural log, the raw retriever scores as RM1 document weights (negative ones clamped to 0; all weights 0
 * → null), maximum-likelihood document models tf/|d| without smoothing, the BM25 analyzer's tokens (its postings),
 * and ties among terms broken by term id (index order). α_c = H_dense,c / (H_dense,c + H_sparse,c + ε); cdf without
 * the knowledge base's table falls back to minmax (as search.ts calibrateSide does); an empty list's H is 0 in α,
 * as in search.ts, so α.<c> is the α the hybrid_calibrated mode uses under calibration c (entropy basis
 * 'calibrated', seed B's) on the same candidate lists, and α.raw the one it uses with entropy basis 'raw'.
 */
import type { Bm25Data } from '../../retrieval/bm25.ts';
import { CALIBRATIONS, type Calibration } from '../../retrieval/calibrate.ts';
import { candidateEntropy, effectiveCalibration, entropyAlpha, entropyUnder } from '../../retrieval/entropy.ts';
import type { KnowledgeBase } from '../../retrieval/knowledge-base.ts';
import type { Scored } from '../../retrieval/topk.ts';

export interface QppOptions {
  /** Depth of the ranked list the predictors read (QPP4CS: 1000). */
  listDepth: number;
  /** Entries of the list the entropy reads: the candidate list calibrated fusion reads (the run's candidateK). */
  entropyK: number;
  /** The dense list's entropy depth when it differs from `entropyK` (seed A's dense_k beside bm25_k). */
  entropyKDense?: number;
  nqcK: number;
  wigK: number;
  clarityK: number;
  clarityTerms: number;
}

export const QPP_DEFAULTS: Readonly<QppOptions> = Object.freeze({ listDepth: 1000, entropyK: 100, nqcK: 100, wigK: 5, clarityK: 100, clarityTerms: 100 });

/** The retriever whose list a predictor reads; `fusion` is α, which reads both. */
export type QppRetriever = 'sparse' | 'dense' | 'fusion';
export const QPP_PREDICTORS = ['entropy', 'clarity', 'nqc', 'nqc_nonorm', 'wig', 'alpha'] as const;
export type QppPredictor = (typeof QPP_PREDICTORS)[number];

export interface PredictorKey { predictor: QppPredictor; retriever: QppRetriever; calibration: Calibration | null }

/**
 * The report score field of a predictor: `qpp.<predictor>.<retriever>[.<calibration>]`, e.g. `qpp.entropy.sparse.cdf`,
 * `qpp.nqc.dense`, `qpp.alpha.fusion.raw`. Entropy and α carry a calibration, the others none.
 */
export function predictorField(k: PredictorKey): string {
  return `qpp.${k.predictor}.${k.retriever}${k.calibration ? `.${k.calibration}` : ''}`;
}

/** The inverse of `predictorField`; null for any other field. */
export function parsePredictorField(field: string): PredictorKey | null {
  const m = /^qpp\.([a-z_]+)\.(sparse|dense|fusion)(?:\.(raw|minmax|zscore|cdf))?$/.exec(field);
  if (!m || !(QPP_PREDICTORS as readonly string[]).includes(m[1]!)) return null;
  return { predictor: m[1] as QppPredictor, retriever: m[2] as QppRetriever, calibration: (m[3] as Calibration | undefined) ?? null };
}

export { candidateEntropy, effectiveCalibration, entropyUnder };

function meanOf(xs: readonly number[], n = xs.length): number {
  let s = 0;
  for (let i = 0; i < n; i++) s += xs[i]!;
  return s / n;
}

/** NQC; null when the list is empty or (normalised) the divisor is 0. A list shorter than k uses all of it. */
export function nqc(scores: readonly number[], k: number, normalise: boolean): number | null {
  const n = Math.min(Math.max(0, Math.floor(k)), scores.length);
  if (n === 0) return null;
  // std_pop(top k) = sqrt((1/k) Σ_{i<k} (s_i − μ_k)²), μ_k = mean of the top k
  const mu = meanOf(scores, n);
  let ss = 0;
  for (let i = 0; i < n; i++) ss += (scores[i]! - mu) ** 2;
  const sd = Math.sqrt(ss / n);
  if (!normalise) return sd;
  // divisor = |mean of the whole list| (QPP4CS's proxy for the corpus score s(D); abs so negative means keep the sign of sd)
  const corpus = Math.abs(meanOf(scores));
  return corpus > 0 ? sd / corpus : null;
}

/** WIG; null when the list is empty or the query has no terms. */
export function wig(scores: readonly number[], k: number, queryLength: number): number | null {
  const n = Math.min(Math.max(0, Math.floor(k)), scores.length);
  if (n === 0 || !(queryLength > 0)) return null;
  // WIG = (mean(top k) − mean(all)) / sqrt(|q|)
  return (meanOf(scores, n) - meanOf(scores)) / Math.sqrt(queryLength);
}

/** A doc-major view of a BM25 index's postings: each item's (term, tf) pairs, cf per term and the total tokens. */
interface ForwardIndex {
  /** Pairs of item d are [offsets[d], offsets[d+1]) in terms / tfs. */
  offsets: Uint32Array;
  terms: Uint32Array;
  tfs: Uint16Array;
  docLengths: Uint32Array;
  /** Collection frequency of each term (Σ tf over its postings). */
  cf: Float64Array;
  totalTokens: number;
  /** Scratch accumulator over the vocabulary (clarity is synchronous, so one per index is enough). */
  acc: Float64Array;
  touched: Uint8Array;
}

const forwardCache = new WeakMap<Bm25Data, ForwardIndex>();

/** The forward index of `data`, built once per index (O(postings)) and cached. */
function forwardIndex(data: Bm25Data): ForwardIndex {
  const hit = forwardCache.get(data);
  if (hit) return hit;
  const N = data.docLengths.length, T = data.terms.length;
  const offsets = new Uint32Array(N + 1);
  for (let i = 0; i < data.docs.length; i++) offsets[data.docs[i]! + 1]!++;
  for (let d = 0; d < N; d++) offsets[d + 1]! += offsets[d]!;
  const fill = offsets.slice(0, N);
  const terms = new Uint32Array(data.docs.length);
  const tfs = new Uint16Array(data.docs.length);
  const cf = new Float64Array(T);
  for (let t = 0; t < T; t++) {
    for (let i = data.offsets[t]!, end = data.offsets[t + 1]!; i < end; i++) {
      const at = fill[data.docs[i]!]!++;
      terms[at] = t;
      tfs[at] = data.tfs[i]!;
      cf[t]! += data.tfs[i]!;
    }
  }
  let totalTokens = 0;
  for (const l of data.docLengths) totalTokens += l;
  const fwd: ForwardIndex = { offsets, terms, tfs, docLengths: data.docLengths, cf, totalTokens, acc: new Float64Array(T), touched: new Uint8Array(T) };
  forwardCache.set(data, fwd);
  return fwd;
}

/**
 * The `m` ids of `ids` with the largest `weight` (equal weights: lower id first), in no particular order. A numeric
 * sort of the weights finds the cut-off (no comparator sort over thousands of terms); ties at the cut-off go by id.
 */
function heaviest(ids: number[], weight: Float64Array, m: number): number[] {
  if (ids.length <= m) return ids;
  if (m === 0) return [];
  const w = Float64Array.from(ids, (t) => weight[t]!).sort();
  const cut = w[w.length - m]!;
  const out = ids.filter((t) => weight[t]! > cut);
  const atCut = ids.filter((t) => weight[t] === cut).sort((a, b) => a - b);
  return out.concat(atCut.slice(0, m - out.length));
}

/**
 * Clarity of a ranked list of the knowledge base's items (QPP4CS): RM1 p(w|q) ∝ Σ_{d ∈ top k} max(0, s(d))·tf(w,d)/|d|,
 * the top `terms` terms kept and renormalised, then Σ_w p(w|q)·ln(p(w|q)/p_coll(w)). Null when the list is empty,
 * every weight is 0, or the top items hold no tokens.
 */
export function clarity(bm25: Bm25Data, items: readonly Scored[], k: number, terms: number): number | null {
  const fwd = forwardIndex(bm25);
  const { offsets, terms: termOf, tfs, docLengths, acc, touched } = fwd;
  const n = Math.min(Math.max(0, Math.floor(k)), items.length);
  const seen: number[] = [];
  try {
    for (let i = 0; i < n; i++) {
      const w = Math.max(0, items[i]!.score);
      const d = items[i]!.index;
      const len = docLengths[d]!;
      if (!(w > 0) || len === 0) continue;
      // RM1 contribution of item d: s(d)·tf(w,d)/|d| (maximum-likelihood document model, no smoothing)
      for (let j = offsets[d]!, end = offsets[d + 1]!; j < end; j++) {
        const t = termOf[j]!;
        if (touched[t] === 0) { touched[t] = 1; acc[t] = 0; seen.push(t); }
        acc[t]! += (w * tfs[j]!) / len;
      }
    }
    if (seen.length === 0) return null;
    // The top `terms` terms by weight (ties: lower term id first), renormalised to sum 1.
    const kept = heaviest(seen, acc, Math.max(0, Math.floor(terms)));
    let z = 0;
    for (const t of kept) z += acc[t]!;
    if (!(z > 0)) return null;
    // clarity = Σ_w p(w|q) · ln(p(w|q) / p_coll(w)), p_coll(w) = cf(w) / total tokens
    let c = 0;
    for (const t of kept) {
      const p = acc[t]! / z;
      if (p > 0) c += p * Math.log(p / (fwd.cf[t]! / fwd.totalTokens));
    }
    return c;
  } finally {
    for (const t of seen) touched[t] = 0;
  }
}

/** One ranked retriever list of a query: items best first, at most `listDepth` long. */
export interface QueryLists {
  sparse: readonly Scored[] | null;
  dense: readonly Scored[] | null;
}

/**
 * Every predictor of one query as report score fields (`predictorField`): entropy under each calibration, clarity,
 * NQC, NQC without normaliser and WIG of each list given, and α = H_dense / (H_dense + H_sparse + ε) under each
 * calibration when both are given. A predictor without a value (empty list, no table) is null.
 */
export function queryPredictors(kb: KnowledgeBase, queryTerms: readonly string[], lists: QueryLists, opts: Partial<QppOptions> = {}): Record<string, number | null> {
  const o: QppOptions = { ...QPP_DEFAULTS, ...opts };
  const out: Record<string, number | null> = {};
  const h: Record<'sparse' | 'dense', Partial<Record<Calibration, number | null>>> = { sparse: {}, dense: {} };
  const bm25 = kb.bm25.toData();
  for (const side of ['sparse', 'dense'] as const) {
    const list = lists[side];
    if (!list) continue;
    const items = list.slice(0, Math.max(0, o.listDepth));
    const scores = items.map((s) => s.score);
    const top = scores.slice(0, Math.max(0, side === 'dense' ? o.entropyKDense ?? o.entropyK : o.entropyK));
    const table = side === 'sparse' ? kb.sparseCdf : kb.denseCdf;
    for (const c of CALIBRATIONS) {
      const hc = candidateEntropy(c, top, table);
      h[side][c] = hc;
      out[predictorField({ predictor: 'entropy', retriever: side, calibration: c })] = hc;
    }
    out[predictorField({ predictor: 'clarity', retriever: side, calibration: null })] = clarity(bm25, items, o.clarityK, o.clarityTerms);
    out[predictorField({ predictor: 'nqc', retriever: side, calibration: null })] = nqc(scores, o.nqcK, true);
    out[predictorField({ predictor: 'nqc_nonorm', retriever: side, calibration: null })] = nqc(scores, o.nqcK, false);
    out[predictorField({ predictor: 'wig', retriever: side, calibration: null })] = wig(scores, o.wigK, queryTerms.length);
  }
  if (lists.sparse && lists.dense) {
    for (const c of CALIBRATIONS) {
      // α_c = H_dense,c / (H_dense,c + H_sparse,c + ε); an empty list counts H = 0 as in search.ts
      out[predictorField({ predictor: 'alpha', retriever: 'fusion', calibration: c })] = entropyAlpha(h.dense[c] ?? 0, h.sparse[c] ?? 0);
    }
  }
  return out;
}
