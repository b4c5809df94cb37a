/**
 * Seed B's verdicts on its two hypotheses, read from an analysis (analysis.ts) by the rules of docs/analysis.md
 * "Verdicts":
 *   H1 — per retriever with entropy rows, the strongest negative predictor is the entropy calibration with the most
 *        negative Pearson r among rows with r < 0 and Holm-corrected p < 0.05 (Holm over that retriever's entropy rows);
 *        supported when it is cdf for every retriever judged, partially for some, not supported for none;
 *   H2 — hybrid_calibrated against hybrid_fixed and rrf, the paired-bootstrap p Holm-corrected over those two pairs;
 *        it beats a baseline when Δ > 0 and the corrected p < 0.05; supported: both, partially: one, not: neither.
 * Pure; every verdict carries its reason in words, naming the figures it rests on. n/a (never a guess) when a mode,
 * a predictor or the queries to judge by are missing.
 */
import { fmtP, fmtSigned, fmtValue } from '../../reports/compare-format.ts';
import { holm } from '../../stats/paired.ts';
import { MIN_ROWS } from '../../reports/summary-stats.ts';
import type { H1Row, RetrievalAnalysis } from './analysis-types.ts';

export type Verdict = 'supported' | 'partially' | 'not_supported' | 'n/a';

/** The family-wise level of both rules (after Holm's correction). */
export const VERDICT_ALPHA = 0.05;

/** The hypotheses in seed B's words. */
export const HYPOTHESES = Object.freeze({
  h1: 'CDF entropy has the strongest negative correlation with retrieval quality.',
  h2: 'Calibrated entropy fusion significantly outperforms fixed-alpha and RRF baselines.',
});

export const VERDICT_LABEL: Readonly<Record<Verdict, { symbol: string; label: string }>> = Object.freeze({
  supported: { symbol: '✅', label: 'Supported' },
  partially: { symbol: '⚠️', label: 'Partially supported' },
  not_supported: { symbol: '❌', label: 'Not supported' },
  'n/a': { symbol: '–', label: 'n/a' },
});

/** H2's modes: the calibrated fusion, its two baselines, and the rerank pair of the extra line. */
export const H2_MODE = 'hybrid_calibrated';
export const H2_BASELINES = ['hybrid_fixed', 'rrf'] as const;
export const RERANK_PAIR = ['hybrid_calibrated_rerank', 'hybrid_fixed_rerank'] as const;

export interface H1RetrieverVerdict {
  /** The mode the entropy rows are paired with (sparse, dense). */
  retriever: string;
  /** cdf entropy is this retriever's strongest negative predictor; null: not judged (no usable cdf row). */
  cdf_strongest: boolean | null;
  /** The calibration with the most negative significant r, or null when none is significant and negative. */
  strongest: { calibration: string; r: number; p_holm: number } | null;
  /** cdf's r and Holm-corrected p, null without a usable cdf row. */
  cdf: { r: number; p_holm: number } | null;
  /** The retriever's part of the reason. */
  why: string;
}

export interface PairVerdict {
  a: string;
  b: string;
  /** Paired queries. */
  n: number;
  /** mean(a) − mean(b). */
  delta: number | null;
  /** Paired-bootstrap p, two-sided. */
  p_value: number | null;
  /** p_value Holm-corrected over H2's two pairs (null for the rerank pair, which is outside that family). */
  p_holm: number | null;
  /** a against b at VERDICT_ALPHA; n/a when the pair cannot be tested. */
  outcome: 'beats' | 'ties' | 'loses' | 'n/a';
}

export interface H1Verdict { verdict: Verdict; hypothesis: string; reason: string; retrievers: H1RetrieverVerdict[] }

export interface H2Verdict {
  verdict: Verdict;
  hypothesis: string;
  reason: string;
  pairs: PairVerdict[];
  /** hybrid_calibrated_rerank vs hybrid_fixed_rerank (uncorrected p), null when either mode is missing. */
  rerank: PairVerdict | null;
  /** The mode with the highest mean metric (the first in report order on a tie). */
  best: { mode: string; mean: number; n: number } | null;
  /** The rerank pair and the best mode in words; does not change the verdict. */
  extra: string | null;
}

export interface HypothesisVerdicts { h1: H1Verdict; h2: H2Verdict }

const pText = (label: string, p: number) => { const s = fmtP(p); return s.startsWith('<') ? `${label} < ${s.slice(1)}` : `${label} = ${s}`; };
const rText = (r: number) => `r = ${fmtSigned(r, 4)}`;

