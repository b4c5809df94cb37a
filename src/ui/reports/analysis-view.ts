/**
 * What the analysis view (RetrievalAnalysis.svelte) shows of a retrieval report's analysis (src/lib/eval/analysis/analysis.ts):
 * the H1 table (a predictor against per-query NDCG@10: r, p, Spearman, Kendall with their bootstrap intervals, the
 * expected sign met or not), the H2 table (pairs of modes: Δ with its interval, the two p-values, W/T/L) with its
 * "pairs with mode X" filter, each table's verdict on seed B's hypothesis (src/lib/eval/analysis/verdicts.ts), and the
 * settings line. Pure: strings only, so the component renders text. Numbers read
 * as Compare's do (src/lib/reports/compare-format.ts: "n/a" for null, "<0.001", signed Δ).
 */
import { drawsSourceText, type H1Row, type H2Row, type RetrievalAnalysis } from '../../lib/eval/analysis/analysis.ts';
import { hypothesisVerdicts, VERDICT_LABEL, type H1Verdict, type H2Verdict, type Verdict } from '../../lib/eval/analysis/verdicts.ts';
import { fmtCi, fmtP, fmtSigned, fmtValue, NA } from '../../lib/reports/compare-format.ts';

export { fmtP };

const DIGITS = 3;

/** A figure with its interval, "0.412 [0.201, 0.583]"; "n/a" alone when the figure is missing (a constant predictor). */
export function withCi(x: number | null, ci: [number, number] | null, signed = false): string {
  if (x === null || !Number.isFinite(x)) return NA;
  const v = signed ? fmtSigned(x, DIGITS) : fmtValue(x, DIGITS);
  return ci ? `${v} ${fmtCi(ci, DIGITS, signed)}` : v;
}

/** Whether Pearson r has the sign the predictor is expected to have (null: no r, or r = 0). */
export function signMet(row: Pick<H1Row, 'pearson_r' | 'expected'>): boolean | null {
  const r = row.pearson_r;
  if (r === null || !Number.isFinite(r) || r === 0) return null;
  return row.expected === 'negative' ? r < 0 : r > 0;
}

/** A stable id of an H1 row (its predictor field's parts), for the row pick and test ids. */
export const h1RowId = (row: Pick<H1Row, 'predictor' | 'retriever' | 'calibration'>): string =>
  `${row.predictor}.${row.retriever}${row.calibration ? `.${row.calibration}` : ''}`;

export interface H1ViewRow {
  id: string;
  predictor: string;
  retriever: string;
  calibration: string;
  n: string;
  pearson: string;
  p: string;
  spearman: string;
  kendall: string;
  /** "negative ✓", "positive ✗", "negative" (no r to judge). */
  expected: string;
  met: boolean | null;
  note: string;
}

export function h1ViewRows(a: Pick<RetrievalAnalysis, 'h1'>): H1ViewRow[] {
  return a.h1.map((r) => {
    const met = signMet(r);
    return {
      id: h1RowId(r),
      predictor: r.predictor,
      retriever: r.retriever,
      calibration: r.calibration ?? '—',
      n: String(r.n),
      pearson: withCi(r.pearson_r, r.ci95),
      p: fmtP(r.p_value),
      spearman: withCi(r.spearman, r.spearman_ci95),
      kendall: withCi(r.kendall, r.kendall_ci95),
      expected: `${r.expected}${met === null ? '' : met ? ' ✓' : ' ✗'}`,
      met,
      note: r.note ?? '',
    };
  });
}

export interface H2ViewRow {
  id: string;
  a: string;
  b: string;
  n: string;
  delta: string;
  pBootstrap: string;
  pRandomization: string;
  wtl: string;
}

/** The modes H2 pairs (for the filter), in the order they first appear. */
export function h2Modes(a: Pick<RetrievalAnalysis, 'h2'>): string[] {
  return [...new Set(a.h2.flatMap((r) => [r.a, r.b]))];
}

/** The H2 rows, only the pairs with `mode` when one is given ('' or null: all). */
export function h2ViewRows(a: Pick<RetrievalAnalysis, 'h2'>, mode: string | null = null): H2ViewRow[] {
  const keep = (r: H2Row) => !mode || r.a === mode || r.b === mode;
  return a.h2.filter(keep).map((r) => ({
    id: `${r.a}|${r.b}`,
    a: r.a,
    b: r.b,
    n: String(r.n),
    delta: withCi(r.delta, r.ci95, true),
    pBootstrap: fmtP(r.p_value),
    pRandomization: fmtP(r.p_randomization),
    wtl: `${r.wins}/${r.ties}/${r.losses}`,
  }));
}

/** "10,000 resamples · 10,000 permutations · seed 7 · 300 queries · modes: sparse, dense · metric ndcg@10 · draws: the default". */
export function settingsLine(a: RetrievalAnalysis): string {
  const n = (x: number) => x.toLocaleString('en-US');
  return `${n(a.settings.iterations)} bootstrap resamples · ${n(a.settings.permutations)} permutations · seed ${a.settings.seed} · ${n(a.queries)} judged queries · modes: ${a.modes.join(', ') || 'none'} · metric ${a.metric} · ${drawsSourceText(a.settings)}`;
}

export interface VerdictView {
  verdict: Verdict;
  /** Seed B's hypothesis, in its words. */
  hypothesis: string;
  /** "✅", "⚠️", "❌", "–". */
  symbol: string;
  /** "Supported", "Partially supported", "Not supported", "n/a". */
  label: string;
  /** The reason, with the figures it rests on, ending with a full stop. */
  reason: string;
  /** H2's extra line (the rerank pair, the best mode), or ''. */
  extra: string;
}

const verdictView = (v: H1Verdict | H2Verdict): VerdictView => ({
  verdict: v.verdict, hypothesis: v.hypothesis, ...VERDICT_LABEL[v.verdict], reason: `${v.reason}.`, extra: 'extra' in v ? v.extra ?? '' : '',
});

/** The lines under the H1 and H2 tables. */
export function verdictViews(a: RetrievalAnalysis): { h1: VerdictView; h2: VerdictView } {
  const v = hypothesisVerdicts(a);
  return { h1: verdictView(v.h1), h2: verdictView(v.h2) };
}
