/**
 * The text of seed B's analysis of a retrieval report (analysis.ts): the H1 and H2 tables with each hypothesis and
 * its verdict, as `rag-lab analyze` and `rag-lab eval-beir --analyze` print them.
 */
import type { Report } from '../../reports/format.ts';
import { fmtCi, fmtP, fmtSigned, NA } from '../../reports/compare-format.ts';
import { table } from '../../reports/compare-text.ts';
import { reportTitle } from '../../reports/title.ts';
import { drawsSourceText, type RetrievalAnalysis } from './analysis.ts';
import { hypothesisVerdicts, verdictLabel, type H1Verdict, type H2Verdict } from './verdicts.ts';

const fmtR = (x: number | null) => (x === null ? NA : fmtSigned(x, 3));

/** The lines under a hypothesis's table: seed B's hypothesis, the verdict with its reason, and H2's extra line. */
function verdictText(v: H1Verdict | H2Verdict): string[] {
  const extra = 'extra' in v && v.extra ? [`  ${v.extra}`] : [];
  return [`  Hypothesis: ${v.hypothesis}`, `  Verdict: ${verdictLabel(v.verdict)}. ${v.reason}.`, ...extra];
}

/** The H1 and H2 tables as text lines. */
export function analysisText(a: RetrievalAnalysis, report: Report): string[] {
  const verdicts = hypothesisVerdicts(a);
  const out = [
    `Analysis of "${reportTitle(report)}": retrieval on ${report.data.dataset}, ${a.queries} quer${a.queries === 1 ? 'y' : 'ies'} with ${a.metric}; mode${a.modes.length === 1 ? '' : 's'} ${a.modes.join(', ')}`,
    `${a.settings.iterations} bootstrap resamples, ${a.settings.permutations} permutations, seed ${a.settings.seed} (${drawsSourceText(a.settings, { iterations: '--iterations', permutations: '--permutations' })})`,
    '',
    `H1: predictors vs per-query ${a.metric} of the retriever they read`,
  ];
  if (a.h1.length === 0) out.push('  (no predictor in this report)');
  else {
    out.push(...table([
      ['predictor', 'retriever', 'calibration', 'n', 'r', '95% CI', 'p', 'Spearman', 'Kendall', 'expected', 'note'],
      ...a.h1.map((r) => [
        r.predictor, r.retriever, r.calibration ?? '—', String(r.n), fmtR(r.pearson_r), fmtCi(r.ci95, 3, true), fmtP(r.p_value),
        fmtR(r.spearman), fmtR(r.kendall), r.expected === 'negative' ? '−' : '+', r.note ?? '',
      ]),
    ]).map((l) => `  ${l}`));
  }
  out.push(...verdictText(verdicts.h1));
  out.push('', `H2: pairs of modes on per-query ${a.metric} (Δ = a − b; W/T/L: queries where a is better / equal / worse)`);
  if (a.h2.length === 0) out.push('  (fewer than 2 modes)');
  else {
    out.push(...table([
      ['a', 'b', 'n', 'Δ', '95% CI', 'p boot', 'p rand', 'W/T/L'],
      ...a.h2.map((r) => [r.a, r.b, String(r.n), r.delta === null ? NA : fmtSigned(r.delta, 4), fmtCi(r.ci95, 4, true), fmtP(r.p_value), fmtP(r.p_randomization), `${r.wins}/${r.ties}/${r.losses}`]),
    ]).map((l) => `  ${l}`));
  }
  out.push(...verdictText(verdicts.h2));
  out.push('', `r, Spearman ρ and Kendall τ-b: n/a where undefined (a constant side, fewer than 3 queries). Expected: the sign if the predictor works (entropy, α: −).`);
  return out;
}