/** The verdict of "all / some / none of `judged`". */
function byCount(hits: number, judged: number): Verdict {
  if (judged === 0) return 'n/a';
  return hits === judged ? 'supported' : hits > 0 ? 'partially' : 'not_supported';
}

/** One retriever's entropy rows judged: which calibration is the strongest negative predictor. */
function h1Retriever(retriever: string, rows: readonly H1Row[]): H1RetrieverVerdict {
  const usable = rows.filter((r) => r.pearson_r !== null && r.p_value !== null && r.n >= MIN_ROWS);
  const adjusted = holm(usable.map((r) => r.p_value));
  const cdfAt = usable.findIndex((r) => r.calibration === 'cdf');
  const cdfRow = rows.find((r) => r.calibration === 'cdf');
  const notJudged = (why: string): H1RetrieverVerdict => ({ retriever, cdf_strongest: null, strongest: null, cdf: null, why: `${retriever}: not judged, ${why}` });
  if (!cdfRow) return notJudged('no cdf entropy row');
  if (cdfAt < 0) {
    return notJudged(cdfRow.pearson_r === null ? `cdf entropy has no r${cdfRow.note ? ` (${cdfRow.note})` : ''}` : `only ${cdfRow.n} queries with cdf entropy (fewer than ${MIN_ROWS})`);
  }
  const cdf = { r: usable[cdfAt]!.pearson_r!, p_holm: adjusted[cdfAt]! };
  let best = -1;
  usable.forEach((r, i) => {
    if (r.pearson_r! >= 0 || adjusted[i]! >= VERDICT_ALPHA) return;
    // The most negative r; on an exact tie cdf counts as the strongest.
    if (best < 0 || r.pearson_r! < usable[best]!.pearson_r! || (r.pearson_r === usable[best]!.pearson_r && i === cdfAt)) best = i;
  });
  const cdfFigures = `cdf ${rText(cdf.r)}, ${pText('Holm p', cdf.p_holm)}`;
  if (best < 0) return { retriever, cdf_strongest: false, strongest: null, cdf, why: `${retriever}: no entropy calibration has a significant negative r (${cdfFigures})` };
  const strongest = { calibration: String(usable[best]!.calibration), r: usable[best]!.pearson_r!, p_holm: adjusted[best]! };
  return best === cdfAt
    ? { retriever, cdf_strongest: true, strongest, cdf, why: `${retriever}: cdf entropy is the strongest negative predictor (${rText(cdf.r)}, ${pText('Holm p', cdf.p_holm)})` }
    : { retriever, cdf_strongest: false, strongest, cdf, why: `${retriever}: ${strongest.calibration} entropy is the strongest negative predictor (${rText(strongest.r)}, ${pText('Holm p', strongest.p_holm)}), whereas ${cdfFigures}` };
}

/** H1's verdict over the entropy rows of every retriever present. */
export function h1Verdict(a: Pick<RetrievalAnalysis, 'h1'>): H1Verdict {
  const entropy = a.h1.filter((r) => r.predictor === 'entropy');
  const retrievers = [...new Set(entropy.map((r) => r.retriever))].map((m) => h1Retriever(m, entropy.filter((r) => r.retriever === m)));
  const judged = retrievers.filter((r) => r.cdf_strongest !== null);
  const verdict = byCount(judged.filter((r) => r.cdf_strongest).length, judged.length);
  const reason = retrievers.length === 0 ? 'no entropy predictor (qpp.entropy.*) in the report' : retrievers.map((r) => r.why).join('; ');
  return { verdict, hypothesis: HYPOTHESES.h1, reason, retrievers };
}

/** The pair (a, b) of H2's rows, oriented so that Δ = mean(a) − mean(b), and why it cannot be tested (or null). */
function pairOf(an: Pick<RetrievalAnalysis, 'h2'>, a: string, b: string): { pair: Omit<PairVerdict, 'p_holm' | 'outcome'>; untestable: string | null } {
  const row = an.h2.find((r) => r.a === a && r.b === b) ?? an.h2.find((r) => r.a === b && r.b === a);
  const delta = row?.delta ?? null;
  const pair = { a, b, n: row?.n ?? 0, delta: delta === null || row!.a === a ? delta : 0 - delta, p_value: row?.p_value ?? null };
  const untestable = pair.n < MIN_ROWS ? `only ${pair.n} paired queries for ${a} vs ${b} (fewer than ${MIN_ROWS})`
    : pair.delta === null || pair.p_value === null ? `no bootstrap p for ${a} vs ${b} (0 resamples)` : null;
  return { pair, untestable };
}

/** Why pairs of these modes cannot be tested: the modes not in the analysis, or null. */
function absentModes(an: Pick<RetrievalAnalysis, 'modes'>, modes: readonly string[]): string | null {
  const absent = modes.filter((m) => !an.modes.includes(m));
  return absent.length === 0 ? null : absent.length === 1 ? `mode ${absent[0]} is not in the report` : `modes ${absent.join(', ')} are not in the report`;
}

const outcomeOf = (delta: number, p: number): PairVerdict['outcome'] => (p < VERDICT_ALPHA && delta > 0 ? 'beats' : p < VERDICT_ALPHA && delta < 0 ? 'loses' : 'ties');
const OUTCOME_WORDS: Readonly<Record<PairVerdict['outcome'], string>> = { beats: 'beats', ties: 'ties with', loses: 'loses to', 'n/a': 'is not tested against' };

/** "beats hybrid_fixed (Δ ndcg@10 = +0.0152, p = 0.012, Holm p = 0.024)"; "uncorrected p" outside the Holm family. */
function pairWords(p: PairVerdict, metric: string): string {
  const figures = [`Δ ${metric} = ${fmtSigned(p.delta, 4)}`, ...(p.p_holm === null ? [pText('uncorrected p', p.p_value!)] : [pText('p', p.p_value!), pText('Holm p', p.p_holm)])];
  return `${OUTCOME_WORDS[p.outcome]} ${p.b} (${figures.join(', ')})`;
}

/** H2's verdict: hybrid_calibrated against hybrid_fixed and rrf, with the rerank pair and the best mode as an extra line. */
export function h2Verdict(a: Pick<RetrievalAnalysis, 'h2' | 'modes' | 'metric' | 'means'>): H2Verdict {
  const tested = H2_BASELINES.map((b) => pairOf(a, H2_MODE, b));
  const absent = absentModes(a, [H2_MODE, ...H2_BASELINES]);
  const untestable = absent ? [absent] : tested.flatMap((t) => (t.untestable ? [t.untestable] : []));
  const adjusted = untestable.length ? tested.map(() => null) : holm(tested.map((t) => t.pair.p_value));
  const pairs: PairVerdict[] = tested.map((t, i) => {
    const p_holm = adjusted[i] ?? null;
    return { ...t.pair, p_holm, outcome: p_holm === null ? 'n/a' : outcomeOf(t.pair.delta!, p_holm) };
  });
  const verdict = untestable.length ? 'n/a' : byCount(pairs.filter((p) => p.outcome === 'beats').length, pairs.length);
  const reason = untestable.length ? untestable.join('; ') : `${H2_MODE} ${pairs.map((p) => pairWords(p, a.metric)).join(' and ')}`;

  const [ra, rb] = RERANK_PAIR;
  const rr = absentModes(a, RERANK_PAIR) ? null : pairOf(a, ra, rb);
  const rerank: PairVerdict | null = rr ? { ...rr.pair, p_holm: null, outcome: rr.untestable ? 'n/a' : outcomeOf(rr.pair.delta!, rr.pair.p_value!) } : null;
  let best: H2Verdict['best'] = null;
  for (const m of a.means) if (m.mean !== null && (best === null || m.mean > best.mean)) best = { mode: m.mode, mean: m.mean, n: m.n };
  const extra = [
    ...(rerank && rr ? [rr.untestable ? `With reranking: ${rr.untestable}` : `With reranking, ${ra} ${pairWords(rerank, a.metric)}`] : []),
    ...(best ? [`Best mean ${a.metric}: ${best.mode} (${fmtValue(best.mean, 4)} over ${best.n} queries)`] : []),
  ];
  return { verdict, hypothesis: HYPOTHESES.h2, reason, pairs, rerank, best, extra: extra.length ? `${extra.join('. ')}.` : null };
}

/** Both verdicts of an analysis. */
export function hypothesisVerdicts(a: Pick<RetrievalAnalysis, 'h1' | 'h2' | 'modes' | 'metric' | 'means'>): HypothesisVerdicts {
  return { h1: h1Verdict(a), h2: h2Verdict(a) };
}

/** "✅ Supported", "⚠️ Partially supported"… */
export const verdictLabel = (v: Verdict): string => `${VERDICT_LABEL[v].symbol} ${VERDICT_LABEL[v].label}`;
